//! The explorer: forks equal replays from zero, every crash site is found, every bad run
//! replays to its verdict, chunking and threads do not change results, and minimal
//! counterexamples.

use batchscope_check::explore::{crash_sites, Explorer, Fault, Summary};
use batchscope_check::oracle::{check, failure_free, Verdict};
use batchscope_engine::microbatch::event::EventKind;
use batchscope_engine::microbatch::scenario::{preset, presets, CrashKind, CrashPoint};
use batchscope_engine::microbatch::World;

fn explore(name: &str, depth: u32, forking: bool, parallel: bool) -> Summary {
    explore_batches(name, None, depth, forking, parallel)
}

/// Explores a preset, with fewer batches where a test only needs the shape (depth 2 is quadratic).
fn explore_batches(
    name: &str,
    batches: Option<u64>,
    depth: u32,
    forking: bool,
    parallel: bool,
) -> Summary {
    let mut scenario = preset(name).unwrap();
    scenario.batches = batches.unwrap_or(scenario.batches);
    let mut e = Explorer::new(scenario, depth);
    e.set_forking(forking);
    e.set_parallel(parallel);
    e.run_to_completion()
}

fn crashes(list: &[&str]) -> Vec<CrashPoint> {
    list.iter().map(|c| c.parse().unwrap()).collect()
}

#[test]
fn every_site_of_every_preset_fires_right_after_its_event() {
    for p in presets() {
        // The base run keeps the scenario's own faults (sink-outage's window).
        let mut base = World::new(p.scenario.clone());
        batchscope_check::oracle::run(&mut base, batchscope_check::oracle::Limit::JUDGE);
        let sites = crash_sites(&base);
        // Every committed batch passes at least five named points; a batch that never ends
        // (reader-never-closes) still passes get-offset, offset-log and get-batch.
        let committed = base.batches_committed() as usize;
        assert!(sites.len() >= (5 * committed).max(3), "{}", p.name);
        let mut first: Vec<(u64, CrashPoint)> = vec![];
        for (seq, point) in sites {
            if !first.iter().any(|(_, q)| *q == point) {
                first.push((seq, point));
            }
        }
        for (seq, point) in first {
            let mut s = p.scenario.clone();
            s.crashes = vec![point];
            let mut w = World::new(s);
            batchscope_check::oracle::run(&mut w, batchscope_check::oracle::Limit::JUDGE);
            let fired: Vec<u64> = w
                .events()
                .iter()
                .filter_map(|e| match &e.kind {
                    EventKind::Crashed {
                        point: Some(q),
                        after_seq,
                        ..
                    } if *q == point => Some(*after_seq),
                    _ => None,
                })
                .collect();
            assert_eq!(fired, vec![seq], "{} {point}", p.name);
        }
    }
}

#[test]
fn points_the_tracker_does_not_find_never_fire() {
    for name in [
        "kafka-append",
        "tablestore",
        "tablestore-split",
        "auto-commit",
    ] {
        let scenario = preset(name).unwrap();
        let (clean, _) = failure_free(&scenario);
        let sites = crash_sites(&clean);
        for kind in CrashKind::ALL {
            for batch_id in 0..scenario.batches + 3 {
                let point = CrashPoint { kind, batch_id };
                if sites.iter().any(|(_, q)| *q == point) {
                    continue;
                }
                let mut s = scenario.clone();
                s.crashes = vec![point];
                let mut w = World::new(s);
                batchscope_check::oracle::run(&mut w, batchscope_check::oracle::Limit::JUDGE);
                assert_eq!(w.pending_crashes(), &[point], "{name} {point} fired");
            }
        }
    }
    // source-commit@0 does not exist: batch 0 commits nothing to the source.
    let (clean, _) = failure_free(&preset("tablestore").unwrap());
    let sites = crash_sites(&clean);
    assert!(!sites
        .iter()
        .any(|(_, p)| p.to_string() == "source-commit@0"));
    assert!(sites
        .iter()
        .any(|(_, p)| p.to_string() == "source-commit@1"));
}

#[test]
fn forked_runs_equal_runs_replayed_from_zero_for_every_preset() {
    for p in presets() {
        let forked = explore(p.name, 1, true, true);
        let replayed = explore(p.name, 1, false, true);
        assert_eq!(forked.inexact_forks, 0, "{}", p.name);
        assert_eq!(forked, replayed, "{}", p.name);
    }
}

