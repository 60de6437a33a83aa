//! Liveness is progress of data: a run that commits empty batches forever is stuck, and every
//! run ends within its scenario's step bound (the work budget), converged or stuck.

use batchscope_check::oracle::{check, is_stuck, run, Ending, Limit, Verdict};
use batchscope_engine::microbatch::event::EventKind;
use batchscope_engine::microbatch::scenario::{presets, CrashKind, CrashPoint, Scenario};
use batchscope_engine::microbatch::tunnel::{ChannelStatus, Token};
use batchscope_engine::microbatch::upstream::ChannelId;
use batchscope_engine::microbatch::World;

const BURST_OVER_CAP: &str = include_str!("../../../scenarios/tablestore-burst-over-cap.json");

#[test]
fn a_tablestore_page_larger_than_the_channel_cap_commits_empty_batches_and_is_stuck() {
    let scenario = Scenario::from_json(BURST_OVER_CAP).expect("the scenario file is valid");
    assert!(
        scenario.source.page_size > scenario.source.max_offsets_per_channel,
        "the point of the scenario: the first ReadRecords response never fits"
    );
    let bound = scenario.work().events;
    let mut world = World::new(scenario.clone());
    assert_eq!(run(&mut world, Limit::JUDGE), Ending::Stuck);
    // Stuck by the liveness rule (no data moved for the stall bound), not by the step bound.
    assert!(is_stuck(&world), "the liveness rule judges it, not the cap");
    assert!(
        (world.events().len() as u64) < bound,
        "{} events, step bound {bound}",
        world.events().len()
    );
    // It did commit batches, all empty: commits alone are not progress.
    let commits = world
        .events()
        .iter()
        .filter(|e| matches!(e.kind, EventKind::CommitLogWritten { .. }))
        .count();
    assert!(commits > 1, "{commits} batches committed");
    assert_eq!(world.sink.visible_len(), 0);
    let report = check(&scenario);
    assert_eq!(report.verdict, Verdict::Stuck);
    // Every record that arrived is expected, and none was delivered.
    let produced = world.upstream.total();
    assert!(produced > 0);
    assert_eq!((report.expected, report.lost), (produced, produced));
}

/// A crash after `offsets/4` and before `source.commit(end of batch 3)` leaves ch0's `finished`
/// row as a start row of the re-run: the task throws on every attempt (inferred from the
/// connector's code), batch 4 never commits and the split's children never open.
#[test]
fn a_finished_tablestore_start_row_is_a_crash_loop_and_the_run_is_stuck() {
    let mut scenario =
        batchscope_engine::microbatch::scenario::preset("tablestore-split").expect("preset");
    scenario
        .crashes
        .push("offset-log@4".parse().expect("crash point"));
    let bound = scenario.work().events;
    let mut world = World::new(scenario.clone());
    assert_eq!(run(&mut world, Limit::JUDGE), Ending::Stuck);
    assert!(is_stuck(&world), "the liveness rule judges it, not the cap");
    assert!((world.events().len() as u64) < bound);
    let crash = world.fired_crashes()[0].seq;
    let after: Vec<_> = world.events().iter().filter(|e| e.seq > crash).collect();
    let throws: Vec<u32> = after
        .iter()
        .filter(|e| {
            matches!(
                &e.kind,
                EventKind::TaskRead {
                    batch_id: 4,
                    channel: ChannelId(0),
                    error: Some(_),
                    ..
                }
            )
        })
        .map(|e| e.run)
        .collect();
    assert!(throws.len() > 2, "every restart throws again: {throws:?}");
    let failures = after
        .iter()
        .filter(|e| matches!(e.kind, EventKind::QueryFailed { .. }))
        .count();
    assert_eq!(failures, throws.len(), "each throw fails the query");
    assert!(
        world.checkpoint.latest_commit_id() < Some(4),
        "batch 4 never commits"
    );
    assert!(
        !after.iter().any(|e| matches!(
            &e.kind,
            EventKind::ChannelState {
                state: ChannelStatus::Open,
                ..
            }
        )),
        "the children never open"
    );
    let line = batchscope_engine::microbatch::trace::line(
        after
            .iter()
            .find(|e| matches!(e.kind, EventKind::TaskRead { error: Some(_), .. }))
            .expect("a throw"),
    );
    assert!(
        line.contains("inferred from the connector's code"),
        "{line}"
    );
    assert!(!line.contains("ReadRecords ch0"), "{line}");
    assert_eq!(check(&scenario).verdict, Verdict::Stuck);
    // A crash after the commit reached the Tunnel server loses nothing.
    let mut after_commit =
        batchscope_engine::microbatch::scenario::preset("tablestore-split").expect("preset");
    after_commit
        .crashes
        .push("source-commit@4".parse().expect("crash point"));
    assert_eq!(check(&after_commit).verdict, Verdict::ExactlyOnce);
}

/// The same crash loop when the split channel is not the first task: the other task reads its
/// rows again on every attempt, which is not progress (the data frontier does not move), so
/// the liveness rule still ends the run — long before its step bound.
#[test]
fn re_reading_the_same_rows_in_a_crash_loop_is_not_progress() {
    let mut scenario =
        batchscope_engine::microbatch::scenario::preset("tablestore-split").expect("preset");
    scenario.upstream.splits[0].channel = 1;
    scenario
        .crashes
        .push("offset-log@4".parse().expect("crash point"));
    let bound = scenario.work().events;
    let mut world = World::new(scenario);
    assert_eq!(run(&mut world, Limit::JUDGE), Ending::Stuck);
    assert!(is_stuck(&world), "the liveness rule judges it, not the cap");
    let rereads = world
        .events()
        .iter()
        .filter(|e| {
            matches!(&e.kind, EventKind::TaskRead { batch_id: 4, channel: ChannelId(0), rows, .. } if *rows > 0)
        })
        .count();
    assert!(
        rereads > 2,
        "task 0 reads its rows again on every attempt: {rereads}"
    );
    assert!(
        (world.events().len() as u64) * 4 < bound,
        "{} events, step bound {bound}",
        world.events().len()
    );
}

/// No "ReadRecords … 0 rows" arrow for a call that is not made: a task that starts at a
/// `finished` position never reads; it throws (Tablestore) and says so.
#[test]
fn no_task_reads_from_a_finished_position_without_saying_it_threw() {
    for p in presets() {
        for kind in CrashKind::ALL {
            for batch_id in 0..p.scenario.batches.min(6) {
                let mut s = p.scenario.clone();
                s.crashes.push(CrashPoint { kind, batch_id });
                let mut world = World::new(s);
                run(&mut world, Limit::JUDGE);
                for e in world.events() {
                    if let EventKind::TaskRead { from, error, .. } = &e.kind {
                        assert!(
                            *from != Token::Finished || error.is_some(),
                            "{} {kind:?}@{batch_id}: {}",
                            p.name,
                            batchscope_engine::microbatch::trace::line(e)
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn every_preset_with_every_single_crash_ends_inside_its_step_bound() {
    for p in presets() {
        for kind in CrashKind::ALL {
            for batch_id in 0..p.scenario.batches.min(6) {
                let mut s = p.scenario.clone();
                s.crashes.push(CrashPoint { kind, batch_id });
                let bound = s.work().events;
                let mut world = World::new(s);
                let ending = run(&mut world, Limit::JUDGE);
                let taken = world.events().len() as u64;
                assert!(
                    taken < bound,
                    "{} {kind:?}@{batch_id}: {taken} events reached the step bound {bound} ({ending:?})",
                    p.name
                );
            }
        }
    }
}
