//! The page root: the micro-batch dashboard, the Topology mode or the Inspect page, chosen by `mode=` in the URL
//! hash; a pasted link of the other mode switches the page. The entry point hands it both
//! pages, so the shell depends on neither.

use super::present::{use_presentation, EmbedLink};
use super::switch::{hash_of, replace_hash, Dashboard, ModeSwitch, MODE_EVENT};
use gloo::events::EventListener;
use yew::prelude::*;

fn current_hash() -> String {
    gloo::utils::window().location().hash().unwrap_or_default()
}

/// Props of [`Root`].
#[derive(Properties, PartialEq)]
pub struct RootProps {
    /// The micro-batch dashboard.
    pub micro: Html,
    /// The Topology dashboard.
    pub topology: Html,
    /// The Inspect page (a real checkpoint folder).
    pub inspect: Html,
}

/// The page: mounts one of the two dashboards.
#[component]
pub fn Root(props: &RootProps) -> Html {
    let mode = use_state(|| Dashboard::of_hash(&current_hash()));
    let (_, embed) = use_presentation();
    {
        let mode = mode.clone();
        use_effect_with((), move |_| {
            // A pasted link, or a tab of a dashboard drawn by the lazily loaded module.
            let listeners = ["hashchange", MODE_EVENT].map(|name| {
                let mode = mode.clone();
                EventListener::new(&gloo::utils::window(), name, move |_| {
                    mode.set(Dashboard::of_hash(&current_hash()));
                })
            });
            move || drop(listeners)
        });
    }
    let switch = {
        let mode = mode.clone();
        ModeSwitch(Callback::from(move |m: Dashboard| {
            if m != *mode {
                replace_hash(&hash_of(m));
                mode.set(m);
            }
        }))
    };
    html! {
        <ContextProvider<ModeSwitch> context={switch}>
            if embed { <EmbedLink /> }
            { match *mode {
                Dashboard::Micro => props.micro.clone(),
                Dashboard::Topology => props.topology.clone(),
                Dashboard::Inspect => props.inspect.clone(),
            } }
        </ContextProvider<ModeSwitch>>
    }
}
