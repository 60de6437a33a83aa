//! Entry point of the dashboard: mounts the page root on `<body>` with the micro-batch
//! dashboard; the Topology and Inspect dashboards are a second module (`batchscope-modes`)
//! the root loads when one of them is opened.

use batchscope_web::shell::{Dashboard, LazyMode, Root, RootProps};
use batchscope_web::App;
use yew::html;

fn main() {
    yew::Renderer::<Root>::with_props(RootProps {
        micro: html! { <App /> },
        topology: html! { <LazyMode mode={Dashboard::Topology} /> },
        inspect: html! { <LazyMode mode={Dashboard::Inspect} /> },
    })
    .render();
}
