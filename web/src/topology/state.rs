//! The Topology mode's player: the recorded run (topology, seed, barriers on/off, faults), the
//! world after every step, the cursor, playback and the query panel's level and consistency.
//!
//! Like the micro-batch player, every intervention (fail a job, revise a table) is recorded as
//! a fault of the run and the run is recomputed; the cursor stays where it was when the past did
//! not change, so step back and replay stay exact.

use crate::playback::Playback;
use crate::state::{Notice, Theme, BASE_STEP_MS, SPEEDS};
use batchscope_engine::barrier::{Consistency, Fault, ReadLevel, TopologyWorld};
use batchscope_view::topology::{
    self as topo, canonical_faults, frames, parse_topology, query_history, HistoryPoint, TopoUrl,
};
use std::rc::Rc;
use yew::Reducible;

/// One user intent in Topology mode.
#[derive(Clone, Debug, PartialEq)]
pub enum TopoAction {
    /// One step forward.
    Step,
    /// One step back.
    Back,
    /// Back to the start (faults kept).
    Reset,
    /// Jump to a step (the scrubber).
    Seek(usize),
    /// Play or pause.
    TogglePlay,
    /// The play timer fired.
    Tick,
    /// Playback speed (index into `SPEEDS`).
    SetSpeed(usize),
    /// Load a topology preset (seed kept, faults dropped).
    SetTopology(String),
    /// Change the seed (faults kept).
    SetSeed(u64),
    /// Barriers off (the contrast) or on; faults dropped.
    SetNoBarriers(bool),
    /// Reader level of the query panel.
    SetLevel(ReadLevel),
    /// Strong or Weak.
    SetConsistency(Consistency),
    /// Fail `job` after `barrier` is PRECOMMIT, before its table WROTE it (`--fail JOB@B`).
    FailAfterPrecommit(String, u64),
    /// Fail `job` right after the step on screen.
    FailNow(String),
    /// Revise `table` back to `barrier` right after the step on screen.
    ReviseNow(String, u64),
    /// Remove the recorded fault at this index.
    RemoveFault(usize),
    /// Switch theme.
    SetTheme(Theme),
    /// Dismiss a notice.
    Dismiss(u32),
    /// Show a message.
    Notify(String),
    /// Load a state from the URL (a pasted link).
    LoadUrl(TopoUrl),
    /// Start the lesson's guided tour: load its run (fault, level), rewind, play to stop 1.
    TourStart,
    /// Play on to the next stop.
    TourNext,
    /// Jump to stop `i`.
    TourGo(usize),
    /// Leave the tour.
    TourExit,
    /// The `t` key: start the tour, or play on to its next stop.
    TourKey,
}

/// The Topology-mode player.
#[derive(Clone, Debug)]
pub struct TopoPlayer {
    /// Topology, seed, barriers, faults (and level, consistency, cursor as last written).
    pub url: TopoUrl,
    /// The world after every step of the run.
    pub frames: Rc<Vec<TopologyWorld>>,
    /// The declared query after every step, at the panel's level and consistency.
    pub history: Rc<Vec<HistoryPoint>>,
    /// Steps shown.
    pub cursor: usize,
    /// Whether playback runs.
    pub playing: bool,
    /// Index into `SPEEDS`.
    pub speed: usize,
    /// Theme.
    pub theme: Theme,
    /// Messages.
    pub notices: Vec<Notice>,
    next_notice: u32,
}

fn compute(url: &TopoUrl) -> Result<Vec<TopologyWorld>, String> {
    let run = url
        .run()
        .ok_or_else(|| format!("unknown topology `{}`", url.topology))?;
    frames(&run)
}

impl TopoPlayer {
    /// A player for a URL hash; errors become notices and the default topology is loaded.
    pub fn from_hash(hash: &str) -> TopoPlayer {
        match parse_topology(hash) {
            Ok(state) => TopoPlayer::from_url(state),
            Err(errors) => {
                let mut p = TopoPlayer::from_url(TopoUrl::default_for(topo::DEFAULT_TOPOLOGY));
                let list: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
                p.notify(format!(
                    "This link could not be read — {}. The default topology is loaded instead.",
                    list.join("; ")
                ));
                p
            }
        }
    }

