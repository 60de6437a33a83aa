//! The player's control bar, one for both modes: the mode's picker (preset, topology), seed, transport (reset,
//! back, play, step, and a last button each mode chooses), speed, step count, the mode's own
//! control, theme, and help. It speaks [`PlayerCmd`]. Element ids take the mode's prefix (`""`
//! or `"topo-"`), so `#play` and `#topo-play` stay distinct.

use super::player::{PlayerCmd, SPEEDS};
use super::theme::Theme;
use wasm_bindgen::JsCast;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// Props of [`PlayerControls`].
#[derive(Properties, PartialEq)]
pub struct PlayerControlsProps {
    /// Id prefix of the mode (`""`, `"topo-"`).
    pub prefix: &'static str,
    /// What the picker, first in the bar, picks (`preset`, `topology`): its label and its id.
    pub pick: &'static str,
    /// Every choice of the picker: (name, description).
    pub choices: Vec<(String, String)>,
    /// The choice on screen.
    pub chosen: String,
    /// A new choice.
    pub on_pick: Callback<String>,
    /// Current seed.
    pub seed: u64,
    /// Steps shown.
    pub cursor: usize,
    /// Steps in the run.
    pub total: usize,
    /// Playing.
    pub playing: bool,
    /// Speed index.
    pub speed: usize,
    /// Theme.
    pub theme: Theme,
    /// The mode's last transport button (next batch, to the end).
    pub last_button: Html,
    /// The mode's own control after the step count (crash now, no barriers).
    pub extra: Html,
    /// What follows the theme button (the shortcut help).
    #[prop_or_default]
    pub help: Html,
    /// Button presses and changes.
    pub on_cmd: Callback<PlayerCmd>,
}

/// The header's control bar.
#[component]
pub fn PlayerControls(props: &PlayerControlsProps) -> Html {
    let act = |c: PlayerCmd| {
        let cb = props.on_cmd.clone();
        Callback::from(move |_: MouseEvent| cb.emit(c.clone()))
    };
    let id = |name: &str| format!("{}{name}", props.prefix);
    let at_start = props.cursor == 0;
    let at_end = props.cursor >= props.total;
    let on_speed = {
        let cb = props.on_cmd.clone();
        Callback::from(move |e: Event| {
            if let Some(i) = select_value(&e).and_then(|v| v.parse().ok()) {
                cb.emit(PlayerCmd::SetSpeed(i));
            }
        })
    };
    let on_pick = props
        .on_pick
        .reform(|e: Event| select_value(&e).unwrap_or_default());
    let description = props
        .choices
        .iter()
        .find(|(n, _)| *n == props.chosen)
        .map(|(_, d)| d.clone())
        .unwrap_or_default();
    let theme = props.theme;
    html! {
        <div class="controls">
            <label class="field" title={description}>
                <span class="field-label">{ props.pick }</span>
                <select id={props.pick} data-testid={props.pick} onchange={on_pick}>
                    { for props.choices.iter().map(|(name, _)| html! {
                        <option value={name.clone()} selected={*name == props.chosen}>{ name }</option>
                    }) }
                </select>
            </label>
            { seed_field(&id("seed"), props.seed, &props.on_cmd) }
            <div class="transport" role="group" aria-label="Playback">
                <button id={id("reset")} data-testid={id("reset")} title="Reset to the start (r)" aria-label="Reset"
                        disabled={at_start} onclick={act(PlayerCmd::Reset)}>{ icon(Icon::Reset) }</button>
                <button id={id("back")} data-testid={id("back")} title="Step back (←)" aria-label="Step back"
                        disabled={at_start} onclick={act(PlayerCmd::Back)}>{ icon(Icon::Back) }</button>
                <button id={id("play")} data-testid={id("play")} class="play"
                        title={if props.playing { "Pause (space)" } else { "Play (space)" }}
                        aria-label={if props.playing { "Pause" } else { "Play" }}
                        disabled={at_end} onclick={act(PlayerCmd::TogglePlay)}>
                    { icon(if props.playing { Icon::Pause } else { Icon::Play }) }
                </button>
                <button id={id("step")} data-testid={id("step")} title="Step one event (→)" aria-label="Step"
                        disabled={at_end} onclick={act(PlayerCmd::Step)}>{ icon(Icon::Step) }</button>
                { props.last_button.clone() }
            </div>
            <label class="field" title="Playback speed">
                <select id={id("speed")} data-testid={id("speed")} onchange={on_speed}>
                    { for SPEEDS.iter().enumerate().map(|(i, s)| html! {
                        <option value={i.to_string()} selected={i == props.speed}>{ format!("{s}×") }</option>
                    }) }
                </select>
            </label>
            <span class="step-count" data-testid={id("step-count")} title="Steps shown / steps in the run">
                { format!("{} / {}", props.cursor, props.total) }
            </span>
            { props.extra.clone() }
            <button class="ghost icon-btn" data-testid={id("theme")}
                    title={format!("Theme: {} (click: auto → dark → light)", theme.name())}
                    onclick={act(PlayerCmd::SetTheme(theme.next()))}>{ theme.symbol() }</button>
            { props.help.clone() }
        </div>
    }
}

/// The seed field: a whole number, or a message and the old seed back.
fn seed_field(id: &str, seed: u64, on_cmd: &Callback<PlayerCmd>) -> Html {
    let cb = on_cmd.clone();
    let on_seed = Callback::from(move |e: Event| {
        let Some(input) = e
            .target()
            .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
        else {
            return;
        };
        let text = input.value();
        match text.trim().parse::<u64>() {
            Ok(s) if s != seed => cb.emit(PlayerCmd::SetSeed(s)),
            Ok(_) => {}
            Err(_) => {
                input.set_value(&seed.to_string());
                cb.emit(PlayerCmd::Notify(format!(
                    "seed: `{text}` is not a whole number ≥ 0; the seed stays {seed}."
                )));
            }
        }
    });
    html! {
        <label class="field" title="Seed of the simulation's random numbers (UUIDs, arrival times, rows)">
            <span class="field-label">{ "seed" }</span>
            <input id={id.to_string()} data-testid={id.to_string()} class="seed" type="text" inputmode="numeric"
                   value={seed.to_string()} onchange={on_seed} />
        </label>
    }
}

/// Transport icons, drawn inline so they look the same with every font.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Icon {
    /// To the start.
    Reset,
    /// One back.
    Back,
    /// Play.
    Play,
    /// Pause.
    Pause,
    /// One forward.
    Step,
    /// To the next mark (next batch, the end).
    Next,
}

/// The icon as inline SVG.
pub fn icon(which: Icon) -> Html {
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

/// The value of the `<select>` an event came from.
fn select_value(e: &Event) -> Option<String> {
    let value = e
        .target()
        .and_then(|t| t.dyn_into::<HtmlSelectElement>().ok())
        .map(|s| s.value());
    release_focus(e);
    value
}

/// Takes the focus off the control an event came from once its choice is made: a select that
/// kept it would turn the next → into "the next preset" instead of a step.
pub fn release_focus(e: &Event) {
    if let Some(el) = e
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = el.blur();
    }
}
