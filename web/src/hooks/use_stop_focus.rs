//! When a tour pauses at a stop, scrolls the side panel's focused row (`[data-focus]`, the file,
//! Meta row, channel or sink batch the stop talks about) into view, so it is on screen rather
//! than below the fold.

use web_sys::{ScrollIntoViewOptions, ScrollLogicalPosition};
use yew::prelude::*;

/// Scrolls the last `.panels [data-focus]` into view whenever `at_stop` holds at a new `cursor` or tab.
#[hook]
pub fn use_stop_focus(at_stop: bool, cursor: usize, tab: &'static str) {
    use_effect_with((at_stop, cursor, tab), |(at_stop, _, _)| {
        if *at_stop {
            // The last one: where several rows are marked (the sink's groups of one batch),
            // the newest is the one outlined.
            let found = gloo::utils::document()
                .query_selector_all(".panels [data-focus]")
                .ok()
                .and_then(|all| all.get(all.length().wrapping_sub(1)))
                .and_then(|n| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(n).ok());
            if let Some(element) = found {
                let options = ScrollIntoViewOptions::new();
                options.set_block(ScrollLogicalPosition::Nearest);
                options.set_inline(ScrollLogicalPosition::Nearest);
                element.scroll_into_view_with_scroll_into_view_options(&options);
            }
        }
    });
}
