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
use crate::shell::{explore_in_module, explore_unmount, load_module, Shared};
use crate::state::{preset_names, Action};
use batchscope_engine::Scenario;
use batchscope_view::url::scenario::format_link;
use wasm_bindgen::prelude::*;
use yew::prelude::*;

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

/// Where the module's dialog is.
#[derive(Clone, PartialEq)]
enum Load {
    /// Not asked for yet.
    NotYet,
    /// Being fetched and compiled.
    Loading,
    /// Drawn by the module.
    Drawn,
    /// Could not be loaded: why.
    Failed(String),
}

/// The Explore dialog drawn by the second module, fetched the first time the dialog opens.
/// While it loads, and if it cannot be loaded, the dialog's place says so (with *Try again*).
#[component]
pub fn LazyExplore(props: &ExploreSlot) -> Html {
    // The module's dialog is drawn in an element of its own beside the page's root, not
    // inside it: each Yew app listens for events on the element it is mounted on, and the
    // page's would take the dialog's events for its own (the two apps number their listeners
    // alike).
    let host = use_mut_ref(|| None::<web_sys::Element>);
    let load = use_state(|| Load::NotYet);
    let attempt = use_state(|| 0u32);
    // The close callback as a JavaScript function for the module, kept while mounted.
    let on_close = use_memo(props.on_close.clone(), |close| {
        let close = close.clone();
        Closure::<dyn Fn()>::new(move || close.emit(()))
    });
    // What the dialog should show now: a load that ends draws the latest, not what was asked
    // when it began (the dialog may have been closed, or the preset changed, meanwhile).
    let latest = use_mut_ref(|| props.clone());
    *latest.borrow_mut() = props.clone();
    // Whether this dialog is still on the page: a load that ends after the dashboard left
    // (another mode chosen meanwhile) draws nothing.
    let mounted = use_mut_ref(|| true);
    {
        let (host, load, on_close) = (host.clone(), load.clone(), on_close.clone());
        let mounted = mounted.clone();
        let drawn = *load == Load::Drawn;
        use_effect_with((props.clone(), *attempt), move |(slot, _)| {
            if !(slot.open || drawn) {
                return;
            }
            let root = host.borrow_mut().get_or_insert_with(explore_layer).clone();
            if !drawn {
                load.set(Load::Loading);
            }
            wasm_bindgen_futures::spawn_local(async move {
                let drew = async {
                    load_module().await?;
                    if !*mounted.borrow() {
                        return Ok(());
                    }
                    let slot = latest.borrow().clone();
                    let json =
                        |s: &Scenario| serde_json::to_string(s).expect("a scenario serializes");
                    explore_in_module(
                        &root,
                        &slot.preset,
                        &json(&slot.scenario.0),
                        slot.custom.as_ref().map(|c| json(&c.0)).as_deref(),
                        slot.open,
                        AsRef::<JsValue>::as_ref(&*on_close).unchecked_ref(),
                    )
                };
                match drew.await {
                    Ok(()) => load.set(Load::Drawn),
                    Err(why) => load.set(Load::Failed(why)),
                }
            });
        });
    }
    // Leaving the dashboard (another mode) removes the module's dialog and its element.
    use_effect_with((), move |_| {
        move || {
            *mounted.borrow_mut() = false;
            explore_unmount();
            if let Some(layer) = host.borrow_mut().take() {
                layer.remove();
            }
        }
    });
    let retry = {
        let attempt = attempt.clone();
        Callback::from(move |_: MouseEvent| attempt.set(*attempt + 1))
    };
    let close = props.on_close.reform(|_: MouseEvent| ());
    match &*load {
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

/// A new element for the module's dialog, at the end of `<body>`.
fn explore_layer() -> web_sys::Element {
    let document = gloo::utils::document();
    let layer = document.create_element("div").expect("a div");
    layer.set_class_name("explore-layer");
    let _ = layer.set_attribute("data-testid", "explore-host");
    if let Some(body) = document.body() {
        let _ = body.append_with_node_1(&layer);
    }
    layer
}
