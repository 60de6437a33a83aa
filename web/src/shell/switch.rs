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

/// `hash` (with its `#`, or empty) with the page's presentation flags kept: `present=1` and
/// `embed=1` while `<html>` has `data-present` / `data-embed` (set by present mode, see
/// `present.rs`). A dashboard writes its own link at every step; with the flags kept, a reload,
/// Copy link or the back button stays in present mode.
pub fn with_presentation(hash: &str) -> String {
    let root = gloo::utils::document().document_element();
    let mut out = hash.to_string();
    for flag in ["present", "embed"] {
        let on = root
            .as_ref()
            .is_some_and(|r| r.has_attribute(&format!("data-{flag}")));
        let pair = format!("{flag}=1");
        let body = out.trim_start_matches('#');
        if on && !body.split('&').any(|p| p == pair) {
            out = if body.is_empty() {
                format!("#{pair}")
            } else {
                format!("{out}&{pair}")
            };
        }
    }
    out
}

/// `hash` without `flag=1` (`present`), as present mode is left.
pub fn without_flag(hash: &str, flag: &str) -> String {
    let pair = format!("{flag}=1");
    let kept: Vec<&str> = hash
        .trim_start_matches('#')
        .split('&')
        .filter(|p| !p.is_empty() && *p != pair)
        .collect();
    if kept.is_empty() {
        String::new()
    } else {
        format!("#{}", kept.join("&"))
    }
}

/// Writes `hash` (with its `#`, or empty to drop the fragment) into the address bar without a
/// history entry or a `hashchange`, the presentation flags kept ([`with_presentation`]); the
/// path and query stay.
pub fn replace_hash(hash: &str) {
    let hash = with_presentation(hash);
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
