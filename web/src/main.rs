//! Entry point of the dashboard: mounts the app on `<body>`.

fn main() {
    yew::Renderer::<batchscope_web::App>::new().render();
}
