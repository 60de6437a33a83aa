//! The player controls both modes share: transport (reset, back, play, step, and a last button
//! each mode chooses), speed, seed, step count and theme. They speak [`PlayerCmd`]; each mode's
//! header turns it into its own player's action. Element ids take the mode's prefix (`""` or
//! `"topo-"`), so `#play` and `#topo-play` stay distinct.

use crate::state::{Theme, SPEEDS};
use wasm_bindgen::JsCast;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// What the shared controls ask of a player.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerCmd {
    /// Back to the start.
    Reset,
    /// One step back.
    Back,
    /// Play or pause.
    TogglePlay,
    /// One step forward.
    Step,
    /// Playback speed (index into `SPEEDS`).
    SetSpeed(usize),
    /// A new seed.
    SetSeed(u64),
    /// Switch theme.
    SetTheme(Theme),
    /// Show a message (a bad seed).
    Notify(String),
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
pub fn select_value(e: &Event) -> Option<String> {
    e.target()
        .and_then(|t| t.dyn_into::<HtmlSelectElement>().ok())
        .map(|s| s.value())
}

/// Props of [`Transport`].
#[derive(Properties, PartialEq)]
pub struct TransportProps {
    /// Id prefix of the mode (`""`, `"topo-"`).
    pub prefix: &'static str,
    /// Steps shown.
    pub cursor: usize,
    /// Steps in the run.
    pub total: usize,
    /// Playing.
    pub playing: bool,
    /// Button presses.
    pub on_cmd: Callback<PlayerCmd>,
    /// The mode's last button (next batch, to the end).
    #[prop_or_default]
    pub children: Html,
}

/// Reset, back, play/pause, step, then the mode's own button.
#[component]
pub fn Transport(props: &TransportProps) -> Html {
    let act = |c: PlayerCmd| {
        let cb = props.on_cmd.clone();
        Callback::from(move |_: MouseEvent| cb.emit(c.clone()))
    };
    let id = |name: &str| format!("{}{name}", props.prefix);
    let at_start = props.cursor == 0;
    let at_end = props.cursor >= props.total;
    html! {
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
            { props.children.clone() }
        </div>
    }
}

/// Props of [`SpeedAndCount`].
#[derive(Properties, PartialEq)]
pub struct SpeedAndCountProps {
    /// Id prefix of the mode.
    pub prefix: &'static str,
    /// Speed index.
    pub speed: usize,
    /// Steps shown.
    pub cursor: usize,
    /// Steps in the run.
    pub total: usize,
    /// Changes.
    pub on_cmd: Callback<PlayerCmd>,
}

/// The speed menu and `shown / total`.
#[component]
pub fn SpeedAndCount(props: &SpeedAndCountProps) -> Html {
    let on_speed = {
        let cb = props.on_cmd.clone();
        Callback::from(move |e: Event| {
            if let Some(i) = select_value(&e).and_then(|v| v.parse().ok()) {
                cb.emit(PlayerCmd::SetSpeed(i));
            }
        })
    };
    let speed_id = format!("{}speed", props.prefix);
    html! {
        <>
            <label class="field" title="Playback speed">
                <select id={speed_id.clone()} data-testid={speed_id} onchange={on_speed}>
                    { for SPEEDS.iter().enumerate().map(|(i, s)| html! {
                        <option value={i.to_string()} selected={i == props.speed}>{ format!("{s}×") }</option>
                    }) }
                </select>
            </label>
            <span class="step-count" data-testid={format!("{}step-count", props.prefix)} title="Steps shown / steps in the run">
                { format!("{} / {}", props.cursor, props.total) }
            </span>
        </>
    }
}

/// Props of [`SeedInput`].
#[derive(Properties, PartialEq)]
pub struct SeedInputProps {
    /// Id prefix of the mode.
    pub prefix: &'static str,
    /// Current seed.
    pub seed: u64,
    /// Changes (and the message for a bad one).
    pub on_cmd: Callback<PlayerCmd>,
}

/// The seed field: a whole number, or a message and the old seed back.
#[component]
pub fn SeedInput(props: &SeedInputProps) -> Html {
    let on_seed = {
        let cb = props.on_cmd.clone();
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
                Ok(s) if s != seed => cb.emit(PlayerCmd::SetSeed(s)),
                Ok(_) => {}
                Err(_) => {
                    input.set_value(&seed.to_string());
                    cb.emit(PlayerCmd::Notify(format!(
                        "seed: `{text}` is not a whole number ≥ 0; the seed stays {seed}."
                    )));
                }
            }
        })
    };
    let id = format!("{}seed", props.prefix);
    html! {
        <label class="field" title="Seed of the simulation's random numbers (UUIDs, arrival times, rows)">
            <span class="field-label">{ "seed" }</span>
            <input id={id.clone()} data-testid={id} class="seed" type="text" inputmode="numeric"
                   value={props.seed.to_string()} onchange={on_seed} />
        </label>
    }
}

/// Props of [`ThemeButton`].
#[derive(Properties, PartialEq)]
pub struct ThemeButtonProps {
    /// Id prefix of the mode.
    pub prefix: &'static str,
    /// Current theme.
    pub theme: Theme,
    /// The next theme.
    pub on_cmd: Callback<PlayerCmd>,
}

/// Auto → dark → light.
#[component]
pub fn ThemeButton(props: &ThemeButtonProps) -> Html {
    let label = match props.theme {
        Theme::System => "◐",
        Theme::Dark => "☾",
        Theme::Light => "☀",
    };
    let next = props.theme.next();
    let cb = props.on_cmd.clone();
    html! {
        <button class="ghost icon-btn" data-testid={format!("{}theme", props.prefix)}
                title={format!("Theme: {} (click: auto → dark → light)", props.theme.name())}
                onclick={Callback::from(move |_: MouseEvent| cb.emit(PlayerCmd::SetTheme(next)))}>{ label }</button>
    }
}
