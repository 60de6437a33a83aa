//! The call to start the guided tour, when it is off (both modes).

use super::player::PlayerCmd;
use super::tour_block::{cmd, TourProps};
use yew::prelude::*;

/// The call to start the tour, when it is off.
#[component]
pub fn TourInvite(props: &TourProps) -> Html {
    let t = &props.tour;
    let what = match &t.setup {
        Some(s) => format!("{s}, plays, and pauses at"),
        None => "plays and pauses at".to_string(),
    };
    html! {
        <div class="tour-invite">
            <button class="tour-start" data-testid="tour-start" onclick={cmd(&props.on_cmd, PlayerCmd::TourStart)}>
                { "▶ Guided tour" }
            </button>
            <span class="tour-invite-text">{ format!("{} stops: {what} each moment that matters", t.stops.len()) }</span>
        </div>
    }
}