#[test]
fn forked_pairs_equal_pairs_replayed_from_zero() {
    // Three batches keep it quick; tablestore also forks from partition-split runs.
    for name in ["kafka-append", "auto-commit", "tablestore"] {
        let forked = explore_batches(name, Some(3), 2, true, true);
        let replayed = explore_batches(name, Some(3), 2, false, true);
        assert_eq!(forked.inexact_forks, 0, "{name}");
        assert_eq!(forked, replayed, "{name}");
    }
}

#[test]
fn chunks_and_threads_do_not_change_the_result() {
    let whole = explore_batches("tablestore-append", Some(3), 2, true, true);
    let mut scenario = preset("tablestore-append").unwrap();
    scenario.batches = 3;
    let mut e = Explorer::new(scenario, 2);
    e.set_parallel(false);
    let mut last = e.progress();
    while !last.finished {
        let p = e.run_chunk(7);
        assert!(p.done > last.done && p.done <= last.done + 7);
        assert!(p.total >= p.done);
        last = p;
    }
    assert_eq!(last.total, last.done);
    assert_eq!(e.summary(), whole);
}

#[test]
fn depth_one_total_is_known_from_the_start() {
    let e = Explorer::new(preset("kafka-append").unwrap(), 1);
    let total = e.total();
    let s = explore("kafka-append", 1, true, false);
    assert_eq!(total, s.runs);
    // The base run, one run per crash point reached, one per outage window and batch fault.
    assert_eq!(s.runs, 1 + s.crash_points + s.faults.len() as u64);
    assert!(s
        .faults
        .iter()
        .all(|f| matches!(f, Fault::SinkOutage { .. } | Fault::InBatch { .. })));
}

#[test]
fn a_failed_task_attempt_is_explored_and_reproduces_with_fault() {
    let s = explore("tablestore-append", 1, true, false);
    let task_fails: Vec<&Fault> = s
        .faults
        .iter()
        .filter(|f| matches!(f, Fault::InBatch { .. }))
        .collect();
    // One per batch whose tasks read; the append sink keeps the failed attempt's rows.
    assert!(task_fails.len() >= 5, "{task_fails:?}");
    let bad = s
        .bad_runs
        .iter()
        .find(|o| o.crashes.is_empty() && matches!(o.fault, Some(Fault::InBatch { .. })))
        .expect("a failed task attempt duplicates into the append sink");
    assert_eq!(bad.verdict, Verdict::Duplicates);
    let scenario = bad.scenario(&preset("tablestore-append").unwrap());
    assert_eq!(check(&scenario).verdict, bad.verdict);
    let example = batchscope_check::explore::Counterexample {
        outcome: bad.clone(),
        scenario,
        reproduce: None,
    };
    let args = example.run_args(&batchscope_check::explore::Origin::Preset(
        "tablestore-append".into(),
    ));
    assert!(args.windows(2).any(|w| w[0] == "--fault"), "{args:?}");
    // A file sink and a replayable source: a failed attempt's file is an orphan.
    let k = explore("kafka-idempotent", 1, true, false);
    assert!(k.faults.iter().any(|f| matches!(f, Fault::InBatch { .. })));
    assert_eq!(k.outcomes[&Verdict::ExactlyOnce], k.runs);
}

#[test]
fn every_bad_run_replays_to_its_verdict_through_the_oracle() {
    for (name, batches, depth) in [
        ("kafka-append", Some(3), 2),
        ("tablestore-append", None, 1),
        ("auto-commit", None, 1),
        ("foreach-batch-multi", None, 1),
    ] {
        let s = explore_batches(name, batches, depth, true, true);
        assert!(!s.bad_runs.is_empty(), "{name} has bad runs");
        let mut base = preset(name).unwrap();
        base.batches = batches.unwrap_or(base.batches);
        for o in &s.bad_runs {
            let r = check(&o.scenario(&base));
            assert_eq!(
                (r.verdict, r.duplicates, r.lost),
                (o.verdict, o.duplicates, o.lost),
                "{name} {:?} {:?}",
                o.crashes,
                o.fault
            );
            assert!(r.crashes_unreached.is_empty());
            assert_eq!(r.crashes_fired, r.crashes);
        }
    }
}

