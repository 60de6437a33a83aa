//! The danger map of a scenario: for its run without crashes, the verdict one driver crash
//! after each event would cause, merged into windows of consecutive events with the same
//! verdict, each named by the protocol steps on either side.
//!
//! A crash after event `#i` is the dashboard's *Crash now* there ([`World::crash_now`],
//! recorded as the scenario's `crash_after_events`): the run is stepped to `#i`, cloned, the
//! clone crashed and run to its end, and judged against the scenario's expected records. A
//! window `#a..=#b` holds the crashes after `#a` up to after `#b`: it lies between the step
//! `#a` and the step `#b + 1`. Events at which the query is not running (down between a
//! fault's failure and its restart, or stopped) have no crash and no verdict.

use crate::anomaly::Moment;
use crate::liveness::{run, Limit};
use crate::oracle::{expected_counts, judge, Verdict};
use batchscope_engine::microbatch::scenario::Scenario;
use batchscope_engine::microbatch::upstream::RowKey;
use batchscope_engine::microbatch::{Phase, World};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Consecutive events after which one crash gives the same verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Window {
    /// The verdict of a crash after any event of the window; `None` where the query is not
    /// running (no crash to place).
    pub verdict: Option<Verdict>,
    /// The first event a crash goes after.
    pub after: Moment,
    /// The last event a crash goes after.
    pub last: Moment,
    /// The step that ends the window (the event after `last`); `None` at the end of the run.
    pub before: Option<Moment>,
}

/// The danger map of one scenario.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DangerMap {
    /// Scenario (preset) name.
    pub scenario: String,
    /// Seed.
    pub seed: u64,
    /// Trigger intervals over which records arrive.
    pub batches: u64,
    /// Events of the run without crashes.
    pub events: u64,
    /// Its windows, in event order, covering every event.
    pub windows: Vec<Window>,
}

/// The verdict of one driver crash right after the last event of `world` (`None` when the
/// query is not running there).
pub fn crash_verdict(world: &World, expected: &BTreeMap<RowKey, u64>) -> Option<Verdict> {
    if matches!(world.phase(), Phase::Down { .. } | Phase::Stopped) {
        return None;
    }
    let mut crashed = world.clone();
    crashed.crash_now();
    let converged = run(&mut crashed, Limit::JUDGE).converged();
    Some(judge(&crashed, converged, expected, false).verdict)
}

/// The danger map of `scenario` (its listed crashes are dropped; its faults stay, as in every
/// explored run).
pub fn danger_map(scenario: &Scenario) -> DangerMap {
    let mut base = scenario.clone();
    base.crashes.clear();
    base.crash_after_events.clear();
    let expected = expected_counts(&base);
    let mut world = World::new(base.clone());
    run(&mut world, Limit::JUDGE);
    let steps = world.events().len();
    let mut stepping = World::new(base.clone());
    let mut verdicts = Vec::with_capacity(steps);
    for _ in 0..steps {
        stepping.step();
        verdicts.push(crash_verdict(&stepping, &expected));
    }
    let events = world.events();
    let mut windows: Vec<Window> = vec![];
    for (i, verdict) in verdicts.into_iter().enumerate() {
        match windows.last_mut() {
            Some(w) if w.verdict == verdict => {
                w.last = Moment::of(&events[i]);
                w.before = events.get(i + 1).map(Moment::of);
            }
            _ => windows.push(Window {
                verdict,
                after: Moment::of(&events[i]),
                last: Moment::of(&events[i]),
                before: events.get(i + 1).map(Moment::of),
            }),
        }
    }
    DangerMap {
        scenario: base.name.clone(),
        seed: base.seed,
        batches: base.batches,
        events: steps as u64,
        windows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::check;
    use batchscope_engine::microbatch::event::EventKind;
    use batchscope_engine::microbatch::scenario::preset;

    #[test]
    fn every_window_holds_the_verdict_a_replayed_crash_after_each_of_its_events_gets() {
        let s = preset("kafka-append").expect("a preset");
        let map = danger_map(&s);
        assert_eq!(map.windows[0].after.event, 0);
        assert_eq!(
            map.windows.last().expect("a window").last.event + 1,
            map.events
        );
        for pair in map.windows.windows(2) {
            assert_eq!(pair[0].last.event + 1, pair[1].after.event);
            assert_ne!(pair[0].verdict, pair[1].verdict);
        }
        for w in &map.windows {
            for seq in w.after.event..=w.last.event {
                let mut crashed = s.clone();
                crashed.crash_after_events = vec![seq];
                assert_eq!(Some(check(&crashed).verdict), w.verdict, "after #{seq}");
            }
        }
    }

    #[test]
    fn an_append_sink_duplicates_between_its_first_append_and_commits_n_of_every_batch() {
        let s = preset("kafka-append").expect("a preset");
        let map = danger_map(&s);
        let (_, world) = crate::oracle::check_world(&s, false);
        let kind = |m: &Moment| &world.events()[m.event as usize].kind;
        let mut batches_with_rows = std::collections::BTreeSet::new();
        for e in world.events() {
            if let EventKind::TaskFinished { batch_id, rows, .. } = e.kind {
                if rows > 0 {
                    batches_with_rows.insert(batch_id);
                }
            }
        }
        assert!(!batches_with_rows.is_empty());
        for b in batches_with_rows {
            let w = map.windows.iter().find(|w| {
                matches!(kind(&w.after), EventKind::TaskFinished { batch_id, .. } if *batch_id == b)
            });
            let w = w.unwrap_or_else(|| panic!("no window opens at batch {b}'s append"));
            assert_eq!(w.verdict, Some(Verdict::Duplicates), "batch {b}");
            let before = w.before.as_ref().expect("a step ends it");
            assert!(
                matches!(kind(before), EventKind::CommitLogWritten { batch_id, .. } if *batch_id == b),
                "batch {b}: {w:?}"
            );
        }
    }
}