    /// A player at the state a URL describes.
    pub fn from_url(state: TopoUrl) -> TopoPlayer {
        let (frames, error) = match compute(&state) {
            Ok(f) => (f, None),
            Err(e) => {
                let fallback = TopoUrl::default_for(topo::DEFAULT_TOPOLOGY);
                (
                    compute(&fallback).expect("the default topology runs"),
                    Some(e),
                )
            }
        };
        let mut p = TopoPlayer {
            history: Rc::new(query_history(&frames, state.level, state.consistency)),
            frames: Rc::new(frames),
            url: state,
            cursor: 0,
            playing: false,
            speed: 2,
            theme: Theme::System,
            notices: vec![],
            next_notice: 0,
        };
        if let Some(e) = error {
            p.notify(format!("This run could not be built: {e}."));
        }
        let at = p.url.at as usize;
        if at > p.len() {
            let len = p.len();
            p.notify(format!(
                "at={at} is past the end of this run ({len} steps); showing the end."
            ));
        }
        p.cursor = at.min(p.len());
        p
    }

    /// Steps in the run.
    pub fn len(&self) -> usize {
        self.frames.len() - 1
    }

    /// Whether the run has no steps (never: CDC records always arrive).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The world on screen.
    pub fn world(&self) -> &TopologyWorld {
        &self.frames[self.cursor.min(self.len())]
    }

    /// The world at the end of the run.
    pub fn last(&self) -> &TopologyWorld {
        &self.frames[self.len()]
    }

    /// The URL state of the moment on screen.
    pub fn url_state(&self) -> TopoUrl {
        TopoUrl {
            at: self.cursor as u64,
            ..self.url.clone()
        }
    }

    /// Milliseconds per step at the current speed.
    pub fn step_ms(&self) -> f64 {
        BASE_STEP_MS / SPEEDS[self.speed.min(SPEEDS.len() - 1)]
    }

    fn notify(&mut self, text: String) {
        self.notices.push(Notice {
            id: self.next_notice,
            text,
        });
        self.next_notice += 1;
    }

    fn refresh_history(&mut self) {
        self.history = Rc::new(query_history(
            &self.frames,
            self.url.level,
            self.url.consistency,
        ));
    }

    /// Replaces the run-defining state; the cursor moves back to where the new trace departs
    /// from the old one (or is kept when `keep_cursor`). Returns false (with a notice) when the
    /// run cannot be built.
    fn replace(&mut self, url: TopoUrl, keep_cursor: bool) -> bool {
        match compute(&url) {
            Ok(f) => {
                let old = self.last().trace();
                let new = f.last().expect("a frame").trace();
                let divergence = old
                    .iter()
                    .zip(new)
                    .position(|(a, b)| a != b)
                    .unwrap_or(old.len().min(new.len()));
                self.frames = Rc::new(f);
                self.url = url;
                self.refresh_history();
                let c = if keep_cursor {
                    self.cursor
                } else {
                    divergence.min(self.cursor)
                };
                self.seek(c);
                true
            }
            Err(e) => {
                self.notify(format!("That cannot be done here: {e}."));
                false
            }
        }
    }

    fn with_fault(&self, fault: Fault) -> TopoUrl {
        let mut url = self.url.clone();
        url.faults.push(fault);
        url.faults = canonical_faults(url.faults);
        url
    }

    fn fail_after_precommit(&mut self, job: String, barrier: u64) {
        let fault = Fault::FailBeforeWritten {
            job: job.clone(),
            barrier,
        };
        if self.url.faults.contains(&fault) {
            self.notify(format!("{job} already fails at barrier {barrier}."));
            return;
        }
        let url = self.with_fault(fault);
        let Ok(f) = compute(&url) else {
            self.notify(format!("{job} cannot fail at barrier {barrier} here."));
            return;
        };
        let old = self.last().trace();
        let new = f.last().expect("a frame").trace();
        let divergence = old
            .iter()
            .zip(new)
            .position(|(a, b)| a != b)
            .unwrap_or(old.len().min(new.len()));
        if divergence < self.cursor {
            self.notify(format!(
                "Barrier {barrier} of {job} is behind the cursor: the run already passed that point. Step back before it (or reset), or pick a later barrier."
            ));
            return;
        }
        let fired = new.iter().any(|e| {
            matches!(&e.kind, batchscope_engine::barrier::BarrierEventKind::JobFailed { job: j, .. } if *j == job)
        });
        self.replace(url, true);
        if !fired {
            self.notify(format!(
                "{job} is set to fail at barrier {barrier}, but this run never reaches that point."
            ));
        }
    }

