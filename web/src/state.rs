//! The player state: which scenario, the cursor in its trace, playback, theme, selections,
//! and the `Action`s that change them. The reducer is pure: no timers, no DOM.
//!
//! Every user intervention (a crash now, an armed crash point) is recorded into the scenario
//! and the whole run is recomputed from it; the cursor stays where it was when the past did
//! not change, so step back and replay stay exact.

use crate::playback::Playback;
use crate::run::Run;
use batchscope_engine::{presets, CrashPoint, Scenario, World};
use batchscope_view::tour::{self, Panel};
use batchscope_view::url::{self, UrlState};
use std::rc::Rc;
use yew::Reducible;

/// Playback speeds (steps per second at 1× is about one).
pub const SPEEDS: [f64; 5] = [0.5, 1.0, 2.0, 4.0, 8.0];
/// Time per step at 1×.
pub const BASE_STEP_MS: f64 = 900.0;

/// Colour theme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    /// Follow `prefers-color-scheme`.
    System,
    /// Light.
    Light,
    /// Dark.
    Dark,
}

impl Theme {
    /// The next theme of the toggle.
    pub fn next(self) -> Theme {
        match self {
            Theme::System => Theme::Dark,
            Theme::Dark => Theme::Light,
            Theme::Light => Theme::System,
        }
    }

    /// `data-theme` value on the root element (`system` lets the media query decide).
    pub fn name(self) -> &'static str {
        match self {
            Theme::System => "system",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
}

/// The tabs of the side panel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    /// Channel checkpoints.
    Channels,
    /// Meta-table rows.
    Meta,
    /// The checkpoint folder.
    Checkpoint,
    /// The sink.
    Sink,
}

impl Tab {
    /// Every tab, in order.
    pub const ALL: [Tab; 4] = [Tab::Channels, Tab::Meta, Tab::Checkpoint, Tab::Sink];

    /// Stable name (ids, test ids).
    pub fn name(self) -> &'static str {
        match self {
            Tab::Channels => "channels",
            Tab::Meta => "meta",
            Tab::Checkpoint => "checkpoint",
            Tab::Sink => "sink",
        }
    }

    /// Title on the tab.
    pub fn title(self) -> &'static str {
        match self {
            Tab::Channels => "Channels",
            Tab::Meta => "Meta table",
            Tab::Checkpoint => "Checkpoint folder",
            Tab::Sink => "Sink",
        }
    }
}

impl From<Panel> for Tab {
    fn from(panel: Panel) -> Tab {
        match panel {
            Panel::Channels => Tab::Channels,
            Panel::Meta => Tab::Meta,
            Panel::Checkpoint => Tab::Checkpoint,
            Panel::Sink => Tab::Sink,
        }
    }
}

/// A dismissible message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// Id for dismissal.
    pub id: u32,
    /// The text.
    pub text: String,
}

/// One user intent.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// One event forward.
    Step,
    /// One event back.
    Back,
    /// To just after the next `commits/N`.
    NextBatch,
    /// Back to the start (crash inputs kept).
    Reset,
    /// Jump to a cursor (the timeline).
    Seek(usize),
    /// Play or pause.
    TogglePlay,
    /// The play timer fired.
    Tick,
    /// Playback speed (index into `SPEEDS`).
    SetSpeed(usize),
    /// Load a preset (seed kept, crash inputs dropped).
    SetPreset(String),
    /// Change the seed (crash inputs kept).
    SetSeed(u64),
    /// Arm a crash point on an upcoming step.
    ArmCrash(CrashPoint),
    /// Remove the armed crash point at this index.
    DisarmCrash(usize),
    /// Remove the crash-now input at this index.
    RemoveCrashNow(usize),
    /// Crash the driver right after the event on screen.
    CrashNow,
    /// Switch theme.
    SetTheme(Theme),
    /// Switch side-panel tab.
    SetTab(Tab),
    /// Show one checkpoint file.
    SelectFile(Option<String>),
    /// Dismiss a notice.
    Dismiss(u32),
    /// Load a state from the URL (a pasted link).
    LoadUrl(UrlState),
    /// Show a message.
    Notify(String),
    /// Start the lesson's guided tour: arm its crash, rewind, and play to the first stop.
    TourStart,
    /// Play on to the next stop of the tour.
    TourNext,
    /// Jump to stop `i` of the tour.
    TourGo(usize),
    /// Leave the tour (playback no longer pauses at its stops).
    TourExit,
    /// The `t` key: start the tour, or play on to its next stop.
    TourKey,
}

