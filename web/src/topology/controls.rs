//! The Topology mode's header controls: topology preset, seed, transport (reset, back, play,
//! step), speed, the "no barriers" contrast and the theme.

use super::state::TopoAction;
use crate::components::{
    icon, select_value, Icon, PlayerCmd, SeedInput, SpeedAndCount, ThemeButton, Transport,
};
use crate::state::Theme;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
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
    /// Theme.
    pub theme: Theme,
    /// Every intent.
    pub on_action: Callback<TopoAction>,
}

/// The topology player's action for a shared control.
impl From<PlayerCmd> for TopoAction {
    fn from(cmd: PlayerCmd) -> TopoAction {
        match cmd {
            PlayerCmd::Reset => TopoAction::Reset,
            PlayerCmd::Back => TopoAction::Back,
            PlayerCmd::TogglePlay => TopoAction::TogglePlay,
            PlayerCmd::Step => TopoAction::Step,
            PlayerCmd::SetSpeed(i) => TopoAction::SetSpeed(i),
            PlayerCmd::SetSeed(s) => TopoAction::SetSeed(s),
            PlayerCmd::SetTheme(t) => TopoAction::SetTheme(t),
            PlayerCmd::Notify(text) => TopoAction::Notify(text),
        }
    }
}

/// The header's control bar in Topology mode.
#[component]
pub fn TopoControls(props: &TopoControlsProps) -> Html {
    let on_cmd = props.on_action.reform(TopoAction::from);
    let on_topology = {
        let cb = props.on_action.clone();
        Callback::from(move |e: Event| {
            if let Some(v) = select_value(&e) {
                cb.emit(TopoAction::SetTopology(v));
            }
        })
    };
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
        Callback::from(move |_: MouseEvent| cb.emit(TopoAction::Seek(usize::MAX)))
    };
    let at_end = props.cursor >= props.total;
    let description = props
        .topologies
        .iter()
        .find(|(n, _)| *n == props.topology)
        .map(|(_, d)| d.clone())
        .unwrap_or_default();
    html! {
        <div class="controls">
            <label class="field" title={description}>
                <span class="field-label">{ "topology" }</span>
                <select id="topology" data-testid="topology" onchange={on_topology}>
                    { for props.topologies.iter().map(|(name, _)| html! {
                        <option value={name.clone()} selected={*name == props.topology}>{ name }</option>
                    }) }
                </select>
            </label>
            <SeedInput prefix="topo-" seed={props.seed} on_cmd={on_cmd.clone()} />
            <Transport prefix="topo-" cursor={props.cursor} total={props.total} playing={props.playing} on_cmd={on_cmd.clone()}>
                <button id="topo-end" data-testid="topo-end" title="Jump to the end of the run" aria-label="To the end"
                        disabled={at_end} onclick={to_end}>{ icon(Icon::Next) }</button>
            </Transport>
            <SpeedAndCount prefix="topo-" speed={props.speed} cursor={props.cursor} total={props.total} on_cmd={on_cmd.clone()} />
            <label class="field toggle" title="The contrast: no timestamp barriers — every job checkpoints on its own schedule and reads whatever upstream has written">
                <input type="checkbox" id="no-barriers" data-testid="no-barriers" checked={props.no_barriers} onchange={on_barriers} />
                <span>{ "no barriers" }</span>
            </label>
            <ThemeButton prefix="topo-" theme={props.theme} on_cmd={on_cmd} />
        </div>
    }
}
