//! The "Micro-batch | Topology | Inspect" tabs in the header of both dashboards.

use super::switch::ModeSwitch;
use batchscope_view::url::Dashboard;
use yew::prelude::*;

/// Props of [`ModeTabs`].
#[derive(Properties, PartialEq)]
pub struct ModeTabsProps {
    /// The dashboard on screen.
    pub mode: Dashboard,
}

/// The mode tabs. Without a page root (component tests) a click sets the URL hash, which a
/// root would follow.
#[component]
pub fn ModeTabs(props: &ModeTabsProps) -> Html {
    let switch = use_context::<ModeSwitch>();
    let tab = |m: Dashboard, label: &'static str, id: &'static str, title: &'static str| {
        let switch = switch.clone();
        let onclick = Callback::from(move |_: MouseEvent| match &switch {
            Some(s) => s.0.emit(m),
            None => {
                let _ = gloo::utils::window().location().set_hash(m.hash());
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
            { tab(Dashboard::Micro, "Micro-batch", "mode-micro", "Spark Structured Streaming micro-batches: one query, its checkpoint folder and sink") }
            { tab(Dashboard::Topology, "Topology", "mode-topology", "FLIP-276 timestamp barriers across an ETL topology of jobs and tables") }
            { tab(Dashboard::Inspect, "Inspect", "mode-inspect", "Drop a real Spark checkpoint folder: its batches, what a restart does and why") }
        </nav>
    }
}
