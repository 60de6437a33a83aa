//! A whole micro-batch run of one scenario, recorded once: its [`Timeline`] (the events, and
//! snapshots that are only a cache — the world is deterministic, so any cursor can be rebuilt
//! from the scenario), and what only the micro-batch badge needs: the keys of every record the
//! upstream produced (what should reach the sink) and the oracle's verdict at a cursor.

use batchscope_check::oracle::{
    expected_counts, judge_progress, verdict_of as oracle_verdict, Report, Verdict,
};
use batchscope_check::progress::{so_far, so_far_listing, Progress};
use batchscope_engine::microbatch::event::Event;
use batchscope_engine::microbatch::scenario::Scenario;
use batchscope_engine::microbatch::upstream::RowKey;
use batchscope_engine::microbatch::World;
use batchscope_view::microbatch::panels::{
    committed_positions, lost_keys_behind, Committed, Lost, LISTED_KEYS,
};
use batchscope_view::microbatch::spark_ui::{BatchProgress, ProgressIndex};
use batchscope_view::microbatch::tour;
use batchscope_view::microbatch::url::scenario::dashboard_limit;
use batchscope_view::replay::Timeline;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// The tour stops' cursors kept for one preset (its name, a cursor per stop).
type TourCursors = Option<(String, Rc<[Option<usize>]>)>;

/// Sink counts kept, by the sink's visible rows: a step back and forth around a moment counts
/// once.
const KEPT_COUNTS: usize = 4;

/// What a count of the sink depends on along one run: the version of its visible rows, and
/// whether the query has started (a running sum's expected values wait for its first start).
type CountKey = (u64, bool);

/// The lost keys last found, with what they were found from.
type KeptLost = Option<(CountKey, Option<Committed>, Rc<Lost>)>;

/// A scenario run to its end.
#[derive(Debug)]
pub struct Run {
    /// The scenario, with its recorded crash inputs.
    pub scenario: Scenario,
    /// Every world of the run, until convergence (or the liveness bound).
    pub timeline: Timeline<World>,
    /// Whether the run converged (otherwise it is stuck at the end).
    pub converged: bool,
    /// Keys of every record the upstream produced (each expected once).
    pub expected: Rc<BTreeMap<RowKey, u64>>,
    /// The cursor of each stop of a tour over this run, kept for the tour's preset: finding
    /// them scans every event, too much for every step of a long run.
    tour_cursors: RefCell<TourCursors>,
    /// The sink's count at the last few visible versions seen (newest last): along one run,
    /// a visible version names one set of visible rows, and at 64 channels × 1,000 batches a
    /// count of the full sink is most of a step. Keyed by the rows a reader sees, not by every
    /// change: the many steps that only stage rows (a file sink's tasks) count nothing.
    counts: RefCell<Vec<(CountKey, Rc<Progress>)>>,
    /// Spark's progress reports of any cursor, made when first asked for.
    spark: RefCell<Option<Rc<ProgressIndex>>>,
    /// The lost keys last found, with what they were found from (the count's key and the
    /// positions behind the last commit): finding them reads every record behind the
    /// commit, most of a step back at the end of a long run.
    lost: RefCell<KeptLost>,
}

impl Run {
    /// Runs the scenario to its end; `expected` is reused when only crash inputs changed.
    pub fn compute(scenario: Scenario, expected: Option<Rc<BTreeMap<RowKey, u64>>>) -> Run {
        let expected = expected.unwrap_or_else(|| Rc::new(expected_counts(&scenario)));
        // The judges' run loop, capped at what a person watches (browser safety); a large
        // scenario the dashboard accepts is played to its end.
        let limit = dashboard_limit(&scenario);
        let (timeline, _) = Timeline::record(World::new(scenario.clone()), limit);
        Run {
            scenario,
            converged: timeline.last().is_converged(),
            timeline,
            expected,
            tour_cursors: RefCell::new(None),
            counts: RefCell::new(Vec::new()),
            spark: RefCell::new(None),
            lost: RefCell::new(None),
        }
    }

    /// What Spark's UI reports after the first `cursor` events of this run (the Structured
    /// Streaming tab): read from an index of the run made once, not from every event so far.
    pub fn spark_progress(&self, cursor: usize) -> Vec<BatchProgress> {
        let index = self
            .spark
            .borrow_mut()
            .get_or_insert_with(|| Rc::new(ProgressIndex::of(self.events())))
            .clone();
        index.at(self.events(), cursor)
    }

    /// The sink of `world` (a moment of this run) against the expected keys, listing the first
    /// [`LISTED_KEYS`] missing ones; counted again only for visible rows not among the last
    /// few seen.
    pub fn progress_of(&self, world: &World) -> Rc<Progress> {
        let key = (world.sink.visible_version(), world.first_start.is_some());
        let mut kept = self.counts.borrow_mut();
        if let Some((_, progress)) = kept.iter().find(|(k, _)| *k == key) {
            return progress.clone();
        }
        let progress = Rc::new(so_far_listing(world, &self.expected, LISTED_KEYS));
        if kept.len() == KEPT_COUNTS {
            kept.remove(0);
        }
        kept.push((key, progress.clone()));
        progress
    }

