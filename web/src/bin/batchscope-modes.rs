//! The Topology and Inspect dashboards as a module of their own, loaded by the page
//! (`shell::LazyMode`) the first time one of them is opened: the micro-batch dashboard's first
//! load does not carry their code. The page calls [`mount`] with the element to draw in and
//! [`unmount`] when it switches away; its Export menu calls [`export_file`] for the files made
//! from a run (the trace, the checkpoint folder).

use batchscope_web::export_file::ExportKind;
use batchscope_web::inspect::InspectApp;
use batchscope_web::shell::{mode_event, Dashboard, ModeSwitch};
use batchscope_web::topology::TopologyApp;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use yew::prelude::*;

/// Props of [`Mounted`].
#[derive(Properties, PartialEq)]
struct MountedProps {
    /// Which dashboard.
    which: Dashboard,
}

/// The dashboard with the header's mode switch wired to the page: a tab asks the page (a
/// `batchscope:mode` event), which unmounts this module's app and shows the chosen one.
#[component]
fn Mounted(props: &MountedProps) -> Html {
    let switch = ModeSwitch(Callback::from(mode_event));
    html! {
        <ContextProvider<ModeSwitch> context={switch}>
            { match props.which {
                Dashboard::Topology => html! { <TopologyApp /> },
                _ => html! { <InspectApp /> },
            } }
        </ContextProvider<ModeSwitch>>
    }
}

thread_local! {
    /// The app on screen, if any.
    static APP: RefCell<Option<yew::AppHandle<Mounted>>> = const { RefCell::new(None) };
}

/// Draws the dashboard `which` (`"topology"` or `"inspect"`) into `root`, replacing the one
/// this module drew before.
#[wasm_bindgen]
pub fn mount(root: web_sys::Element, which: &str) -> Result<(), JsValue> {
    let which = match which {
        "topology" => Dashboard::Topology,
        "inspect" => Dashboard::Inspect,
        other => {
            return Err(JsValue::from_str(&format!(
                "no dashboard named {other:?} in this module"
            )))
        }
    };
    unmount();
    let app = yew::Renderer::<Mounted>::with_root_and_props(root, MountedProps { which }).render();
    APP.with(|a| *a.borrow_mut() = Some(app));
    Ok(())
}

/// Removes the dashboard this module drew, if any.
#[wasm_bindgen]
pub fn unmount() {
    if let Some(app) = APP.with(|a| a.borrow_mut().take()) {
        app.destroy();
    }
}

/// The Export menu's file `kind` (`"trace"` or `"checkpoint"`) of the micro-batch moment the
/// link `hash` describes (see `batchscope_web::export_file`): its bytes, or an error naming
/// what is wrong.
#[wasm_bindgen]
pub fn export_file(kind: &str, hash: &str) -> Result<Vec<u8>, JsValue> {
    let kind = ExportKind::from_name(kind)
        .ok_or_else(|| JsValue::from_str(&format!("no file named {kind:?} to export")))?;
    batchscope_web::export_file::export_file(kind, hash).map_err(|e| JsValue::from_str(&e))
}

/// Nothing runs at load: the page calls [`mount`].
fn main() {}
