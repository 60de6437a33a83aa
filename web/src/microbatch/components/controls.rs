//! The micro-batch header controls: the shared control bar with the preset picker, next batch,
//! crash now and the help (the glossary's link, the keyboard shortcuts).

use crate::hooks::SHORTCUTS;
use crate::microbatch::state::Action;
use crate::shell::{icon, Icon, PlayerControls, Theme};
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

/// The header's control bar.
#[component]
pub fn Controls(props: &ControlsProps) -> Html {
    let on = |a: Action| {
        let cb = props.on_action.clone();
        Callback::from(move |_: MouseEvent| cb.emit(a.clone()))
    };
    let at_end = props.cursor >= props.total;
    let help = html! {
        <span class="help" tabindex="0" data-testid="help" aria-label="Help: keyboard shortcuts and glossary">
            { "?" }
            <span class="help-pop">
                <a href="glossary.html" target="_blank" data-testid="glossary-link">{ "Glossary: what the words mean ↗" }</a>
                <strong>{ "Keyboard" }</strong>
                { for SHORTCUTS.iter().map(|(k, what)| html! {
                    <span class="help-row"><kbd>{ *k }</kbd>{ *what }</span>
                }) }
            </span>
        </span>
    };
    let last_button = html! {
        <button id="next-batch" data-testid="next-batch" class="wide"
                title="Run to the end of the next batch: the next commits/N (n)"
                disabled={at_end} onclick={on(Action::NextBatch)}>{ icon(Icon::Next) }<span class="btn-text">{ "batch" }</span></button>
    };
    let crash_now = html! {
        <button id="crash-now" data-testid="crash-now" class="danger"
                title="Kill the driver right after the event on screen (c). Recorded, so step back and replay stay exact."
                disabled={!props.can_crash} onclick={on(Action::CrashNow)}>{ "✕ Crash now" }</button>
    };
    html! {
        <PlayerControls prefix="" pick="preset" choices={props.presets.clone()} chosen={props.preset.clone()}
            on_pick={props.on_action.reform(Action::SetPreset)} seed={props.seed} cursor={props.cursor} total={props.total}
            playing={props.playing} speed={props.speed} theme={props.theme} last_button={last_button}
            extra={crash_now} help={help} on_cmd={props.on_action.reform(Action::from)} />
    }
}
