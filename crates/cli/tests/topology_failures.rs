//! `batchscope topology` on the failures around the barriers: an exactly-once Kafka sink whose
//! transaction outlives its timeout, a reader restored onto an expired snapshot, a committer
//! notified twice, the checkpoint history counted as Flink counts it, and the bad inputs of
//! those settings named in one line.

use batchscope_cli::topology::{report, run, TopologyArgs};
use batchscope_engine::barrier::{self, BarrierEventKind, TxnState};
use clap::Parser;

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: TopologyArgs,
}

fn args(line: &[&str]) -> TopologyArgs {
    let mut all = vec!["topology"];
    all.extend_from_slice(line);
    Cli::try_parse_from(all).expect("valid flags").args
}

fn restart_ms(preset: &str, job: &str) -> u64 {
    let spec = barrier::preset(preset).expect("preset");
    spec.jobs
        .iter()
        .find(|j| j.name == job)
        .expect("job")
        .restart_ms
}

fn timeout_ms(preset: &str) -> u64 {
    let spec = barrier::preset(preset).expect("preset");
    spec.tables
        .iter()
        .find(|t| t.kind == barrier::TableKind::Kafka)
        .expect("a Kafka table")
        .transaction_timeout()
}

#[test]
fn a_downtime_longer_than_the_transaction_timeout_loses_the_precommitted_rows() {
    let (down, timeout) = (
        restart_ms("kafka-2pc-timeout", "to_kafka"),
        timeout_ms("kafka-2pc-timeout"),
    );
    assert!(
        down > timeout,
        "the preset stays down longer than its timeout"
    );
    let r = report(&args(&["--preset", "kafka-2pc-timeout"])).unwrap();
    let k = r.kafka.as_ref().expect("a Kafka report");
    assert!(k.lost_rows > 0, "{k:?}");
    let aborted: Vec<_> = k
        .transactions
        .iter()
        .filter(|t| t.state == TxnState::Aborted)
        .collect();
    assert_eq!(aborted.len(), 1, "{k:?}");
    assert_eq!(k.lost_rows, u64::from(aborted[0].rows));
    // The aborted transaction is the one the failure left pre-committed, and the restore came
    // after its timeout had run out.
    let aborted_event = r
        .trace
        .iter()
        .find_map(|e| match &e.kind {
            BarrierEventKind::TransactionAborted {
                barrier,
                opened_at_ms,
                timeout_ms,
                ..
            } => Some((*barrier, e.at_ms - opened_at_ms, *timeout_ms)),
            _ => None,
        })
        .expect("an ABORTED event");
    assert_eq!(aborted_event.0, aborted[0].barrier);
    assert!(aborted_event.1 > aborted_event.2, "{aborted_event:?}");
    // Every transaction ends committed or aborted: the committed and lost rows are all rows.
    let all: u64 = k.transactions.iter().map(|t| u64::from(t.rows)).sum();
    assert_eq!(k.committed_rows + k.lost_rows, all);

    let shorter = (timeout / 2).to_string();
    let r = report(&args(&[
        "--preset",
        "kafka-2pc-timeout",
        "--restart-ms",
        &shorter,
    ]))
    .unwrap();
    let k = r.kafka.as_ref().expect("a Kafka report");
    assert_eq!(k.lost_rows, 0, "{k:?}");
    assert_eq!(k.committed_rows, all, "the same rows, all committed");
    assert!(k
        .transactions
        .iter()
        .all(|t| t.state == TxnState::Committed));
}

/// The newest barrier the job completed.
fn done(r: &batchscope_cli::topology::TopologyReport, job: &str) -> u64 {
    r.job_progress[job]
        .completed
        .iter()
        .copied()
        .max()
        .unwrap_or(0)
}

fn gave_up(r: &batchscope_cli::topology::TopologyReport, job: &str) -> Option<u64> {
    r.trace.iter().find_map(|e| match &e.kind {
        BarrierEventKind::JobFailed {
            job: j,
            gave_up_after,
            ..
        } if j == job => *gave_up_after,
        _ => None,
    })
}

#[test]
fn a_reader_without_a_consumer_id_is_stuck_on_its_expired_snapshot_and_one_with_is_clean() {
    let r = report(&args(&["--preset", "paimon-expired-snapshot"])).unwrap();
    let expired_reads = r
        .trace
        .iter()
        .filter(|e| matches!(e.kind, BarrierEventKind::ExpiredSnapshotRead { .. }))
        .count() as u64;
    let attempts = gave_up(&r, "enrich_job").expect("the restart strategy gives up");
    assert_eq!(
        expired_reads, attempts,
        "every restart fails on the expired snapshot"
    );
    let h = &r.checkpoint_history["enrich_job"];
    assert_eq!(h.counts.restored, attempts);
    // Stuck: order_totals never gets past the checkpoint the job restores.
    let restored = h.latest.restored.as_ref().expect("a restore").barrier;
    assert_eq!(done(&r, "enrich_job"), restored);

    let r = report(&args(&[
        "--preset",
        "paimon-expired-snapshot",
        "--consumer-id",
    ]))
    .unwrap();
    assert!(!r
        .trace
        .iter()
        .any(|e| matches!(e.kind, BarrierEventKind::ExpiredSnapshotRead { .. })));
    assert_eq!(gave_up(&r, "enrich_job"), None);
    assert_eq!(done(&r, "enrich_job"), r.barriers);
    assert_eq!(r.checkpoint_history["enrich_job"].counts.restored, 1);
}

