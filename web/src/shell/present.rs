//! Present mode and the embed form, for both dashboards: `present=1` in the URL (or `p`)
//! lays the page out for a projector — full screen when asked by a key press, a larger
//! diagram and tour text, the controls a class needs and nothing else; `embed=1` drops the
//! header for a slide or a blog post and adds a small "open in batchscope" link. Both are
//! attributes on `<html>` (`data-present`, `data-embed`) that the stylesheet follows.

use batchscope_view::url::PageLink;
use gloo::events::EventListener;
use wasm_bindgen::JsCast;
use web_sys::KeyboardEvent;
use yew::prelude::*;

fn current_hash() -> String {
    gloo::utils::window().location().hash().unwrap_or_default()
}

/// Sets or removes `data-<name>` on `<html>`.
fn set_root_flag(name: &str, on: bool) {
    if let Some(root) = gloo::utils::document().document_element() {
        let attribute = format!("data-{name}");
        let _ = if on {
            root.set_attribute(&attribute, "1")
        } else {
            root.remove_attribute(&attribute)
        };
    }
}

/// Whether the key event comes from a text field (where `p` is a letter, not a command).
fn typing(event: &KeyboardEvent) -> bool {
    event
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"))
}

/// Follows `present=1` / `embed=1` of the page's link (read by the page root) and the `p`
/// key; returns (present, embed).
#[hook]
pub fn use_presentation(link: PageLink) -> (bool, bool) {
    let present = use_state(|| link.present);
    {
        // A new link (pasted, or the address bar edited) says again whether to present.
        let present = present.clone();
        use_effect_with(link.present, move |on| present.set(*on));
    }
    {
        let present = present.clone();
        use_effect_with((), move |_| {
            let window = gloo::utils::window();
            let on_key = EventListener::new(&window, "keydown", move |event| {
                let Some(key) = event.dyn_ref::<KeyboardEvent>() else {
                    return;
                };
                if key.key() != "p"
                    || key.ctrl_key()
                    || key.meta_key()
                    || key.alt_key()
                    || typing(key)
                {
                    return;
                }
                let on = !*present;
                present.set(on);
                // The address bar says so at once (a reload or a copied link keeps the mode).
                set_root_flag("present", on);
                super::switch::replace_hash(&super::switch::without_flag(
                    &current_hash(),
                    "present",
                ));
                // Full screen needs a user gesture: this key press is one.
                let document = gloo::utils::document();
                if on {
                    if let Some(root) = document.document_element() {
                        let _ = root.request_fullscreen();
                    }
                } else if document.fullscreen_element().is_some() {
                    document.exit_fullscreen();
                }
            });
            move || drop(on_key)
        });
    }
    set_root_flag("present", *present);
    set_root_flag("embed", link.embed);
    (*present, link.embed)
}

/// The link an embedded page shows in place of the header: the same moment, full page.
#[component]
pub fn EmbedLink() -> Html {
    let hash = current_hash();
    let full: Vec<&str> = hash
        .trim_start_matches('#')
        .split('&')
        .filter(|part| *part != "embed=1" && !part.is_empty())
        .collect();
    let href = format!("#{}", full.join("&"));
    html! {
        <a class="embed-link" data-testid="embed-link" href={href} target="_blank" rel="noopener">
            { "◧ open in batchscope ↗" }
        </a>
    }
}
