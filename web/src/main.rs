//! Entry point of the dashboard: mounts the page root (micro-batch or Topology mode) on `<body>`.

fn main() {
    yew::Renderer::<batchscope_web::Root>::new().render();
}
