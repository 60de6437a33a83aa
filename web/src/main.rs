//! Entry point of the dashboard: mounts the page root on `<body>`, with both dashboards
//! (micro-batch and Topology) for it to choose from.

use batchscope_web::inspect::InspectApp;
use batchscope_web::shell::{Root, RootProps};
use batchscope_web::topology::TopologyApp;
use batchscope_web::App;
use yew::html;

fn main() {
    yew::Renderer::<Root>::with_props(RootProps {
        micro: html! { <App /> },
        topology: html! { <TopologyApp /> },
        inspect: html! { <InspectApp /> },
    })
    .render();
}
