//! Where the scenario editor lives. The dashboard hands the editor's props to a renderer it is
//! given: the page's is [`LazyEditor`], which has the second module (`batchscope-modes`,
//! fetched the first time the editor opens) draw it in a layer of its own — the form, its
//! checks and the file handling stay out of the page's first load; component tests draw it in
//! place with [`inline_editor`]. Either way a valid edit comes back as a [`Scenario`], which
//! the dashboard runs as a link of its own ([`edited_link`]).

use super::editor::{ScenarioEditor, ScenarioEditorProps};
use super::module_layer::{use_module_layer, LayerName, Load, Place};
use crate::microbatch::state::preset_names;
use crate::shell::{ModulePart, ModuleReply, Shared};
use batchscope_engine::microbatch::scenario::Scenario;
use batchscope_view::microbatch::url::scenario::{Link, Versus};
use batchscope_view::microbatch::url::UrlState;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use yew::prelude::*;

/// Draws the scenario editor for its props.
pub type EditorRender = Callback<ScenarioEditorProps, Html>;

/// The editor drawn in place.
pub fn inline_editor() -> EditorRender {
    Callback::from(|props: ScenarioEditorProps| html! { <ScenarioEditor ..props /> })
}

/// The renderer of [`LazyEditor`].
pub fn lazy_editor() -> EditorRender {
    Callback::from(|props: ScenarioEditorProps| html! { <LazyEditor ..props /> })
}

/// The element the module's editor is drawn in.
const EDITOR_LAYER: LayerName = LayerName {
    class: "editor-layer",
    testid: "editor-host",
};

/// The link that runs an edited scenario `s`, keeping compare mode's second run `vs`: its
/// crash points go to the link's `crash=`, and a preset's name gets `-edited`, so the page does
/// not take the edit for the preset itself.
pub fn edited_link(s: &Scenario, vs: Option<Versus>) -> Link {
    let mut custom = s.clone();
    if preset_names().contains(&custom.name.as_str()) {
        custom.name = format!("{}-edited", custom.name);
    }
    let base = UrlState {
        preset: custom.name.clone(),
        seed: s.seed,
        crashes: std::mem::take(&mut custom.crashes),
        // The scenario's own faults travel inside it.
        faults: vec![],
        crash_after_events: std::mem::take(&mut custom.crash_after_events),
        // The scenario's own outages travel inside it.
        outages: vec![],
        at: 0,
        tour: false,
        tab: None,
        file: None,
    };
    Link {
        base,
        custom: Some(Box::new(custom)),
        vs,
    }
}

/// The scenario editor drawn by the second module, fetched the first time the editor opens.
/// While it loads, and if it cannot be loaded, the editor's place says so (with *Try again*).
#[component]
pub fn LazyEditor(props: &ScenarioEditorProps) -> Html {
    // What the editor says back, kept while mounted: close, or run a valid edit.
    let reply = use_memo(
        (props.on_close.clone(), props.on_apply.clone()),
        |(close, apply)| {
            let (close, apply) = (close.clone(), apply.clone());
            Rc::new(Closure::<dyn Fn(String)>::new(move |json: String| {
                match ModuleReply::read(&json) {
                    Some(ModuleReply::Close) => close.emit(()),
                    // The module read and checked the text with the same reader; a scenario it
                    // hands back always reads.
                    Some(ModuleReply::Apply { scenario }) => {
                        if let Ok(s) = Scenario::from_json(&scenario) {
                            apply.emit(s);
                        }
                    }
                    Some(ModuleReply::Seek { .. }) | None => {}
                }
            }))
        },
    );
    // What to draw, made anew when the props change.
    let part = use_memo(props.clone(), |values| ModulePart::Editor {
        scenario: serde_json::to_string(&values.scenario).expect("a scenario serializes"),
        open: values.open,
    });
    let (load, retry) = use_module_layer(
        Shared(part),
        (*reply).clone(),
        props.open,
        Place::Layer(EDITOR_LAYER),
    );
    let close = props.on_close.reform(|_: MouseEvent| ());
    match &load {
        Load::Loading if props.open => html! {
            <aside class="ed-panel" data-testid="editor-loading" aria-label="Scenario editor">
                <p role="status">{ "Loading the editor…" }</p>
            </aside>
        },
        Load::Failed(why) if props.open => html! {
            <aside class="ed-panel" data-testid="editor-load-error" aria-label="Scenario editor">
                <p role="alert">{ format!("The editor could not be loaded: {why}.") }</p>
                <div class="xp-loading-actions">
                    <button onclick={retry}>{ "Try again" }</button>
                    <button onclick={close}>{ "Close" }</button>
                </div>
            </aside>
        },
        _ => html! {},
    }
}
