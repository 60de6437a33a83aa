//! Property tests of the FLIP-276 topology world over random ETL topologies (a DAG by
//! construction: a job reads only tables declared before its sink, and every table has one
//! writer): Read Committed and Repeatable Read never mix transactions within a query, Strong
//! queries never disagree, and a failover (with any number of barriers per checkpoint)
//! reproduces the same snapshots as the run without it, reading no expired snapshot.
#![cfg(not(target_arch = "wasm32"))]

use batchscope_engine::barrier::{
    BarrierEventKind, CdcSpec, Consistency, Fault, JobSpec, OperatorSpec, QuerySpec, ReadLevel,
    TableSpec, TopologyRun, TopologySpec, TopologyWorld, CDC_COLUMNS, CDC_SOURCE,
};
use proptest::prelude::*;

/// One derived table's writer: which earlier tables it reads and what it computes.
#[derive(Clone, Debug)]
enum Writer {
    Forward(usize),
    Filter(usize, i64),
    Sum(usize),
    Join(usize, usize),
}

fn cols() -> Vec<String> {
    CDC_COLUMNS.iter().map(|c| c.to_string()).collect()
}

fn writer() -> impl Strategy<Value = Writer> {
    // Indexes are reduced modulo the number of earlier tables when the spec is built.
    prop_oneof![
        (0usize..8).prop_map(Writer::Forward),
        (0usize..8, 1i64..6).prop_map(|(t, k)| Writer::Filter(t, k)),
        (0usize..8).prop_map(Writer::Sum),
        (0usize..8, 0usize..8).prop_map(|(a, b)| Writer::Join(a, b)),
    ]
}

/// A random topology: one root table from CDC, up to four derived ones, up to three queries.
fn topology() -> impl Strategy<Value = TopologySpec> {
    (
        prop::collection::vec((writer(), 0u64..300, 0u64..300, 0u64..40), 1..5),
        prop::collection::vec((0usize..8, 0usize..8, any::<bool>()), 1..4),
        (3u64..6, 1u64..4, 1u32..4),
    )
        .prop_map(
            |(writers, queries, (barriers, per_checkpoint, per_barrier))| {
                let mut tables = vec![TableSpec {
                    name: "t0".into(),
                    columns: cols(),
                    kind: Default::default(),
                    transaction_timeout_ms: None,
                }];
                let mut jobs = vec![job("j0", vec![CDC_SOURCE.into()], vec![], "t0", 20, 50, 0)];
                for (i, (w, process, commit, read)) in writers.into_iter().enumerate() {
                    let n = i + 1;
                    let name = |k: usize| format!("t{}", k % n);
                    let (sources, ops) = match w {
                        Writer::Forward(a) => (vec![name(a)], vec![OperatorSpec::Forward]),
                        Writer::Filter(a, k) => (
                            vec![name(a)],
                            vec![OperatorSpec::Filter {
                                column: "amount".into(),
                                at_least: k,
                            }],
                        ),
                        Writer::Sum(a) => (
                            vec![name(a)],
                            vec![OperatorSpec::GroupSum {
                                keys: vec!["userId".into(), "itemId".into(), "amount".into()],
                                sum: "price".into(),
                                into: "price".into(),
                            }],
                        ),
                        Writer::Join(a, b) if a % n != b % n => (
                            vec![name(a), name(b)],
                            vec![OperatorSpec::Join {
                                on: vec!["userId".into(), "itemId".into()],
                            }],
                        ),
                        Writer::Join(a, _) => (vec![name(a)], vec![OperatorSpec::Forward]),
                    };
                    tables.push(TableSpec {
                        name: format!("t{n}"),
                        columns: cols(),
                        kind: Default::default(),
                        transaction_timeout_ms: None,
                    });
                    jobs.push(job(
                        &format!("j{n}"),
                        sources,
                        ops,
                        &format!("t{n}"),
                        process,
                        commit,
                        read,
                    ));
                }
                let n = tables.len();
                let mut named: Vec<QuerySpec> = queries
                    .into_iter()
                    .enumerate()
                    .map(|(i, (a, b, two))| {
                        let mut t = vec![format!("t{}", a % n)];
                        if two && b % n != a % n {
                            t.push(format!("t{}", b % n));
                        }
                        QuerySpec {
                            name: format!("q{i}"),
                            tables: t,
                            on: vec!["userId".into(), "itemId".into()],
                            ratio: None,
                        }
                    })
                    .collect();
                let query = named.remove(0);
                TopologySpec {
                    schema: Default::default(),
                    name: "random".into(),
                    description: String::new(),
                    barrier_interval_ms: 1000,
                    barriers,
                    no_barriers: false,
                    cdc: vec![CdcSpec {
                        name: CDC_SOURCE.into(),
                        records: vec![],
                        generated_per_barrier: per_barrier,
                        users: 2,
                        items: 2,
                    }],
                    tables,
                    jobs,
                    query,
                    queries: named,
                    barriers_per_checkpoint: per_checkpoint.min(barriers),
                    revisions: vec![],
                    snapshot_retention: 1,
                    faults: vec![],
                }
            },
        )
}

