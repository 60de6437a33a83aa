//! Every preset crashed at every named point of batch 3, judged by the oracle against SEMANTICS §8.

use batchscope_check::{check, Verdict};
use batchscope_engine::microbatch::scenario::{preset, presets, CrashKind, CrashPoint};

use Verdict::{
    DataLoss as L, Duplicates as D, DuplicatesAndLoss as X, ExactlyOnce as E, Stuck as S,
};

/// Expected verdict per crash point of batch `batch`, in `CrashKind::ALL` order:
/// get-offset, offset-log, source-commit, get-batch, task, sink-commit, commit-log.
/// `None`: the point does not exist in that execution (it must never fire). The SeaTunnel-only
/// point `state-prepared` is judged in `crates/check/tests/seatunnel.rs`.
type Row = (&'static str, u64, [Option<Verdict>; 7]);

const fn all(v: [Verdict; 7]) -> [Option<Verdict>; 7] {
    [
        Some(v[0]),
        Some(v[1]),
        Some(v[2]),
        Some(v[3]),
        Some(v[4]),
        Some(v[5]),
        Some(v[6]),
    ]
}

const TABLE: &[Row] = &[
    // Replayable source + file sink that skips committed batch ids: exactly-once everywhere.
    ("kafka-idempotent", 3, all([E, E, E, E, E, E, E])),
    // Append: rows of finished tasks (task) or of the whole batch (sink-commit) are appended again.
    ("kafka-append", 3, all([E, E, E, E, D, D, E])),
    // Tablestore + upsert by key: a re-run may read more rows, the key absorbs the repeat.
    ("tablestore", 3, all([E, E, E, E, E, E, E])),
    ("tablestore-append", 3, all([E, E, E, E, D, D, E])),
    // Batch 3 reads the split parent to its end; its `finished` row is deleted by the commit
    // of batch 4 (see `a_finished_start_row_left_by_a_crash_is_a_crash_loop` for batch 4).
    ("tablestore-split", 3, all([E, E, E, E, E, E, E])),
    // §8: a two-phase sink de-duplicating only at the driver's commit loses the extra rows a re-run read.
    ("tablestore-two-phase", 3, all([E, E, E, E, E, L, E])),
    // Pull-ahead: real offsets in offsets/N, replay reads the same range: as the replayable source.
    ("pull-ahead", 3, all([E, E, E, E, E, E, E])),
    // Auto-commit: the tasks still in flight at `task` had read (and committed) rows they never wrote.
    // At sink-commit every row read was already upserted, so nothing is lost (§8 overstates this case).
    ("auto-commit", 3, all([E, E, E, E, L, E, E])),
    // foreachBatch to a random store: not yet written at `task`; written once and again elsewhere at sink-commit.
    ("foreach-batch-multi", 3, all([E, E, E, E, E, D, E])),
    ("sink-outage", 3, all([E, E, E, E, E, E, E])),
    // Continuous processing (§2): writers commit an epoch before commits/e; a restart replays it.
    // There is no getOffset or getBatch in continuous mode.
    (
        "continuous-epochs",
        3,
        [None, Some(E), Some(E), None, Some(D), Some(D), Some(E)],
    ),
    // SeaTunnel (§4): the never-closing reader passes only the first three points of batch 0.
    (
        "reader-never-closes",
        0,
        [Some(S), Some(S), None, Some(S), None, None, None],
    ),
    // PR #7476's readers as its code does them (idle timeout, and checkpoint records): one
    // snapshot per reader and batch, none at close, so every batch re-reads what followed its
    // snapshot — duplicates without a crash, which no crash point of these batches removes.
    // (The PR's loss is at `state-prepared`, judged in crates/check/tests/seatunnel.rs.)
    ("reader-idle-timeout", 1, all([D, D, D, D, D, D, D])),
    (
        "seatunnel-checkpoint-records",
        0,
        [Some(D), Some(D), None, Some(D), Some(D), Some(D), Some(D)],
    ),
    // The committed-only design: rows visible before the rename, restore from `.committed`
    // only: a crash between them replays the record's rows — duplicates, never loss.
    (
        "seatunnel-committed-only",
        0,
        [Some(E), Some(E), None, Some(E), Some(E), Some(D), Some(E)],
    ),
    // The same design into a sink idempotent by key: the replay is absorbed.
    (
        "seatunnel-idempotent-sink",
        0,
        [Some(E), Some(E), None, Some(E), Some(E), Some(E), Some(E)],
    ),
    // The merged dev reader: whatever happens in batch 0, latestOffset never moves past it.
    (
        "seatunnel-dev-timer",
        0,
        [Some(S), Some(S), None, Some(S), Some(S), Some(S), Some(S)],
    ),
    // The checkpoint folder deleted after batch 2 (the preset's fault): a new query with
    // startingOffsets=latest skips what arrived while it was down, whatever else happens (and
    // a crash after the append sink wrote batch 1 duplicates it as in kafka-append) …
    ("checkpoint-deleted-latest", 1, all([L, L, L, L, X, X, L])),
    // … and with earliest it reads the topic again into the append sink.
    ("checkpoint-deleted-earliest", 1, all([D, D, D, D, D, D, D])),
    // latestBatchId in a driver-side field: the restarted driver forgets it (§1.7), so the
    // re-run after sink-commit writes the batch again; before the sink wrote, nothing to repeat.
    ("batch-id-in-memory", 3, all([E, E, E, E, E, D, E])),
    // The V1 KafkaSource: the extra getBatch on restart changes no verdict (as kafka-append).
    ("kafka-v1-source", 3, all([E, E, E, E, D, D, E])),
    // Retention with failOnDataLoss=true: batch 1's logged range ages out during the sink's
    // outage and every restart fails on it, whatever crash came first; batch 1 never reaches
    // its sink commit, so those two points never fire.
    (
        "kafka-retention-fail",
        1,
        [Some(S), Some(S), Some(S), Some(S), Some(S), None, None],
    ),
    // failOnDataLoss=false: the re-run skips what retention deleted, whatever crash came first.
    ("kafka-retention-skip", 1, all([L, L, L, L, L, L, L])),
    // A torn offsets/2: every restart fails to read it, whatever crash came first.
    ("torn-offset-log", 2, all([S, S, S, S, S, S, S])),
    // A lost metadata file on Spark 3.5 under a txnAppId = query id sink: the re-run of batch 2
    // after its write is applied again under the new id.
    ("metadata-lost-txn-sink", 2, all([D, D, D, D, D, D, D])),
    // A second driver on the checkpoint re-runs batch 2 after its write, whatever crash came
    // first (a crash before the stall re-runs batch 2 in the next run, which then stalls).
    ("two-drivers", 2, all([D, D, D, D, D, D, D])),
    // Async progress tracking turned off at the restart: offsets/3 is on disk and offsets/2 is
    // not, so from offsets/3 on every ordinary restart is refused (a crash before it re-reads
    // batch 1 from offsets/0).
    (
        "async-progress-off",
        3,
        [Some(D), Some(S), None, Some(S), Some(S), Some(S), Some(S)],
    ),
    // Async progress tracking: only batch 0's entries are on disk by batch 2, so any crash in
    // batch 2 re-reads batch 1 (the source's commit step is not taken: it never fires).
    (
        "async-progress",
        2,
        [Some(D), Some(D), None, Some(D), Some(D), Some(D), Some(D)],
    ),
    // A second source at every restart: Spark refuses each, whatever crash came first.
    ("evolution-source-added", 2, all([S, S, S, S, S, S, S])),
    // The backlog's batch 2 over a task's memory budget, the limit set at restart 4: a crash
    // before offsets/2 is written is a restart too, so the limit comes before the batch is
    // logged and every batch fits; from offsets/2 on, each restart re-runs the logged range
    // and runs out of memory (no task of batch 2 ever finishes: its last three points never
    // fire).
    (
        "backlog-crash-loop",
        2,
        [Some(E), Some(S), Some(S), Some(S), None, None, None],
    ),
    // The limit set at the first restart, before the backlog's batch was logged.
    ("backlog-limited", 2, all([E, E, E, E, E, E, E])),
];

#[test]
fn the_table_covers_every_preset() {
    let mut names: Vec<&str> = TABLE.iter().map(|(n, _, _)| *n).collect();
    names.sort_unstable();
    let mut all: Vec<&str> = presets().iter().map(|p| p.name).collect();
    all.sort_unstable();
    assert_eq!(names, all);
}

#[test]
fn every_preset_without_crash_reaches_its_promise() {
    for p in presets() {
        let r = check(&p.scenario);
        if !p.scenario.faults.is_empty() {
            // The checkpoint-deleted presets fail by design: their verdicts are in TABLE.
            assert!(r.expected > 0, "{} delivers nothing", p.name);
            assert_ne!(r.verdict, Verdict::ExactlyOnce, "{}: {r:?}", p.name);
            continue;
        }
        if p.name == "seatunnel-dev-timer" {
            // Batch 0 ends on a timer and commits; no batch after it is ever constructed.
            assert_eq!((r.verdict, r.batches_committed), (Verdict::Stuck, 1));
            continue;
        }
        if matches!(
            p.name,
            "reader-idle-timeout" | "seatunnel-checkpoint-records"
        ) {
            // PR #7476's readers re-read what followed their one snapshot per batch (derived
            // key by key in crates/check/tests/seatunnel.rs).
            assert_eq!((r.verdict, r.lost), (Verdict::Duplicates, 0), "{}", p.name);
            assert!(r.batches_committed >= 2, "{}: batches commit", p.name);
            continue;
        }
        if p.name == "kafka-retention-fail" {
            // Every restart fails on the aged-out range: nothing is skipped, nothing moves.
            assert_eq!((r.verdict, r.aged_out), (Verdict::Stuck, 0), "{r:?}");
            assert!(r.runs > 3, "a restart loop: {} runs", r.runs);
            continue;
        }
        if p.name == "metadata-lost-txn-sink" {
            // The new query id makes the table apply batch 2's re-run again.
            assert_eq!((r.verdict, r.lost), (Verdict::Duplicates, 0), "{r:?}");
            continue;
        }
        if p.name == "torn-offset-log" {
            // Every restart fails reading the empty offsets/2: a restart loop, nothing moves.
            assert_eq!(
                (r.verdict, r.batches_committed),
                (Verdict::Stuck, 2),
                "{r:?}"
            );
            assert!(r.runs > 3, "a restart loop: {} runs", r.runs);
            continue;
        }
        if p.name == "backlog-crash-loop" {
            // The logged backlog batch runs out of memory on every restart.
            assert_eq!(
                (r.verdict, r.batches_committed),
                (Verdict::Stuck, 2),
                "{r:?}"
            );
            assert!(r.runs > 5, "a restart loop: {} runs", r.runs);
            continue;
        }
        if p.name == "kafka-retention-skip" {
            // Every record missing is one retention deleted before a task read it.
            assert_eq!(r.verdict, Verdict::DataLoss, "{r:?}");
            assert!(r.lost > 0 && r.duplicates == 0, "{r:?}");
            assert_eq!((r.aged_out, &r.aged_out_keys), (r.lost, &r.lost_keys));
            continue;
        }
        if p.name == "reader-never-closes" {
            // Seed 001: the batch never ends, nothing is committed.
            assert_eq!(
                (r.verdict, r.batches_committed, r.delivered),
                (Verdict::Stuck, 0, 0)
            );
            continue;
        }
        assert!(r.expected > 0, "{} delivers nothing", p.name);
        assert_eq!(r.verdict, Verdict::ExactlyOnce, "{}: {r:?}", p.name);
        assert_eq!(r.delivered, r.expected, "{}", p.name);
        assert!(r.batches_committed >= 2, "{}: batches commit", p.name);
    }
}

#[test]
fn every_named_crash_point_reaches_the_predicted_verdict() {
    let mut failures = vec![];
    for (name, batch_id, verdicts) in TABLE {
        for (kind, want) in CrashKind::ALL.into_iter().zip(verdicts) {
            let mut s = preset(name).unwrap();
            let point = CrashPoint {
                kind,
                batch_id: *batch_id,
            };
            s.crashes.push(point);
            let r = check(&s);
            let Some(want) = want else {
                if !r.crashes_fired.is_empty() {
                    failures.push(format!("{name} {point}: must not exist, but fired"));
                }
                continue;
            };
            if r.crashes_fired != vec![point.to_string()] && *want != Verdict::Stuck {
                failures.push(format!(
                    "{name} {point}: crash did not fire ({:?})",
                    r.crashes_unreached
                ));
            }
            if r.verdict != *want {
                failures.push(format!(
                    "{name} {point}: expected {want}, got {} (dup {}, lost {}) — batchscope run --preset {name} --crash {point}",
                    r.verdict, r.duplicates, r.lost
                ));
            }
            match r.verdict {
                Verdict::Duplicates => {
                    assert!(r.duplicates > 0 && r.lost == 0 && !r.duplicate_keys.is_empty())
                }
                Verdict::DataLoss => {
                    assert!(r.lost > 0 && r.duplicates == 0 && !r.lost_keys.is_empty())
                }
                Verdict::ExactlyOnce => assert_eq!((r.duplicates, r.lost), (0, 0)),
                _ => {}
            }
        }
    }
    assert!(
        failures.is_empty(),
        "verdicts differ from SEMANTICS §8:\n{}",
        failures.join("\n")
    );
}

/// SEMANTICS §8, "Tablestore finished start row" (inferred from the connector's code): only
/// a crash between `offsets/4` and `source.commit(end_3)` leaves ch0's `finished` row as a start
/// row of the re-run; its task throws on every attempt: a crash loop, stuck.
#[test]
fn a_finished_start_row_left_by_a_crash_is_a_crash_loop() {
    let want = [E, S, E, E, E, E, E];
    let mut failures = vec![];
    for (kind, want) in CrashKind::ALL.into_iter().zip(want) {
        let mut s = preset("tablestore-split").unwrap();
        let point = CrashPoint { kind, batch_id: 4 };
        s.crashes.push(point);
        let r = check(&s);
        if r.verdict != want || r.crashes_fired != vec![point.to_string()] {
            failures.push(format!(
                "{point}: expected {want}, got {} ({:?})",
                r.verdict, r.crashes_fired
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_crash_restarts_the_driver_and_reruns_or_moves_on_as_spark_does() {
    use batchscope_engine::microbatch::event::{EventKind, Recovery};
    use batchscope_engine::microbatch::World;
    // offset-log@3: offsets/3 exists, commits/3 does not → re-run 3; commit-log@3 → next batch 4.
    for (kind, want) in [
        (CrashKind::OffsetLog, Recovery::Rerun { batch_id: 3 }),
        (CrashKind::CommitLog, Recovery::Next { batch_id: 4 }),
    ] {
        let mut s = preset("kafka-append").unwrap();
        s.crashes.push(CrashPoint { kind, batch_id: 3 });
        let mut w = World::new(s);
        let mut seen = None;
        for _ in 0..400 {
            if let EventKind::Recovered { recovery, .. } = w.step().kind {
                if w.run() == 2 {
                    seen = Some(recovery);
                    break;
                }
            }
        }
        assert_eq!(seen, Some(want), "{kind:?}");
    }
}

#[test]
fn a_second_driver_reruns_the_batch_and_the_first_loses_the_commit_log_race() {
    use batchscope_engine::microbatch::event::{EventKind, Recovery};
    use batchscope_engine::microbatch::World;
    let scenario = preset("two-drivers").unwrap();
    let mut w = World::new(scenario.clone());
    while !w.is_converged() {
        w.step();
    }
    let events = w.events();
    let at = |pred: &dyn Fn(&EventKind) -> bool| events.iter().position(|e| pred(&e.kind));
    let stalled = at(&|k| matches!(k, EventKind::DriverStalled { batch_id: 2 })).unwrap();
    let rerun = at(&|k| {
        matches!(
            k,
            EventKind::Recovered {
                recovery: Recovery::Rerun { batch_id: 2 },
                ..
            }
        )
    })
    .unwrap();
    let committed = at(&|k| matches!(k, EventKind::CommitLogWritten { batch_id: 2, .. })).unwrap();
    assert!(
        stalled < rerun && rerun < committed,
        "{stalled} {rerun} {committed}"
    );
    match &events[committed + 1].kind {
        EventKind::DriverLostLogRace { batch_id: 2, error } => assert!(
            error.contains("Concurrent update to the log. Multiple streaming jobs detected for 2"),
            "{error}"
        ),
        other => panic!("after commits/2 the first driver fails, not {other:?}"),
    }
    // The duplicates are batch 2's rows as the first driver's tasks appended them.
    let first_rows: u64 = events[..stalled]
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::TaskFinished {
                batch_id: 2, rows, ..
            } => Some(rows),
            _ => None,
        })
        .sum();
    let r = check(&scenario);
    assert_eq!(
        (r.verdict, r.duplicates, r.runs),
        (D, first_rows, 2),
        "{r:?}"
    );
}

#[test]
fn source_commit_of_the_previous_batch_is_not_repeated_on_the_rerun_path() {
    use batchscope_engine::microbatch::event::EventKind;
    use batchscope_engine::microbatch::World;
    // SEMANTICS §1.5/§1.6: after a crash between offsets/3 and source.commit(end_2), the re-run of 3
    // does not call commit(end_2); the next commit call is commit(end_3) while constructing batch 4.
    let mut s = preset("tablestore").unwrap();
    s.crashes.push(CrashPoint {
        kind: CrashKind::OffsetLog,
        batch_id: 3,
    });
    let mut w = World::new(s);
    batchscope_check::oracle::run(&mut w, batchscope_check::oracle::Limit::JUDGE);
    let commits: Vec<u64> = w
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::SourceCommit { batch_id, .. } => Some(*batch_id),
            _ => None,
        })
        .collect();
    assert!(
        !commits.contains(&2),
        "commit(end_2) must be lost to the crash: {commits:?}"
    );
    assert!(commits.contains(&1) && commits.contains(&3), "{commits:?}");
}

#[test]
fn tablestore_checkpoints_reach_the_tunnel_one_batch_late() {
    use batchscope_engine::microbatch::event::EventKind;
    use batchscope_engine::microbatch::World;
    let mut w = World::new(preset("tablestore").unwrap());
    batchscope_check::oracle::run(&mut w, batchscope_check::oracle::Limit::JUDGE);
    // Every SourceCommit pushes the end of the previous batch, read back from offsets/N-1.
    for e in w.events() {
        if let EventKind::SourceCommit {
            batch_id,
            end,
            checkpoints,
            ..
        } = &e.kind
        {
            let seq = w.checkpoint.offsets(*batch_id).unwrap().unwrap();
            assert_eq!(seq.offsets[0].as_deref(), Some(end.as_str()));
            assert!(!checkpoints.is_empty());
        }
    }
}

#[test]
fn a_child_channel_opens_only_after_its_parent_finished_checkpoint_reaches_the_server() {
    use batchscope_engine::microbatch::event::EventKind;
    use batchscope_engine::microbatch::tunnel::{ChannelStatus, Token};
    use batchscope_engine::microbatch::upstream::ChannelId;
    use batchscope_engine::microbatch::World;
    let mut w = World::new(preset("tablestore-split").unwrap());
    batchscope_check::oracle::run(&mut w, batchscope_check::oracle::Limit::JUDGE);
    let ev = w.events();
    let opened = ev
        .iter()
        .position(|e| {
            matches!(
                &e.kind,
                EventKind::ChannelState {
                    channel: ChannelId(2),
                    state: ChannelStatus::Open
                }
            )
        })
        .expect("child opens");
    let finished_pushed = ev
        .iter()
        .position(|e| matches!(&e.kind, EventKind::SourceCommit { checkpoints, .. } if checkpoints.iter().any(|c| c.channel == ChannelId(0) && c.token == Token::Finished)))
        .expect("parent's finished checkpoint is committed");
    assert!(finished_pushed < opened);
    let child_read = ev
        .iter()
        .position(|e| {
            matches!(
                &e.kind,
                EventKind::TaskRead {
                    channel: ChannelId(2),
                    ..
                }
            )
        })
        .expect("child is read");
    assert!(opened < child_read);
}

#[test]
fn the_pull_ahead_design_reads_every_row_in_get_offset_and_caches_it() {
    let r = check(&preset("pull-ahead").unwrap());
    assert_eq!(
        r.source.rows_read_ahead, r.expected,
        "every row is read ahead once"
    );
    assert!(r.source.rows_cached_peak > 0);
    let t = check(&preset("tablestore").unwrap());
    assert_eq!(
        t.source.rows_read_ahead, 0,
        "the UUID design reads nothing in get_offset"
    );
}

#[test]
fn a_sink_outage_fails_task_attempts_first_and_loses_nothing() {
    use batchscope_engine::microbatch::event::EventKind;
    use batchscope_engine::microbatch::World;
    let s = preset("sink-outage").unwrap();
    let mut w = World::new(s.clone());
    batchscope_check::oracle::run(&mut w, batchscope_check::oracle::Limit::JUDGE);
    let events = w.events();
    // Each query failure follows task_max_failures failed attempts of one task, the last not
    // retried: a down store fails tasks, and Spark retries them before the job fails.
    let mut attempts = vec![];
    let mut query_failures = 0;
    for e in events {
        match &e.kind {
            EventKind::TaskFailed {
                attempt,
                retried,
                sink_down,
                ..
            } => {
                assert!(sink_down.is_some(), "no task-fail fault: the store refused");
                assert_eq!(*retried, *attempt < s.task_max_failures);
                attempts.push(*attempt);
            }
            EventKind::QueryFailed { reason } => {
                query_failures += 1;
                assert!(reason.contains("failed 4 times"), "{reason}");
                let max = s.task_max_failures;
                assert_eq!(attempts.split_off(0), (1..=max).collect::<Vec<_>>());
            }
            EventKind::SinkWriteFailed { .. } => panic!("a task write is retried, not failed"),
            _ => {}
        }
    }
    assert!(query_failures > 0, "the long outage outlasts the retries");
    // The short outage: attempts fail and a retry writes, with no query failure after them.
    assert!(!attempts.is_empty() && attempts.len() < s.task_max_failures as usize);
    // While writes failed, commits/N was never written for the failing batch before it succeeded.
    let first_fail = events
        .iter()
        .position(|e| matches!(e.kind, EventKind::TaskFailed { .. }))
        .unwrap();
    let failed_batch = events[first_fail].kind.batch_id().unwrap();
    let commit = events
        .iter()
        .position(|e| matches!(e.kind, EventKind::CommitLogWritten { batch_id, .. } if batch_id == failed_batch))
        .unwrap();
    assert!(commit > first_fail);
    let r = check(&s);
    assert_eq!(r.verdict, Verdict::ExactlyOnce);
    assert!(
        r.rewrites > 0,
        "rows written before the failure are written again, absorbed by the upsert key"
    );
    assert_eq!(r.runs, query_failures + 1);
}

#[test]
fn a_stopped_query_counts_what_it_never_read_as_unread_not_lost() {
    use batchscope_engine::microbatch::scenario::Restart;
    let mut s = preset("kafka-append").unwrap();
    s.restart = Some(Restart::None);
    s.crashes.push("sink-commit@3".parse().unwrap());
    let r = check(&s);
    assert_eq!(r.verdict, Verdict::Stopped);
    assert_eq!((r.lost, r.duplicates), (0, 0));
    assert!(r.unread > 0);
    assert_eq!(r.unread_keys.len() as u64, r.unread);
    // The unread records are exactly those the same crash with a restart delivers after it:
    // the restarted run holds every expected record, and the stopped one lacked these.
    let mut restarted = s.clone();
    restarted.restart = None;
    let again = check(&restarted);
    assert_eq!(again.lost, 0);
    assert_eq!(r.expected, again.expected);
    assert!(r.runs == 1 && again.runs == 2);
    // Nothing stops a run without a failure: it is judged as any other.
    s.crashes.clear();
    assert_eq!(check(&s).verdict, Verdict::ExactlyOnce);
}

#[test]
fn continuous_offsets_have_an_empty_metadata_line_and_restart_from_the_last_committed_epoch() {
    use batchscope_engine::microbatch::event::{EventKind, Recovery};
    use batchscope_engine::microbatch::World;
    let mut s = preset("continuous-epochs").unwrap();
    s.crashes.push(CrashPoint {
        kind: CrashKind::SinkCommit,
        batch_id: 3,
    });
    let mut w = World::new(s);
    batchscope_check::oracle::run(&mut w, batchscope_check::oracle::Limit::JUDGE);
    let offsets = String::from_utf8(w.checkpoint.read("offsets/2").unwrap().to_vec()).unwrap();
    let lines: Vec<&str> = offsets.split('\n').collect();
    assert_eq!(lines[0], "v1");
    assert_eq!(lines[1], "", "OffsetSeq.fill writes no metadata");
    let recovered: Vec<Recovery> = w
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Recovered { recovery, .. } => Some(recovery.clone()),
            _ => None,
        })
        .collect();
    // Epoch 3 was written to the sink but commits/3 is missing: restart at epoch 3 from offsets/2.
    assert_eq!(
        recovered,
        vec![Recovery::Fresh, Recovery::Next { batch_id: 3 }]
    );
    // The replayed epoch finds offsets/3 already there; `add` returns false and Spark ignores it.
    assert!(w.events().iter().any(
        |e| matches!(&e.kind, EventKind::CheckpointWriteRejected { path } if path == "offsets/3")
    ));
}
