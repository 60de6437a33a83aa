//! The lab's header buttons: "Copy link" (the moment on screen, with a scenario of one's own
//! encoded in it) and the built-in comparisons, each a one-line question.

use crate::microbatch::compare::built_ins;
use crate::microbatch::state::Action;
use crate::shell::PlayerCmd;
use batchscope_engine::microbatch::scenario::presets;
use batchscope_view::microbatch::url::scenario::{format_link, Link};
use wasm_bindgen::prelude::*;
use yew::prelude::*;

/// Props of [`LabButtons`].
#[derive(Properties, PartialEq)]
pub struct LabButtonsProps {
    /// The link of the moment on screen, written out only when a button uses it (making its
    /// text encodes the scenario: too much for every step).
    pub link: Link,
    /// Whether compare mode is on.
    pub comparing: bool,
    /// Every intent.
    pub on_action: Callback<Action>,
}

/// The page's address with `hash` (present mode kept: a copied link opens as it is shown).
fn address(hash: &str) -> String {
    let hash = crate::shell::with_presentation(hash);
    let location = gloo::utils::window().location();
    let origin = location.origin().unwrap_or_default();
    let path = location.pathname().unwrap_or_default();
    format!("{origin}{path}{hash}")
}

/// The menu's value of "this run vs the preset NAME": the link is made when it is picked (the
/// run's link changes at every step; twenty options holding it were rewritten at each one).
const VS: &str = "vs:";

/// The menu's value of "leave compare mode".
const LEAVE: &str = "leave";

/// The hash a pick in the comparison menu opens, given this run's link without `vs=`.
fn pick_target(value: &str, alone: &str) -> Option<String> {
    if value.is_empty() {
        None
    } else if value == LEAVE {
        Some(alone.to_string())
    } else if let Some(name) = value.strip_prefix(VS) {
        Some(format!("{alone}&vs={name}"))
    } else {
        // A built-in question's own link.
        Some(value.to_string())
    }
}

/// "Copy link" and the comparison menu.
#[component]
pub fn LabButtons(props: &LabButtonsProps) -> Html {
    let copy = {
        let (link, on_action) = (props.link.clone(), props.on_action.clone());
        Callback::from(move |_: MouseEvent| {
            let link = address(&format_link(&link));
            let written = gloo::utils::window()
                .navigator()
                .clipboard()
                .write_text(&link);
            // The notice only confirms: the same link is in the address bar (a page without
            // clipboard permission still has it there).
            let ignore = Closure::<dyn FnMut(JsValue)>::new(|_: JsValue| {});
            let _ = written.catch(&ignore);
            ignore.forget();
            on_action.emit(PlayerCmd::Notify("✓ Link copied".into()).into());
        })
    };
    let link = props.link.clone();
    let pick = Callback::from(move |e: Event| {
        let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
        // This run's link without the compared one (`vs=`): what "this run vs …" extends.
        let alone = format_link(&Link {
            vs: None,
            ..link.clone()
        });
        if let Some(hash) = pick_target(&select.value(), &alone) {
            let _ = gloo::utils::window().location().set_hash(&hash);
            select.set_value("");
        }
    });
    html! {
        <>
            <button class="copy-link" data-testid="copy-link" onclick={copy}
                    title="Copy a link to this moment: scenario (yours too), seed, crashes, step">{ "Copy link" }</button>
            <select class="compare-pick" data-testid="compare-pick" onchange={pick}
                    title="Two designs side by side, same seed and crashes" aria-label="Compare">
                <CompareOptions comparing={props.comparing} />
            </select>
        </>
    }
}

/// Props of [`CompareOptions`].
#[derive(Properties, PartialEq)]
struct CompareOptionsProps {
    /// Whether compare mode is on (then it can be left).
    comparing: bool,
}

/// The comparison menu's options: drawn again only when compare mode is entered or left, not
/// at every step of the run.
#[component]
fn CompareOptions(props: &CompareOptionsProps) -> Html {
    html! {
        <>
                <option value="" selected=true>{ "⇆ Compare…" }</option>
                <optgroup label="Built-in questions">
                    { for built_ins().into_iter().map(|b| html! {
                        <option value={b.hash.clone()}>{ b.question }</option>
                    }) }
                </optgroup>
                <optgroup label="This run (seed, crashes) vs a preset">
                    { for presets().into_iter().map(|p| html! {
                        <option value={format!("{VS}{}", p.name)}>{ format!("vs {}", p.name) }</option>
                    }) }
                </optgroup>
                if props.comparing {
                    <option value={LEAVE} data-testid="compare-leave">{ "Leave compare mode" }</option>
                }
        </>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pick_opens_its_link_made_from_this_run_at_the_moment_of_picking() {
        let alone = "#preset=kafka-append&seed=7&crash=sink-commit@3&at=40";
        assert_eq!(pick_target("", alone), None);
        assert_eq!(pick_target(LEAVE, alone).as_deref(), Some(alone));
        assert_eq!(
            pick_target(&format!("{VS}kafka-idempotent"), alone).as_deref(),
            Some("#preset=kafka-append&seed=7&crash=sink-commit@3&at=40&vs=kafka-idempotent")
        );
        for b in built_ins() {
            assert!(!b.hash.starts_with(VS) && b.hash != LEAVE, "{}", b.hash);
            assert_eq!(pick_target(&b.hash, alone), Some(b.hash.clone()));
        }
    }
}
