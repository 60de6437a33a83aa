//! The Topology mode of the shared player: the recorded run (topology, seed, barriers on/off,
//! faults) as a [`Timeline`], the query panel's level and consistency with the declared query
//! after every step, and the `TopoAction`s of this mode.
//!
//! Like the micro-batch mode, every intervention (fail a job, revise a table) is recorded as a
//! fault of the run and the run is recorded again; the cursor stays where it was when the past
//! did not change, so step back and replay stay exact.

use crate::shell::{Mode, Opened, Player, PlayerCmd};
use batchscope_engine::barrier::{BarrierEventKind, Consistency, Fault, ReadLevel, TopologyWorld};
use batchscope_view::replay::Timeline;
use batchscope_view::topology::{
    self as topo, canonical_faults, parse_topology, query_history, HistoryPoint, TopoUrl,
};
use batchscope_view::url::{Dashboard, PageLink};
use std::rc::Rc;

/// One user intent in Topology mode.
#[derive(Clone, Debug, PartialEq)]
pub enum TopoAction {
    /// What every mode's player does (transport, seed, theme, notices, the tour).
    Player(PlayerCmd),
    /// Load a topology preset (seed kept, faults dropped).
    SetTopology(String),
    /// Barriers off (the contrast) or on; faults dropped.
    SetNoBarriers(bool),
    /// Timestamp barriers per checkpoint (faults kept).
    SetPerCheckpoint(u64),
    /// Reader level of the query panel.
    SetLevel(ReadLevel),
    /// Strong or Weak.
    SetConsistency(Consistency),
    /// Fail `job` after `barrier` is PRECOMMIT, before its table WROTE it (`--fail JOB@B`).
    FailAfterPrecommit(String, u64),
    /// Fail `job` right after the step on screen.
    FailNow(String),
    /// Revise barrier `barrier` of `table` right after the step on screen.
    ReviseNow(String, u64),
    /// Remove the recorded fault at this index.
    RemoveFault(usize),
    /// Load a state from the URL (a pasted link).
    LoadUrl(TopoUrl),
}

impl From<PlayerCmd> for TopoAction {
    fn from(cmd: PlayerCmd) -> TopoAction {
        TopoAction::Player(cmd)
    }
}

impl From<TopoUrl> for TopoAction {
    fn from(state: TopoUrl) -> TopoAction {
        TopoAction::LoadUrl(state)
    }
}

/// What the Topology mode adds to the player.
#[derive(Clone, Debug)]
pub struct Topo {
    /// Topology, seed, barriers, faults, level and consistency (the cursor and the tour are
    /// the player's).
    pub url: TopoUrl,
    /// The recorded run.
    pub timeline: Rc<Timeline<TopologyWorld>>,
    /// The declared query after every step, at the panel's level and consistency.
    pub history: Rc<Vec<HistoryPoint>>,
}

/// The Topology-mode player.
pub type TopoPlayer = Player<Topo>;

/// The run a state describes, to its end (or [`topo::MAX_STEPS`]).
fn record(url: &TopoUrl) -> Result<Timeline<TopologyWorld>, String> {
    let run = url
        .run()
        .ok_or_else(|| format!("unknown topology `{}`", url.topology))?;
    batchscope_view::topology::record(&run)
}

/// The declared query after every step of `timeline`.
fn history(
    timeline: &Timeline<TopologyWorld>,
    level: ReadLevel,
    consistency: Consistency,
) -> Vec<HistoryPoint> {
    query_history(timeline, level, consistency)
}

impl Topo {
    fn new(url: TopoUrl, timeline: Timeline<TopologyWorld>) -> Topo {
        Topo {
            history: Rc::new(history(&timeline, url.level, url.consistency)),
            timeline: Rc::new(timeline),
            url,
        }
    }

    /// The world at the end of the run.
    pub fn last(&self) -> &TopologyWorld {
        self.timeline.last()
    }

    fn refresh_history(&mut self) {
        self.history = Rc::new(history(
            &self.timeline,
            self.url.level,
            self.url.consistency,
        ));
    }
}

impl Mode for Topo {
    type World = TopologyWorld;
    type Action = TopoAction;
    type Url = TopoUrl;

    const SUBJECT: &'static str = "topology";
    const STEPS: &'static str = "steps";

    fn timeline(&self) -> &Timeline<TopologyWorld> {
        &self.timeline
    }

    fn command(action: &TopoAction) -> Option<&PlayerCmd> {
        match action {
            TopoAction::Player(cmd) => Some(cmd),
            _ => None,
        }
    }

