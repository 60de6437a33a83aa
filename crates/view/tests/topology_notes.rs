//! The topology step notes say what the run does, in the runs where "PRECOMMIT" and "the
//! tables a query depends on" part ways: a query over one side table (`sideonly`), the
//! three-queries preset under Weak, and a diamond under Weak with a failure before PRECOMMIT.
//! After every event the claims of its note are checked against the queries at Read
//! Committed and Repeatable Read.

use batchscope_engine::barrier::{
    self, lineage, BarrierEventKind, Consistency, Fault, QueryResult, ReadLevel, TopologyRun,
    TopologySpec, TopologyWorld,
};
use batchscope_view::topology::step_text;

fn spec(text: &str) -> TopologySpec {
    TopologySpec::from_json(text).expect("a valid topology")
}

/// The runs the notes are checked on: name, run, consistency.
fn runs() -> Vec<(&'static str, TopologyRun, Consistency)> {
    let run = |spec: TopologySpec, faults: Vec<Fault>| TopologyRun {
        barriers: spec.barriers,
        spec,
        seed: 1,
        faults,
    };
    let fail = |job: &str, barrier| Fault::FailBeforeWritten {
        job: job.into(),
        barrier,
    };
    vec![
        (
            "sideonly",
            run(spec(include_str!("topologies/sideonly.json")), vec![]),
            Consistency::Strong,
        ),
        (
            "three-queries weak",
            run(
                barrier::preset("three-queries").unwrap(),
                vec![fail("amount_job", 2)],
            ),
            Consistency::Weak,
        ),
        (
            "diamond weak, amt fails at 3",
            run(
                spec(include_str!("topologies/diamond.json")),
                vec![fail("amt", 3)],
            ),
            Consistency::Weak,
        ),
    ]
}

fn answers(w: &TopologyWorld, level: ReadLevel, c: Consistency) -> Vec<QueryResult> {
    w.named_queries(level, c)
        .iter()
        .map(|q| w.query(q))
        .collect()
}

/// The barrier each table of each query was read at, by query and table.
fn reads(rs: &[QueryResult]) -> Vec<(String, String, u64)> {
    rs.iter()
        .flat_map(|r| {
            r.reads
                .iter()
                .map(|t| (r.name.clone(), t.table.clone(), t.barrier))
        })
        .collect()
}

#[test]
fn every_step_note_is_true_in_the_runs_where_precommit_and_a_query_s_tables_part_ways() {
    for (name, run, c) in runs() {
        let mut w = TopologyWorld::from_run(run).unwrap();
        let all_tables = w.tables().len();
        let mut before = w.clone();
        let mut seen_early_read = false;
        let mut went_back = 0;
        while let Some(e) = w.step() {
            let note = step_text(&e.kind, false);
            let at = format!("{name} #{}: {note}", e.step);
            // The notes speak of the tables a query depends on, not of PRECOMMIT/COMMIT, when
            // they say what Read Committed and Repeatable Read read.
            match &e.kind {
                BarrierEventKind::Processed { .. }
                | BarrierEventKind::SnapshotWritten { .. }
                | BarrierEventKind::Precommit { .. }
                | BarrierEventKind::Commit { .. } => {
                    assert!(
                        note.contains("every related table the query depends on"),
                        "{at}"
                    )
                }
                BarrierEventKind::JobFailed { lost_barriers, .. } if !lost_barriers.is_empty() => {
                    assert!(note.contains("PRECOMMIT or not"), "{at}")
                }
                _ => {}
            }
            for level in [ReadLevel::ReadCommitted, ReadLevel::RepeatableRead] {
                for r in answers(&w, level, c) {
                    let spec = w
                        .spec()
                        .all_queries()
                        .into_iter()
                        .find(|q| q.name == r.name)
                        .unwrap();
                    // "reads a barrier once it is PROCESSED (WRITTEN) in every related table
                    // the query depends on" (tables fed by a common CDC source): never before.
                    let deps = lineage(w.meta(), spec);
                    let groups = barrier::related_groups(w.meta(), &deps);
                    for t in &r.reads {
                        let group = groups
                            .iter()
                            .find(|g| g.contains(&t.table))
                            .cloned()
                            .unwrap_or_else(|| deps.clone());
                        for dep in group {
                            let table = w.table(&dep).unwrap();
                            let has = match level {
                                ReadLevel::RepeatableRead => table.written(),
                                _ => table.processed(),
                            };
                            assert!(
                                t.barrier <= has,
                                "{at}: {} reads {} at {} > {dep}'s {has}",
                                r.name,
                                t.table,
                                t.barrier
                            );
                        }
                    }
                    let over_all = lineage(w.meta(), spec).len() == all_tables;
                    let newest = r.reads.iter().map(|t| t.barrier).min().unwrap_or(0);
                    match (&e.kind, level) {
                        // "a query over all the tables reads barrier N by now, one over fewer
                        // tables may have read it earlier".
                        (BarrierEventKind::Precommit { barrier }, ReadLevel::ReadCommitted)
                        | (BarrierEventKind::Commit { barrier }, ReadLevel::RepeatableRead) => {
                            if over_all {
                                assert!(newest >= *barrier, "{at}: {} reads {newest}", r.name);
                            } else if newest >= *barrier {
                                seen_early_read = true;
                            }
                        }
                        _ => {}
                    }
                }
                // A failure: Read Committed goes back only in a query that had read a lost
                // barrier of the failed table; Repeatable Read never goes back.
                if let BarrierEventKind::JobFailed {
                    table,
                    lost_barriers,
                    ..
                } = &e.kind
                {
                    let was = reads(&answers(&before, level, c));
                    let now = reads(&answers(&w, level, c));
                    for ((q, t, b0), (_, _, b1)) in was.iter().zip(&now) {
                        if b1 < b0 {
                            went_back += 1;
                            assert_eq!(
                                level,
                                ReadLevel::ReadCommitted,
                                "{at}: {q} went back at RR"
                            );
                            let read_lost = was.iter().any(|(q2, t2, b)| {
                                q2 == q && t2 == table && lost_barriers.iter().any(|l| l <= b)
                            });
                            assert!(
                                read_lost,
                                "{at}: {q} went back on {t} without a lost barrier read"
                            );
                        }
                    }
                    if lost_barriers.is_empty() {
                        assert_eq!(was, now, "{at}: nothing lost, nothing goes back");
                    }
                }
            }
            before = w.clone();
        }
        assert!(w.is_drained(), "{name}");
        // The runs were chosen so that some query reads a barrier before it is PRECOMMIT or
        // COMMIT: the words "by now … may have read it earlier" are exercised.
        assert!(seen_early_read, "{name}: no query read a barrier early");
        // And where a job fails, some query at Read Committed does go back (the diamond's
        // failure is before PRECOMMIT: the words "PRECOMMIT or not" are exercised).
        let fails = w.run().faults.len();
        assert_eq!(
            went_back > 0,
            fails > 0,
            "{name}: {went_back} reads went back"
        );
    }
}
