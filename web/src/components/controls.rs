//! The header controls: preset, seed, transport (reset, back, play, step, next batch), speed,
//! crash now, theme and the shortcut help.

use crate::hooks::SHORTCUTS;
use crate::state::{Action, Theme, SPEEDS};
use wasm_bindgen::JsCast;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// Props of [`Controls`].
#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    /// Current preset.
    pub preset: String,
    /// Every preset: (name, description).
    pub presets: Vec<(String, String)>,
    /// Current seed.
    pub seed: u64,
    /// Events shown.
    pub cursor: usize,
    /// Events in the run.
    pub total: usize,
    /// Playing.
    pub playing: bool,
    /// Speed index.
    pub speed: usize,
    /// Theme.
    pub theme: Theme,
    /// Whether the driver can be crashed at this step.
    pub can_crash: bool,
    /// Every intent.
    pub on_action: Callback<Action>,
}

/// Transport icons, drawn inline so they look the same with every font.
#[derive(Clone, Copy)]
enum Icon {
    Reset,
    Back,
    Play,
    Pause,
    Step,
    Next,
}

fn icon(which: Icon) -> Html {
    let d = match which {
        Icon::Reset => "M3 2h2v12H3z M14 2v12L6 8z",
        Icon::Back => "M11 2v12L3 8z M12 2h2v12h-2z",
        Icon::Play => "M4 2v12l10-6z",
        Icon::Pause => "M4 2h3v12H4z M9 2h3v12H9z",
        Icon::Step => "M2 2v12l8-6z M11 2h2v12h-2z",
        Icon::Next => "M1 2v12l6-6z M7 2v12l6-6z M13 2h2v12h-2z",
    };
    html! {
        <svg class="icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d={d} fill="currentColor" /></svg>
    }
}

fn select_value(e: &Event) -> Option<String> {
    e.target()
        .and_then(|t| t.dyn_into::<HtmlSelectElement>().ok())
        .map(|s| s.value())
}

/// The header's control bar.
#[component]
pub fn Controls(props: &ControlsProps) -> Html {
    let act = |a: Action| {
        let cb = props.on_action.clone();
        Callback::from(move |_: MouseEvent| cb.emit(a.clone()))
    };
    let on_preset = {
        let cb = props.on_action.clone();
        Callback::from(move |e: Event| {
            if let Some(v) = select_value(&e) {
                cb.emit(Action::SetPreset(v));
            }
        })
    };
    let on_speed = {
        let cb = props.on_action.clone();
        Callback::from(move |e: Event| {
            if let Some(i) = select_value(&e).and_then(|v| v.parse().ok()) {
                cb.emit(Action::SetSpeed(i));
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
                Ok(s) if s != seed => cb.emit(Action::SetSeed(s)),
                Ok(_) => {}
                Err(_) => {
                    input.set_value(&seed.to_string());
                    cb.emit(Action::Notify(format!(
                        "seed: `{text}` is not a whole number ≥ 0; the seed stays {seed}."
                    )));
                }
            }
        })
    };
    let at_start = props.cursor == 0;
    let at_end = props.cursor >= props.total;
    let description = props
        .presets
        .iter()
        .find(|(n, _)| *n == props.preset)
        .map(|(_, d)| d.clone())
        .unwrap_or_default();
    let theme_label = match props.theme {
        Theme::System => "◐",
        Theme::Dark => "☾",
        Theme::Light => "☀",
    };
    let help = html! {
        <span class="help" tabindex="0" data-testid="help" aria-label="Keyboard shortcuts">
            { "?" }
            <span class="help-pop" role="tooltip">
                <strong>{ "Keyboard" }</strong>
                { for SHORTCUTS.iter().map(|(k, what)| html! {
                    <span class="help-row"><kbd>{ *k }</kbd>{ *what }</span>
                }) }
            </span>
        </span>
    };
    html! {
        <div class="controls">
            <label class="field" title={description}>
                <span class="field-label">{ "preset" }</span>
                <select id="preset" data-testid="preset" onchange={on_preset}>
                    { for props.presets.iter().map(|(name, _)| html! {
                        <option value={name.clone()} selected={*name == props.preset}>{ name }</option>
                    }) }
                </select>
            </label>
            <label class="field" title="Seed of the simulation's random numbers (UUIDs, arrival times)">
                <span class="field-label">{ "seed" }</span>
                <input id="seed" data-testid="seed" class="seed" type="text" inputmode="numeric"
                       value={props.seed.to_string()} onchange={on_seed} />
            </label>
            <div class="transport" role="group" aria-label="Playback">
                <button id="reset" data-testid="reset" title="Reset to the start (r)" aria-label="Reset"
                        disabled={at_start} onclick={act(Action::Reset)}>{ icon(Icon::Reset) }</button>
                <button id="back" data-testid="back" title="Step back (←)" aria-label="Step back"
                        disabled={at_start} onclick={act(Action::Back)}>{ icon(Icon::Back) }</button>
                <button id="play" data-testid="play" class="play"
                        title={if props.playing { "Pause (space)" } else { "Play (space)" }}
                        aria-label={if props.playing { "Pause" } else { "Play" }}
                        disabled={at_end} onclick={act(Action::TogglePlay)}>
                    { icon(if props.playing { Icon::Pause } else { Icon::Play }) }
                </button>
                <button id="step" data-testid="step" title="Step one event (→)" aria-label="Step"
                        disabled={at_end} onclick={act(Action::Step)}>{ icon(Icon::Step) }</button>
                <button id="next-batch" data-testid="next-batch" class="wide"
                        title="Run to the end of the next batch: the next commits/N (n)"
                        disabled={at_end} onclick={act(Action::NextBatch)}>{ icon(Icon::Next) }<span class="btn-text">{ "batch" }</span></button>
            </div>
            <label class="field" title="Playback speed">
                <select id="speed" data-testid="speed" onchange={on_speed}>
                    { for SPEEDS.iter().enumerate().map(|(i, s)| html! {
                        <option value={i.to_string()} selected={i == props.speed}>{ format!("{s}×") }</option>
                    }) }
                </select>
            </label>
            <span class="step-count" data-testid="step-count" title="Events shown / events in the run">
                { format!("{} / {}", props.cursor, props.total) }
            </span>
            <button id="crash-now" data-testid="crash-now" class="danger"
                    title="Kill the driver right after the event on screen (c). Recorded, so step back and replay stay exact."
                    disabled={!props.can_crash} onclick={act(Action::CrashNow)}>{ "✕ Crash now" }</button>
            <button class="ghost icon-btn" data-testid="theme"
                    title={format!("Theme: {} (click: auto → dark → light)", props.theme.name())}
                    onclick={act(Action::SetTheme(props.theme.next()))}>{ theme_label }</button>
            { help }
        </div>
    }
}
