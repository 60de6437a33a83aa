//! The playback both players share (micro-batch and Topology): a cursor over a recorded run,
//! play / pause and speed, and the guided tour whose stops pause the play timer. Each player
//! says how it moves its cursor, where its tour's stops are and how its tour starts; the rest
//! is written once here.

use crate::state::SPEEDS;
use batchscope_view::tour::next_stop;

/// A player of a recorded run.
pub trait Playback {
    /// Steps shown.
    fn cursor(&self) -> usize;
    /// Moves the cursor (clamped to the run; playback stops at the end).
    fn seek(&mut self, cursor: usize);
    /// Whether the cursor is at the end of the run.
    fn at_end(&self) -> bool;
    /// Play state.
    fn playing_mut(&mut self) -> &mut bool;
    /// Index into [`SPEEDS`].
    fn speed_mut(&mut self) -> &mut usize;
    /// Whether the guided tour is on.
    fn tour_mut(&mut self) -> &mut bool;
    /// For each stop of the tour, the cursor where playback pauses in this run (`None`: never).
    fn tour_cursors(&self) -> Vec<Option<usize>>;
    /// Sets up the tour's run, rewinds, turns the tour on and plays.
    fn start_tour(&mut self);
    /// The cursor reached stop `i` (the micro-batch player shows the stop's tab).
    fn on_stop(&mut self, _i: usize) {}

    /// One step forward; `from_timer` when the play timer asked (a stop then pauses it).
    fn step_forward(&mut self, from_timer: bool) {
        let c = self.cursor() + 1;
        self.seek(c);
        self.arrive(from_timer);
    }

    /// One step back.
    fn back(&mut self) {
        let c = self.cursor().saturating_sub(1);
        self.seek(c);
    }

    /// Back to the start, paused.
    fn reset(&mut self) {
        *self.playing_mut() = false;
        self.seek(0);
    }

    /// Play or pause (never plays at the end).
    fn toggle_play(&mut self) {
        let play = !self.at_end() && !*self.playing_mut();
        *self.playing_mut() = play;
    }

    /// Playback speed, clamped to [`SPEEDS`].
    fn set_speed(&mut self, i: usize) {
        *self.speed_mut() = i.min(SPEEDS.len() - 1);
    }

    /// In the tour, on a stop: tell the player, and pause if the timer brought us here.
    fn arrive(&mut self, from_timer: bool) {
        if !*self.tour_mut() {
            return;
        }
        let here = Some(self.cursor());
        if let Some(i) = self.tour_cursors().iter().position(|c| *c == here) {
            if from_timer {
                *self.playing_mut() = false;
            }
            self.on_stop(i);
        }
    }

    /// Play on to the next stop of the tour (nothing past the last one).
    fn tour_next(&mut self) {
        if next_stop(&self.tour_cursors(), self.cursor()).is_some() {
            *self.tour_mut() = true;
            *self.playing_mut() = true;
        }
    }

    /// Jump to stop `i` of the tour, paused (nothing when this run never reaches it).
    fn tour_go(&mut self, i: usize) {
        if let Some(Some(c)) = self.tour_cursors().get(i).copied() {
            *self.tour_mut() = true;
            *self.playing_mut() = false;
            self.seek(c);
            self.arrive(false);
        }
    }

    /// The `t` key: start the tour, or play on to its next stop.
    fn tour_key(&mut self) {
        if *self.tour_mut() {
            self.tour_next();
        } else {
            self.start_tour();
        }
    }
}
