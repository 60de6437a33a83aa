//! The one player both dashboard modes use: a recorded run (a [`Timeline`] of the mode's
//! world), the cursor in it and the world there, playback, theme, the guided tour's switch and
//! the notices; the [`PlayerCmd`]s every mode shares; and the [`Mode`] trait through which each
//! mode brings its own run, its own actions and its own link. The reducer is pure: no timers,
//! no DOM.
//!
//! Every user intervention (a crash, a failed job) is an input recorded into the mode's run,
//! which is then recorded again; the cursor stays where it was when the past did not change, so
//! step back and replay stay exact.

use super::notices::Notice;
use super::theme::Theme;
use batchscope_engine::sim::Sim;
use batchscope_view::replay::Timeline;
use batchscope_view::tour_runner::{current_stop, next_stop};
use std::fmt::Debug;
use std::rc::Rc;
use yew::Reducible;

/// Playback speeds (steps per second at 1× is about one).
pub const SPEEDS: [f64; 5] = [0.5, 1.0, 2.0, 4.0, 8.0];
/// Time per step at 1×.
pub const BASE_STEP_MS: f64 = 900.0;

/// The longest one leg of the guided tour (from a stop to the next, or from the start to the
/// first) plays: a leg with more steps than fit at the chosen speed (a crash loop, an idle
/// stretch) plays them faster, so a class never waits through dead air.
pub const TOUR_LEG_MS: f64 = 5000.0;

/// Notices on screen at most: more would cover the page's top.
pub const MAX_NOTICES: usize = 3;

/// What every mode's player does alike: transport, speed, seed, theme, notices, the tour.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerCmd {
    /// One step forward.
    Step,
    /// One step back.
    Back,
    /// Back to the start (recorded inputs kept).
    Reset,
    /// Jump to a cursor (the timeline, the scrubber).
    Seek(usize),
    /// Play or pause.
    TogglePlay,
    /// The play timer fired.
    Tick,
    /// Playback speed (index into [`SPEEDS`]).
    SetSpeed(usize),
    /// A new seed (recorded inputs kept).
    SetSeed(u64),
    /// Switch theme.
    SetTheme(Theme),
    /// Dismiss a notice.
    Dismiss(u32),
    /// Show a message.
    Notify(String),
    /// Start the lesson's guided tour: set up its run, rewind, and play to the first stop.
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

/// A link opened by a mode: its run, where the link puts the cursor, whether its tour is on,
/// and messages about what could not be done.
pub struct Opened<M> {
    /// The mode's state for the link.
    pub mode: M,
    /// Cursor the link asks for.
    pub at: u64,
    /// Whether the link turns the tour on.
    pub tour: bool,
    /// Messages for the user.
    pub notes: Vec<String>,
}

/// What a dashboard mode adds to the shared [`Player`]: its recorded run, its own actions,
/// its link and its tour.
pub trait Mode: Clone + Debug + Sized + 'static {
    /// The simulated world played.
    type World: Sim + Debug;
    /// Every intent of the mode's page: the shared commands, a link, and its own.
    type Action: Clone + Debug + PartialEq + From<PlayerCmd> + From<Self::Url> + 'static;
    /// What a link holds.
    type Url: Clone + Debug + PartialEq + 'static;

    /// What the mode loads by default, named in messages (`scenario`, `topology`).
    const SUBJECT: &'static str;
    /// What one step of the run is called in messages (`events`, `steps`).
    const STEPS: &'static str;

    /// The recorded run.
    fn timeline(&self) -> &Timeline<Self::World>;
    /// The shared command an action carries, if it is one.
    fn command(action: &Self::Action) -> Option<&PlayerCmd>;
    /// Applies one of the mode's own actions (shared commands are applied by the player).
    fn act(p: &mut Player<Self>, action: Self::Action);
    /// A new seed, recorded inputs kept, from the start.
    fn set_seed(p: &mut Player<Self>, seed: u64);

    /// Reads a link (`#preset=…`); every problem, named.
    fn parse_link(hash: &str) -> Result<Self::Url, Vec<String>>;
    /// Reads a link keeping what can be kept: the link with its bad fields dropped (`None` when
    /// the run it names cannot be opened), and every problem, named. By default all or nothing.
    fn read_link(hash: &str) -> (Option<Self::Url>, Vec<String>) {
        match Self::parse_link(hash) {
            Ok(url) => (Some(url), vec![]),
            Err(errors) => (None, errors),
        }
    }
    /// Whether a hash is a link of this mode (a link of the other mode switches the page).
    fn owns_link(_hash: &str) -> bool {
        true
    }
    /// The default page's link.
    fn default_link() -> Self::Url;
    /// The link as a hash.
    fn format_link(url: &Self::Url) -> String;
    /// The run a link describes.
    fn open(url: Self::Url) -> Opened<Self>;
    /// The link of the moment on screen.
    fn link(p: &Player<Self>) -> Self::Url;
    /// What a pasted link keeps of the page on screen (beyond theme, speed and notices).
    fn keep_on_load(&self, _fresh: &mut Self) {}

    /// For each stop of the mode's tour, the cursor where playback pauses in this run.
    fn tour_cursors(&self) -> Vec<Option<usize>>;
    /// Sets up the tour's run, rewinds, turns the tour on and plays.
    fn start_tour(p: &mut Player<Self>);
    /// The cursor reached stop `i` (the micro-batch mode shows the stop's tab).
    fn on_stop(_p: &mut Player<Self>, _i: usize) {}
}

