//! The one run-to-the-end loop and the one so-far count: how a run ends (converged, stuck,
//! capped), that the stepping player's `is_stuck` agrees with it, and that the count so far
//! at the end is the report's.

use batchscope_check::oracle::{check_world, expected_counts, is_stuck, run, Ending, Limit};
use batchscope_check::progress::{fired_crash_names, so_far};
use batchscope_engine::barrier::{self, TopologyRun, TopologyWorld};
use batchscope_engine::microbatch::scenario::preset;
use batchscope_engine::microbatch::World;

#[test]
fn a_preset_converges_a_reader_that_never_closes_is_stuck_and_a_small_limit_caps() {
    let mut w = World::new(preset("kafka-append").unwrap());
    assert_eq!(run(&mut w, Limit::JUDGE), Ending::Converged);
    assert!(w.is_converged());

    let mut w = World::new(preset("reader-never-closes").unwrap());
    assert_eq!(run(&mut w, Limit::JUDGE), Ending::Stuck);
    assert!(
        is_stuck(&w),
        "the player's rule ends the run at the same event"
    );
    let mut before = World::new(preset("reader-never-closes").unwrap());
    while before.events().len() + 1 < w.events().len() {
        before.step();
    }
    assert!(!is_stuck(&before), "one event earlier it was not stuck yet");

    let mut w = World::new(preset("kafka-append").unwrap());
    assert_eq!(run(&mut w, Limit::events(10)), Ending::Capped);
    assert_eq!(w.events().len(), 10);
}

#[test]
fn a_topology_run_ends_when_it_drains() {
    let spec = barrier::preset("shopping").unwrap();
    let run_spec = TopologyRun {
        barriers: spec.barriers,
        spec,
        seed: 1,
        faults: vec![],
    };
    let mut a = TopologyWorld::from_run(run_spec.clone()).unwrap();
    assert_eq!(run(&mut a, Limit::JUDGE), Ending::Converged);
    let mut b = TopologyWorld::from_run(run_spec).unwrap();
    let steps = b.run_to_end().len();
    assert_eq!(a.trace().len(), steps);
}

#[test]
fn the_count_so_far_at_the_end_is_the_report() {
    for (name, crash) in [("kafka-append", "sink-commit@3"), ("auto-commit", "task@2")] {
        let mut s = preset(name).unwrap();
        s.crashes.push(crash.parse().unwrap());
        let expected = expected_counts(&s);
        let (report, world) = check_world(&s, false);
        let p = so_far(&world, &expected);
        assert_eq!(p.duplicates, report.duplicates, "{name}");
        assert_eq!(p.duplicate_keys, report.duplicate_keys, "{name}");
        assert_eq!(p.missing_keys, report.lost_keys, "{name}");
        assert_eq!(p.expected, report.expected, "{name}");
        assert_eq!(p.delivered, p.expected - report.lost, "{name}");
        assert_eq!(fired_crash_names(&world), report.crashes_fired, "{name}");
    }
}
