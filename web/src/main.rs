//! Entry point of the dashboard: mounts the page root, with the micro-batch dashboard, on an
//! element of its own in `<body>`; the Topology and Inspect dashboards, the Explore dialog, the
//! scenario editor, compare mode, the minimap, the Spark UI tab's charts and the Export menu's
//! files are a second module (`batchscope-modes`) the page loads when one of them is first
//! needed (the minimap: once the browser is idle after the page's first paint).

use batchscope_view::url::Dashboard;
use batchscope_web::microbatch::components::chart_host::lazy_chart;
use batchscope_web::microbatch::components::compare_view::lazy_compare;
use batchscope_web::microbatch::components::editor_host::lazy_editor;
use batchscope_web::microbatch::components::explore_host::lazy_explore;
use batchscope_web::microbatch::components::export::files_from_module;
use batchscope_web::microbatch::components::lesson_text::texts_from_module;
use batchscope_web::microbatch::components::minimap_host::lazy_minimap;
use batchscope_web::microbatch::components::App;
use batchscope_web::shell::{after_paint, catch_traps};
use batchscope_web::shell::{LazyMode, Root, RootProps};
use wasm_bindgen::prelude::{wasm_bindgen, Closure};
use yew::html;

/// A deliberate trap, for the end-to-end test of the panic overlay (web/src/shell/panic.rs):
/// the test calls it through `window.wasmBindings` (the module's exports, which Trunk's loader
/// sets) from a timer, as a panicking event handler is called. Nothing in the page calls it.
#[wasm_bindgen]
pub fn deliberate_trap_for_tests() {
    std::process::abort()
}

fn main() {
    catch_traps();
    // The first paint (index.html's, while the code loaded) reaches the screen before the long
    // task that mounts the dashboard.
    after_paint(&Closure::once_into_js(mount));
}

/// Mounts the page's root.
fn mount() {
    // The page's root is an element of its own in `<body>`, not `<body>` itself: Yew listens
    // for events on the element it is mounted on, and the second module's Explore dialog and
    // scenario editor (Yew apps of their own) are drawn beside it, in elements of their own.
    let document = gloo::utils::document();
    let root = document.create_element("div").expect("a div");
    root.set_class_name("page-root");
    document
        .body()
        .expect("a body")
        .append_with_node_1(&root)
        .expect("appended");
    yew::Renderer::<Root>::with_root_and_props(
        root,
        RootProps {
            micro: html! { <App explore={lazy_explore()} charts={lazy_chart()} editor={lazy_editor()} compare={lazy_compare()} minimap={lazy_minimap()} files={files_from_module()} texts={texts_from_module()} /> },
            topology: html! { <LazyMode mode={Dashboard::Topology} /> },
            inspect: html! { <LazyMode mode={Dashboard::Inspect} /> },
        },
    )
    .render();
}