/// The player of one mode.
#[derive(Clone, Debug)]
pub struct Player<M: Mode> {
    /// The mode's recorded run and what only it shows.
    pub mode: M,
    /// The world after `cursor` events.
    pub world: Rc<M::World>,
    /// Steps shown.
    pub cursor: usize,
    /// Whether playback runs.
    pub playing: bool,
    /// Index into [`SPEEDS`].
    pub speed: usize,
    /// Theme.
    pub theme: Theme,
    /// Whether the guided tour is on: playback pauses at its stops.
    pub tour: bool,
    /// Messages.
    pub notices: Vec<Notice>,
    next_notice: u32,
}

/// The notice for a link opened without its bad fields.
pub fn dropped_fields(errors: &[String]) -> String {
    format!(
        "Part of this link could not be read and was left out — {}. The rest of it is loaded.",
        errors.join("; ")
    )
}

impl<M: Mode> Player<M> {
    /// A player for a URL hash; errors become notices: a link with a bad field opens without it,
    /// one whose run cannot be opened gives the default page.
    pub fn from_hash(hash: &str) -> Player<M> {
        match M::read_link(hash) {
            (Some(url), errors) if errors.is_empty() => Player::from_link(url),
            (Some(url), errors) => {
                let mut p = Player::from_link(url);
                p.notify(dropped_fields(&errors));
                p
            }
            (None, errors) => {
                let mut p = Player::from_link(M::default_link());
                p.notify(format!(
                    "This link could not be read — {}. The default {} is loaded instead.",
                    errors.join("; "),
                    M::SUBJECT
                ));
                p
            }
        }
    }

    /// A player at the moment a link describes.
    pub fn from_link(url: M::Url) -> Player<M> {
        let opened = M::open(url);
        let mut p = Player {
            world: Rc::new(opened.mode.timeline().first().clone()),
            mode: opened.mode,
            cursor: 0,
            playing: false,
            speed: 2,
            theme: Theme::System,
            tour: opened.tour,
            notices: vec![],
            next_notice: 0,
        };
        for note in opened.notes {
            p.notify(note);
        }
        let at = opened.at as usize;
        if at > p.len() {
            let len = p.len();
            p.notify(format!(
                "at={at} is past the end of this run ({len} {}); showing the end.",
                M::STEPS
            ));
        }
        p.seek(at);
        p
    }

    /// The link of the moment on screen.
    pub fn url_state(&self) -> M::Url {
        M::link(self)
    }

    /// Loads a pasted link (nothing when it is the moment on screen); theme, speed and the
    /// notices stay.
    pub fn load_link(&mut self, url: M::Url) {
        if url == self.url_state() {
            return;
        }
        let mut fresh = Player::from_link(url);
        self.mode.keep_on_load(&mut fresh.mode);
        fresh.theme = self.theme;
        fresh.speed = self.speed;
        let notes = std::mem::replace(&mut fresh.notices, self.notices.clone());
        fresh.next_notice = self.next_notice;
        for n in notes {
            fresh.notify(n.text);
        }
        *self = fresh;
    }

    /// Steps in the run.
    pub fn len(&self) -> usize {
        self.mode.timeline().len()
    }

    /// Whether the run has no steps.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the cursor is at the end of the run.
    pub fn at_end(&self) -> bool {
        self.cursor >= self.len()
    }

