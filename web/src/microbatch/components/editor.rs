//! The scenario editor: a form for what people change most (source kind and settings, channels,
//! rate, sink kind, trigger interval, batches, restart delay, crashes, faults) and a JSON tab for the rest, validated
//! as you type with errors naming the field. Every valid edit runs at once; while the text is
//! invalid the last valid run stays on screen. Start from a preset, load a `.json` file, save
//! the scenario as a file. The page has the second module draw it (`super::editor_host`).

use batchscope_engine::microbatch::scenario::{presets, CrashPoint, Fault, Scenario};
use std::collections::BTreeSet;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Props of [`ScenarioEditor`].
#[derive(Properties, PartialEq, Clone)]
pub struct ScenarioEditorProps {
    /// The scenario on screen, with its crash points.
    pub scenario: Scenario,
    /// Whether the editor is shown.
    pub open: bool,
    /// Closes it.
    pub on_close: Callback<()>,
    /// Runs a valid edit (one that fits the dashboard).
    pub on_apply: Callback<Scenario>,
}

/// The scenario as the editor shows it: pretty JSON, crash points included.
fn text_of(s: &Scenario) -> String {
    s.to_json()
}

/// A comma-separated list (`NAME@BATCH, …`) read as `T`s, or what is wrong, named by `field`.
fn parse_list<T: std::str::FromStr>(v: &str, field: &str) -> Result<Vec<T>, String>
where
    T::Err: std::fmt::Display,
{
    v.split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(|x| x.parse::<T>().map_err(|e| format!("{field}: {e}")))
        .collect()
}

/// The form's crashes field (`NAME@BATCH, …`) into the scenario, or what is wrong.
fn set_crashes(s: &mut Scenario, v: &str) -> Result<(), String> {
    s.crashes = parse_list::<CrashPoint>(v, "crashes")?;
    Ok(())
}

/// The form's faults field (`KIND@BATCH, …`) into the scenario, or what is wrong.
fn set_faults(s: &mut Scenario, v: &str) -> Result<(), String> {
    s.faults = parse_list::<Fault>(v, "faults")?;
    Ok(())
}

/// A preset's scenario renamed, so the page does not take the edit for the preset itself.
fn from_preset(name: &str, seed: u64) -> Option<Scenario> {
    let mut s = batchscope_engine::microbatch::scenario::preset(name).ok()?;
    s.name = format!("{name}-edited");
    s.seed = seed;
    Some(s)
}

/// The serde name of a kind (`append`, `replayable-log`).
fn kind_name<T: serde::Serialize>(kind: &T) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// Offers a file to download.
fn save(name: &str, text: &str) {
    let blob = gloo::file::Blob::new_with_options(text, Some("application/json"));
    let url = gloo::file::ObjectUrl::from(blob);
    let document = gloo::utils::document();
    if let Ok(a) = document.create_element("a") {
        let _ = a.set_attribute("href", &url);
        let _ = a.set_attribute("download", &format!("{name}.json"));
        if let Ok(a) = a.dyn_into::<web_sys::HtmlElement>() {
            a.click();
        }
    }
}

