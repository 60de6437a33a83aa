//! The switch the header tabs call to show another dashboard (micro-batch, Topology or
//! Inspect: `batchscope_view::url::Dashboard`, which the page root reads from the link), and how a
//! dashboard of the second module asks the page root for it.

use batchscope_view::url::Dashboard;
use yew::Callback;

/// The switch the header tabs call (provided by the page root).
#[derive(Clone, PartialEq)]
pub struct ModeSwitch(pub Callback<Dashboard>);

/// The event a dashboard drawn by another module (`shell::LazyMode`) sends the page root to
/// switch: the hash is written first, and the root reads the dashboard from it.
pub const MODE_EVENT: &str = "batchscope:mode";

/// Writes `hash` (with its `#`, or empty to drop the fragment) into the address bar without a
/// history entry or a `hashchange`; the path and query stay.
pub fn replace_hash(hash: &str) {
    let window = gloo::utils::window();
    let location = window.location();
    let path = location.pathname().unwrap_or_default();
    let query = location.search().unwrap_or_default();
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some(&format!("{path}{query}{hash}")),
        );
    }
}

/// The hash of the URL that opens `mode` (with its `#`, empty for the micro-batch dashboard).
pub(crate) fn hash_of(mode: Dashboard) -> String {
    match mode.hash() {
        "" => String::new(),
        h => format!("#{h}"),
    }
}

/// Asks the page root to show `mode`, from a dashboard the root did not render itself (one
/// of the lazily loaded module's): writes its hash, then sends [`MODE_EVENT`].
pub fn mode_event(mode: Dashboard) {
    replace_hash(&hash_of(mode));
    if let Ok(event) = web_sys::Event::new(MODE_EVENT) {
        let _ = gloo::utils::window().dispatch_event(&event);
    }
}