    /// Milliseconds per step at the current speed; while the tour plays a leg, short enough
    /// that the leg takes at most [`TOUR_LEG_MS`].
    pub fn step_ms(&self) -> f64 {
        let base = BASE_STEP_MS / SPEEDS[self.speed.min(SPEEDS.len() - 1)];
        if !(self.tour && self.playing) {
            return base;
        }
        let cursors = self.tour_cursors();
        let Some(next) = next_stop(&cursors, self.cursor).and_then(|i| cursors[i]) else {
            return base;
        };
        let from = current_stop(&cursors, self.cursor)
            .and_then(|i| cursors[i])
            .unwrap_or(0);
        let leg = next.saturating_sub(from).max(1);
        base.min(TOUR_LEG_MS / leg as f64)
    }

    /// Shows a message: the same text once (the newest copy), and at most
    /// [`MAX_NOTICES`] at a time, the oldest leaving first.
    pub fn notify(&mut self, text: String) {
        self.notices.retain(|n| n.text != text);
        if self.notices.len() >= MAX_NOTICES {
            self.notices.remove(0);
        }
        self.notices.push(Notice {
            id: self.next_notice,
            text,
        });
        self.next_notice += 1;
    }

    /// Moves the cursor (clamped to the run; playback stops at the end). One step forward is
    /// a single step of the world on screen; anything else rebuilds it from the timeline.
    pub fn seek(&mut self, cursor: usize) {
        let cursor = cursor.min(self.len());
        if cursor == self.cursor + 1 && self.world.events().len() == self.cursor {
            let mut w = (*self.world).clone();
            w.next_event().expect("a recorded step replays");
            self.world = Rc::new(w);
            self.cursor = cursor;
        } else if cursor != self.cursor {
            self.rebuild(cursor);
        }
        if self.at_end() {
            self.playing = false;
        }
    }

    /// Rebuilds the world at `cursor` from the timeline (after the run changed).
    pub fn rebuild(&mut self, cursor: usize) {
        let cursor = cursor.min(self.len());
        self.world = Rc::new(self.mode.timeline().world_at(cursor));
        self.cursor = cursor;
        if self.at_end() {
            self.playing = false;
        }
    }

    /// Replaces the recorded run. The cursor stays (`keep_cursor`) or moves back to where the
    /// new run departs from the old one.
    pub fn rerecord(&mut self, mode: M, keep_cursor: bool) {
        let divergence = self.mode.timeline().divergence(mode.timeline());
        self.mode = mode;
        let cursor = if keep_cursor {
            self.cursor
        } else {
            divergence.min(self.cursor)
        };
        self.rebuild(cursor);
    }

    /// Back to the start, paused.
    pub fn reset(&mut self) {
        self.playing = false;
        self.seek(0);
    }

    /// Play or pause (never plays at the end).
    pub fn toggle_play(&mut self) {
        self.playing = !self.at_end() && !self.playing;
    }

    /// Applies a shared command.
    pub fn command(&mut self, cmd: PlayerCmd) {
        match cmd {
            PlayerCmd::Step => self.step_forward(false),
            PlayerCmd::Tick => {
                if self.playing {
                    self.step_forward(true);
                }
            }
            PlayerCmd::Back => self.seek(self.cursor.saturating_sub(1)),
            PlayerCmd::Reset => self.reset(),
            PlayerCmd::Seek(c) => self.seek(c),
            PlayerCmd::TogglePlay => self.toggle_play(),
            PlayerCmd::SetSpeed(i) => self.speed = i.min(SPEEDS.len() - 1),
            PlayerCmd::SetSeed(seed) => M::set_seed(self, seed),
            PlayerCmd::SetTheme(t) => self.theme = t,
            PlayerCmd::Dismiss(id) => self.notices.retain(|n| n.id != id),
            PlayerCmd::Notify(text) => self.notify(text),
            PlayerCmd::TourStart => M::start_tour(self),
            PlayerCmd::TourNext => self.tour_next(),
            PlayerCmd::TourGo(i) => self.tour_go(i),
            PlayerCmd::TourExit => self.tour = false,
            PlayerCmd::TourKey => self.tour_key(),
        }
    }
}

impl<M: Mode> Reducible for Player<M> {
    type Action = M::Action;

    fn reduce(self: Rc<Self>, action: M::Action) -> Rc<Self> {
        let cmd = M::command(&action).cloned();
        if cmd == Some(PlayerCmd::Tick) && !self.playing {
            return self; // A late tick of a stopped timer: nothing to render.
        }
        let mut p = (*self).clone();
        let before = p.next_notice;
        match cmd {
            Some(cmd) => p.command(cmd),
            None => M::act(&mut p, action),
        }
        // A new run: what the older notices were about (a link, a field, a run) is gone.
        if !std::ptr::eq(self.mode.timeline(), p.mode.timeline()) {
            p.notices.retain(|n| n.id >= before);
        }
        Rc::new(p)
    }
}
