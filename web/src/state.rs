//! The micro-batch mode of the shared player: which preset, its recorded run (crash inputs
//! included), the side-panel tab and the checkpoint file shown, and the `Action`s of this
//! mode. The reducer is pure: no timers, no DOM.
//!
//! Every user intervention (a crash now, an armed crash point) is recorded into the scenario
//! and the whole run is recomputed from it; the cursor stays where it was when the past did
//! not change, so step back and replay stay exact.

use crate::run::Run;
use crate::shell::{Mode, Opened, Player, PlayerCmd};
use batchscope_engine::{presets, CrashPoint, Scenario, World};
use batchscope_view::replay::Timeline;
use batchscope_view::tour::{self, Panel};
use batchscope_view::url::scenario::{self as link, Link};
use batchscope_view::url::{self, UrlState};
use std::rc::Rc;

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

/// One user intent in the micro-batch mode.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// What every mode's player does (transport, seed, theme, notices, the tour).
    Player(PlayerCmd),
    /// To just after the next `commits/N`.
    NextBatch,
    /// Load a preset (seed kept, crash inputs dropped).
    SetPreset(String),
    /// Arm a crash point on an upcoming step.
    ArmCrash(CrashPoint),
    /// Remove the armed crash point at this index.
    DisarmCrash(usize),
    /// Remove the crash-now input at this index.
    RemoveCrashNow(usize),
    /// Crash the driver right after the event on screen.
    CrashNow,
    /// Switch side-panel tab.
    SetTab(Tab),
    /// Show one checkpoint file.
    SelectFile(Option<String>),
    /// Load a state from the URL (a pasted link, an Explore cell).
    LoadUrl(Link),
}

impl From<PlayerCmd> for Action {
    fn from(cmd: PlayerCmd) -> Action {
        Action::Player(cmd)
    }
}

impl From<Link> for Action {
    fn from(link: Link) -> Action {
        Action::LoadUrl(link)
    }
}

impl From<UrlState> for Action {
    fn from(state: UrlState) -> Action {
        Action::LoadUrl(Link::of(state))
    }
}

/// What the micro-batch mode adds to the player.
#[derive(Clone, Debug)]
pub struct Micro {
    /// Preset the scenario came from.
    pub preset: String,
    /// The whole run of the current scenario.
    pub run: Rc<Run>,
    /// Side-panel tab.
    pub tab: Tab,
    /// Checkpoint file shown.
    pub selected_file: Option<String>,
    /// The scenario of one's own from the link (`scenario=`), in place of the preset's.
    pub custom: Option<Rc<Scenario>>,
    /// Compare mode: the second run (`vs=`), stepping in lockstep with this one.
    pub versus: Option<Rc<crate::compare::Versus>>,
}

/// The micro-batch player.
pub type MicroPlayer = Player<Micro>;

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

impl Micro {
    /// `run` of `preset`, on the first tab.
    fn new(preset: String, run: Run) -> Micro {
        Micro {
            preset,
            run: Rc::new(run),
            tab: Tab::Channels,
            selected_file: None,
            custom: None,
            versus: None,
        }
    }

    /// The scenario this page starts from at `seed`, without crash inputs: the link's own
    /// scenario, or the preset's.
    pub fn base(&self, seed: u64) -> Scenario {
        match &self.custom {
            Some(s) => Scenario {
                seed,
                ..(**s).clone()
            },
            None => scenario_of(&self.preset, seed),
        }
    }

    /// The same page with another run (and the compared run given the same inputs).
    fn with_run(&self, run: Run) -> Micro {
        let versus = self
            .versus
            .as_ref()
            .map(|v| Rc::new(crate::compare::Versus::compute(&run, v.link.clone())));
        Micro {
            run: Rc::new(run),
            versus,
            ..self.clone()
        }
    }
}

impl Mode for Micro {
    type World = World;
    type Action = Action;
    type Url = Link;

    const SUBJECT: &'static str = "scenario";
    const STEPS: &'static str = "events";

    fn timeline(&self) -> &Timeline<World> {
        &self.run.timeline
    }

    fn command(action: &Action) -> Option<&PlayerCmd> {
        match action {
            Action::Player(cmd) => Some(cmd),
            _ => None,
        }
    }

