//! The page root: the micro-batch dashboard or the Topology mode, chosen by `mode=` in the URL
//! hash, and the header tabs that switch between them.

use super::TopologyApp;
use crate::App;
use batchscope_view::topology::is_topology_hash;
use gloo::events::EventListener;
use yew::prelude::*;

/// Which dashboard is on screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Spark micro-batches (the original dashboard).
    Micro,
    /// FLIP-276 timestamp barriers across an ETL topology.
    Topology,
}

impl Mode {
    fn of_hash(hash: &str) -> Mode {
        if is_topology_hash(hash) {
            Mode::Topology
        } else {
            Mode::Micro
        }
    }
}

/// The switch the header tabs call (provided by [`Root`]).
#[derive(Clone, PartialEq)]
pub struct ModeSwitch(pub Callback<Mode>);

fn current_hash() -> String {
    gloo::utils::window().location().hash().unwrap_or_default()
}

/// Writes `hash` into the address bar without a history entry or a `hashchange`.
fn replace_hash(hash: &str) {
    let window = gloo::utils::window();
    let path = window.location().pathname().unwrap_or_default();
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some(&format!("{path}{hash}")),
        );
    }
}

/// The page: mounts [`App`] or [`TopologyApp`].
#[component]
pub fn Root() -> Html {
    let mode = use_state(|| Mode::of_hash(&current_hash()));
    {
        // A pasted link of the other mode switches the page.
        let mode = mode.clone();
        use_effect_with((), move |_| {
            let listener = EventListener::new(&gloo::utils::window(), "hashchange", move |_| {
                mode.set(Mode::of_hash(&current_hash()));
            });
            move || drop(listener)
        });
    }
    let switch = {
        let mode = mode.clone();
        ModeSwitch(Callback::from(move |m: Mode| {
            if m != *mode {
                replace_hash(if m == Mode::Topology {
                    "#mode=topology"
                } else {
                    ""
                });
                mode.set(m);
            }
        }))
    };
    html! {
        <ContextProvider<ModeSwitch> context={switch}>
            { match *mode {
                Mode::Micro => html! { <App /> },
                Mode::Topology => html! { <TopologyApp /> },
            } }
        </ContextProvider<ModeSwitch>>
    }
}

/// Props of [`ModeTabs`].
#[derive(Properties, PartialEq)]
pub struct ModeTabsProps {
    /// The mode on screen.
    pub mode: Mode,
}

/// "Micro-batch | Topology" tabs in the header. Without a [`Root`] (component tests) a click
/// sets the URL hash, which a root would follow.
#[component]
pub fn ModeTabs(props: &ModeTabsProps) -> Html {
    let switch = use_context::<ModeSwitch>();
    let tab = |m: Mode, label: &'static str, id: &'static str, title: &'static str| {
        let switch = switch.clone();
        let onclick = Callback::from(move |_: MouseEvent| match &switch {
            Some(s) => s.0.emit(m),
            None => {
                let _ = gloo::utils::window()
                    .location()
                    .set_hash(if m == Mode::Topology {
                        "mode=topology"
                    } else {
                        ""
                    });
            }
        });
        let on = props.mode == m;
        html! {
            <button role="tab" aria-selected={on.to_string()} data-testid={id} title={title}
                    class={classes!("mode-tab", on.then_some("mode-on"))} {onclick}>{ label }</button>
        }
    };
    html! {
        <nav class="mode-tabs" role="tablist" aria-label="Mode">
            { tab(Mode::Micro, "Micro-batch", "mode-micro", "Spark Structured Streaming micro-batches: one query, its checkpoint folder and sink") }
            { tab(Mode::Topology, "Topology", "mode-topology", "FLIP-276 timestamp barriers across an ETL topology of jobs and tables") }
        </nav>
    }
}
