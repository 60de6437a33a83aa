//! The guided tour while it is on, in both modes: its progress, the stop on screen and the way
//! on. Each mode fills [`TourView`] from its own stops; the buttons speak [`PlayerCmd`].

use super::player::PlayerCmd;
use super::tour::TourView;
use batchscope_view::tour_runner::{current_stop, next_stop};
use yew::prelude::*;

/// Props of [`TourBlock`] and [`TourInvite`](super::tour_invite::TourInvite).
#[derive(Properties, PartialEq)]
pub struct TourProps {
    /// The tour and where the run is in it.
    pub tour: TourView,
    /// Button presses.
    pub on_cmd: Callback<PlayerCmd>,
}

/// A button's click as a player command.
pub fn cmd(cb: &Callback<PlayerCmd>, c: PlayerCmd) -> Callback<MouseEvent> {
    let cb = cb.clone();
    Callback::from(move |_| cb.emit(c.clone()))
}

/// The tour while it is on: progress dots, the stop on screen, and Continue.
#[component]
pub fn TourBlock(props: &TourProps) -> Html {
    let t = &props.tour;
    let on_cmd = &props.on_cmd;
    let current = current_stop(&t.cursors, t.cursor);
    let next = next_stop(&t.cursors, t.cursor);
    let at_stop = current.is_some_and(|i| t.cursors[i] == Some(t.cursor));
    let n = t.stops.len();
    let progress = match current {
        Some(i) => format!("stop {} of {n}", i + 1),
        None => format!("{n} stops"),
    };
    let dots = t.stops.iter().enumerate().map(|(i, (title, _))| {
        let reached = t.cursors[i].is_some_and(|c| c <= t.cursor);
        let class = classes!(
            "tour-dot",
            reached.then_some("tour-dot-reached"),
            (Some(i) == current && at_stop).then_some("tour-dot-here"),
            t.cursors[i].is_none().then_some("tour-dot-missing"),
        );
        let label = match t.cursors[i] {
            Some(_) => format!("{}. {title}", i + 1),
            None => format!("{}. {title} — not reached in this run", i + 1),
        };
        html! {
            <button class={class} title={label.clone()} aria-label={label} disabled={t.cursors[i].is_none()}
                onclick={cmd(on_cmd, PlayerCmd::TourGo(i))} />
        }
    });
    let (title, text) = match (current, next) {
        (Some(i), _) if at_stop || !t.playing => (t.stops[i].0.to_string(), t.stops[i].1),
        (_, Some(j)) if t.playing => (
            format!("Playing to stop {}: {}…", j + 1, t.stops[j].0),
            "Playback pauses there. Step with → or pause any time; Continue plays on.",
        ),
        (_, Some(j)) => (
            format!("Next: stop {}, {}", j + 1, t.stops[j].0),
            "Play on with the button below, or step there with →.",
        ),
        (Some(i), None) => (t.stops[i].0.to_string(), t.stops[i].1),
        (None, None) => (
            "Nothing to see in this run".to_string(),
            "None of the stops happens in this run. Start the tour again to set it up.",
        ),
    };
    let action = match next {
        _ if t.playing => html! {
            <button class="tour-next" data-testid="tour-next" onclick={cmd(on_cmd, PlayerCmd::TogglePlay)}>{ "❚❚ Pause" }</button>
        },
        Some(j) => html! {
            <button class="tour-next" data-testid="tour-next" onclick={cmd(on_cmd, PlayerCmd::TourNext)}
                title={format!("Play on to stop {}: {}", j + 1, t.stops[j].0)}>
                { if current.is_none() { "▶ Play to the first stop" } else { "Continue ▸" } }
            </button>
        },
        None => html! {
            <>
                <span class="tour-done" data-testid="tour-done">{ "✓ Tour complete" }</span>
                <button class="ghost" data-testid="tour-again" onclick={cmd(on_cmd, PlayerCmd::TourStart)}>{ "↺ Again" }</button>
            </>
        },
    };
    html! {
        <div class={classes!("tour", at_stop.then_some("tour-at-stop"))} data-testid="tour">
            <div class="tour-head">
                <span class="tour-label">{ "Guided tour" }</span>
                <span class="tour-progress" data-testid="tour-progress">{ progress }</span>
                <span class="tour-dots">{ for dots }</span>
                <button class="ghost tour-exit" data-testid="tour-exit" title="Leave the tour: playback no longer pauses"
                    onclick={cmd(on_cmd, PlayerCmd::TourExit)}>{ "✕" }</button>
            </div>
            // Read out by screen readers when playback reaches a stop.
            <div aria-live="polite">
                <div class="tour-title" data-testid="tour-stop-title">{ title }</div>
                <div class="tour-text" data-testid="tour-stop-text">{ super::glossary::glossary_linked(text, &mut vec![]) }</div>
            </div>
            <div class="tour-actions">{ action }</div>
        </div>
    }
}