fn job(
    name: &str,
    sources: Vec<String>,
    operators: Vec<OperatorSpec>,
    sink: &str,
    process_ms: u64,
    commit_ms: u64,
    read_ms: u64,
) -> JobSpec {
    JobSpec {
        name: name.into(),
        sources,
        operators,
        sink: sink.into(),
        read_ms,
        process_ms,
        commit_ms,
        restart_ms: 300,
        checkpoint_interval_ms: 700,
        committer: None,
        restart_attempts: None,
        snapshot_guard: Default::default(),
    }
}

fn world(spec: &TopologySpec, seed: u64, faults: Vec<Fault>) -> TopologyWorld {
    TopologyWorld::from_run(TopologyRun {
        barriers: spec.barriers,
        spec: spec.clone(),
        seed,
        faults,
    })
    .expect("a generated topology is valid")
}

/// Per table: each snapshot's id, barrier and the rows it holds.
type Snapshots = Vec<(String, Vec<(u64, u64, Vec<(Vec<i64>, Vec<i64>)>)>)>;

fn snapshots(w: &TopologyWorld) -> Snapshots {
    w.tables()
        .iter()
        .map(|t| {
            let s = t
                .snapshots
                .iter()
                .map(|s| {
                    (
                        s.snapshot.id,
                        s.barrier,
                        t.rows_at(s.barrier).into_iter().collect(),
                    )
                })
                .collect();
            (t.name.clone(), s)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn rc_and_rr_never_mix_and_strong_queries_never_disagree(spec in topology(), seed in 0u64..1000) {
        let mut w = world(&spec, seed, vec![]);
        while w.step().is_some() {
            for level in [ReadLevel::ReadCommitted, ReadLevel::RepeatableRead] {
                for c in [Consistency::Strong, Consistency::Weak] {
                    let results: Vec<_> = w.named_queries(level, c).iter().map(|q| w.query(q)).collect();
                    for r in &results {
                        prop_assert!(r.consistent, "{} at {level:?} {c:?}: {:?}", r.name, r.reads);
                    }
                    if c == Consistency::Strong {
                        let mut seen = std::collections::BTreeMap::new();
                        for t in results.iter().flat_map(|r| &r.reads) {
                            let first = *seen.entry(t.table.clone()).or_insert(t.barrier);
                            prop_assert_eq!(first, t.barrier, "Strong queries disagree on {}", t.table);
                        }
                    }
                }
            }
        }
        prop_assert_eq!(w.meta().committed, spec.barriers);
    }

    #[test]
    fn a_failover_replays_to_the_same_snapshots(
        spec in topology(),
        seed in 0u64..1000,
        job in 0usize..8,
        barrier in 1u64..6,
        step in 0u64..80,
    ) {
        let mut clean = world(&spec, seed, vec![]);
        clean.run_to_end();
        prop_assume!(step < clean.steps());
        let job = spec.jobs[job % spec.jobs.len()].name.clone();
        let faults = vec![
            Fault::FailBeforeWritten { job: job.clone(), barrier: 1 + (barrier - 1) % spec.barriers },
            Fault::FailAtStep { job, step },
        ];
        let mut failed = world(&spec, seed, faults);
        failed.run_to_end();
        prop_assert_eq!(failed.meta().committed, spec.barriers);
        let failovers = failed
            .trace()
            .iter()
            .filter(|e| matches!(e.kind, BarrierEventKind::JobFailed { .. }))
            .count();
        prop_assert!(failovers > 0, "the fault struck");
        // Expiry keeps what a restored checkpoint replays (retention 1, up to 3 barriers a
        // checkpoint): no job reads an expired snapshot.
        let expired_reads: Vec<_> = failed
            .trace()
            .iter()
            .filter(|e| matches!(e.kind, BarrierEventKind::SourceEmit { expired_snapshot: Some(_), .. }))
            .collect();
        prop_assert!(expired_reads.is_empty(), "{:?}", expired_reads);
        prop_assert_eq!(snapshots(&failed), snapshots(&clean));
    }
}