#[test]
fn a_committer_that_throws_on_a_repeat_loops_and_an_idempotent_one_goes_on() {
    let r = report(&args(&["--preset", "notify-twice"])).unwrap();
    let renotified = |job: &str| -> Vec<(bool, bool)> {
        r.trace
            .iter()
            .filter_map(|e| match &e.kind {
                BarrierEventKind::CommitRenotified {
                    job: j,
                    repeat,
                    threw,
                    ..
                } if j == job => Some((*repeat, *threw)),
                _ => None,
            })
            .collect()
    };
    assert_eq!(renotified("paimon_job"), vec![(true, false)]);
    let attempts = gave_up(&r, "custom_job").expect("custom_job's restart strategy gives up");
    assert_eq!(
        renotified("custom_job"),
        vec![(true, true); attempts as usize]
    );
    assert_eq!(gave_up(&r, "paimon_job"), None);
    assert_eq!(done(&r, "paimon_job"), r.barriers);
    assert!(done(&r, "custom_job") < r.barriers);
    assert_eq!(r.checkpoint_history["custom_job"].counts.restored, attempts);
    assert_eq!(r.checkpoint_history["paimon_job"].counts.restored, 1);
}

#[test]
fn the_checkpoint_history_counts_what_the_trace_shows() {
    let r = report(&args(&["--preset", "shopping", "--fail", "price_job@2"])).unwrap();
    let failed = r.failovers.iter().filter(|f| f.job == "price_job").count() as u64;
    let h = &r.checkpoint_history["price_job"];
    assert_eq!(h.counts.restored, failed);
    assert_eq!(h.counts.failed, failed, "the checkpoint in flight failed");
    assert_eq!(
        h.counts.total,
        h.counts.completed + h.counts.failed + h.counts.in_progress
    );
    assert_eq!(
        h.counts.completed, r.barriers,
        "every checkpoint completed in the end"
    );
    let restore = h.latest.restored.as_ref().expect("the latest restore");
    assert_eq!(
        restore.id,
        r.failovers
            .iter()
            .find(|f| f.job == "price_job")
            .unwrap()
            .restored_checkpoint
    );
    assert!(!restore.is_savepoint);
    let untouched = &r.checkpoint_history["amount_job"];
    assert_eq!((untouched.counts.failed, untouched.counts.restored), (0, 0));
    assert!(untouched.latest.restored.is_none());
}

fn with(preset: &str, edit: impl FnOnce(&mut serde_json::Value)) -> std::path::PathBuf {
    let mut v = serde_json::to_value(barrier::preset(preset).unwrap()).unwrap();
    edit(&mut v);
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let p = std::env::temp_dir().join(format!(
        "batchscope-{}-{preset}-bad{n}.json",
        std::process::id()
    ));
    std::fs::write(&p, v.to_string()).unwrap();
    p
}

#[test]
fn bad_settings_of_sinks_and_committers_are_named_in_one_line() {
    let cases: Vec<(std::path::PathBuf, &str)> = vec![
        (
            with("kafka-2pc-timeout", |v| {
                v["tables"][1]["transaction_timeout_ms"] = 0.into()
            }),
            "tables[1].transaction_timeout_ms: must be above 0 ms",
        ),
        (
            with("kafka-2pc-timeout", |v| {
                v["tables"][0]["transaction_timeout_ms"] = 5.into()
            }),
            "tables[0].transaction_timeout_ms: only a `kafka` table has a transaction timeout",
        ),
        (
            with("notify-twice", |v| {
                v["jobs"][1]["committer"] = "sometimes".into()
            }),
            "jobs[1].committer",
        ),
        (
            with("notify-twice", |v| {
                v["jobs"][1]
                    .as_object_mut()
                    .unwrap()
                    .remove("restart_attempts");
            }),
            "jobs[1].restart_attempts: a committer that throws",
        ),
        (
            with("paimon-expired-snapshot", |v| {
                v["jobs"][1]
                    .as_object_mut()
                    .unwrap()
                    .remove("restart_attempts");
            }),
            "jobs[1].restart_attempts: a reader without a snapshot guard",
        ),
        (
            with("paimon-expired-snapshot", |v| {
                v["snapshot_retention"] = 0.into();
                v["barriers_per_checkpoint"] = 2.into();
            }),
            "snapshot_retention: 1 snapshots kept cannot hold a checkpoint of 2 barriers",
        ),
        (
            with("kafka-2pc-timeout", |v| {
                v["query"]["tables"] = serde_json::json!(["orders_topic"])
            }),
            "query.tables: `orders_topic` is a Kafka table",
        ),
        (
            with("kafka-2pc-timeout", |v| {
                v["faults"][0]["job"] = "nobody".into()
            }),
            "fail: unknown job `nobody`",
        ),
    ];
    for (path, want) in cases {
        let a = args(&[path.to_str().unwrap()]);
        let e = report(&a).unwrap_err();
        assert!(e.contains(want), "{want}: {e}");
        assert!(!e.contains('\n'), "one line: {e}");
        assert_eq!(run(&a), 2);
        std::fs::remove_file(path).unwrap();
    }
}
