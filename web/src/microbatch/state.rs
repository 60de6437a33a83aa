//! The micro-batch mode of the shared player: which preset, its recorded run (crash inputs
//! included), the side-panel tab and the checkpoint file shown, and the `Action`s of this
//! mode. The reducer is pure: no timers, no DOM.
//!
//! Every user intervention (a crash now, an armed crash point) is recorded into the scenario
//! and the whole run is recomputed from it; the cursor stays where it was when the past did
//! not change, so step back and replay stay exact.

use crate::microbatch::run::Run;
use crate::shell::{Mode, Opened, Player, PlayerCmd};
use batchscope_engine::microbatch::event::Actor;
use batchscope_engine::microbatch::scenario::{presets, CrashPoint, Scenario};
use batchscope_engine::microbatch::scenario::{Fault, FaultKind, Window};
use batchscope_engine::microbatch::World;
use batchscope_view::microbatch::explore::extra_of;
use batchscope_view::microbatch::tab::Tab;
use batchscope_view::microbatch::tour;
use batchscope_view::microbatch::url::scenario::{self as link, Link};
use batchscope_view::microbatch::url::{self, UrlState};
use batchscope_view::replay::Timeline;
use batchscope_view::url::{Dashboard, PageLink};
use std::rc::Rc;

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
    /// Arm a failure inside a batch (`task-fail@3`).
    ArmFault(Fault),
    /// Remove the fault at this index of the scenario's faults.
    DisarmFault(usize),
    /// Crash the driver right after the event on screen.
    CrashNow,
    /// Fail an actor right after the event on screen (a click on its lane's head): the sink's
    /// store goes down, or a task attempt of the batch in flight fails.
    FailNow(Actor),
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
    /// Compare mode: what the second run is (`vs=`). The run itself, given this run's seed and
    /// crash inputs, is made where compare mode is drawn (the second module,
    /// `components::compare_view`), from the link: the page does not make it.
    pub versus: Option<link::Versus>,
}

/// The micro-batch player.
pub type MicroPlayer = Player<Micro>;

/// Preset names, in the engine's order.
pub fn preset_names() -> Vec<&'static str> {
    presets().into_iter().map(|p| p.name).collect()
}

fn scenario_of(preset: &str, seed: u64) -> Scenario {
    let mut s = batchscope_engine::microbatch::scenario::preset(preset)
        .or_else(|_| batchscope_engine::microbatch::scenario::preset(url::DEFAULT_PRESET))
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

    /// The same page with another run (compare mode's second run follows it through the link).
    fn with_run(&self, run: Run) -> Micro {
        Micro {
            run: Rc::new(run),
            ..self.clone()
        }
    }
}

/// A tour link arms the tour's crash when it arms none; one that arms another says so, since
/// the stops after the crash may then never be reached.
fn tour_crash(preset: &str, scenario: &mut Scenario, notes: &mut Vec<String>) {
    let Some(crash) = tour::tour_frame(preset).crash_point() else {
        return;
    };
    if scenario.crashes.is_empty() && scenario.crash_after_events.is_empty() {
        scenario.crashes.push(crash);
    } else if !scenario.crashes.contains(&crash) {
        let armed: Vec<String> = scenario.crashes.iter().map(|c| c.to_string()).collect();
        let armed = if armed.is_empty() {
            "a crash now".to_string()
        } else {
            armed.join(", ")
        };
        notes.push(format!(
            "This tour arms {crash}; the link arms {armed} instead, so some stops may not be \
             reached. Start the tour again to arm {crash}."
        ));
    }
}

impl Mode for Micro {
    type World = World;
    type Action = Action;
    type Url = Link;

    const SUBJECT: &'static str = "scenario";
    const STEPS: &'static str = "events";

    /// A Topology or Inspect link is the page root's to follow: reading it as a micro-batch
    /// link would load the wrong page and write the micro-batch link over it.
    fn owns_link(hash: &str) -> bool {
        PageLink::parse(hash).dashboard == Dashboard::Micro
    }

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
                let c = batchscope_view::microbatch::strip::next_commit_cursor(
                    p.mode.run.events(),
                    p.cursor,
                );
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
            Action::ArmFault(fault) => {
                p.arm_fault(fault);
            }
            Action::DisarmFault(i) => {
                let mut s = p.mode.run.scenario.clone();
                if i < s.faults.len() {
                    s.faults.remove(i);
                    p.replace_scenario(s);
                }
            }
            Action::CrashNow => p.crash_now(),
            Action::FailNow(actor) => p.fail_now(actor),
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

