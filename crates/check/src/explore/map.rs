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

/// The verdict of one driver crash right after the last event of `world`, a copy the crash
/// runs on (`None` when the query is not running there).
pub fn crash_verdict(mut crashed: World, expected: &BTreeMap<RowKey, u64>) -> Option<Verdict> {
    if matches!(crashed.phase(), Phase::Down { .. } | Phase::Stopped) {
        return None;
    }
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
    let mut maker = MapMaker::new(&base);
    while maker.advance(usize::MAX) {}
    maker.finish()
}

/// A danger map made a few events at a time ([`MapMaker::advance`]), so a page can draw it
/// without a long task. For each event of the run of its scenario as given (with its own
/// crashes: the run a person watches), the verdict of one driver crash right after it with no
/// other crash to come ([`World::without_crashes`]; faults stay, as in every explored run).
/// Up to the run's first crash that is the explorer's map of the failure-free run
/// ([`danger_map`]); after it, what one more crash would do to the recovering run.
#[derive(Debug)]
pub struct MapMaker {
    /// The scenario's name, seed and batches (for the map).
    base: Scenario,
    /// What the sink should hold.
    expected: BTreeMap<RowKey, u64>,
    /// The run, stepped one event past the last verdict.
    stepping: World,
    /// Events of the whole run.
    steps: usize,
    /// The verdict after each event so far.
    verdicts: Vec<Option<Verdict>>,
}

impl MapMaker {
    /// Runs `scenario` once to count its events; no verdict yet.
    pub fn new(scenario: &Scenario) -> MapMaker {
        let mut whole = World::new(scenario.clone());
        run(&mut whole, Limit::JUDGE);
        MapMaker::over(scenario, whole.events().len())
    }

    /// A map of the first `steps` events of the run of `scenario` (the run a page recorded,
    /// within its own limit); no verdict yet.
    pub fn over(scenario: &Scenario, steps: usize) -> MapMaker {
        MapMaker {
            base: scenario.clone(),
            expected: expected_counts(scenario),
            stepping: World::new(scenario.clone()),
            steps,
            verdicts: Vec::with_capacity(steps),
        }
    }

    /// Events of the run (one verdict each when done).
    pub fn events(&self) -> usize {
        self.steps
    }

    /// Verdicts found so far (of the first events).
    pub fn done(&self) -> usize {
        self.verdicts.len()
    }

    /// Finds the verdicts after at most `events` more events; whether any are left.
    pub fn advance(&mut self, events: usize) -> bool {
        for _ in 0..events {
            if self.verdicts.len() >= self.steps {
                break;
            }
            self.stepping.step();
            let alone = self.stepping.without_crashes();
            self.verdicts.push(crash_verdict(alone, &self.expected));
        }
        self.verdicts.len() < self.steps
    }

    /// The map of the verdicts found (all of them once [`MapMaker::advance`] says none are left).
    pub fn finish(&self) -> DangerMap {
        let events = self.stepping.events();
        // Runs of one verdict first; a moment's line is written only at a window's edges
        // (a page asks for the map so far several times a second while it is made).
        let mut runs: Vec<(usize, usize)> = vec![];
        for (i, verdict) in self.verdicts.iter().enumerate() {
            match runs.last_mut() {
                Some((first, last)) if self.verdicts[*first] == *verdict => *last = i,
                _ => runs.push((i, i)),
            }
        }
        let windows = runs
            .into_iter()
            .map(|(first, last)| Window {
                verdict: self.verdicts[first],
                after: Moment::of(&events[first]),
                last: Moment::of(&events[last]),
                before: events.get(last + 1).map(Moment::of),
            })
            .collect();
        DangerMap {
            scenario: self.base.name.clone(),
            seed: self.base.seed,
            batches: self.base.batches,
            events: self.verdicts.len() as u64,
            windows,
        }
    }
}

impl Window {
    /// Where the window lies, in the protocol's steps: "between `task 0: 4 rows appended`
    /// (#14) and `write commits/0` (#17)", "after …" (the last event), "from … to the end".
    pub fn span(&self) -> String {
        let step = |m: &Moment| format!("`{}` (#{})", step_label(&m.line), m.event);
        match (&self.before, self.after == self.last) {
            (Some(b), _) => format!("between {} and {}", step(&self.after), step(b)),
            (None, true) => format!("after {}", step(&self.after)),
            (None, false) => format!("from {} to the end", step(&self.after)),
        }
    }

    /// What a crash in the window leads to, in words.
    pub fn outcome(&self) -> &'static str {
        self.verdict
            .map_or("query not running (no crash)", Verdict::name)
    }
}

/// An event's label from its trace line (`    4134  #53   r1   tasks → sink    task 0: 4 rows
/// appended` → `task 0: 4 rows appended`), without the details in parentheses.
pub fn step_label(line: &str) -> &str {
    let after_arrow = line
        .split_once(" → ")
        .map_or(line, |(_, rest)| rest.trim_start());
    let label = after_arrow
        .split_once(char::is_whitespace)
        .map_or("", |(_, rest)| rest.trim_start());
    label.split("  (").next().unwrap_or(label)
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

    #[test]
    fn a_crashed_runs_map_is_the_failure_free_map_up_to_its_crash() {
        let clean = preset("kafka-append").expect("a preset");
        let mut crashed = clean.clone();
        crashed.crashes = vec!["sink-commit@3".parse().expect("a crash point")];
        let (_, world) = crate::oracle::check_world(&crashed, false);
        let crash_at = world
            .events()
            .iter()
            .position(|e| matches!(e.kind, EventKind::Crashed { .. }))
            .expect("the crash fires");
        let verdict_after = |map: &DangerMap, seq: usize| {
            map.windows
                .iter()
                .find(|w| (w.after.event..=w.last.event).contains(&(seq as u64)))
                .map(|w| w.verdict)
        };
        let clean_map = danger_map(&clean);
        let mut maker = MapMaker::new(&crashed);
        while maker.advance(7) {}
        let map = maker.finish();
        assert_eq!(map.events as usize, world.events().len());
        for seq in 0..crash_at - 1 {
            assert_eq!(
                verdict_after(&map, seq),
                verdict_after(&clean_map, seq),
                "#{seq}"
            );
        }
        // After the crash, one more crash cannot undo the duplicates the first one made.
        let after = verdict_after(&map, crash_at + 5).flatten();
        assert_eq!(after, Some(Verdict::Duplicates));
    }
}