    fn act(p: &mut TopoPlayer, action: TopoAction) {
        match action {
            TopoAction::Player(cmd) => p.command(cmd),
            TopoAction::SetTopology(name) => {
                let url = TopoUrl {
                    topology: name,
                    seed: p.mode.url.seed,
                    no_barriers: p.mode.url.no_barriers,
                    per_checkpoint: 1,
                    level: p.mode.url.level,
                    consistency: p.mode.url.consistency,
                    ..TopoUrl::default_for(topo::DEFAULT_TOPOLOGY)
                };
                p.playing = false;
                if p.replace(url, false) {
                    p.tour = false;
                    p.seek(0);
                }
            }
            TopoAction::SetNoBarriers(no) => {
                let url = TopoUrl {
                    no_barriers: no,
                    faults: vec![],
                    ..p.mode.url.clone()
                };
                p.playing = false;
                let had_faults = !p.mode.url.faults.is_empty();
                if p.replace(url, false) {
                    p.seek(0);
                    if had_faults {
                        p.notify(
                            "Faults were dropped: they were recorded for the other mode.".into(),
                        );
                    }
                }
            }
            TopoAction::SetPerCheckpoint(n) => {
                let url = TopoUrl {
                    per_checkpoint: n,
                    ..p.mode.url.clone()
                };
                p.playing = false;
                if p.replace(url, false) {
                    p.seek(0);
                }
            }
            TopoAction::SetLevel(l) => {
                p.mode.url.level = l;
                p.mode.refresh_history();
            }
            TopoAction::SetConsistency(c) => {
                p.mode.url.consistency = c;
                p.mode.refresh_history();
            }
            TopoAction::FailAfterPrecommit(job, barrier) => p.fail_after_precommit(job, barrier),
            TopoAction::FailNow(job) => {
                let step = p.cursor as u64;
                p.now(Fault::FailAtStep { job, step });
            }
            TopoAction::ReviseNow(table, barrier) => {
                let step = p.cursor as u64;
                p.now(Fault::ReviseAtStep {
                    table,
                    barrier,
                    step,
                });
            }
            TopoAction::RemoveFault(i) => {
                if i < p.mode.url.faults.len() {
                    let mut url = p.mode.url.clone();
                    url.faults.remove(i);
                    p.replace(url, false);
                }
            }
            TopoAction::LoadUrl(state) => p.load_link(state),
        }
    }

    fn set_seed(p: &mut TopoPlayer, seed: u64) {
        let url = TopoUrl {
            seed,
            ..p.mode.url.clone()
        };
        p.playing = false;
        if p.replace(url, false) {
            p.seek(0);
        }
    }

    fn parse_link(hash: &str) -> Result<TopoUrl, Vec<String>> {
        parse_topology(hash).map_err(|errors| errors.iter().map(|e| e.to_string()).collect())
    }

    fn owns_link(hash: &str) -> bool {
        PageLink::parse(hash).dashboard == Dashboard::Topology
    }

    fn default_link() -> TopoUrl {
        TopoUrl::default_for(topo::DEFAULT_TOPOLOGY)
    }

    fn format_link(state: &TopoUrl) -> String {
        topo::format_topology(state)
    }

    fn open(state: TopoUrl) -> Opened<Topo> {
        let state = if state.tour { tour_link(state) } else { state };
        let (timeline, mut notes) = match record(&state) {
            Ok(t) => (t, vec![]),
            Err(e) => {
                let fallback = Topo::default_link();
                let t = record(&fallback).expect("the default topology runs");
                (t, vec![format!("This run could not be built: {e}.")])
            }
        };
        if state.tour {
            let stops = topo::topology_tour(&state.topology).stops;
            let cursors = topo::topo_stop_cursors(&stops, timeline.events());
            let missed: Vec<&str> = stops
                .iter()
                .zip(&cursors)
                .filter(|(_, c)| c.is_none())
                .map(|(s, _)| s.title)
                .collect();
            if !missed.is_empty() {
                notes.push(format!(
                    "This link's run never reaches {} of the tour's stops ({}): it sets its own failure, level or consistency. Start the tour again for the lesson's run.",
                    missed.len(),
                    missed.join("; ")
                ));
            }
        }
        Opened {
            at: state.at,
            tour: state.tour,
            mode: Topo::new(state, timeline),
            notes,
        }
    }

    fn link(p: &TopoPlayer) -> TopoUrl {
        TopoUrl {
            at: p.cursor as u64,
            tour: p.tour,
            ..p.mode.url.clone()
        }
    }

    fn tour_cursors(&self) -> Vec<Option<usize>> {
        topo::topo_stop_cursors(
            &topo::topology_tour(&self.url.topology).stops,
            self.timeline.events(),
        )
    }

