//! The header controls: preset, seed, transport (reset, back, play, step, next batch), speed,
//! crash now, theme and the shortcut help.

use super::player_controls::{
    icon, select_value, Icon, PlayerCmd, SeedInput, SpeedAndCount, ThemeButton, Transport,
};
use crate::hooks::SHORTCUTS;
use crate::state::{Action, Theme};
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

/// The micro-batch player's action for a shared control.
impl From<PlayerCmd> for Action {
    fn from(cmd: PlayerCmd) -> Action {
        match cmd {
            PlayerCmd::Reset => Action::Reset,
            PlayerCmd::Back => Action::Back,
            PlayerCmd::TogglePlay => Action::TogglePlay,
            PlayerCmd::Step => Action::Step,
            PlayerCmd::SetSpeed(i) => Action::SetSpeed(i),
            PlayerCmd::SetSeed(s) => Action::SetSeed(s),
            PlayerCmd::SetTheme(t) => Action::SetTheme(t),
            PlayerCmd::Notify(text) => Action::Notify(text),
        }
    }
}

/// The header's control bar.
#[component]
pub fn Controls(props: &ControlsProps) -> Html {
    let on_cmd = props.on_action.reform(Action::from);
    let on_preset = {
        let cb = props.on_action.clone();
        Callback::from(move |e: Event| {
            if let Some(v) = select_value(&e) {
                cb.emit(Action::SetPreset(v));
            }
        })
    };
    let on = |a: Action| {
        let cb = props.on_action.clone();
        Callback::from(move |_: MouseEvent| cb.emit(a.clone()))
    };
    let at_end = props.cursor >= props.total;
    let description = props
        .presets
        .iter()
        .find(|(n, _)| *n == props.preset)
        .map(|(_, d)| d.clone())
        .unwrap_or_default();
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
            <SeedInput prefix="" seed={props.seed} on_cmd={on_cmd.clone()} />
            <Transport prefix="" cursor={props.cursor} total={props.total} playing={props.playing} on_cmd={on_cmd.clone()}>
                <button id="next-batch" data-testid="next-batch" class="wide"
                        title="Run to the end of the next batch: the next commits/N (n)"
                        disabled={at_end} onclick={on(Action::NextBatch)}>{ icon(Icon::Next) }<span class="btn-text">{ "batch" }</span></button>
            </Transport>
            <SpeedAndCount prefix="" speed={props.speed} cursor={props.cursor} total={props.total} on_cmd={on_cmd.clone()} />
            <button id="crash-now" data-testid="crash-now" class="danger"
                    title="Kill the driver right after the event on screen (c). Recorded, so step back and replay stay exact."
                    disabled={!props.can_crash} onclick={on(Action::CrashNow)}>{ "✕ Crash now" }</button>
            <ThemeButton prefix="" theme={props.theme} on_cmd={on_cmd} />
            { help }
        </div>
    }
}
