//! The backlog crash loop: a batch logged over a task's memory budget fails on every restart,
//! whatever `maxOffsetsPerTrigger` says after it was logged; set before, the limit keeps every
//! batch within the budget.

use batchscope_check::anomaly::AnomalyName;
use batchscope_check::oracle::check_world;
use batchscope_check::why::explain;
use batchscope_check::Verdict;
use batchscope_engine::microbatch::event::{Event, EventKind};
use batchscope_engine::microbatch::scenario::preset;

/// (run, batch, rows) of every task read.
fn reads(events: &[Event]) -> Vec<(u32, u64, u64)> {
    let read = |e: &Event| match e.kind {
        EventKind::TaskRead { batch_id, rows, .. } => Some((e.run, batch_id, rows)),
        _ => None,
    };
    events.iter().filter_map(read).collect()
}

/// (run, records held) of every attempt that ran out of memory.
fn out_of_memory(events: &[Event]) -> Vec<(u32, u64)> {
    let oom = |e: &Event| match e.kind {
        EventKind::TaskFailed { oom_records, .. } if oom_records > 0 => Some((e.run, oom_records)),
        _ => None,
    };
    events.iter().filter_map(oom).collect()
}

#[test]
fn the_logged_backlog_batch_fails_on_every_restart_whatever_the_new_limit() {
    let scenario = preset("backlog-crash-loop").expect("preset");
    let budget = scenario.task_memory_records.expect("a budget");
    let change = scenario.on_restart.expect("a change at a restart");
    let (mut report, world) = check_world(&scenario, false);
    explain(&scenario, &mut report);
    assert_eq!(report.verdict, Verdict::Stuck);
    let names: Vec<AnomalyName> = report.anomalies.iter().map(|a| a.name).collect();
    assert_eq!(names, [AnomalyName::Stuck], "{:?}", report.anomalies);
    let events = world.events();
    let ooms = out_of_memory(events);
    let first = ooms.first().expect("an out-of-memory failure").0;
    assert!(
        first <= change.from,
        "the batch was logged before the change"
    );
    // Every run from the first failure on runs out of memory, with the limit in force or not:
    // the same logged batch, the same rows, four attempts each.
    let last_run = world.run();
    for run in first..last_run {
        let held: Vec<u64> = (ooms.iter().filter(|o| o.0 == run)).map(|o| o.1).collect();
        assert_eq!(held.len() as u32, scenario.task_max_failures, "run {run}");
        assert!(held.iter().all(|&h| h > budget && h == held[0]), "{held:?}");
    }
    let big = reads(events).into_iter().filter(|r| r.2 > budget);
    let batches: std::collections::BTreeSet<u64> = big.map(|r| r.1).collect();
    assert_eq!(
        batches.len(),
        1,
        "one logged batch, re-run as logged: {batches:?}"
    );
    // The starts with the change in force say so; the limit never got to construct a batch.
    let changed = |e: &&Event| {
        matches!(e.kind, EventKind::QueryStarted { max_offsets_per_trigger: Some(n), .. }
            if Some(n) == change.max_offsets_per_trigger)
    };
    let with_limit: Vec<u32> = events.iter().filter(changed).map(|e| e.run).collect();
    assert_eq!(with_limit.first(), Some(&(change.from + 1)));
    assert!(
        with_limit.len() > 2,
        "several restarts with the limit: {with_limit:?}"
    );
    assert_eq!(report.batches_committed, 2, "{report:?}");
}

#[test]
fn the_same_limit_set_before_the_batch_was_logged_keeps_every_batch_within_budget() {
    let scenario = preset("backlog-limited").expect("preset");
    let budget = scenario.task_memory_records.expect("a budget");
    let (report, world) = check_world(&scenario, false);
    assert_eq!(report.verdict, Verdict::ExactlyOnce, "{report:?}");
    assert!(out_of_memory(world.events()).is_empty());
    // Every batch logged after the first restart was constructed under the limit (a batch
    // logged before keeps its range when it re-runs).
    let per_partition = 6u64.div_ceil(u64::from(scenario.upstream.channels));
    let logged_later: Vec<u64> = (world.events().iter())
        .filter_map(|e| match e.kind {
            EventKind::OffsetLogWritten { batch_id, .. } if e.run > 1 => Some(batch_id),
            _ => None,
        })
        .collect();
    assert!(logged_later.len() > 3, "{logged_later:?}");
    for (run, batch, rows) in reads(world.events()) {
        assert!(rows <= budget, "run {run} batch {batch}: {rows}");
        if logged_later.contains(&batch) {
            assert!(rows <= per_partition, "run {run} batch {batch}: {rows}");
        }
    }
}

#[test]
fn the_budget_is_the_cause_and_a_limit_from_the_start_avoids_it() {
    let mut unbounded = preset("backlog-crash-loop").expect("preset");
    unbounded.task_memory_records = None;
    let (report, _) = check_world(&unbounded, false);
    assert_eq!(
        report.verdict,
        Verdict::ExactlyOnce,
        "no budget: {report:?}"
    );
    let mut limited = preset("backlog-crash-loop").expect("preset");
    limited.on_restart = None;
    limited.source.max_offsets_per_trigger = 6;
    let (report, world) = check_world(&limited, false);
    assert_eq!(report.verdict, Verdict::ExactlyOnce, "{report:?}");
    assert!(out_of_memory(world.events()).is_empty());
}

#[test]
fn a_limit_set_after_the_batch_was_logged_changes_nothing_but_the_restarts_notes() {
    let changed = preset("backlog-crash-loop").expect("preset");
    let mut never = changed.clone();
    never.on_restart = None;
    let (a, with) = check_world(&changed, false);
    let (b, without) = check_world(&never, false);
    assert_eq!((a.verdict, b.verdict), (Verdict::Stuck, Verdict::Stuck));
    assert_eq!(with.events().len(), without.events().len());
    let mut noted = 0;
    for (x, y) in with.events().iter().zip(without.events()) {
        match (&x.kind, &y.kind) {
            (
                EventKind::QueryStarted {
                    max_offsets_per_trigger: Some(_),
                    created,
                    ..
                },
                EventKind::QueryStarted {
                    max_offsets_per_trigger: None,
                    created: c,
                    ..
                },
            ) if created == c => noted += 1,
            _ => assert_eq!(x, y),
        }
    }
    assert!(noted > 2, "{noted}");
}

#[test]
fn a_loop_whose_other_tasks_write_again_is_stuck_before_its_step_bound() {
    // Partition 0's task fits and writes its rows on every restart; partition 1's (a burst
    // during the outage) runs out of memory. Writing the same rows again is not progress.
    let mut scenario = preset("backlog-crash-loop").expect("preset");
    scenario.task_memory_records = Some(20);
    scenario.upstream.bursts = vec![batchscope_engine::microbatch::scenario::Burst {
        channel: 1,
        at_ms: 3000,
        records: 10,
    }];
    let (report, world) = check_world(&scenario, false);
    assert_eq!(report.verdict, Verdict::Stuck, "{report:?}");
    let rewrites: std::collections::BTreeSet<u32> = (world.events().iter())
        .filter(|e| matches!(e.kind, EventKind::TaskFinished { rows, .. } if rows > 0))
        .map(|e| e.run)
        .collect();
    assert!(
        rewrites.len() > 5,
        "task 0 writes on every restart: {rewrites:?}"
    );
    assert!(!out_of_memory(world.events()).is_empty());
    let bound = scenario.work().events;
    assert!(
        (world.events().len() as u64) < bound,
        "judged by the stall, not the step bound"
    );
}