    fn now(&mut self, fault: Fault) {
        let mut probe = self.world().clone();
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

impl Playback for TopoPlayer {
    fn cursor(&self) -> usize {
        self.cursor
    }

    fn seek(&mut self, cursor: usize) {
        self.cursor = cursor.min(self.len());
        if self.at_end() {
            self.playing = false;
        }
    }

    fn at_end(&self) -> bool {
        self.cursor >= self.len()
    }

    fn playing_mut(&mut self) -> &mut bool {
        &mut self.playing
    }

    fn speed_mut(&mut self) -> &mut usize {
        &mut self.speed
    }

    fn tour_mut(&mut self) -> &mut bool {
        &mut self.url.tour
    }

    fn tour_cursors(&self) -> Vec<Option<usize>> {
        topo::topo_stop_cursors(
            &topo::topology_tour(&self.url.topology).stops,
            self.last().trace(),
        )
    }

    /// Loads the tour's run (the lesson's link: its seed, fault, level and consistency — the
    /// stops' numbers are those of that run), from step 0, playing.
    fn start_tour(&mut self) {
        let t = topo::topology_tour(&self.url.topology);
        let Ok(mut url) = parse_topology(t.hash) else {
            self.notify(format!(
                "The tour of {} cannot be loaded.",
                self.url.topology
            ));
            return;
        };
        url.tour = true;
        url.at = 0;
        if self.replace(url, false) {
            self.seek(0);
            self.playing = true;
        }
    }
}

impl Reducible for TopoPlayer {
    type Action = TopoAction;

    fn reduce(self: Rc<Self>, action: TopoAction) -> Rc<Self> {
        let mut p = (*self).clone();
        match action {
            TopoAction::Step | TopoAction::Tick => {
                if action == TopoAction::Tick && !p.playing {
                    return self;
                }
                p.step_forward(action == TopoAction::Tick);
            }
            TopoAction::Back => p.back(),
            TopoAction::Reset => p.reset(),
            TopoAction::Seek(c) => p.seek(c),
            TopoAction::TogglePlay => p.toggle_play(),
            TopoAction::SetSpeed(i) => p.set_speed(i),
            TopoAction::SetTopology(name) => {
                let url = TopoUrl {
                    topology: name,
                    seed: p.url.seed,
                    no_barriers: p.url.no_barriers,
                    level: p.url.level,
                    consistency: p.url.consistency,
                    ..TopoUrl::default_for(topo::DEFAULT_TOPOLOGY)
                };
                p.playing = false;
                if p.replace(url, false) {
                    p.seek(0);
                }
            }
            TopoAction::SetSeed(seed) => {
                let url = TopoUrl {
                    seed,
                    ..p.url.clone()
                };
                p.playing = false;
                if p.replace(url, false) {
                    p.seek(0);
                }
            }
            TopoAction::SetNoBarriers(no) => {
                let url = TopoUrl {
                    no_barriers: no,
                    faults: vec![],
                    ..p.url.clone()
                };
                p.playing = false;
                let had_faults = !p.url.faults.is_empty();
                if p.replace(url, false) {
                    p.seek(0);
                    if had_faults {
                        p.notify(
                            "Faults were dropped: they were recorded for the other mode.".into(),
                        );
                    }
                }
            }
            TopoAction::SetLevel(l) => {
                p.url.level = l;
                p.refresh_history();
            }
            TopoAction::SetConsistency(c) => {
                p.url.consistency = c;
                p.refresh_history();
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
                if i < p.url.faults.len() {
                    let mut url = p.url.clone();
                    url.faults.remove(i);
                    p.replace(url, false);
                }
            }
            TopoAction::SetTheme(t) => p.theme = t,
            TopoAction::Dismiss(id) => p.notices.retain(|n| n.id != id),
            TopoAction::Notify(text) => p.notify(text),
            TopoAction::TourStart => p.start_tour(),
            TopoAction::TourNext => p.tour_next(),
            TopoAction::TourGo(i) => p.tour_go(i),
            TopoAction::TourExit => p.url.tour = false,
            TopoAction::TourKey => p.tour_key(),
            TopoAction::LoadUrl(state) => {
                if state != p.url_state() {
                    let fresh = TopoPlayer::from_url(state);
                    let mut next = TopoPlayer {
                        theme: p.theme,
                        speed: p.speed,
                        notices: p.notices.clone(),
                        next_notice: p.next_notice,
                        ..fresh.clone()
                    };
                    for n in fresh.notices {
                        next.notify(n.text);
                    }
                    p = next;
                }
            }
        }
        Rc::new(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use batchscope_engine::barrier::BarrierEventKind;

    fn reduce(p: TopoPlayer, a: TopoAction) -> TopoPlayer {
        (*Rc::new(p).reduce(a)).clone()
    }

    #[test]
    fn fail_now_is_recorded_shown_and_replayed_by_the_link() {
        let mut p = TopoPlayer::from_hash("#mode=topology&topology=shopping&at=30");
        let before = p.world().trace().to_vec();
        p = reduce(p, TopoAction::FailNow("price_job".into()));
        assert_eq!(p.cursor, 31);
        assert_eq!(&p.world().trace()[..30], &before[..]);
        assert!(matches!(
            p.world().trace().last().unwrap().kind,
            BarrierEventKind::JobFailed { .. }
        ));
        let again = TopoPlayer::from_url(p.url_state());
        assert_eq!(again.world().trace(), p.world().trace());
        // Step back and forward land on the same world.
        p = reduce(p, TopoAction::Back);
        p = reduce(p, TopoAction::Step);
        assert_eq!(again.world().trace(), p.world().trace());
    }

    #[test]
    fn failing_at_a_passed_barrier_is_refused_and_a_bad_link_is_named() {
        let p = TopoPlayer::from_hash("#mode=topology&topology=shopping");
        let end = p.len();
        let p = reduce(p, TopoAction::Seek(end));
        let p = reduce(p, TopoAction::FailAfterPrecommit("price_job".into(), 2));
        assert!(p.url.faults.is_empty());
        assert!(p.notices[0].text.contains("behind the cursor"));
        let p = TopoPlayer::from_hash("#mode=topology&topology=nope&fail=x@1");
        assert_eq!(p.url.topology, "shopping");
        assert!(p.notices[0].text.contains("unknown topology `nope`"));
    }

    #[test]
    fn revising_a_barrier_not_written_yet_is_refused_with_the_reason() {
        let p = TopoPlayer::from_hash("#mode=topology&topology=shopping&at=5");
        let p = reduce(p, TopoAction::ReviseNow("shopping".into(), 4));
        assert!(p.url.faults.is_empty());
        assert!(p.notices[0].text.contains("has not WRITTEN barrier 4"));
    }

    #[test]
    fn the_tour_loads_its_failure_and_pauses_at_each_stop() {
        let mut p = TopoPlayer::from_hash("#mode=topology&topology=shopping&seed=4&at=20");
        p = reduce(p, TopoAction::TourStart);
        assert!(p.url.tour && p.playing);
        assert_eq!(p.cursor, 0);
        assert_eq!(p.url.seed, 1);
        assert_eq!(p.url.level, ReadLevel::ReadCommitted);
        assert_eq!(p.url.faults.len(), 1);
        let cursors = p.tour_cursors();
        for (i, c) in cursors.iter().enumerate() {
            if i > 0 {
                p = reduce(p, TopoAction::TourNext);
            }
            for _ in 0..1000 {
                if !p.playing {
                    break;
                }
                p = reduce(p, TopoAction::Tick);
            }
            assert_eq!(Some(p.cursor), *c, "paused at stop {}", i + 1);
        }
        assert!(p.at_end());
        assert!(topo::format_topology(&p.url_state()).contains("tour=1"));
        p = reduce(p, TopoAction::TourGo(5));
        assert!(matches!(
            p.world().trace().last().unwrap().kind,
            BarrierEventKind::JobFailed { .. }
        ));
        p = reduce(p, TopoAction::TourExit);
        assert!(!p.url.tour);
    }
}
