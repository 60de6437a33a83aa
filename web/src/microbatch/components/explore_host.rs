//! Where the Explore dialog lives. The dashboard hands what the dialog needs (an
//! [`ExploreSlot`]) to a renderer it is given: the page's is [`LazyExplore`], which draws the
//! dialog with the second module (`batchscope-modes`, fetched the first time Explore is opened:
//! the crash explorer and its views are ~30 KB gzipped of a first load); the module itself, and
//! component tests, draw it in place with [`InlineExplore`].
//!
//! Either way the dialog hands a run back the same way: as the run's link, written into the
//! address bar, which the dashboard loads as it loads any pasted link (so a run opened from the
//! module needs no channel of its own back into the page).

use super::explore_panel::ExplorePanel;
use super::module_layer::{use_module_layer, LayerName, Load, Place};
use crate::microbatch::state::{preset_names, Action};
use crate::shell::{ModulePart, ModuleReply, Shared};
use batchscope_engine::microbatch::scenario::Scenario;
use batchscope_view::microbatch::url::scenario::format_link;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use yew::prelude::*;

/// The element the module's dialog is drawn in.
const EXPLORE_LAYER: LayerName = LayerName {
    class: "explore-layer",
    testid: "explore-host",
};

/// What the Explore dialog is given.
#[derive(Properties, Clone, PartialEq)]
pub struct ExploreSlot {
    /// The preset on screen (or the name of one's own scenario).
    pub preset: String,
    /// Its scenario (seed included; crash inputs are ignored by the explorer).
    pub scenario: Shared<Scenario>,
    /// The scenario of one's own on screen (`scenario=` of the link), if any: a run opened
    /// from the dialog keeps it.
    pub custom: Option<Shared<Scenario>>,
    /// Whether the dialog is shown (it stays mounted once drawn, so a run continues while it
    /// is hidden).
    pub open: bool,
    /// Close the dialog.
    pub on_close: Callback<()>,
}

/// Draws the Explore dialog for a slot.
pub type ExploreRender = Callback<ExploreSlot, Html>;

/// The renderer of [`InlineExplore`].
pub fn inline_explore() -> ExploreRender {
    Callback::from(|slot: ExploreSlot| html! { <InlineExplore ..slot /> })
}

/// The renderer of [`LazyExplore`].
pub fn lazy_explore() -> ExploreRender {
    Callback::from(|slot: ExploreSlot| html! { <LazyExplore ..slot /> })
}

/// Writes a run the dialog opens into the address bar as its link; the dashboard loads it
/// as a pasted link. A run of one's own scenario names it, not a preset: the link carries it.
fn open_in_page(custom: Option<Shared<Scenario>>) -> Callback<Action> {
    Callback::from(move |action: Action| {
        if let Action::LoadUrl(mut link) = action {
            if link.custom.is_none() && !preset_names().contains(&link.base.preset.as_str()) {
                link.custom = custom.as_ref().map(|s| Box::new((*s.0).clone()));
            }
            let _ = gloo::utils::window()
                .location()
                .set_hash(&format_link(&link));
        }
    })
}

/// The Explore dialog drawn in place.
#[component]
pub fn InlineExplore(props: &ExploreSlot) -> Html {
    let on_action = use_memo(props.custom.clone(), |c| open_in_page(c.clone()));
    html! {
        <ExplorePanel preset={props.preset.clone()} scenario={props.scenario.clone()}
            open={props.open} on_close={props.on_close.clone()} on_action={(*on_action).clone()} />
    }
}

/// The Explore dialog drawn by the second module, fetched the first time the dialog opens.
/// While it loads, and if it cannot be loaded, the dialog's place says so (with *Try again*).
#[component]
pub fn LazyExplore(props: &ExploreSlot) -> Html {
    // What the dialog says back, kept while mounted: it asks to close.
    let reply = use_memo(props.on_close.clone(), |close| {
        let close = close.clone();
        Rc::new(Closure::<dyn Fn(String)>::new(move |json: String| {
            if let Some(ModuleReply::Close) = ModuleReply::read(&json) {
                close.emit(());
            }
        }))
    });
    // What to draw, made anew when the props change.
    let part = use_memo(props.clone(), |slot| {
        let json = |s: &Scenario| serde_json::to_string(s).expect("a scenario serializes");
        ModulePart::Explore {
            preset: slot.preset.clone(),
            scenario: json(&slot.scenario.0),
            custom: slot.custom.as_ref().map(|c| json(&c.0)),
            open: slot.open,
        }
    });
    let (load, retry) = use_module_layer(
        Shared(part),
        (*reply).clone(),
        props.open,
        Place::Layer(EXPLORE_LAYER),
    );
    let close = props.on_close.reform(|_: MouseEvent| ());
    match &load {
        Load::Loading if props.open => html! {
            <div class="xp-backdrop" data-testid="explore-loading">
                <section class="xp-dialog xp-loading" role="status">
                    <p>{ "Loading the explorer…" }</p>
                </section>
            </div>
        },
        Load::Failed(why) if props.open => html! {
            <div class="xp-backdrop" data-testid="explore-load-error">
                <section class="xp-dialog xp-loading" role="alert">
                    <p>{ format!("The explorer could not be loaded: {why}.") }</p>
                    <div class="xp-loading-actions">
                        <button onclick={retry}>{ "Try again" }</button>
                        <button onclick={close}>{ "Close" }</button>
                    </div>
                </section>
            </div>
        },
        _ => html! {},
    }
}
