//! What both dashboards set up first: their player, built from the page's URL hash (or a given
//! one), with a callback that dispatches its actions; and the colour theme on the root element.

use crate::shell::Theme;
use yew::prelude::*;

/// The player reducer started from `hash` (`None`: `location.hash`), and its dispatch callback.
#[hook]
pub fn use_player<R>(
    hash: Option<String>,
    from_hash: fn(&str) -> R,
) -> (UseReducerHandle<R>, Callback<R::Action>)
where
    R: Reducible + 'static,
{
    let player = use_reducer(move || {
        let hash =
            hash.unwrap_or_else(|| gloo::utils::window().location().hash().unwrap_or_default());
        from_hash(&hash)
    });
    // One callback for the page's life: a child whose other props did not change skips its
    // render on a step (a new callback every render would redraw every child).
    let dispatcher = player.dispatcher();
    let on_action = use_callback((), move |a: R::Action, _| dispatcher.dispatch(a));
    (player, on_action)
}

/// Sets `data-theme` on the root element whenever the theme changes.
#[hook]
pub fn use_theme(theme: Theme) {
    use_effect_with(theme.name(), |theme| {
        if let Some(root) = gloo::utils::document().document_element() {
            let _ = root.set_attribute("data-theme", theme);
        }
    });
}
