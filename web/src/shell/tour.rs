//! The guided tour's runner, one for both modes: stepping forward pauses the play timer at the
//! tour's stops; Continue plays on to the next one; a stop can be jumped to. Each mode says
//! where its stops are in its run and how its tour starts ([`Mode`]).

use super::player::{Mode, Player};
use batchscope_view::tour_runner::next_stop;

/// What the tour block shows.
#[derive(Clone, Debug, PartialEq)]
pub struct TourView {
    /// Whether the tour is on.
    pub on: bool,
    /// What starting the tour sets up (`arms sink-commit@2`, `fails price_job at barrier 2`).
    pub setup: Option<String>,
    /// Each stop's title and text.
    pub stops: Vec<(&'static str, &'static str)>,
    /// Where each stop pauses in this run (`None`: never reached).
    pub cursors: Vec<Option<usize>>,
    /// Steps shown.
    pub cursor: usize,
    /// Whether playback runs.
    pub playing: bool,
}

impl TourView {
    /// Whether the tour is on and paused at one of its stops.
    pub fn at_stop(&self) -> bool {
        self.on && self.cursors.contains(&Some(self.cursor))
    }

    /// The stops this run reaches, (cursor, title), while the tour is on: the timeline's marks.
    pub fn marks(&self) -> Vec<(usize, &'static str)> {
        self.cursors
            .iter()
            .zip(&self.stops)
            .filter(|_| self.on)
            .filter_map(|(c, (title, _))| c.map(|c| (c, *title)))
            .collect()
    }
}

impl<M: Mode> Player<M> {
    /// What the tour block shows: `stops` (title, text), and what starting the tour sets up.
    pub fn tour_view(
        &self,
        setup: Option<String>,
        stops: Vec<(&'static str, &'static str)>,
    ) -> TourView {
        TourView {
            on: self.tour,
            setup,
            stops,
            cursors: self.tour_cursors(),
            cursor: self.cursor,
            playing: self.playing,
        }
    }

    /// For each stop of the tour, the cursor where playback pauses in this run (`None`: never).
    pub fn tour_cursors(&self) -> Vec<Option<usize>> {
        self.mode.tour_cursors()
    }

    /// One step forward; `from_timer` when the play timer asked (a stop then pauses it).
    pub fn step_forward(&mut self, from_timer: bool) {
        self.seek(self.cursor + 1);
        self.arrive(from_timer);
    }

    /// In the tour, on a stop: tell the mode, and pause if the timer brought us here.
    fn arrive(&mut self, from_timer: bool) {
        if !self.tour {
            return;
        }
        let here = Some(self.cursor);
        if let Some(i) = self.tour_cursors().iter().position(|c| *c == here) {
            if from_timer {
                self.playing = false;
            }
            M::on_stop(self, i);
        }
    }

    /// Play on to the next stop of the tour (nothing past the last one).
    pub fn tour_next(&mut self) {
        if next_stop(&self.tour_cursors(), self.cursor).is_some() {
            self.tour = true;
            self.playing = true;
        }
    }

    /// Jump to stop `i` of the tour, paused (nothing when this run never reaches it).
    pub fn tour_go(&mut self, i: usize) {
        if let Some(Some(c)) = self.tour_cursors().get(i).copied() {
            self.tour = true;
            self.playing = false;
            self.seek(c);
            self.arrive(false);
        }
    }

    /// The `t` key: start the tour, or play on to its next stop.
    pub fn tour_key(&mut self) {
        if self.tour {
            self.tour_next();
        } else {
            M::start_tour(self);
        }
    }
}
