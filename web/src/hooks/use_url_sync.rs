//! The URL hash follows the moment on screen, and a pasted link (hashchange) loads its moment.

use crate::state::{preset_names, Action};
use batchscope_view::url;
use gloo::events::EventListener;
use yew::prelude::*;

/// Writes `hash` into the address bar (without a history entry) whenever it changes and
/// `paused` is true; hands every hash the user types or pastes to `on_hash`. Both modes use it.
#[hook]
pub fn use_hash_sync(hash: String, paused: bool, on_hash: Callback<String>) {
    use_effect_with((hash, paused), |(hash, paused)| {
        if *paused {
            let window = gloo::utils::window();
            let current = window.location().hash().unwrap_or_default();
            if current != *hash {
                if let Ok(history) = window.history() {
                    let _ = history.replace_state_with_url(
                        &wasm_bindgen::JsValue::NULL,
                        "",
                        Some(hash),
                    );
                }
            }
        }
    });
    use_effect_with((), move |_| {
        let listener = EventListener::new(&gloo::utils::window(), "hashchange", move |_| {
            on_hash.emit(gloo::utils::window().location().hash().unwrap_or_default());
        });
        move || drop(listener)
    });
}

/// The micro-batch mode's sync: a pasted link dispatches `LoadUrl`, a broken one a message
/// naming what is wrong (the scenario on screen is kept).
#[hook]
pub fn use_url_sync(hash: String, paused: bool, on_action: Callback<Action>) {
    use_hash_sync(
        hash,
        paused,
        Callback::from(
            move |hash: String| match url::parse(&hash, &preset_names()) {
                Ok(state) => on_action.emit(Action::LoadUrl(state)),
                Err(errors) => {
                    let list: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
                    on_action.emit(Action::Notify(format!(
                        "This link could not be read — {}. The scenario on screen is kept.",
                        list.join("; ")
                    )));
                }
            },
        ),
    );
}
