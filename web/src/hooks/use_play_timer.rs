//! Playback: a gloo interval that emits a tick per step while playing; dropped on pause or unmount.

use gloo::timers::callback::Interval;
use yew::prelude::*;

/// Emits `on_tick` every `step_ms` while `playing`.
#[hook]
pub fn use_play_timer(playing: bool, step_ms: u32, on_tick: Callback<()>) {
    use_effect_with((playing, step_ms), move |(playing, step_ms)| {
        let interval = playing.then(|| Interval::new(*step_ms, move || on_tick.emit(())));
        move || drop(interval)
    });
}
