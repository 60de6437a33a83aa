//! A part of the micro-batch dashboard drawn by the second module (`batchscope-modes`): the
//! Explore dialog and the scenario editor, each in an element of its own at the end of
//! `<body>`, beside the page's root, and compare mode, inside an element of the page's layout.
//! [`use_module_layer`] fetches the module the first time the part is opened (the minimap's:
//! once the browser is idle after the page's first paint), draws the latest
//! values once it is in (a load that ends draws what the page shows then, not what it showed
//! when the load began), gives the drawn part every later change, and removes it (and an
//! element of its own) when the dashboard leaves the page or the part's place goes.
//!
//! The dialog and the editor are overlays (a dialog, a fixed panel), so they take no place in
//! the layout and are drawn beside the page's root ([`Place::Layer`]). Compare mode takes the
//! sequence diagram's place, so it is drawn inside the page's root ([`Place::Inside`]): the
//! module numbers its apps apart from the page's (see `numbered_apart` in
//! `bin/batchscope-modes.rs`), as it does for the Topology and Inspect dashboards.

use crate::shell::{draw_in_module, load_module, remove_from_module, ModulePart, PartSlot, Shared};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use yew::prelude::*;

/// Where the module's part is.
#[derive(Clone, PartialEq, Debug)]
pub enum Load {
    /// Not asked for yet.
    NotYet,
    /// Being fetched and compiled.
    Loading,
    /// Drawn by the module.
    Drawn,
    /// Could not be loaded: why.
    Failed(String),
}

/// What hears a drawn part's replies (the text of a `shell::ModuleReply`), kept while the part
/// is on the page.
pub type Reply = Rc<Closure<dyn Fn(String)>>;

/// The element the part is drawn in: its class and test id.
#[derive(Clone, Copy, PartialEq)]
pub struct LayerName {
    /// Its class (`display: contents` in the style sheet).
    pub class: &'static str,
    /// Its `data-testid`.
    pub testid: &'static str,
}

/// Where the part is drawn.
#[derive(Clone, PartialEq)]
pub enum Place {
    /// In an element of its own at the end of `<body>` (an overlay).
    Layer(LayerName),
    /// Inside an element the caller draws in the page's layout (left empty by the page).
    Inside(NodeRef),
}

/// Has the module draw `part` at `place` once `open` first holds, and again whenever `part` is
/// a new one: the caller's `use_memo` of its props, made anew when they change and compared by
/// pointer, so this hook is written once for every part. `reply` hears what the part says
/// back. What the module drew is removed when the caller goes. Returns where the part is and a
/// callback that tries a failed load again.
#[hook]
pub fn use_module_layer(
    part: Shared<ModulePart>,
    reply: Reply,
    open: bool,
    place: Place,
) -> (Load, Callback<MouseEvent>) {
    let slot = part.slot();
    let host = use_mut_ref(|| None::<web_sys::Element>);
    let load = use_state(|| Load::NotYet);
    let attempt = use_state(|| 0u32);
    // What the part should show now: a load that ends draws this, not what was asked when it
    // began.
    let latest = use_mut_ref(|| (part.clone(), reply.clone()));
    *latest.borrow_mut() = (part.clone(), reply.clone());
    // Whether the dashboard is still on the page: a load that ends after it left draws nothing.
    let mounted = use_mut_ref(|| true);
    {
        let (host, load, mounted) = (host.clone(), load.clone(), mounted.clone());
        let drawn = *load == Load::Drawn;
        use_effect_with((part, open, *attempt), move |_| {
            if !(open || drawn) {
                return;
            }
            let root = match &place {
                Place::Layer(name) => host
                    .borrow_mut()
                    .get_or_insert_with(|| layer(*name))
                    .clone(),
                Place::Inside(node) => match node.cast::<web_sys::Element>() {
                    Some(element) => element,
                    None => return,
                },
            };
            if !drawn {
                load.set(Load::Loading);
            }
            wasm_bindgen_futures::spawn_local(async move {
                let drew = async {
                    load_module(slot == PartSlot::Minimap).await?;
                    if !*mounted.borrow() {
                        return Ok(());
                    }
                    let (part, reply) = latest.borrow().clone();
                    draw_in_module(&root, &part, Some((*reply).as_ref().unchecked_ref()))
                };
                match drew.await {
                    Ok(()) => load.set(Load::Drawn),
                    Err(why) => load.set(Load::Failed(why)),
                }
            });
        });
    }
    use_effect_with((), move |_| {
        move || {
            *mounted.borrow_mut() = false;
            remove_from_module(slot);
            if let Some(layer) = host.borrow_mut().take() {
                layer.remove();
            }
        }
    });
    let retry = Callback::from(move |_: MouseEvent| attempt.set(*attempt + 1));
    ((*load).clone(), retry)
}

/// A new element at the end of `<body>`.
fn layer(name: LayerName) -> web_sys::Element {
    let document = gloo::utils::document();
    let layer = document.create_element("div").expect("a div");
    layer.set_class_name(name.class);
    let _ = layer.set_attribute("data-testid", name.testid);
    if let Some(body) = document.body() {
        let _ = body.append_with_node_1(&layer);
    }
    layer
}
