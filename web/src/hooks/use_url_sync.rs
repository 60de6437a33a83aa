//! The URL hash follows the moment on screen, and a pasted link (hashchange) loads its moment.

use crate::shell::{dropped_fields, replace_hash, with_presentation, Mode, Player, PlayerCmd};
use gloo::events::EventListener;
use gloo::timers::callback::Timeout;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// How long the address bar waits after the moment on screen last changed before it follows:
/// writing the URL (`history.replaceState`, with a link that carries a whole scenario) costs
/// the browser a few milliseconds, too much for every step of a held arrow key or a click
/// that must draw within one frame. A person reading or copying the address never sees the
/// wait.
pub const URL_WRITE_DELAY_MS: u32 = 150;

/// The address-bar write waiting to happen, if any.
type Pending = Rc<RefCell<Option<Timeout>>>;

/// Writes `url`'s link (made by `format`) into the address bar, without a history entry,
/// [`URL_WRITE_DELAY_MS`] after it last changed while `paused` is true; hands every hash the
/// user types or pastes to `on_hash` (and drops a write still waiting, so the pasted address
/// is not overwritten). Both modes use it.
#[hook]
fn use_hash_sync<U: Clone + PartialEq + 'static>(
    url: U,
    format: fn(&U) -> String,
    paused: bool,
    on_hash: Callback<String>,
) {
    let pending: Pending = use_mut_ref(|| None);
    {
        let pending = pending.clone();
        use_effect_with((url, paused), move |(url, paused)| {
            let timeout = paused.then(|| {
                let url = url.clone();
                let location = || gloo::utils::window().location().hash().unwrap_or_default();
                let scheduled_over = location();
                Timeout::new(URL_WRITE_DELAY_MS, move || {
                    let hash = format(&url);
                    let current = location();
                    // An address set since (the Explore dialog opening a run, a pasted link
                    // whose hashchange is still queued) is the page's next moment: kept.
                    if current != scheduled_over {
                        return;
                    }
                    if current != with_presentation(&hash) {
                        replace_hash(&hash);
                    }
                })
            });
            // Replacing the waiting write cancels it (a `Timeout` is cancelled when dropped);
            // so does leaving the page's mode (the hook's state is dropped with it).
            *pending.borrow_mut() = timeout;
        });
    }
    use_effect_with((), move |_| {
        let listener = EventListener::new(&gloo::utils::window(), "hashchange", move |_| {
            pending.borrow_mut().take();
            on_hash.emit(gloo::utils::window().location().hash().unwrap_or_default());
        });
        move || drop(listener)
    });
}

/// One mode's sync: the hash follows its player when paused; a pasted link of this mode loads
/// its moment (a bad field left out, with a notice naming it), one whose run cannot be opened a
/// message naming what is wrong (the page on screen is kept), and a
/// link of the other mode is left to the page root.
#[hook]
pub fn use_url_sync<M: Mode>(player: &Player<M>, on_action: Callback<M::Action>) {
    use_hash_sync(
        player.url_state(),
        M::format_link,
        !player.playing,
        Callback::from(move |hash: String| {
            if !M::owns_link(&hash) {
                return;
            }
            match M::read_link(&hash) {
                (Some(state), errors) => {
                    on_action.emit(state.into());
                    if !errors.is_empty() {
                        on_action.emit(PlayerCmd::Notify(dropped_fields(&errors)).into());
                    }
                }
                (None, errors) => on_action.emit(
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
