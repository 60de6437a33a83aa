//! The URL hash follows the moment on screen, and a pasted link (hashchange) loads its moment.

use crate::shell::{replace_hash, Mode, Player, PlayerCmd};
use gloo::events::EventListener;
use yew::prelude::*;

/// Writes `hash` into the address bar (without a history entry) whenever it changes and
/// `paused` is true; hands every hash the user types or pastes to `on_hash`. Both modes use it.
#[hook]
fn use_hash_sync(hash: String, paused: bool, on_hash: Callback<String>) {
    use_effect_with((hash, paused), |(hash, paused)| {
        if *paused {
            let window = gloo::utils::window();
            let current = window.location().hash().unwrap_or_default();
            if current != *hash {
                replace_hash(hash);
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

/// One mode's sync: the hash follows its player when paused; a pasted link of this mode loads
/// its moment, a broken one a message naming what is wrong (the page on screen is kept), and a
/// link of the other mode is left to the page root.
#[hook]
pub fn use_url_sync<M: Mode>(player: &Player<M>, on_action: Callback<M::Action>) {
    use_hash_sync(
        M::format_link(&player.url_state()),
        !player.playing,
        Callback::from(move |hash: String| {
            if !M::owns_link(&hash) {
                return;
            }
            match M::parse_link(&hash) {
                Ok(state) => on_action.emit(state.into()),
                Err(errors) => on_action.emit(
                    PlayerCmd::Notify(format!(
                        "This link could not be read — {}. The {} on screen is kept.",
                        errors.join("; "),
                        M::SUBJECT
                    ))
                    .into(),
                ),
            }
        }),
    );
}