#[test]
fn pairs_reach_into_the_recovery_and_crash_the_rerun_again() {
    let s = explore_batches("kafka-append", Some(4), 2, true, true);
    let bad: Vec<Vec<CrashPoint>> = s.bad_runs.iter().map(|o| o.crashes.clone()).collect();
    // task@3 then task@3 of the re-run: three copies of the first task's rows.
    assert!(bad.contains(&crashes(&["task@3", "task@3"])));
    // Pairs are counted: singles, pairs, faults alone and faults with one crash.
    assert!(s.runs_by_depth[&2] > s.runs_by_depth[&1] * 10);
    let idem = explore_batches("kafka-idempotent", Some(4), 2, true, true);
    assert_eq!(idem.outcomes[&Verdict::ExactlyOnce], idem.runs);
    assert!(idem.runs > 500, "{}", idem.runs);
}

#[test]
fn a_crash_in_the_recovery_is_enumerated() {
    // offset-log@3 then get-batch@3: the second crash hits the re-run's getBatch.
    // On an append sink the re-run after offset-log@3 appends batch 3 once; crashing its
    // getBatch again changes nothing, so the pair is exactly-once, while task@3 in the re-run
    // duplicates: both pairs are explored, and the bad one is listed.
    let base = preset("kafka-append").unwrap();
    let mut s = base.clone();
    s.crashes = crashes(&["offset-log@3", "get-batch@3"]);
    let r = check(&s);
    assert_eq!(r.crashes_fired, vec!["offset-log@3", "get-batch@3"]);
    assert_eq!(r.verdict, Verdict::ExactlyOnce);
    let summary = explore_batches("kafka-append", Some(4), 2, true, true);
    assert!(summary
        .bad_runs
        .iter()
        .any(|o| o.crashes == crashes(&["offset-log@3", "task@3"])));
    let mut e = Explorer::new(base, 1);
    let single = e.run_to_completion();
    assert!(!single.runs_by_depth.contains_key(&2));
}

#[test]
fn counterexamples_are_the_earliest_of_the_fewest_faults() {
    let s = explore("kafka-append", 2, true, true);
    assert_eq!(s.counterexamples.len(), 1);
    let c = &s.counterexamples[0];
    assert_eq!(c.outcome.verdict, Verdict::Duplicates);
    assert_eq!(c.outcome.crashes.len(), 1);
    assert_eq!(c.outcome.fault, None);
    let earliest = s
        .bad_runs
        .iter()
        .filter(|o| o.verdict == Verdict::Duplicates && o.depth() == 1 && o.fault.is_none())
        .map(|o| o.site_seqs[0])
        .min()
        .unwrap();
    assert_eq!(c.outcome.site_seqs, vec![earliest]);
    assert_eq!(c.scenario.crashes, c.outcome.crashes);
}

#[test]
fn matrix_has_a_verdict_for_every_point_reached() {
    let s = explore("tablestore-append", 1, true, true);
    // Six intervals of data; the records of the last arrive by 6000 ms, so batch 6 runs too.
    assert_eq!(s.matrix.batches, (0..=6).collect::<Vec<u64>>());
    let row = |name: &str| {
        s.matrix
            .rows
            .iter()
            .find(|r| r.point == name)
            .unwrap()
            .verdicts
            .clone()
    };
    // No source commit in batch 0; every other point in every batch.
    assert_eq!(row("source-commit")[0], None);
    assert!(row("source-commit")[1..].iter().all(Option::is_some));
    assert!(row("task").contains(&Some(Verdict::Duplicates)));
    assert!(row("commit-log")
        .iter()
        .all(|v| *v == Some(Verdict::ExactlyOnce)));
    let cells: u64 = s
        .matrix
        .rows
        .iter()
        .map(|r| r.verdicts.iter().flatten().count() as u64)
        .sum();
    assert_eq!(cells, s.crash_points);
}

#[test]
fn splits_are_explored_for_tunnel_sources_only() {
    let t = explore("tablestore", 1, true, true);
    let splits = t
        .faults
        .iter()
        .filter(|f| matches!(f, Fault::PartitionSplit { .. }))
        .count();
    assert_eq!(splits, 6);
    let k = explore("kafka-idempotent", 1, true, true);
    assert!(k
        .faults
        .iter()
        .all(|f| matches!(f, Fault::SinkOutage { .. } | Fault::InBatch { .. })));
    // Four outage windows and one failed task attempt per batch that runs tasks.
    assert_eq!(k.faults.len(), 5 * 6);
}
