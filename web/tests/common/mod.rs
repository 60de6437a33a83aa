//! Helpers the browser component tests share: a fresh root element, mounting either mode from a
//! link, finding, reading and clicking elements, and letting Yew render.
#![allow(dead_code)] // Each test binary uses a different subset.

use batchscope_web::microbatch::components::App;
use batchscope_web::topology::{TopologyApp, TopologyAppProps};
use std::time::Duration;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};

/// A new `<div>` appended to the page's body.
pub fn root() -> Element {
    let document = gloo::utils::document();
    let div = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&div).unwrap();
    div
}

/// Lets Yew render what the last event changed: a short sleep lets spawned futures and timers
/// run, then `flush` waits until the scheduler has drained every render (it yields to the
/// browser every 16 ms, so a sleep alone is a guess on a slow machine).
pub async fn settle() {
    yew::platform::time::sleep(Duration::from_millis(20)).await;
    yew::scheduler::flush().await;
}

/// The micro-batch dashboard mounted at `hash`.
pub fn mount(hash: &str) -> (Element, yew::AppHandle<App>) {
    let r = root();
    let handle = yew::Renderer::<App>::with_root_and_props(
        r.clone(),
        batchscope_web::microbatch::components::AppProps {
            hash: Some(hash.to_string()),
            // The dialog drawn in place: the page's draws it with its second module, which
            // only the built page has (tests/e2e_explore.rs goes through that one).
            explore: Some(batchscope_web::microbatch::components::explore_host::inline_explore()),
            // The charts drawn in place too (the page's second module draws them).
            charts: Some(batchscope_web::microbatch::components::chart_host::inline_chart()),
            // And the scenario editor (the page's second module draws it; tests/e2e_lab.rs
            // goes through that one).
            editor: Some(batchscope_web::microbatch::components::editor_host::inline_editor()),
            // And compare mode (the page's second module draws it; tests/e2e_lab.rs goes
            // through that one).
            compare: Some(batchscope_web::microbatch::components::compare_view::inline_compare()),
            // And the minimap (the page's second module draws it; tests/e2e_modes.rs goes
            // through that one).
            minimap: Some(batchscope_web::microbatch::components::minimap_host::inline_minimap()),
            // And the Export menu's files (the page's second module makes them;
            // tests/e2e_modes.rs goes through that one).
            files: Some(batchscope_web::microbatch::export_file::files_in_place()),
            // And the lesson paragraphs and tour texts (the page's second module hands them).
            texts: Some(batchscope_web::microbatch::components::lesson_text::texts_in_place()),
        },
    )
    .render();
    (r, handle)
}

/// The Topology dashboard mounted at `hash`.
pub fn mount_topology(hash: &str) -> (Element, yew::AppHandle<TopologyApp>) {
    let r = root();
    let handle = yew::Renderer::<TopologyApp>::with_root_and_props(
        r.clone(),
        TopologyAppProps {
            hash: Some(hash.to_string()),
        },
    )
    .render();
    (r, handle)
}

/// The element `css` selects; panics naming it when there is none.
pub fn find(root: &Element, css: &str) -> Element {
    root.query_selector(css)
        .unwrap()
        .unwrap_or_else(|| panic!("no {css}"))
}

/// Every element `css` selects under `root`.
pub fn all(root: &Element, css: &str) -> Vec<Element> {
    let list = root.query_selector_all(css).unwrap();
    (0..list.length())
        .map(|i| list.item(i).unwrap().dyn_into::<Element>().unwrap())
        .collect()
}

/// The text of the element `css` selects.
pub fn text(root: &Element, css: &str) -> String {
    find(root, css).text_content().unwrap_or_default()
}

/// Clicks the element `css` selects.
pub fn click(root: &Element, css: &str) {
    find(root, css).dyn_into::<HtmlElement>().unwrap().click();
}

/// The dashboard's stylesheet in the test page (once), so elements are laid out and scaled as
/// they are shown.
pub fn use_stylesheet() {
    let document = gloo::utils::document();
    if document.get_element_by_id("test-style").is_some() {
        return;
    }
    let style = document.create_element("style").unwrap();
    style.set_id("test-style");
    style.set_text_content(Some(include_str!("../../style.css")));
    document.head().unwrap().append_child(&style).unwrap();
}

/// The file an export last saved, as the element `marker` records it (`data-export` =
/// `name|MIME|…`, `data-export-url` = its blob URL), once its name ends with `ends`: (file
/// name, MIME type, bytes read back). Waits up to 5 s.
pub async fn last_saved(root: &Element, marker: &str, ends: &str) -> (String, String, Vec<u8>) {
    let marker = find(root, marker);
    for _ in 0..250 {
        let record = marker.get_attribute("data-export").unwrap_or_default();
        let mut parts = record.split('|');
        if let (Some(name), Some(mime)) = (parts.next(), parts.next()) {
            if name.ends_with(ends) {
                let url = marker.get_attribute("data-export-url").unwrap_or_default();
                let response: web_sys::Response = wasm_bindgen_futures::JsFuture::from(
                    gloo::utils::window().fetch_with_str(&url),
                )
                .await
                .unwrap()
                .unchecked_into();
                let buffer = wasm_bindgen_futures::JsFuture::from(response.array_buffer().unwrap())
                    .await
                    .unwrap();
                let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
                return (name.to_owned(), mime.to_owned(), bytes);
            }
        }
        yew::platform::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("nothing saved ending {ends}");
}
