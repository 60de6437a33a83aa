//! Keyboard shortcuts: → step, ← back, space play/pause, n next batch, r reset, c crash now,
//! t guided tour (start it, or play on to its next stop). Both modes listen; Topology ignores
//! the micro-batch mode's own keys (n, c).

use crate::shell::PlayerCmd;
use gloo::events::{EventListener, EventListenerOptions};
use wasm_bindgen::JsCast;
use web_sys::{Element, KeyboardEvent};
use yew::prelude::*;

/// The shortcut list shown in the help footer: (key, what it does).
pub const SHORTCUTS: [(&str, &str); 7] = [
    ("→", "step"),
    ("←", "back"),
    ("space", "play / pause"),
    ("n", "next batch"),
    ("r", "reset"),
    ("c", "crash now"),
    ("t", "tour: next stop"),
];

/// What a shortcut asks: a command every player knows, or one of the micro-batch mode's own.
#[derive(Clone, Debug, PartialEq)]
pub enum Shortcut {
    /// A shared player command.
    Player(PlayerCmd),
    /// `n`: to the next `commits/N` (micro-batch).
    NextBatch,
    /// `c`: crash the driver now (micro-batch).
    CrashNow,
}

/// The shortcut of a key (`KeyboardEvent.key`), if it is one.
pub fn key_action(key: &str) -> Option<Shortcut> {
    Some(match key {
        "ArrowRight" => Shortcut::Player(PlayerCmd::Step),
        "ArrowLeft" => Shortcut::Player(PlayerCmd::Back),
        " " | "Spacebar" => Shortcut::Player(PlayerCmd::TogglePlay),
        "n" | "N" => Shortcut::NextBatch,
        "r" | "R" => Shortcut::Player(PlayerCmd::Reset),
        "c" | "C" => Shortcut::CrashNow,
        "t" | "T" => Shortcut::Player(PlayerCmd::TourKey),
        _ => return None,
    })
}

fn typing_into_a_field(e: &KeyboardEvent) -> bool {
    e.target()
        .and_then(|t| t.dyn_into::<Element>().ok())
        .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA"))
}

/// Listens on the document for shortcuts while mounted.
#[hook]
pub fn use_keyboard(on_action: Callback<Shortcut>) {
    use_effect_with((), move |_| {
        let document = gloo::utils::document();
        let listener = EventListener::new_with_options(
            &document,
            "keydown",
            EventListenerOptions::enable_prevent_default(),
            move |event| {
                let Some(e) = event.dyn_ref::<KeyboardEvent>() else {
                    return;
                };
                if e.ctrl_key() || e.meta_key() || e.alt_key() || typing_into_a_field(e) {
                    return;
                }
                if let Some(action) = key_action(&e.key()) {
                    e.prevent_default();
                    on_action.emit(action);
                }
            },
        );
        move || drop(listener)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_shortcut_has_an_action() {
        let keys = ["ArrowRight", "ArrowLeft", " ", "n", "r", "c", "t"];
        assert_eq!(keys.len(), SHORTCUTS.len());
        for (k, (shown, _)) in keys.iter().zip(SHORTCUTS) {
            assert!(key_action(k).is_some(), "{shown}");
        }
        assert_eq!(key_action("x"), None);
        assert_eq!(key_action("C"), Some(Shortcut::CrashNow));
        assert_eq!(key_action("t"), Some(Shortcut::Player(PlayerCmd::TourKey)));
    }
}