/// The editor panel.
#[component]
pub fn ScenarioEditor(props: &ScenarioEditorProps) -> Html {
    let text = use_state(|| text_of(&props.scenario));
    let error = use_state(|| Option::<String>::None);
    let json_tab = use_state(|| false);
    let reader = use_mut_ref(|| Option::<gloo::file::callbacks::FileReader>::None);
    // A run loaded from elsewhere (a preset, a link) replaces the draft; the draft's own run
    // (the same scenario, renamed) leaves the text as typed.
    {
        let (text, error) = (text.clone(), error.clone());
        use_effect_with((props.open, props.scenario.clone()), move |(open, s)| {
            let same = |t: &Scenario| Scenario {
                name: String::new(),
                ..t.clone()
            };
            let typed = Scenario::from_json(&text).ok();
            if *open && error.is_none() && typed.map(|t| same(&t)) != Some(same(s)) {
                text.set(text_of(s));
            }
        });
    }
    let last_valid = Scenario::from_json(&text).unwrap_or_else(|_| props.scenario.clone());

    // Validates `new` text, keeps it, and runs it when valid.
    let apply = {
        let (text, error, on_apply) = (text.clone(), error.clone(), props.on_apply.clone());
        Callback::from(move |new: String| {
            match Scenario::from_json(&new)
                .map_err(|e| e.to_string())
                .and_then(|s| {
                    batchscope_view::microbatch::url::scenario::fits_dashboard(&s).map(|()| s)
                }) {
                Ok(s) => {
                    error.set(None);
                    on_apply.emit(s);
                }
                Err(e) => error.set(Some(e)),
            }
            text.set(new);
        })
    };
    // A form field: `edit` changes the last valid scenario, or names what is wrong.
    let field = |edit: fn(&mut Scenario, &str) -> Result<(), String>| {
        let (apply, error, base) = (apply.clone(), error.clone(), last_valid.clone());
        Callback::from(move |value: String| {
            let mut s = base.clone();
            match edit(&mut s, &value) {
                Ok(()) => apply.emit(text_of(&s)),
                Err(e) => error.set(Some(e)),
            }
        })
    };
    let on_source = field(|s, v| {
        s.source.kind = serde_json::from_value(serde_json::json!(v)).map_err(|e| e.to_string())?;
        Ok(())
    });
    let on_sink = field(|s, v| {
        s.sink.kind = serde_json::from_value(serde_json::json!(v)).map_err(|e| e.to_string())?;
        Ok(())
    });
    let on_channels = field(|s, v| {
        s.upstream.channels = v
            .trim()
            .parse()
            .map_err(|_| format!("upstream.channels: `{v}` is not a whole number"))?;
        Ok(())
    });
    let on_rate = field(|s, v| {
        s.upstream.records_per_batch = v
            .trim()
            .parse()
            .map_err(|_| format!("upstream.records_per_batch: `{v}` is not a whole number"))?;
        Ok(())
    });
    let on_max = field(|s, v| {
        s.source.max_offsets_per_channel = v
            .trim()
            .parse()
            .map_err(|_| format!("source.max_offsets_per_channel: `{v}` is not a whole number"))?;
        Ok(())
    });
    let on_trigger = field(|s, v| {
        s.trigger_interval_ms = v
            .trim()
            .parse()
            .map_err(|_| format!("trigger_interval_ms: `{v}` is not a whole number"))?;
        Ok(())
    });
    let on_restart = field(|s, v| {
        s.restart_delay_ms = v
            .trim()
            .parse()
            .map_err(|_| format!("restart_delay_ms: `{v}` is not a whole number"))?;
        Ok(())
    });
    let on_batches = field(|s, v| {
        s.batches = v
            .trim()
            .parse()
            .map_err(|_| format!("batches: `{v}` is not a whole number"))?;
        Ok(())
    });
    let on_crashes = field(set_crashes);
    let on_faults = field(set_faults);
    let on_preset = {
        let (apply, seed) = (apply.clone(), last_valid.seed);
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            if let Some(s) = from_preset(&select.value(), seed) {
                apply.emit(text_of(&s));
            }
            select.set_value("");
        })
    };
    let on_file = {
        let (apply, reader) = (apply.clone(), reader.clone());
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            if let Some(file) = input.files().and_then(|f| f.get(0)) {
                let apply = apply.clone();
                let task = gloo::file::callbacks::read_as_text(
                    &gloo::file::File::from(file),
                    move |read| {
                        if let Ok(t) = read {
                            apply.emit(t);
                        }
                    },
                );
                *reader.borrow_mut() = Some(task);
            }
            input.set_value("");
        })
    };
    let on_save = {
        let (text, name) = (text.clone(), last_valid.name.clone());
        Callback::from(move |_: MouseEvent| save(&name, &text))
    };
    let on_text = apply.reform(|e: InputEvent| {
        let area: web_sys::HtmlTextAreaElement = e.target_unchecked_into();
        area.value()
    });
    let value_of = |cb: Callback<String>| {
        cb.reform(|e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            input.value()
        })
    };
    let select_of = |cb: Callback<String>| {
        cb.reform(|e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            select.value()
        })
    };
    let all = presets();
    let sources: BTreeSet<String> = all
        .iter()
        .map(|p| kind_name(&p.scenario.source.kind))
        .collect();
    let sinks: BTreeSet<String> = all
        .iter()
        .map(|p| kind_name(&p.scenario.sink.kind))
        .collect();
    let s = &last_valid;
    let options = |kinds: &BTreeSet<String>, current: String| {
        html! { <>{ for kinds.iter().map(|k| html! {
            <option value={k.clone()} selected={*k == current}>{ k }</option>
        }) }</> }
    };
    let crashes: Vec<String> = s.crashes.iter().map(|c| c.to_string()).collect();
    let faults: Vec<String> = s.faults.iter().map(|f| f.to_string()).collect();
    let input = |label: &str, id: &str, value: String, cb: Callback<String>| {
        html! {
            <label class="ed-field">{ label }
                <input type="number" min="0" data-testid={format!("ed-{id}")} value={value} onchange={value_of(cb)} />
            </label>
        }
    };
    let json = *json_tab;
    html! {
        <aside class="ed-panel" hidden={!props.open} data-testid="editor" aria-label="Scenario editor">
            <header class="ed-head">
                <strong>{ "Scenario editor" }</strong>
                <div class="ed-tabs">
                    <button class={classes!((!json).then_some("on"))} data-testid="ed-tab-form"
                        onclick={{ let t = json_tab.clone(); move |_| t.set(false) }}>{ "Form" }</button>
                    <button class={classes!(json.then_some("on"))} data-testid="ed-tab-json"
                        onclick={{ let t = json_tab.clone(); move |_| t.set(true) }}>{ "JSON" }</button>
                </div>
                <button data-testid="ed-close" title="Close the editor (the run stays)"
                    onclick={props.on_close.reform(|_| ())}>{ "✕" }</button>
            </header>
            <div class="ed-row">
                <select data-testid="ed-from-preset" onchange={on_preset} aria-label="Start from preset">
                    <option value="" selected=true>{ "Start from preset…" }</option>
                    { for all.iter().map(|p| html! { <option value={p.name}>{ p.name }</option> }) }
                </select>
                <label class="ed-file" title="Load a scenario file (.json)">{ "Load .json" }
                    <input type="file" accept=".json,application/json" data-testid="ed-load" onchange={on_file} />
                </label>
                <button data-testid="ed-save" onclick={on_save} title="Save this scenario as a file">{ "Save" }</button>
            </div>
            if let Some(e) = &*error {
                <p class="ed-error" role="alert" data-testid="ed-error">
                    { e }<br /><small>{ "The last valid run stays on screen." }</small>
                </p>
            }
            if json {
                <textarea class="ed-json" data-testid="ed-json" spellcheck="false" value={(*text).clone()} oninput={on_text} />
            } else {
                <div class="ed-form">
                    <label class="ed-field">{ "source kind" }
                        <select data-testid="ed-source" onchange={select_of(on_source)}>{ options(&sources, kind_name(&s.source.kind)) }</select>
                    </label>
                    { input("channels", "channels", s.upstream.channels.to_string(), on_channels) }
                    { input("records per batch, per channel", "rate", s.upstream.records_per_batch.to_string(), on_rate) }
                    { input("max offsets per channel", "max", s.source.max_offsets_per_channel.to_string(), on_max) }
                    <label class="ed-field">{ "sink kind" }
                        <select data-testid="ed-sink" onchange={select_of(on_sink)}>{ options(&sinks, kind_name(&s.sink.kind)) }</select>
                    </label>
                    { input("trigger interval (ms)", "trigger", s.trigger_interval_ms.to_string(), on_trigger) }
                    { input("batches", "batches", s.batches.to_string(), on_batches) }
                    { input("restart delay (ms)", "restart", s.restart_delay_ms.to_string(), on_restart) }
                    <label class="ed-field">{ "crashes (NAME@BATCH, comma separated)" }
                        <input type="text" data-testid="ed-crashes" value={crashes.join(", ")} onchange={value_of(on_crashes)} />
                    </label>
                    <label class="ed-field">{ "faults (KIND@BATCH, comma separated)" }
                        <input type="text" data-testid="ed-faults" value={faults.join(", ")} onchange={value_of(on_faults)} />
                    </label>
                    <p class="ed-hint">{ "Bursts, idle stretches, splits, outages, a change at a restart, async progress tracking: JSON tab (schema: schemas/scenario.schema.json)." }</p>
                </div>
            }
        </aside>
    }
}
