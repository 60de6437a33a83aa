//! The Topology mode's header controls: the shared control bar with the topology picker, a
//! jump to the end, and the "no barriers" contrast.

use super::state::TopoAction;
use crate::shell::{icon, Icon, PlayerCmd, PlayerControls, Theme};
use wasm_bindgen::JsCast;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// Props of [`TopoControls`].
#[derive(Properties, PartialEq)]
pub struct TopoControlsProps {
    /// Current topology.
    pub topology: String,
    /// Every topology: (name, description).
    pub topologies: Vec<(String, String)>,
    /// Seed.
    pub seed: u64,
    /// Steps shown.
    pub cursor: usize,
    /// Steps in the run.
    pub total: usize,
    /// Playing.
    pub playing: bool,
    /// Speed index.
    pub speed: usize,
    /// Barriers off.
    pub no_barriers: bool,
    /// Timestamp barriers per checkpoint.
    pub per_checkpoint: u64,
    /// Barriers of the run.
    pub barriers: u64,
    /// Theme.
    pub theme: Theme,
    /// Every intent.
    pub on_action: Callback<TopoAction>,
}

/// The header's control bar in Topology mode.
#[component]
pub fn TopoControls(props: &TopoControlsProps) -> Html {
    let on_barriers = {
        let cb = props.on_action.clone();
        Callback::from(move |e: Event| {
            if let Some(input) = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
            {
                cb.emit(TopoAction::SetNoBarriers(input.checked()));
            }
        })
    };
    let to_end = {
        let cb = props.on_action.clone();
        Callback::from(move |_: MouseEvent| cb.emit(PlayerCmd::Seek(usize::MAX).into()))
    };
    let at_end = props.cursor >= props.total;
    let last_button = html! {
        <button id="topo-end" data-testid="topo-end" title="Jump to the end of the run" aria-label="To the end"
                disabled={at_end} onclick={to_end}>{ icon(Icon::Next) }</button>
    };
    let on_per = {
        let cb = props.on_action.clone();
        Callback::from(move |e: Event| {
            if let Some(n) = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlSelectElement>().ok())
                .and_then(|s| s.value().parse().ok())
            {
                cb.emit(TopoAction::SetPerCheckpoint(n));
            }
        })
    };
    let no_barriers = html! {
        <>
            <label class="field toggle" title="The contrast: no timestamp barriers — every job checkpoints on its own schedule and reads whatever upstream has written">
                <input type="checkbox" id="no-barriers" data-testid="no-barriers" checked={props.no_barriers} onchange={on_barriers} />
                <span>{ "no barriers" }</span>
            </label>
            if !props.no_barriers {
                <label class="field" title="Timestamp barriers per checkpoint (FLIP-276: barriers 1, 2, 3 in checkpoint 1). A failed job restores its last complete checkpoint and replays every barrier after it.">
                    <span>{ "barriers / checkpoint" }</span>
                    <select data-testid="per-checkpoint" onchange={on_per}>
                        { for (1..=props.barriers.min(4)).map(|n| html! { <option value={n.to_string()} selected={n == props.per_checkpoint}>{ n }</option> }) }
                    </select>
                </label>
            }
        </>
    };
    html! {
        <PlayerControls prefix="topo-" pick="topology" choices={props.topologies.clone()} chosen={props.topology.clone()}
            on_pick={props.on_action.reform(TopoAction::SetTopology)} seed={props.seed} cursor={props.cursor} total={props.total}
            playing={props.playing} speed={props.speed} theme={props.theme} last_button={last_button}
            extra={no_barriers} on_cmd={props.on_action.reform(TopoAction::from)} />
    }
}