    /// Loads the tour's run (the lesson's link: its seed, fault, level and consistency — the
    /// stops' numbers are those of that run), from step 0, playing.
    fn start_tour(p: &mut TopoPlayer) {
        let t = topo::topology_tour(&p.mode.url.topology);
        let Ok(url) = parse_topology(t.hash) else {
            p.notify(format!(
                "The tour of {} cannot be loaded.",
                p.mode.url.topology
            ));
            return;
        };
        if p.replace(url, false) {
            p.tour = true;
            p.seek(0);
            p.playing = true;
        }
    }
}

/// A `tour=1` link runs its lesson's run as a micro-batch tour link arms its crash: where the
/// link leaves a setting of the tour's run at its default (no fault, the default seed, level,
/// consistency, barriers per checkpoint, barriers on), the tour's own is taken; what the link
/// sets itself it keeps (the page then says which stops that run never reaches).
fn tour_link(mut state: TopoUrl) -> TopoUrl {
    let Ok(t) = parse_topology(topo::topology_tour(&state.topology).hash) else {
        return state;
    };
    if t.topology != state.topology {
        return state;
    }
    let d = TopoUrl::default_for(&state.topology);
    if state.faults.is_empty() {
        state.faults = t.faults;
    }
    if state.seed == d.seed {
        state.seed = t.seed;
    }
    if state.level == d.level {
        state.level = t.level;
    }
    if state.consistency == d.consistency {
        state.consistency = t.consistency;
    }
    if state.per_checkpoint == d.per_checkpoint {
        state.per_checkpoint = t.per_checkpoint;
    }
    if state.no_barriers == d.no_barriers {
        state.no_barriers = t.no_barriers;
    }
    state
}

impl Player<Topo> {
    /// Replaces the run-defining state; the cursor moves back to where the new trace departs
    /// from the old one (or is kept when `keep_cursor`). Returns false (with a notice) when the
    /// run cannot be built.
    fn replace(&mut self, url: TopoUrl, keep_cursor: bool) -> bool {
        match record(&url) {
            Ok(timeline) => {
                self.rerecord(Topo::new(url, timeline), keep_cursor);
                true
            }
            Err(e) => {
                self.notify(format!("That cannot be done here: {e}."));
                false
            }
        }
    }

    fn with_fault(&self, fault: Fault) -> TopoUrl {
        let mut url = self.mode.url.clone();
        url.faults.push(fault);
        url.faults = canonical_faults(url.faults);
        url
    }

    fn fail_after_precommit(&mut self, job: String, barrier: u64) {
        let fault = Fault::FailBeforeWritten {
            job: job.clone(),
            barrier,
        };
        if self.mode.url.faults.contains(&fault) {
            self.notify(format!("{job} already fails at barrier {barrier}."));
            return;
        }
        let url = self.with_fault(fault);
        let Ok(timeline) = record(&url) else {
            self.notify(format!("{job} cannot fail at barrier {barrier} here."));
            return;
        };
        if self.mode.timeline.divergence(&timeline) < self.cursor {
            self.notify(format!(
                "Barrier {barrier} of {job} is behind the cursor: the run already passed that point. Step back before it (or reset), or pick a later barrier."
            ));
            return;
        }
        let fired = timeline
            .events()
            .iter()
            .any(|e| matches!(&e.kind, BarrierEventKind::JobFailed { job: j, .. } if *j == job));
        self.rerecord(Topo::new(url, timeline), true);
        if !fired {
            self.notify(format!(
                "{job} is set to fail at barrier {barrier}, but this run never reaches that point."
            ));
        }
    }

