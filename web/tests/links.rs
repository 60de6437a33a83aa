//! Browser test of links followed in a row across modes: from a micro-batch lesson, the link
//! to another micro-batch lesson, then to a Topology lesson — the page switches mode and the
//! address keeps the link that was followed.
#![cfg(target_arch = "wasm32")]

use batchscope_web::inspect::InspectApp;
use batchscope_web::microbatch::components::App;
use batchscope_web::shell::{Root, RootProps};
use batchscope_web::topology::TopologyApp;
use std::time::Duration;
use wasm_bindgen_test::*;
use web_sys::Element;
use yew::html;

mod common;

use common::*;

wasm_bindgen_test_configure!(run_in_browser);

fn hash() -> String {
    gloo::utils::window().location().hash().unwrap_or_default()
}

/// Follows the lesson-index link to `name`, as a click on it does.
fn follow(root: &Element, name: &str) {
    let links = root
        .query_selector_all("[data-testid=lesson-index] a")
        .unwrap();
    let link = (0..links.length())
        .filter_map(|i| links.get(i))
        .map(wasm_bindgen::JsCast::unchecked_into::<Element>)
        .find(|a| {
            a.get_attribute("href").is_some_and(|h| {
                h.contains(&format!("preset={name}&")) || h.contains(&format!("topology={name}&"))
            })
        })
        .unwrap_or_else(|| panic!("no lesson link to {name}"));
    wasm_bindgen::JsCast::unchecked_into::<web_sys::HtmlElement>(link).click();
}

async fn wait_for(root: &Element, css: &str) {
    for _ in 0..150 {
        if root.query_selector(css).unwrap().is_some() {
            return;
        }
        yew::platform::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("nothing matched {css}; hash {}", hash());
}

#[wasm_bindgen_test]
async fn two_lesson_links_in_a_row_across_modes() {
    gloo::utils::window()
        .location()
        .set_hash("preset=kafka-append&seed=7")
        .unwrap();
    let r = root();
    let _page = yew::Renderer::<Root>::with_root_and_props(
        r.clone(),
        RootProps {
            micro: html! { <App /> },
            topology: html! { <TopologyApp /> },
            inspect: html! { <InspectApp /> },
        },
    )
    .render();
    settle().await;
    follow(&r, "tablestore");
    settle().await;
    settle().await;
    assert!(text(&r, "[data-testid=lesson-title]").contains("Tablestore"));
    assert!(hash().contains("preset=tablestore"), "{}", hash());

    follow(&r, "shopping");
    wait_for(&r, "[data-testid=topology-svg]").await;
    settle().await;
    assert!(
        hash().contains("mode=topology") && hash().contains("topology=shopping"),
        "the topology link stays in the address: {}",
        hash()
    );
    assert!(r
        .query_selector("[data-testid=sequence]")
        .unwrap()
        .is_none());
}