/// The player.
#[derive(Clone, Debug)]
pub struct Player {
    /// Preset the scenario came from.
    pub preset: String,
    /// The whole run of the current scenario.
    pub run: Rc<Run>,
    /// The world after `cursor` events.
    pub world: Rc<World>,
    /// Events shown.
    pub cursor: usize,
    /// Whether playback runs.
    pub playing: bool,
    /// Index into `SPEEDS`.
    pub speed: usize,
    /// Theme.
    pub theme: Theme,
    /// Side-panel tab.
    pub tab: Tab,
    /// Checkpoint file shown.
    pub selected_file: Option<String>,
    /// Messages.
    pub notices: Vec<Notice>,
    /// Whether the guided tour is on: playback pauses at its stops.
    pub tour: bool,
    next_notice: u32,
}

/// Preset names, in the engine's order.
pub fn preset_names() -> Vec<&'static str> {
    presets().into_iter().map(|p| p.name).collect()
}

fn scenario_of(preset: &str, seed: u64) -> Scenario {
    let mut s = batchscope_engine::preset(preset)
        .or_else(|_| batchscope_engine::preset(url::DEFAULT_PRESET))
        .unwrap_or_else(|_| presets()[0].scenario.clone());
    s.seed = seed;
    s
}

impl Player {
    /// A player for a URL state; errors become notices and the default scenario is loaded.
    pub fn from_hash(hash: &str) -> Player {
        let names = preset_names();
        match url::parse(hash, &names) {
            Ok(state) => Player::from_url(state),
            Err(errors) => {
                let default = url::parse("", &names).expect("the empty hash parses");
                let mut p = Player::from_url(default);
                let list: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
                p.notify(format!(
                    "This link could not be read — {}. The default scenario is loaded instead.",
                    list.join("; ")
                ));
                p
            }
        }
    }

    /// A player at the state a URL describes.
    pub fn from_url(state: UrlState) -> Player {
        let mut scenario = scenario_of(&state.preset, state.seed);
        scenario.crashes = state.crashes.clone();
        scenario.crash_after_events = state.crash_after_events.clone();
        let run = Rc::new(Run::compute(scenario, None));
        let mut p = Player {
            preset: state.preset.clone(),
            world: Rc::new(run.world_at(0)),
            run,
            cursor: 0,
            playing: false,
            speed: 2,
            theme: Theme::System,
            tab: Tab::Channels,
            selected_file: None,
            notices: vec![],
            tour: state.tour,
            next_notice: 0,
        };
        let at = state.at as usize;
        if at > p.run.len() {
            let len = p.run.len();
            p.notify(format!(
                "at={at} is past the end of this run ({len} events); showing the end."
            ));
        }
        p.seek(at);
        p
    }

    /// The URL state of the moment on screen.
    pub fn url_state(&self) -> UrlState {
        UrlState {
            preset: self.preset.clone(),
            seed: self.run.scenario.seed,
            crashes: self.run.scenario.crashes.clone(),
            crash_after_events: self.run.scenario.crash_after_events.clone(),
            at: self.cursor as u64,
            tour: self.tour,
        }
    }