    fn now(&mut self, fault: Fault) {
        let mut probe = (*self.world).clone();
        let checked = match &fault {
            Fault::FailAtStep { job, .. } => probe.fail_job(job),
            Fault::ReviseAtStep { table, barrier, .. } => probe.revise(table, *barrier),
            _ => Ok(()),
        };
        if let Err(e) = checked {
            self.notify(format!("{e}"));
            return;
        }
        if probe.clone().step().is_none() {
            self.notify(
                "The run has drained: nothing is running any more to fail or revise.".into(),
            );
            return;
        }
        let url = self.with_fault(fault);
        let cursor = self.cursor;
        if self.replace(url, true) {
            // Show the failure or revision itself.
            self.seek(cursor + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use yew::Reducible;

    fn reduce(p: TopoPlayer, a: impl Into<TopoAction>) -> TopoPlayer {
        (*Rc::new(p).reduce(a.into())).clone()
    }

    #[test]
    fn fail_now_is_recorded_shown_and_replayed_by_the_link() {
        let mut p = TopoPlayer::from_hash("#mode=topology&topology=shopping&at=30");
        let before = p.world.trace().to_vec();
        p = reduce(p, TopoAction::FailNow("price_job".into()));
        assert_eq!(p.cursor, 31);
        assert_eq!(&p.world.trace()[..30], &before[..]);
        assert!(matches!(
            p.world.trace().last().unwrap().kind,
            BarrierEventKind::JobFailed { .. }
        ));
        let again = TopoPlayer::from_link(p.url_state());
        assert_eq!(again.world.trace(), p.world.trace());
        // Step back and forward land on the same world.
        p = reduce(p, PlayerCmd::Back);
        p = reduce(p, PlayerCmd::Step);
        assert_eq!(again.world.trace(), p.world.trace());
    }

    #[test]
    fn failing_at_a_passed_barrier_is_refused_and_a_bad_link_is_named() {
        let p = TopoPlayer::from_hash("#mode=topology&topology=shopping");
        let end = p.len();
        let p = reduce(p, PlayerCmd::Seek(end));
        let p = reduce(p, TopoAction::FailAfterPrecommit("price_job".into(), 2));
        assert!(p.mode.url.faults.is_empty());
        assert!(p.notices[0].text.contains("behind the cursor"));
        let p = TopoPlayer::from_hash("#mode=topology&topology=nope&fail=x@1");
        assert_eq!(p.mode.url.topology, "shopping");
        assert!(p.notices[0].text.contains("unknown topology `nope`"));
    }

    #[test]
    fn revising_a_barrier_not_written_yet_is_refused_with_the_reason() {
        let p = TopoPlayer::from_hash("#mode=topology&topology=shopping&at=5");
        let p = reduce(p, TopoAction::ReviseNow("shopping".into(), 4));
        assert!(p.mode.url.faults.is_empty());
        assert!(p.notices[0].text.contains("has not WRITTEN barrier 4"));
    }

    #[test]
    fn a_tour_link_without_the_lessons_settings_runs_the_lessons_run() {
        for (name, _) in batchscope_engine::barrier::presets() {
            let tour = topo::topology_tour(name);
            let lesson = parse_topology(tour.hash).expect("the tour's link");
            let p = TopoPlayer::from_hash(&format!("#mode=topology&topology={name}&tour=1&at=0"));
            let u = &p.mode.url;
            assert_eq!(
                (&u.faults, u.seed, u.level, u.consistency),
                (
                    &lesson.faults,
                    lesson.seed,
                    lesson.level,
                    lesson.consistency
                ),
                "{name}"
            );
            assert!(p.tour_cursors().iter().all(Option::is_some), "{name}");
            assert!(p.notices.is_empty(), "{name}: {:?}", p.notices);
        }
        // A link that sets its own level keeps it, and the page names the stops it misses.
        let p = TopoPlayer::from_hash(
            "#mode=topology&topology=three-queries&tour=1&at=0&level=ru&consistency=strong",
        );
        let missed = p.tour_cursors().iter().filter(|c| c.is_none()).count();
        if missed > 0 {
            assert!(
                p.notices[0].text.contains("never reaches"),
                "{:?}",
                p.notices
            );
        }
    }

    #[test]
    fn the_tour_loads_its_failure_and_pauses_at_each_stop() {
        let mut p = TopoPlayer::from_hash("#mode=topology&topology=shopping&seed=4&at=20");
        p = reduce(p, PlayerCmd::TourStart);
        assert!(p.tour && p.playing);
        assert_eq!(p.cursor, 0);
        assert_eq!(p.mode.url.seed, 1);
        assert_eq!(p.mode.url.level, ReadLevel::ReadCommitted);
        assert_eq!(p.mode.url.faults.len(), 1);
        let cursors = p.tour_cursors();
        for (i, c) in cursors.iter().enumerate() {
            if i > 0 {
                p = reduce(p, PlayerCmd::TourNext);
            }
            for _ in 0..1000 {
                if !p.playing {
                    break;
                }
                p = reduce(p, PlayerCmd::Tick);
            }
            assert_eq!(Some(p.cursor), *c, "paused at stop {}", i + 1);
        }
        assert!(p.at_end());
        assert!(topo::format_topology(&p.url_state()).contains("tour=1"));
        p = reduce(p, PlayerCmd::TourGo(5));
        assert!(matches!(
            p.world.trace().last().unwrap().kind,
            BarrierEventKind::JobFailed { .. }
        ));
        p = reduce(p, PlayerCmd::TourExit);
        assert!(!p.tour);
    }
}
