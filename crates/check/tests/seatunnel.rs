//! SeaTunnel's checkpoint records: without a failure PR #7476's readers re-read what followed
//! their one snapshot per batch; under the crash point only its readers have (`state-prepared`:
//! after a reader wrote `<id>.prepared`, before the sink saw the record) the PR's restore order
//! loses data, the committed-only design does not.

use batchscope_check::liveness::{run, Limit};
use batchscope_check::oracle::{check, Verdict};
use batchscope_engine::microbatch::event::EventKind;
use batchscope_engine::microbatch::scenario::{preset, presets, CrashKind, CrashPoint};
use batchscope_engine::microbatch::tunnel::Token;
use batchscope_engine::microbatch::World;
use std::collections::{BTreeMap, BTreeSet};

fn at(name: &str, batch_id: u64) -> batchscope_check::oracle::Report {
    let mut s = preset(name).unwrap();
    s.crashes.push(CrashPoint {
        kind: CrashKind::StatePrepared,
        batch_id,
    });
    check(&s)
}

#[test]
fn a_crash_after_prepared_loses_data_only_with_the_prs_restore_order() {
    for (name, batch_id, want) in [
        // PR #7476 loses the crash's rows, on top of the failure-free re-reads.
        (
            "seatunnel-checkpoint-records",
            0,
            Verdict::DuplicatesAndLoss,
        ),
        ("reader-idle-timeout", 1, Verdict::DuplicatesAndLoss),
        ("seatunnel-committed-only", 0, Verdict::ExactlyOnce),
        ("seatunnel-idempotent-sink", 0, Verdict::ExactlyOnce),
    ] {
        let r = at(name, batch_id);
        assert_eq!(
            r.crashes_fired,
            vec![format!("state-prepared@{batch_id}")],
            "{name}"
        );
        assert_eq!(r.verdict, want, "{name}: {r:?}");
        if want == Verdict::DuplicatesAndLoss {
            assert!(r.lost > 0 && !r.lost_keys.is_empty(), "{name}");
        }
    }
}

/// The positions in a state file's text (`t:5`, one line per `saveState`).
fn position(contents: &str) -> u64 {
    contents
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("t:"))
        .and_then(|p| p.parse().ok())
        .expect("a state file holds t:<position>")
}

/// The subtask of a state file path `sources/0/<folder>/<subtask>/<id>.prepared`.
fn subtask(path: &str) -> u32 {
    path.split('/')
        .nth(3)
        .and_then(|s| s.parse().ok())
        .expect("a state file path")
}

/// PR #7476 (apache/seatunnel 34c5d786, `ParallelMicroBatchPartitionReader`): the timer is
/// scheduled once, so at most one `.prepared` per reader and batch, none when a reader closes;
/// the next batch restores from that snapshot and reads every row after it again. Without a
/// failure the append sink holds exactly those rows twice.
#[test]
fn prs_readers_snapshot_once_and_the_next_batch_reads_the_tail_again() {
    for name in ["seatunnel-checkpoint-records", "reader-idle-timeout"] {
        let scenario = preset(name).unwrap();
        let mut world = World::new(scenario.clone());
        run(&mut world, Limit::JUDGE);
        // Per batch and subtask: the start, the snapshot, the rows read.
        let mut start: BTreeMap<(u64, u32), u64> = BTreeMap::new();
        let mut snapshot: BTreeMap<(u64, u32), u64> = BTreeMap::new();
        let mut read: BTreeMap<(u64, u32), u64> = BTreeMap::new();
        let mut closed: BTreeSet<(u64, u32)> = BTreeSet::new();
        for e in world.events() {
            match &e.kind {
                EventKind::GetBatch {
                    batch_id,
                    partitions,
                    ..
                } => {
                    for (c, p) in partitions.iter().enumerate() {
                        let Token::At(at) = p.token else {
                            panic!("{name}: a reader's start")
                        };
                        start.insert((*batch_id, c as u32), at);
                    }
                }
                EventKind::ReaderPolled {
                    batch_id,
                    partition,
                    rows,
                    closes,
                    ..
                } => {
                    *read.entry((*batch_id, *partition)).or_default() += rows;
                    if *closes {
                        closed.insert((*batch_id, *partition));
                    }
                }
                EventKind::StateFile {
                    batch_id,
                    path,
                    renamed_from: None,
                    contents,
                } => {
                    let key = (*batch_id, subtask(path));
                    assert!(
                        !closed.contains(&key),
                        "{name}: a snapshot after close: {path}"
                    );
                    let earlier = snapshot.insert(key, position(contents));
                    assert!(
                        earlier.is_none(),
                        "{name}: a second .prepared in one batch: {path}"
                    );
                }
                _ => {}
            }
        }
        // Every reader of batch 0 takes its one snapshot.
        assert!(
            snapshot.contains_key(&(0, 0)) && snapshot.contains_key(&(0, 1)),
            "{name}"
        );
        let mut re_read = BTreeSet::new();
        for (&(b, c), &at) in &snapshot {
            let Some(&next_start) = start.get(&(b + 1, c)) else {
                continue;
            };
            assert_eq!(
                next_start,
                at,
                "{name}: batch {} subtask {c} restores from batch {b}'s snapshot",
                b + 1
            );
            let end = start[&(b, c)] + read[&(b, c)];
            re_read.extend((at..end).map(|seq| format!("ch{c}-{seq}")));
        }
        let r = check(&scenario);
        assert!(!re_read.is_empty(), "{name}");
        assert_eq!(r.verdict, Verdict::Duplicates, "{name}: {r:?}");
        let dups: BTreeSet<String> = r.duplicate_keys.iter().map(ToString::to_string).collect();
        assert_eq!(dups, re_read, "{name}");
    }
    // The committed-only design snapshots as its readers close: nothing is read twice.
    assert_eq!(
        check(&preset("seatunnel-committed-only").unwrap()).verdict,
        Verdict::ExactlyOnce
    );
}

#[test]
fn only_seatunnel_readers_have_the_state_prepared_point() {
    for p in presets() {
        let r = at(p.name, 1);
        let seatunnel = p.scenario.source.kind
            == batchscope_engine::microbatch::scenario::SourceKind::SeaTunnel
            && p.scenario.source.reader
                != batchscope_engine::microbatch::scenario::ReaderEnd::Never;
        if !seatunnel {
            assert!(r.crashes_fired.is_empty(), "{}: {r:?}", p.name);
        }
    }
}