    fn read_link(hash: &str) -> (Option<Link>, Vec<String>) {
        let (kept, errors) = link::read_link(hash, &preset_names());
        (kept, errors.iter().map(|e| e.to_string()).collect())
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
        let own = |seed: u64| match &custom {
            Some(s) => Scenario {
                seed,
                ..(**s).clone()
            },
            None => scenario_of(&base.preset, seed),
        };
        let mut scenario = own(base.seed);
        scenario.crashes = base.crashes;
        scenario.faults.extend(base.faults);
        scenario.sink.outages.extend(base.outages);
        let mut notes = vec![];
        if let Err(e) = scenario.validate() {
            // A fault or an outage this scenario cannot have (a link edited by hand): its own.
            notes.push(format!(
                "fault: {e}; the link's faults and outages are left out"
            ));
            let own = own(base.seed);
            scenario.faults = own.faults;
            scenario.sink.outages = own.sink.outages;
        }
        scenario.crash_after_events = base.crash_after_events;
        if base.tour && custom.is_none() {
            tour_crash(&base.preset, &mut scenario, &mut notes);
        }
        let mut mode = Micro::new(base.preset, Run::compute(scenario, None));
        mode.tab = base.tab.unwrap_or(Tab::Channels);
        mode.selected_file = base.file;
        mode.custom = custom;
        mode.versus = vs;
        Opened {
            mode,
            at: base.at,
            tour: base.tour,
            notes,
        }
    }

    fn link(p: &MicroPlayer) -> Link {
        let s = &p.mode.run.scenario;
        // What the link adds to the scenario it names: its faults and outages beyond those the
        // scenario has of its own (made once: a preset is built anew for each look-up).
        let preset_own;
        let own = match p.mode.custom.as_deref() {
            Some(own) => own,
            None => {
                preset_own = scenario_of(&p.mode.preset, s.seed);
                &preset_own
            }
        };
        Link {
            base: UrlState {
                preset: p.mode.preset.clone(),
                seed: s.seed,
                crashes: s.crashes.clone(),
                faults: extra_of(&own.faults, &s.faults),
                crash_after_events: s.crash_after_events.clone(),
                outages: extra_of(&own.sink.outages, &s.sink.outages),
                at: p.cursor as u64,
                tour: p.tour,
                tab: (p.mode.tab != Tab::Channels).then_some(p.mode.tab),
                file: p
                    .mode
                    .selected_file
                    .clone()
                    .filter(|_| p.mode.tab == Tab::Checkpoint),
            },
            custom: p.mode.custom.as_deref().cloned().map(Box::new),
            vs: p.mode.versus.clone(),
        }
    }

    /// A pasted link keeps the tab.
    fn keep_on_load(&self, fresh: &mut Micro) {
        // A link that names its tab opens it; one that does not keeps the tab on screen.
        if fresh.tab == Tab::Channels {
            fresh.tab = self.tab;
        }
    }

    fn tour_cursors(&self) -> Vec<Option<usize>> {
        self.run.tour_cursors(&self.preset).to_vec()
    }

    /// The preset's scenario at this seed with the tour's crash armed (and no other crash
    /// input), from the first event, playing.
    fn start_tour(p: &mut MicroPlayer) {
        let t = tour::tour_frame(&p.mode.preset);
        let old = &p.mode.run.scenario;
        let mut scenario = p.mode.base(old.seed);
        scenario.crashes = t.crash_point().into_iter().collect();
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
        if let Some(panel) = tour::tour_frame(&p.mode.preset).stops[i].panel {
            p.mode.tab = panel;
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

    /// Arms a failure inside a batch, unless it is armed already or the scenario cannot have
    /// it (a notice says which); whether it was armed.
    fn arm_fault(&mut self, fault: Fault) -> bool {
        let mut s = self.mode.run.scenario.clone();
        if s.faults.contains(&fault) {
            self.notify(format!("{fault} is already armed."));
            return false;
        }
        s.faults.push(fault);
        self.replace_if_valid(s, |e| format!("{fault} cannot be armed here: {e}"))
    }

    /// Runs `s` in place of the scenario on screen if it is valid, or says why not with
    /// `refused`; whether it was run.
    fn replace_if_valid(&mut self, s: Scenario, refused: impl FnOnce(String) -> String) -> bool {
        match s.validate() {
            Ok(()) => {
                self.replace_scenario(s);
                true
            }
            Err(e) => {
                self.notify(refused(e.to_string()));
                false
            }
        }
    }

    /// What a click on a lane's head arms: for the driver, a crash now; for the sink, its store
    /// down from the moment after the event on screen for two trigger intervals (a sink outage
    /// in the link); for the tasks, a failed task attempt of the batch in flight
    /// (`task-fail@N`).
    fn fail_now(&mut self, actor: Actor) {
        match actor {
            Actor::Driver => self.crash_now(),
            Actor::Sink => {
                let mut s = self.mode.run.scenario.clone();
                let from_ms = self.world.now_ms() + 1;
                let to_ms = from_ms + 2 * s.trigger_interval_ms;
                s.sink.outages.push(Window { from_ms, to_ms });
                if self.replace_if_valid(s, |e| format!("Cannot fail the sink here: {e}")) {
                    self.notify(format!(
                        "Armed now: the sink's store is down from {from_ms} to {to_ms} ms."
                    ));
                }
            }
            Actor::Tasks => {
                let Some(batch_id) = self.world.driver.batch.as_ref().map(|b| b.batch_id) else {
                    return self.notify(
                        "No batch in flight: step into a batch to fail one of its tasks.".into(),
                    );
                };
                let fault = Fault {
                    kind: FaultKind::TaskFail,
                    batch_id,
                };
                if self.arm_fault(fault) {
                    self.notify(format!(
                        "Armed now: {fault}: a task attempt of batch {batch_id} fails."
                    ));
                }
            }
            _ => {}
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
mod tests;
