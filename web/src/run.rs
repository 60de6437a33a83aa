//! A whole run of one scenario, computed once: the full trace (for the timeline and for
//! seeking), snapshots every few events (a cache: the world is deterministic, so any cursor
//! can be rebuilt from the scenario), and the keys a failure-free run delivers (for the badge).

use batchscope_check::oracle::{expected_counts, is_stuck, judge, Report};
use batchscope_engine::{Event, Scenario, World};
use std::collections::BTreeMap;
use std::rc::Rc;

/// Events between two snapshots.
pub const SNAPSHOT_EVERY: usize = 32;
/// A run stops here even if it neither converged nor passed the liveness bound (browser safety).
pub const MAX_EVENTS: usize = 20_000;

/// A scenario run to its end.
#[derive(Debug)]
pub struct Run {
    /// The scenario, with its recorded crash inputs.
    pub scenario: Scenario,
    /// Every event until convergence (or the liveness bound).
    pub events: Vec<Event>,
    /// Whether the run converged (otherwise it is stuck at the end).
    pub converged: bool,
    /// The world after `i * SNAPSHOT_EVERY` events.
    snapshots: Vec<World>,
    /// The final world.
    pub last: World,
    /// Keys (and copies) a failure-free run delivers.
    pub expected: Rc<BTreeMap<String, u64>>,
}

impl Run {
    /// Runs the scenario to its end; `expected` is reused when only crash inputs changed.
    pub fn compute(scenario: Scenario, expected: Option<Rc<BTreeMap<String, u64>>>) -> Run {
        let expected = expected.unwrap_or_else(|| Rc::new(expected_counts(&scenario)));
        let mut world = World::new(scenario.clone());
        let mut snapshots = vec![world.clone()];
        let converged = loop {
            if world.is_converged() {
                break true;
            }
            if is_stuck(&world) || world.events().len() >= MAX_EVENTS {
                break false;
            }
            world.step();
            if world.events().len().is_multiple_of(SNAPSHOT_EVERY) {
                snapshots.push(world.clone());
            }
        };
        Run {
            scenario,
            events: world.events().to_vec(),
            converged,
            snapshots,
            last: world,
            expected,
        }
    }

    /// Number of events in the run.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether the run has no events (never: a query always starts).
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The world after the first `cursor` events (clamped to the run).
    pub fn world_at(&self, cursor: usize) -> World {
        let cursor = cursor.min(self.len());
        if cursor == self.len() {
            return self.last.clone();
        }
        let snap = (cursor / SNAPSHOT_EVERY).min(self.snapshots.len() - 1);
        let mut world = self.snapshots[snap].clone();
        while world.events().len() < cursor {
            world.step();
        }
        world
    }

    /// The oracle's view of the world at `cursor`: `None` while the run has not settled there.
    pub fn verdict_at(&self, world: &World, cursor: usize) -> (Option<Report>, Report) {
        let converged = world.is_converged();
        let report = judge(world, converged, &self.expected, false);
        let settled = converged || (cursor >= self.len() && !self.converged);
        (settled.then(|| report.clone()), report)
    }

    /// The first index where two runs' traces differ (the shorter length if one is a prefix).
    pub fn divergence(&self, other: &Run) -> usize {
        self.events
            .iter()
            .zip(&other.events)
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| self.len().min(other.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use batchscope_engine::preset;

    #[test]
    fn seeking_gives_the_same_world_as_stepping() {
        let mut s = preset("tablestore").unwrap();
        s.crashes.push("sink-commit@2".parse().unwrap());
        let run = Run::compute(s.clone(), None);
        assert!(run.converged);
        for cursor in [0, 1, 31, 32, 33, 64, run.len() - 1, run.len()] {
            let w = run.world_at(cursor);
            assert_eq!(w.events(), &run.events[..cursor]);
        }
        let w = run.world_at(40);
        let mut direct = World::new(s);
        for _ in 0..40 {
            direct.step();
        }
        assert_eq!(w.meta_table, direct.meta_table);
        assert_eq!(w.sink, direct.sink);
    }

    #[test]
    fn the_verdict_is_open_until_the_run_settles() {
        let mut s = preset("kafka-append").unwrap();
        s.crashes.push("sink-commit@3".parse().unwrap());
        let run = Run::compute(s, None);
        let mid = run.world_at(20);
        assert!(run.verdict_at(&mid, 20).0.is_none());
        let end = run.world_at(run.len());
        let (settled, _) = run.verdict_at(&end, run.len());
        assert_eq!(settled.unwrap().verdict.name(), "duplicates");
    }

    #[test]
    fn crash_now_inputs_do_not_change_the_expected_counts() {
        let mut s = preset("kafka-append").unwrap();
        let plain = expected_counts(&s);
        s.crash_after_events.push(30);
        assert_eq!(expected_counts(&s), plain);
    }
}