    fn act(p: &mut MicroPlayer, action: Action) {
        match action {
            Action::Player(cmd) => p.command(cmd),
            Action::NextBatch => {
                let c =
                    batchscope_view::timeline::next_commit_cursor(p.mode.run.events(), p.cursor);
                p.seek(c);
            }
            Action::SetPreset(name) if p.mode.custom.is_some() && name == p.mode.preset => {}
            Action::SetPreset(name) => {
                let seed = p.mode.run.scenario.seed;
                let run = Run::compute(scenario_of(&name, seed), None);
                p.mode = Micro {
                    tab: p.mode.tab,
                    ..Micro::new(name, run)
                };
                p.playing = false;
                p.tour = false;
                p.rebuild(0);
            }
            Action::ArmCrash(point) => p.arm(point),
            Action::DisarmCrash(i) => {
                let mut s = p.mode.run.scenario.clone();
                if i < s.crashes.len() {
                    s.crashes.remove(i);
                    p.replace_scenario(s);
                }
            }
            Action::RemoveCrashNow(i) => {
                let mut s = p.mode.run.scenario.clone();
                if i < s.crash_after_events.len() {
                    s.crash_after_events.remove(i);
                    p.replace_scenario(s);
                }
            }
            Action::CrashNow => p.crash_now(),
            Action::SetTab(t) => p.mode.tab = t,
            Action::SelectFile(f) => p.mode.selected_file = f,
            Action::LoadUrl(mut state) => {
                // An Explore cell of one's own scenario names it, not a preset: keep it.
                let names = preset_names();
                if state.custom.is_none() && !names.contains(&state.base.preset.as_str()) {
                    state.custom = p.mode.custom.as_deref().cloned().map(Box::new);
                }
                p.load_link(state)
            }
        }
    }

    fn set_seed(p: &mut MicroPlayer, seed: u64) {
        let mut s = p.mode.run.scenario.clone();
        s.seed = seed;
        p.mode = p.mode.with_run(Run::compute(s, None));
        p.playing = false;
        p.rebuild(0);
    }

    fn parse_link(hash: &str) -> Result<Link, Vec<String>> {
        link::parse_link(hash, &preset_names())
            .map_err(|errors| errors.iter().map(|e| e.to_string()).collect())
    }

    fn default_link() -> Link {
        Link::of(url::parse("", &preset_names()).expect("the empty hash parses"))
    }

    fn format_link(state: &Link) -> String {
        link::format_link(state)
    }

    fn open(state: Link) -> Opened<Micro> {
        let Link { base, custom, vs } = state;
        let custom = custom.map(|s| Rc::new(*s));
        let mut scenario = match &custom {
            Some(s) => Scenario {
                seed: base.seed,
                ..(**s).clone()
            },
            None => scenario_of(&base.preset, base.seed),
        };
        scenario.crashes = base.crashes;
        scenario.crash_after_events = base.crash_after_events;
        let mut mode = Micro::new(base.preset, Run::compute(scenario, None));
        mode.custom = custom;
        mode.versus = vs.map(|v| Rc::new(crate::compare::Versus::compute(&mode.run, v)));
        Opened {
            mode,
            at: base.at,
            tour: base.tour,
            notes: vec![],
        }
    }

    fn link(p: &MicroPlayer) -> Link {
        let s = &p.mode.run.scenario;
        Link {
            base: UrlState {
                preset: p.mode.preset.clone(),
                seed: s.seed,
                crashes: s.crashes.clone(),
                crash_after_events: s.crash_after_events.clone(),
                at: p.cursor as u64,
                tour: p.tour,
            },
            custom: p.mode.custom.as_deref().cloned().map(Box::new),
            vs: p.mode.versus.as_ref().map(|v| v.link.clone()),
        }
    }

    /// A pasted link keeps the tab.
    fn keep_on_load(&self, fresh: &mut Micro) {
        fresh.tab = self.tab;
    }

    fn tour_cursors(&self) -> Vec<Option<usize>> {
        tour::stop_cursors(&tour::tour(&self.preset).stops, self.run.events())
    }

    /// The preset's scenario at this seed with the tour's crash armed (and no other crash
    /// input), from the first event, playing.
    fn start_tour(p: &mut MicroPlayer) {
        let t = tour::tour(&p.mode.preset);
        let old = &p.mode.run.scenario;
        let mut scenario = p.mode.base(old.seed);
        scenario.crashes = t.crash.and_then(|c| c.parse().ok()).into_iter().collect();
        if scenario != *old {
            let same_data = scenario.seed == old.seed;
            let expected = same_data.then(|| p.mode.run.expected.clone());
            p.mode = p.mode.with_run(Run::compute(scenario, expected));
        }
        p.mode.selected_file = None;
        p.tour = true;
        p.rebuild(0);
        p.playing = true;
    }

