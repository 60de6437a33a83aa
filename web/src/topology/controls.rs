//! The Topology mode's header controls: topology preset, seed, transport (reset, back, play,
//! step), speed, the "no barriers" contrast and the theme.

use super::state::TopoAction;
use crate::state::{Theme, SPEEDS};
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
    /// Theme.
    pub theme: Theme,
    /// Every intent.
    pub on_action: Callback<TopoAction>,
}

fn icon(d: &'static str) -> Html {
    html! {
        <svg class="icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d={d} fill="currentColor" /></svg>
    }
}

fn select_value(e: &Event) -> Option<String> {
    e.target()
        .and_then(|t| t.dyn_into::<HtmlSelectElement>().ok())
        .map(|s| s.value())
}

/// The header's control bar in Topology mode.
#[component]
pub fn TopoControls(props: &TopoControlsProps) -> Html {
    let act = |a: TopoAction| {
        let cb = props.on_action.clone();
        Callback::from(move |_: MouseEvent| cb.emit(a.clone()))
    };
    let on_topology = {
        let cb = props.on_action.clone();
        Callback::from(move |e: Event| {
            if let Some(v) = select_value(&e) {
                cb.emit(TopoAction::SetTopology(v));
            }
        })
    };
    let on_speed = {
        let cb = props.on_action.clone();
        Callback::from(move |e: Event| {
            if let Some(i) = select_value(&e).and_then(|v| v.parse().ok()) {
                cb.emit(TopoAction::SetSpeed(i));
            }
        })
    };
    let on_seed = {
        let cb = props.on_action.clone();
        let seed = props.seed;
        Callback::from(move |e: Event| {
            let Some(input) = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
            else {
                return;
            };
            let text = input.value();
            match text.trim().parse::<u64>() {
                Ok(s) if s != seed => cb.emit(TopoAction::SetSeed(s)),
                Ok(_) => {}
                Err(_) => {
                    input.set_value(&seed.to_string());
                    cb.emit(TopoAction::Notify(format!(
                        "seed: `{text}` is not a whole number ≥ 0; the seed stays {seed}."
                    )));
                }
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
    let at_start = props.cursor == 0;
    let at_end = props.cursor >= props.total;
    let description = props
        .topologies
        .iter()
        .find(|(n, _)| *n == props.topology)
        .map(|(_, d)| d.clone())
        .unwrap_or_default();
    let theme_label = match props.theme {
        Theme::System => "◐",
        Theme::Dark => "☾",
        Theme::Light => "☀",
    };
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
            <label class="field">
                <span class="field-label">{ "seed" }</span>
                <input id="topo-seed" data-testid="topo-seed" class="seed" type="text" inputmode="numeric"
                       value={props.seed.to_string()} onchange={on_seed} />
            </label>
            <div class="transport" role="group" aria-label="Playback">
                <button id="topo-reset" data-testid="topo-reset" title="Reset to the start (r)" aria-label="Reset"
                        disabled={at_start} onclick={act(TopoAction::Reset)}>{ icon("M3 2h2v12H3z M14 2v12L6 8z") }</button>
                <button id="topo-back" data-testid="topo-back" title="Step back (←)" aria-label="Step back"
                        disabled={at_start} onclick={act(TopoAction::Back)}>{ icon("M11 2v12L3 8z M12 2h2v12h-2z") }</button>
                <button id="topo-play" data-testid="topo-play" class="play"
                        title={if props.playing { "Pause (space)" } else { "Play (space)" }}
                        aria-label={if props.playing { "Pause" } else { "Play" }}
                        disabled={at_end} onclick={act(TopoAction::TogglePlay)}>
                    { icon(if props.playing { "M4 2h3v12H4z M9 2h3v12H9z" } else { "M4 2v12l10-6z" }) }
                </button>
                <button id="topo-step" data-testid="topo-step" title="Step one event (→)" aria-label="Step"
                        disabled={at_end} onclick={act(TopoAction::Step)}>{ icon("M2 2v12l8-6z M11 2h2v12h-2z") }</button>
                <button id="topo-end" data-testid="topo-end" title="Jump to the end of the run" aria-label="To the end"
                        disabled={at_end} onclick={act(TopoAction::Seek(usize::MAX))}>{ icon("M1 2v12l6-6z M7 2v12l6-6z M13 2h2v12h-2z") }</button>
            </div>
            <label class="field" title="Playback speed">
                <select id="topo-speed" data-testid="topo-speed" onchange={on_speed}>
                    { for SPEEDS.iter().enumerate().map(|(i, s)| html! {
                        <option value={i.to_string()} selected={i == props.speed}>{ format!("{s}×") }</option>
                    }) }
                </select>
            </label>
            <span class="step-count" data-testid="topo-step-count" title="Steps shown / steps in the run">
                { format!("{} / {}", props.cursor, props.total) }
            </span>
            <label class="field toggle" title="The contrast: no timestamp barriers — every job checkpoints on its own schedule and reads whatever upstream has written">
                <input type="checkbox" id="no-barriers" data-testid="no-barriers" checked={props.no_barriers} onchange={on_barriers} />
                <span>{ "no barriers" }</span>
            </label>
            <button class="ghost icon-btn" data-testid="topo-theme"
                    title={format!("Theme: {} (click: auto → dark → light)", props.theme.name())}
                    onclick={act(TopoAction::SetTheme(props.theme.next()))}>{ theme_label }</button>
        </div>
    }
}
