//! Keyboard behaviour of a modal dialog (WAI-ARIA Authoring Practices, "Dialog (Modal)"): focus
//! moves in when it opens, Tab and Shift+Tab cycle inside it, Escape closes it, and focus goes
//! back to the control that opened it. The player's shortcuts stay off while it is open.

use gloo::events::{EventListener, EventListenerOptions, EventListenerPhase};
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, KeyboardEvent};
use yew::prelude::*;

/// What can take focus inside a dialog.
const FOCUSABLE: &str = "button:not([disabled]), select:not([disabled]), input:not([disabled]), \
     textarea:not([disabled]), a[href], [tabindex]:not([tabindex='-1'])";

/// The visible focusable elements inside `dialog`, in document order.
fn focusables(dialog: &Element) -> Vec<HtmlElement> {
    let Ok(list) = dialog.query_selector_all(FOCUSABLE) else {
        return vec![];
    };
    (0..list.length())
        .filter_map(|i| list.item(i)?.dyn_into::<HtmlElement>().ok())
        .filter(|e| e.offset_width() > 0 || e.offset_height() > 0)
        .collect()
}

/// Moves focus into `dialog`: to its `[data-autofocus]` control when it is enabled, else to the
/// dialog itself (it has `tabindex="-1"`).
fn focus_into(dialog: &HtmlElement) {
    let first = dialog
        .query_selector("[data-autofocus]:not([disabled])")
        .ok()
        .flatten()
        .and_then(|e| e.dyn_into::<HtmlElement>().ok());
    let _ = first.as_ref().unwrap_or(dialog).focus();
}

/// Moves focus back into `dialog` when it fell out (a focused button became disabled, e.g. Run
/// while the explorer runs).
pub fn refocus(dialog: &NodeRef) {
    let Some(el) = dialog.cast::<HtmlElement>() else {
        return;
    };
    let active = gloo::utils::document().active_element();
    if !active.is_some_and(|a| el.contains(Some(&a))) {
        focus_into(&el);
    }
}

/// Keeps Tab inside `dialog`: from the last control to the first, Shift+Tab the other way, and
/// from outside (focus fell to the page body) to the first or last.
fn trap_tab(dialog: &Element, e: &KeyboardEvent) {
    let all = focusables(dialog);
    let (Some(first), Some(last)) = (all.first(), all.last()) else {
        e.prevent_default();
        return;
    };
    let active = gloo::utils::document().active_element();
    let inside = active.as_ref().is_some_and(|a| dialog.contains(Some(a)));
    let at = |el: &HtmlElement| active.as_ref() == Some(el.unchecked_ref::<Element>());
    let target = if e.shift_key() {
        (!inside || at(first)).then_some(last)
    } else {
        (!inside || at(last)).then_some(first)
    };
    if let Some(t) = target {
        e.prevent_default();
        let _ = t.focus();
    }
}

/// The element that had focus before the dialog opened (`fallback` when focus was on the page
/// body, e.g. after a click that does not focus).
fn opener(fallback: &str) -> Option<HtmlElement> {
    let document = gloo::utils::document();
    let active = document.active_element().filter(|a| {
        Some(a)
            != document
                .body()
                .as_ref()
                .map(|b| b.unchecked_ref::<Element>())
    });
    active
        .or_else(|| document.query_selector(fallback).ok().flatten())
        .and_then(|e| e.dyn_into::<HtmlElement>().ok())
}

/// While `open`: focus in `dialog`, Tab cycles inside, Escape calls `on_close`, other keys do not
/// reach the page's shortcuts. On closing, focus returns to the opener (`fallback` selects it
/// when nothing had focus).
#[hook]
pub fn use_dialog_focus(
    open: bool,
    dialog: NodeRef,
    on_close: Callback<()>,
    fallback: &'static str,
) {
    use_effect_with(open, move |open| {
        let mut state = None;
        if let (true, Some(el)) = (*open, dialog.cast::<HtmlElement>()) {
            let back = opener(fallback).filter(|o| !el.contains(Some(o)));
            focus_into(&el);
            let options = EventListenerOptions {
                phase: EventListenerPhase::Capture,
                passive: false,
            };
            let listener = EventListener::new_with_options(
                &gloo::utils::document(),
                "keydown",
                options,
                move |event| {
                    let Some(e) = event.dyn_ref::<KeyboardEvent>() else {
                        return;
                    };
                    match e.key().as_str() {
                        "Escape" => {
                            e.prevent_default();
                            on_close.emit(());
                        }
                        "Tab" => trap_tab(&el, e),
                        _ => {}
                    }
                    // The player's shortcuts (space, arrows, c) must not act behind the dialog;
                    // default actions (a button's Enter) still happen.
                    e.stop_propagation();
                },
            );
            state = Some((listener, back));
        }
        move || {
            if let Some((listener, back)) = state {
                drop(listener);
                if let Some(b) = back.filter(|b| b.is_connected()) {
                    let _ = b.focus();
                }
            }
        }
    });
}