    /// The scenario being played.
    pub fn scenario(&self) -> &Scenario {
        &self.run.scenario
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

    /// Rebuilds the world at `cursor` from the run (after the run changed).
    fn rebuild(&mut self, cursor: usize) {
        let cursor = cursor.min(self.run.len());
        self.world = Rc::new(self.run.world_at(cursor));
        self.cursor = cursor;
        if self.at_end() {
            self.playing = false;
        }
    }

    /// Replaces the scenario; the cursor moves back to where the new trace departs from the old.
    fn replace_scenario(&mut self, scenario: Scenario) {
        let same_data =
            scenario.seed == self.run.scenario.seed && scenario.name == self.run.scenario.name;
        let expected = same_data.then(|| self.run.expected.clone());
        let run = Rc::new(Run::compute(scenario, expected));
        let keep = self.run.divergence(&run).min(self.cursor);
        self.run = run;
        self.rebuild(keep);
    }

    fn arm(&mut self, point: CrashPoint) {
        if self.run.scenario.crashes.contains(&point) {
            self.notify(format!("{point} is already armed."));
            return;
        }
        let mut scenario = self.run.scenario.clone();
        scenario.crashes.push(point);
        let run = Run::compute(scenario, Some(self.run.expected.clone()));
        if self.run.divergence(&run) < self.cursor {
            self.notify(format!(
                "{point} is behind the cursor: the run already passed that point. Step back before it, or arm a later batch."
            ));
            return;
        }
        let fired = run
            .last
            .fired_crashes()
            .iter()
            .any(|c| c.point == Some(point));
        self.run = Rc::new(run);
        self.rebuild(self.cursor);
        if !fired {
            self.notify(format!(
                "{point} is armed but this run never reaches it (no such step in batch {}).",
                point.batch_id
            ));
        }
    }

    fn crash_now(&mut self) {
        let mut w = (*self.world).clone();
        let before = w.scenario().crash_after_events.len();
        w.crash_now();
        if w.scenario().crash_after_events.len() == before {
            self.notify(
                "Nothing to crash here: the driver is not running (step until it starts or restarts)."
                    .into(),
            );
            return;
        }
        let cursor = self.cursor;
        self.replace_scenario(w.scenario().clone());
        // Show the crash itself.
        self.seek(cursor + 1);
    }
}

impl Playback for Player {
    fn cursor(&self) -> usize {
        self.cursor
    }

    /// One step forward is a single `step()` of the world on screen; anything else rebuilds it.
    fn seek(&mut self, cursor: usize) {
        let cursor = cursor.min(self.run.len());
        if cursor == self.cursor + 1 && self.world.events().len() == self.cursor {
            let mut w = (*self.world).clone();
            w.step();
            self.world = Rc::new(w);
            self.cursor = cursor;
        } else if cursor != self.cursor {
            self.rebuild(cursor);
        }
        if self.at_end() {
            self.playing = false;
        }
    }

    fn at_end(&self) -> bool {
        self.cursor >= self.run.len()
    }

    fn playing_mut(&mut self) -> &mut bool {
        &mut self.playing
    }

    fn speed_mut(&mut self) -> &mut usize {
        &mut self.speed
    }

    fn tour_mut(&mut self) -> &mut bool {
        &mut self.tour
    }

    fn tour_cursors(&self) -> Vec<Option<usize>> {
        tour::stop_cursors(&tour::tour(&self.preset).stops, &self.run.events)
    }

    /// The preset's scenario at this seed with the tour's crash armed (and no other crash
    /// input), from the first event, playing.
    fn start_tour(&mut self) {
        let t = tour::tour(&self.preset);
        let mut scenario = scenario_of(&self.preset, self.run.scenario.seed);
        scenario.crashes = t.crash.and_then(|c| c.parse().ok()).into_iter().collect();
        if scenario != self.run.scenario {
            let same_data = scenario.seed == self.run.scenario.seed;
            let expected = same_data.then(|| self.run.expected.clone());
            self.run = Rc::new(Run::compute(scenario, expected));
        }
        self.selected_file = None;
        self.tour = true;
        self.rebuild(0);
        self.playing = true;
    }

