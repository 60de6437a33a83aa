//! Present mode and the embed form, for both dashboards: `present=1` in the URL (or `p`)
//! lays the page out for a projector — full screen when asked by a key press, a larger
//! diagram and tour text, the controls a class needs and nothing else; `embed=1` drops the
//! header for a slide or a blog post and adds a small "open in batchscope" link. Both are
//! attributes on `<html>` (`data-present`, `data-embed`) that the stylesheet follows.

use gloo::events::EventListener;
use wasm_bindgen::JsCast;
use web_sys::KeyboardEvent;
use yew::prelude::*;

/// Whether a URL hash has `flag=1` among its parameters.
pub fn hash_flag(hash: &str, flag: &str) -> bool {
    let want = format!("{flag}=1");
    hash.trim_start_matches('#')
        .split('&')
        .any(|part| part == want)
}

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

/// Follows `present=1` / `embed=1` in the URL and the `p` key; returns (present, embed).
#[hook]
pub fn use_presentation() -> (bool, bool) {
    let present = use_state(|| hash_flag(&current_hash(), "present"));
    let embed = use_state(|| hash_flag(&current_hash(), "embed"));
    {
        let (present, embed) = (present.clone(), embed.clone());
        use_effect_with((), move |_| {
            let window = gloo::utils::window();
            let (p2, e2) = (present.clone(), embed.clone());
            let on_hash = EventListener::new(&window, "hashchange", move |_| {
                let hash = current_hash();
                p2.set(hash_flag(&hash, "present"));
                e2.set(hash_flag(&hash, "embed"));
            });
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
            move || drop((on_hash, on_key))
        });
    }
    set_root_flag("present", *present);
    set_root_flag("embed", *embed);
    (*present, *embed)
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

#[cfg(test)]
mod tests {
    use super::hash_flag;

    #[test]
    fn flags_are_whole_parameters() {
        assert!(hash_flag("#preset=tablestore&present=1", "present"));
        assert!(!hash_flag("#preset=tablestore&present=10", "present"));
        assert!(!hash_flag("#xpresent=1", "present"));
    }
}
