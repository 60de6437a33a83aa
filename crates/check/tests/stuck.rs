//! Liveness is progress of data: a run that commits empty batches forever is stuck, and every
//! run ends within its scenario's step bound (the work budget), converged or stuck.

use batchscope_check::oracle::{check, is_stuck, run, Ending, Limit, Verdict};
use batchscope_engine::{presets, CrashKind, CrashPoint, EventKind, Scenario, World};

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
    assert_eq!(check(&scenario).verdict, Verdict::Stuck);
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