    /// The expected keys `world`'s sink can no longer get, and the commit they lie behind
    /// ([`lost_keys_behind`], from `progress`, its count): found again only when the visible
    /// rows or the positions behind the last commit changed.
    pub fn lost_of(&self, world: &World, progress: &Progress) -> Rc<Lost> {
        if progress.missing == 0 {
            return Rc::new((None, vec![]));
        }
        let key = (world.sink.visible_version(), world.first_start.is_some());
        let committed = committed_positions(world);
        let mut kept = self.lost.borrow_mut();
        if let Some((k, c, lost)) = &*kept {
            if *k == key && *c == committed {
                return lost.clone();
            }
        }
        let lost = Rc::new(lost_keys_behind(
            world,
            &self.expected,
            &progress.counts,
            committed.clone(),
        ));
        *kept = Some((key, committed, lost.clone()));
        lost
    }

    /// The cursor of each stop of `preset`'s tour in this run (`None`: never reached),
    /// found once per preset.
    pub fn tour_cursors(&self, preset: &str) -> Rc<[Option<usize>]> {
        if let Some((name, cursors)) = &*self.tour_cursors.borrow() {
            if name == preset {
                return cursors.clone();
            }
        }
        let cursors: Rc<[Option<usize>]> =
            tour::stop_cursors(&tour::tour_frame(preset).stops, self.events()).into();
        *self.tour_cursors.borrow_mut() = Some((preset.to_string(), cursors.clone()));
        cursors
    }

    /// Every event of the run.
    pub fn events(&self) -> &[Event] {
        self.timeline.events()
    }

    /// The final world.
    pub fn last(&self) -> &World {
        self.timeline.last()
    }

    /// Number of events in the run.
    pub fn len(&self) -> usize {
        self.timeline.len()
    }

    /// Whether the run has no events (never: a query always starts).
    pub fn is_empty(&self) -> bool {
        self.timeline.is_empty()
    }

    /// The oracle's view of the world at `cursor`: `None` while the run has not settled there.
    pub fn verdict_at(&self, world: &World, cursor: usize) -> (Option<Report>, Report) {
        self.verdict_of(world, cursor, &so_far(world, &self.expected))
    }

    /// Whether the run has settled at `cursor` (`world` its moment): converged there, or
    /// stuck at the end of a run that never converges. Until then the oracle says nothing.
    pub fn settled_at(&self, world: &World, cursor: usize) -> bool {
        world.is_converged() || (cursor >= self.len() && !self.converged)
    }

    /// The badge's verdict at `cursor` from the sink's count already taken (`so_far` of
    /// `world`): the verdict of [`Run::verdict_of`]'s report without the report (the badge
    /// needs only the verdict and the counts `progress` has; the report also lists the crashes
    /// fired and counts the sink's files — at 1,000 batches tens of thousands, at every step).
    pub fn settled_verdict(
        &self,
        world: &World,
        cursor: usize,
        progress: &Progress,
    ) -> Option<Verdict> {
        self.settled_at(world, cursor)
            .then(|| oracle_verdict(world.is_converged(), progress))
    }