    /// A stop shows the side-panel tab it talks about.
    fn on_stop(&mut self, i: usize) {
        if let Some(panel) = tour::tour(&self.preset).stops[i].panel {
            self.tab = Tab::from(panel);
        }
    }
}

impl Reducible for Player {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut p = (*self).clone();
        match action {
            Action::Step | Action::Tick => {
                if action == Action::Tick && !p.playing {
                    return self;
                }
                p.step_forward(action == Action::Tick);
            }
            Action::Back => p.back(),
            Action::NextBatch => {
                let c = batchscope_view::timeline::next_commit_cursor(&p.run.events, p.cursor);
                p.seek(c);
            }
            Action::Reset => p.reset(),
            Action::Seek(c) => p.seek(c),
            Action::TogglePlay => p.toggle_play(),
            Action::SetSpeed(i) => p.set_speed(i),
            Action::SetPreset(name) => {
                let seed = p.run.scenario.seed;
                p.preset = name.clone();
                p.run = Rc::new(Run::compute(scenario_of(&name, seed), None));
                p.playing = false;
                p.tour = false;
                p.selected_file = None;
                p.rebuild(0);
            }
            Action::SetSeed(seed) => {
                let mut s = p.run.scenario.clone();
                s.seed = seed;
                p.run = Rc::new(Run::compute(s, None));
                p.playing = false;
                p.rebuild(0);
            }
            Action::ArmCrash(point) => p.arm(point),
            Action::DisarmCrash(i) => {
                let mut s = p.run.scenario.clone();
                if i < s.crashes.len() {
                    s.crashes.remove(i);
                    p.replace_scenario(s);
                }
            }
            Action::RemoveCrashNow(i) => {
                let mut s = p.run.scenario.clone();
                if i < s.crash_after_events.len() {
                    s.crash_after_events.remove(i);
                    p.replace_scenario(s);
                }
            }
            Action::CrashNow => p.crash_now(),
            Action::SetTheme(t) => p.theme = t,
            Action::SetTab(t) => p.tab = t,
            Action::SelectFile(f) => p.selected_file = f,
            Action::Dismiss(id) => p.notices.retain(|n| n.id != id),
            Action::LoadUrl(state) => {
                if state != p.url_state() {
                    let fresh = Player::from_url(state);
                    let mut next = Player {
                        theme: p.theme,
                        speed: p.speed,
                        tab: p.tab,
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
            Action::Notify(text) => p.notify(text),
            Action::TourStart => p.start_tour(),
            Action::TourNext => p.tour_next(),
            Action::TourGo(i) => p.tour_go(i),
            Action::TourExit => p.tour = false,
            Action::TourKey => p.tour_key(),
        }
        Rc::new(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reduce(p: Player, a: Action) -> Player {
        (*Rc::new(p).reduce(a)).clone()
    }

    #[test]
    fn step_back_and_forward_are_exact() {
        let mut p = Player::from_hash("#preset=kafka-append&seed=7");
        for _ in 0..10 {
            p = reduce(p, Action::Step);
        }
        let at10 = p.world.events().to_vec();
        p = reduce(p, Action::Step);
        p = reduce(p, Action::Back);
        assert_eq!(p.cursor, 10);
        assert_eq!(p.world.events(), &at10[..]);
    }

    #[test]
    fn crash_now_is_recorded_and_shown() {
        let mut p = Player::from_hash("#preset=kafka-append&at=30");
        p = reduce(p, Action::CrashNow);
        assert_eq!(p.cursor, 31);
        assert_eq!(p.scenario().crash_after_events, vec![29]);
        assert!(matches!(
            p.world.events().last().unwrap().kind,
            batchscope_engine::EventKind::Crashed { .. }
        ));
        // The URL reproduces the same moment.
        let again = Player::from_url(p.url_state());
        assert_eq!(again.world.events(), p.world.events());
    }

    #[test]
    fn arming_a_passed_point_is_refused_with_a_message() {
        let mut p = Player::from_hash("#preset=kafka-append&at=60");
        p = reduce(p, Action::ArmCrash("sink-commit@1".parse().unwrap()));
        assert!(p.scenario().crashes.is_empty());
        assert!(p.notices[0].text.contains("behind the cursor"));
        p = reduce(p, Action::ArmCrash("sink-commit@4".parse().unwrap()));
        assert_eq!(p.scenario().crashes.len(), 1);
        assert_eq!(p.cursor, 60);
    }

    #[test]
    fn disarming_a_fired_crash_moves_the_cursor_back_to_where_the_past_changes() {
        let mut p = Player::from_hash("#preset=kafka-append&crash=sink-commit@3&at=70");
        let crash_seq = p.run.last.fired_crashes()[0].seq as usize;
        p = reduce(p, Action::DisarmCrash(0));
        assert_eq!(p.cursor, crash_seq);
        assert!(p.scenario().crashes.is_empty());
    }

    #[test]
    fn a_bad_link_names_the_problem_and_loads_the_default() {
        let p = Player::from_hash("#preset=nope&seed=x");
        assert_eq!(p.preset, "tablestore");
        assert_eq!(p.notices.len(), 1);
        assert!(p.notices[0].text.contains("unknown preset `nope`"));
        assert!(p.notices[0].text.contains("seed: `x` is not a seed"));
        let p = reduce(p, Action::Dismiss(0));
        assert!(p.notices.is_empty());
    }

    #[test]
    fn next_batch_stops_after_a_commit_log_and_play_stops_at_the_end() {
        let mut p = Player::from_hash("#preset=kafka-append");
        p = reduce(p, Action::NextBatch);
        assert!(matches!(
            p.world.events().last().unwrap().kind,
            batchscope_engine::EventKind::CommitLogWritten { batch_id: 0, .. }
        ));
        p = reduce(p, Action::Seek(usize::MAX));
        assert!(p.at_end());
        p = reduce(p, Action::TogglePlay);
        assert!(!p.playing);
    }

    /// Ticks the play timer until playback pauses (or a bound is hit).
    fn play_until_paused(mut p: Player) -> Player {
        for _ in 0..10_000 {
            if !p.playing {
                break;
            }
            p = reduce(p, Action::Tick);
        }
        p
    }

    #[test]
    fn the_tour_arms_its_crash_and_pauses_at_every_stop_in_turn() {
        let mut p = Player::from_hash("#preset=kafka-append&crash=task@4&at=40");
        p = reduce(p, Action::TourStart);
        assert!(p.tour && p.playing);
        assert_eq!(p.cursor, 0);
        assert_eq!(p.scenario().crashes, vec!["sink-commit@3".parse().unwrap()]);
        let stops = tour::tour("kafka-append").stops;
        let cursors = p.tour_cursors();
        assert!(cursors.iter().all(Option::is_some));
        for (i, stop) in stops.iter().enumerate() {
            if i > 0 {
                p = reduce(p, Action::TourNext);
                assert!(p.playing, "Continue plays on from stop {i}");
            }
            p = play_until_paused(p);
            assert_eq!(Some(p.cursor), cursors[i], "paused at stop {}", i + 1);
            if let Some(panel) = stop.panel {
                assert_eq!(p.tab, Tab::from(panel), "stop {} shows its tab", i + 1);
            }
        }
        assert!(p.at_end());
        // Past the last stop, Continue does nothing.
        p = reduce(p, Action::TourNext);
        assert!(!p.playing);
        // The tour is in the link, and a link with it reopens the tour at the same moment.
        let link = url::format(&p.url_state());
        assert!(link.contains("tour=1"), "{link}");
        let again = Player::from_hash(&link);
        assert!(again.tour);
        assert_eq!(again.cursor, p.cursor);
    }

    #[test]
    fn without_the_tour_play_runs_through_the_stops_and_a_stop_can_be_jumped_to() {
        let mut p = Player::from_hash("#preset=kafka-append&crash=sink-commit@3");
        p = reduce(p, Action::TogglePlay);
        p = play_until_paused(p);
        assert!(p.at_end(), "no tour: playback only stops at the end");
        p = reduce(p, Action::TourGo(3));
        assert!(p.tour);
        assert!(matches!(
            p.world.events().last().unwrap().kind,
            batchscope_engine::EventKind::Crashed { .. }
        ));
        assert_eq!(p.tab, Tab::Checkpoint);
        p = reduce(p, Action::TourExit);
        assert!(!p.tour);
        // The `t` key starts the tour, then plays on to the next stop.
        let mut q = Player::from_hash("#preset=tablestore");
        q = reduce(q, Action::TourKey);
        assert!(q.tour && q.playing && q.cursor == 0);
        q = play_until_paused(q);
        let first = q.cursor;
        q = reduce(q, Action::TourKey);
        q = play_until_paused(q);
        assert_eq!(Some(q.cursor), q.tour_cursors()[1]);
        assert!(q.cursor > first);
        // Switching preset leaves the tour.
        p = reduce(p, Action::TourGo(0));
        p = reduce(p, Action::SetPreset("tablestore".into()));
        assert!(!p.tour);
    }
}