    /// A stop shows the side-panel tab it talks about.
    fn on_stop(p: &mut MicroPlayer, i: usize) {
        if let Some(panel) = tour::tour(&p.mode.preset).stops[i].panel {
            p.mode.tab = Tab::from(panel);
        }
    }
}

impl Player<Micro> {
    /// The scenario being played.
    pub fn scenario(&self) -> &Scenario {
        &self.mode.run.scenario
    }

    /// Replaces the scenario; the cursor moves back to where the new trace departs from the old.
    fn replace_scenario(&mut self, scenario: Scenario) {
        let old = &self.mode.run.scenario;
        let same_data = scenario.seed == old.seed && scenario.name == old.name;
        let expected = same_data.then(|| self.mode.run.expected.clone());
        let mode = self.mode.with_run(Run::compute(scenario, expected));
        self.rerecord(mode, false);
    }

    fn arm(&mut self, point: CrashPoint) {
        if self.mode.run.scenario.crashes.contains(&point) {
            self.notify(format!("{point} is already armed."));
            return;
        }
        let mut scenario = self.mode.run.scenario.clone();
        scenario.crashes.push(point);
        let run = Run::compute(scenario, Some(self.mode.run.expected.clone()));
        if self.mode.run.timeline.divergence(&run.timeline) < self.cursor {
            self.notify(format!(
                "{point} is behind the cursor: the run already passed that point. Step back before it, or arm a later batch."
            ));
            return;
        }
        let fired = run
            .last()
            .fired_crashes()
            .iter()
            .any(|c| c.point == Some(point));
        self.rerecord(self.mode.with_run(run), true);
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

#[cfg(test)]
mod tests {
    use super::*;
    use yew::Reducible;

    fn reduce(p: MicroPlayer, a: impl Into<Action>) -> MicroPlayer {
        (*Rc::new(p).reduce(a.into())).clone()
    }

    #[test]
    fn step_back_and_forward_are_exact() {
        let mut p = MicroPlayer::from_hash("#preset=kafka-append&seed=7");
        for _ in 0..10 {
            p = reduce(p, PlayerCmd::Step);
        }
        let at10 = p.world.events().to_vec();
        p = reduce(p, PlayerCmd::Step);
        p = reduce(p, PlayerCmd::Back);
        assert_eq!(p.cursor, 10);
        assert_eq!(p.world.events(), &at10[..]);
    }

    #[test]
    fn crash_now_is_recorded_and_shown() {
        let mut p = MicroPlayer::from_hash("#preset=kafka-append&at=30");
        p = reduce(p, Action::CrashNow);
        assert_eq!(p.cursor, 31);
        assert_eq!(p.scenario().crash_after_events, vec![29]);
        assert!(matches!(
            p.world.events().last().unwrap().kind,
            batchscope_engine::EventKind::Crashed { .. }
        ));
        // The URL reproduces the same moment.
        let again = MicroPlayer::from_link(p.url_state());
        assert_eq!(again.world.events(), p.world.events());
    }

    #[test]
    fn arming_a_passed_point_is_refused_with_a_message() {
        let mut p = MicroPlayer::from_hash("#preset=kafka-append&at=60");
        p = reduce(p, Action::ArmCrash("sink-commit@1".parse().unwrap()));
        assert!(p.scenario().crashes.is_empty());
        assert!(p.notices[0].text.contains("behind the cursor"));
        p = reduce(p, Action::ArmCrash("sink-commit@4".parse().unwrap()));
        assert_eq!(p.scenario().crashes.len(), 1);
        assert_eq!(p.cursor, 60);
    }

    #[test]
    fn disarming_a_fired_crash_moves_the_cursor_back_to_where_the_past_changes() {
        let mut p = MicroPlayer::from_hash("#preset=kafka-append&crash=sink-commit@3&at=70");
        let crash_seq = p.mode.run.last().fired_crashes()[0].seq as usize;
        p = reduce(p, Action::DisarmCrash(0));
        assert_eq!(p.cursor, crash_seq);
        assert!(p.scenario().crashes.is_empty());
    }

    #[test]
    fn a_bad_link_names_the_problem_and_loads_the_default() {
        let p = MicroPlayer::from_hash("#preset=nope&seed=x");
        assert_eq!(p.mode.preset, "tablestore");
        assert_eq!(p.notices.len(), 1);
        assert!(p.notices[0].text.contains("unknown preset `nope`"));
        assert!(p.notices[0].text.contains("seed: `x` is not a seed"));
        let p = reduce(p, PlayerCmd::Dismiss(0));
        assert!(p.notices.is_empty());
    }

    #[test]
    fn next_batch_stops_after_a_commit_log_and_play_stops_at_the_end() {
        let mut p = MicroPlayer::from_hash("#preset=kafka-append");
        p = reduce(p, Action::NextBatch);
        assert!(matches!(
            p.world.events().last().unwrap().kind,
            batchscope_engine::EventKind::CommitLogWritten { batch_id: 0, .. }
        ));
        p = reduce(p, PlayerCmd::Seek(usize::MAX));
        assert!(p.at_end());
        p = reduce(p, PlayerCmd::TogglePlay);
        assert!(!p.playing);
    }

    /// Ticks the play timer until playback pauses (or a bound is hit).
    fn play_until_paused(mut p: MicroPlayer) -> MicroPlayer {
        for _ in 0..10_000 {
            if !p.playing {
                break;
            }
            p = reduce(p, PlayerCmd::Tick);
        }
        p
    }

    #[test]
    fn the_tour_arms_its_crash_and_pauses_at_every_stop_in_turn() {
        let mut p = MicroPlayer::from_hash("#preset=kafka-append&crash=task@4&at=40");
        p = reduce(p, PlayerCmd::TourStart);
        assert!(p.tour && p.playing);
        assert_eq!(p.cursor, 0);
        assert_eq!(p.scenario().crashes, vec!["sink-commit@3".parse().unwrap()]);
        let stops = tour::tour("kafka-append").stops;
        let cursors = p.tour_cursors();
        assert!(cursors.iter().all(Option::is_some));
        for (i, stop) in stops.iter().enumerate() {
            if i > 0 {
                p = reduce(p, PlayerCmd::TourNext);
                assert!(p.playing, "Continue plays on from stop {i}");
            }
            p = play_until_paused(p);
            assert_eq!(Some(p.cursor), cursors[i], "paused at stop {}", i + 1);
            if let Some(panel) = stop.panel {
                assert_eq!(p.mode.tab, Tab::from(panel), "stop {} shows its tab", i + 1);
            }
        }
        assert!(p.at_end());
        // Past the last stop, Continue does nothing.
        p = reduce(p, PlayerCmd::TourNext);
        assert!(!p.playing);
        // The tour is in the link, and a link with it reopens the tour at the same moment.
        let link = link::format_link(&p.url_state());
        assert!(link.contains("tour=1"), "{link}");
        let again = MicroPlayer::from_hash(&link);
        assert!(again.tour);
        assert_eq!(again.cursor, p.cursor);
    }

    #[test]
    fn without_the_tour_play_runs_through_the_stops_and_a_stop_can_be_jumped_to() {
        let mut p = MicroPlayer::from_hash("#preset=kafka-append&crash=sink-commit@3");
        p = reduce(p, PlayerCmd::TogglePlay);
        p = play_until_paused(p);
        assert!(p.at_end(), "no tour: playback only stops at the end");
        p = reduce(p, PlayerCmd::TourGo(3));
        assert!(p.tour);
        assert!(matches!(
            p.world.events().last().unwrap().kind,
            batchscope_engine::EventKind::Crashed { .. }
        ));
        assert_eq!(p.mode.tab, Tab::Checkpoint);
        p = reduce(p, PlayerCmd::TourExit);
        assert!(!p.tour);
        // The `t` key starts the tour, then plays on to the next stop.
        let mut q = MicroPlayer::from_hash("#preset=tablestore");
        q = reduce(q, PlayerCmd::TourKey);
        assert!(q.tour && q.playing && q.cursor == 0);
        q = play_until_paused(q);
        let first = q.cursor;
        q = reduce(q, PlayerCmd::TourKey);
        q = play_until_paused(q);
        assert_eq!(Some(q.cursor), q.tour_cursors()[1]);
        assert!(q.cursor > first);
        // Switching preset leaves the tour.
        p = reduce(p, PlayerCmd::TourGo(0));
        p = reduce(p, Action::SetPreset("tablestore".into()));
        assert!(!p.tour);
    }
}