    /// [`Run::verdict_at`] from the sink's count already taken (`so_far` of `world`).
    pub fn verdict_of(
        &self,
        world: &World,
        cursor: usize,
        progress: &Progress,
    ) -> (Option<Report>, Report) {
        let report = judge_progress(world, world.is_converged(), progress, false);
        (
            self.settled_at(world, cursor).then(|| report.clone()),
            report,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use batchscope_engine::microbatch::scenario::preset;

    #[test]
    fn seeking_gives_the_same_world_as_stepping() {
        let mut s = preset("tablestore").unwrap();
        s.crashes.push("sink-commit@2".parse().unwrap());
        let run = Run::compute(s.clone(), None);
        assert!(run.converged);
        for cursor in [0, 1, 31, 32, 33, 64, run.len() - 1, run.len()] {
            let w = run.timeline.world_at(cursor);
            assert_eq!(w.events(), &run.events()[..cursor]);
        }
        let w = run.timeline.world_at(40);
        let mut direct = World::new(s);
        for _ in 0..40 {
            direct.step();
        }
        assert_eq!(w.meta_table, direct.meta_table);
        assert_eq!(w.sink, direct.sink);
    }

    #[test]
    fn tour_cursors_are_found_once_per_preset_and_match_a_fresh_search() {
        let run = Run::compute(preset("tablestore-split").unwrap(), None);
        for name in ["tablestore-split", "kafka-idempotent", "tablestore-split"] {
            let fresh = tour::stop_cursors(&tour::tour_frame(name).stops, run.events());
            assert_eq!(&*run.tour_cursors(name), fresh.as_slice(), "{name}");
        }
        let kept = run.tour_cursors("tablestore-split");
        assert!(Rc::ptr_eq(&kept, &run.tour_cursors("tablestore-split")));
        assert!(kept.iter().any(Option::is_some), "the tour reaches a stop");
    }

    #[test]
    fn kept_counts_equal_a_fresh_count_back_and_forth() {
        // An append sink, a file sink (whose tasks only stage), an upsert sink holding a
        // running sum (whose expected values wait for the first start), each with a crash.
        let running_sum = {
            let mut s = preset("kafka-idempotent").unwrap();
            s.sink.kind = batchscope_engine::microbatch::scenario::SinkKind::Upsert;
            s.sink.value = batchscope_engine::microbatch::scenario::SinkValue::RunningSum;
            s
        };
        for (mut s, crash) in [
            (preset("kafka-append").unwrap(), "sink-commit@3"),
            (preset("kafka-idempotent").unwrap(), "sink-commit@2"),
            (running_sum, "sink-commit@2"),
        ] {
            s.crashes.push(crash.parse().unwrap());
            let run = Run::compute(s, None);
            let end = run.len();
            let mut cursors: Vec<usize> = (0..=end).collect();
            cursors.extend((0..=end).rev());
            cursors.extend([end / 2, end, end / 2, 3, end]);
            for cursor in cursors {
                let world = run.timeline.world_at(cursor);
                let fresh = so_far_listing(&world, &run.expected, LISTED_KEYS);
                assert_eq!(*run.progress_of(&world), fresh, "{crash}, cursor {cursor}");
            }
            assert!(run.counts.borrow().len() <= KEPT_COUNTS);
        }
    }

    #[test]
    fn kept_lost_keys_equal_fresh_ones_back_and_forth() {
        // A run that loses rows: commits/2 of the re-run lies beyond rows it never read.
        let mut s = preset("tablestore-two-phase").unwrap();
        s.crashes.push("sink-commit@2".parse().unwrap());
        let run = Run::compute(s, None);
        let end = run.len();
        let mut cursors: Vec<usize> = (0..=end).collect();
        cursors.extend((0..=end).rev());
        let mut seen_lost = false;
        for cursor in cursors {
            let world = run.timeline.world_at(cursor);
            let progress = run.progress_of(&world);
            let fresh = batchscope_view::microbatch::panels::lost_keys(&world, &run.expected);
            let kept = run.lost_of(&world, &progress);
            assert_eq!(*kept, fresh, "cursor {cursor}");
            seen_lost |= !fresh.1.is_empty();
        }
        assert!(seen_lost, "the run should lose keys at some cursor");
    }

    #[test]
    fn spark_progress_at_a_cursor_is_the_progress_of_the_events_so_far() {
        let mut s = preset("kafka-append").unwrap();
        s.crashes.push("sink-commit@3".parse().unwrap());
        let run = Run::compute(s, None);
        for cursor in [0, 1, 40, run.len() / 2, run.len(), 7] {
            let events = &run.events()[..cursor];
            assert_eq!(
                run.spark_progress(cursor),
                batchscope_view::microbatch::spark_ui::progress(events),
                "{cursor}"
            );
        }
    }

    #[test]
    fn the_verdict_is_open_until_the_run_settles() {
        let mut s = preset("kafka-append").unwrap();
        s.crashes.push("sink-commit@3".parse().unwrap());
        let run = Run::compute(s, None);
        let mid = run.timeline.world_at(20);
        assert!(run.verdict_at(&mid, 20).0.is_none());
        let end = run.timeline.world_at(run.len());
        let (settled, _) = run.verdict_at(&end, run.len());
        assert_eq!(settled.unwrap().verdict.name(), "duplicates");
    }

    #[test]
    fn the_badge_verdict_is_the_reports_at_every_cursor() {
        // Duplicates, loss, a clean run, and one that never converges (stuck at its end).
        for (name, crash) in [
            ("kafka-append", Some("sink-commit@3")),
            ("tablestore-two-phase", Some("sink-commit@2")),
            ("kafka-idempotent", None),
            ("reader-never-closes", None),
        ] {
            let mut s = preset(name).unwrap();
            s.crashes.extend(crash.map(|c| {
                c.parse::<batchscope_engine::microbatch::scenario::CrashPoint>()
                    .unwrap()
            }));
            let run = Run::compute(s, None);
            let mut settled_somewhere = false;
            for cursor in 0..=run.len() {
                let world = run.timeline.world_at(cursor);
                let progress = run.progress_of(&world);
                let (settled, _) = run.verdict_of(&world, cursor, &progress);
                let badge = run.settled_verdict(&world, cursor, &progress);
                assert_eq!(badge, settled.map(|r| r.verdict), "{name} at {cursor}");
                settled_somewhere |= badge.is_some();
            }
            assert!(settled_somewhere, "{name} settles at its end");
        }
    }

    #[test]
    fn crash_now_inputs_do_not_change_the_expected_counts() {
        let mut s = preset("kafka-append").unwrap();
        let plain = expected_counts(&s);
        s.crash_after_events.push(30);
        assert_eq!(expected_counts(&s), plain);
    }
}
