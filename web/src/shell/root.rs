//! The page root: the micro-batch dashboard, the Topology mode or the Inspect page, chosen by `mode=` in the URL
//! hash; a pasted link of the other mode switches the page. The entry point hands it both
//! pages, so the shell depends on neither.

use super::present::{use_presentation, EmbedLink};
use super::switch::{hash_of, replace_hash, ModeSwitch, MODE_EVENT};
use batchscope_view::url::{Dashboard, PageLink};
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

/// The page: reads the link once ([`PageLink`]: which dashboard, present mode, the embed form),
/// again at every `hashchange`, and mounts one of the dashboards.
#[component]
pub fn Root(props: &RootProps) -> Html {
    let link = use_state(|| PageLink::parse(&current_hash()));
    let (_, embed) = use_presentation(*link);
    {
        let link = link.clone();
        use_effect_with((), move |_| {
            // A pasted link, or a tab of a dashboard drawn by the lazily loaded module.
            let listeners = ["hashchange", MODE_EVENT].map(|name| {
                let link = link.clone();
                EventListener::new(&gloo::utils::window(), name, move |_| {
                    link.set(PageLink::parse(&current_hash()));
                })
            });
            move || drop(listeners)
        });
    }
    let switch = {
        let link = link.clone();
        ModeSwitch(Callback::from(move |m: Dashboard| {
            if m != link.dashboard {
                replace_hash(&hash_of(m));
                link.set(PageLink {
                    dashboard: m,
                    ..*link
                });
            }
        }))
    };
    html! {
        <ContextProvider<ModeSwitch> context={switch}>
            if embed { <EmbedLink /> }
            { match link.dashboard {
                Dashboard::Micro => props.micro.clone(),
                Dashboard::Topology => props.topology.clone(),
                Dashboard::Inspect => props.inspect.clone(),
            } }
        </ContextProvider<ModeSwitch>>
    }
}
