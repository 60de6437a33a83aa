//! Browser tests of the Topology delay chart with the dashboard's stylesheet: its ticks are at
//! least 11 px on screen, every point has its value in a `<title>`, a failed job is marked
//! where it failed (and nothing is marked in a run without failures), and the job to optimise
//! is explained with its source.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::Element;

mod common;

use common::*;

wasm_bindgen_test_configure!(run_in_browser);

/// `el.getBoundingClientRect()`'s (width, height), read through JS reflection.
fn rect(el: &Element) -> (f64, f64) {
    let f: js_sys::Function = js_sys::Reflect::get(el, &JsValue::from_str("getBoundingClientRect"))
        .unwrap()
        .dyn_into()
        .unwrap();
    let r = f.call0(el).unwrap();
    let get = |k: &str| {
        js_sys::Reflect::get(&r, &JsValue::from_str(k))
            .unwrap()
            .as_f64()
            .unwrap()
    };
    (get("width"), get("height"))
}

#[wasm_bindgen_test]
async fn ticks_are_readable_points_have_values_and_the_failure_is_marked() {
    use_stylesheet();
    let (r, app) = mount_topology("#mode=topology&topology=shopping&fail=price_job@2&at=9999");
    settle().await;
    let svg = find(&r, "[data-testid=delay-chart] svg");
    let view_w: f64 = svg
        .get_attribute("viewBox")
        .unwrap()
        .split(' ')
        .nth(2)
        .unwrap()
        .parse()
        .unwrap();
    let (shown_w, _) = rect(&svg);
    let scale = shown_w / view_w;
    let ticks = all(&svg, ":scope > text");
    assert!(ticks.len() > 6, "ticks and axis names");
    for t in &ticks {
        let px: f64 = t.get_attribute("font-size").unwrap().parse().unwrap();
        let effective = px * scale;
        assert!(
            effective >= 11.0,
            "{:?} at {effective:.1} px (font {px} × {shown_w:.0}/{view_w})",
            t.text_content()
        );
        // What the browser drew agrees: a line of text is at least its font size tall.
        let (_, h) = rect(t);
        assert!(h >= 11.0, "{:?} drawn {h:.1} px tall", t.text_content());
    }
    let titles = all(&svg, ".dc-pt title");
    assert!(!titles.is_empty());
    let first = titles[0].text_content().unwrap();
    assert!(
        first.contains("barrier") && first.contains(" ms"),
        "{first}"
    );
    let failure = find(&svg, "[data-testid=delay-failure]");
    assert!(
        failure.text_content().unwrap().contains("price_job fail"),
        "{:?}",
        failure.text_content()
    );
    let why = text(&r, "[data-testid=job-to-optimise]");
    assert!(
        why.contains("largest mean job delay") && why.contains("FLIP-276"),
        "{why}"
    );
    app.destroy();
}

#[wasm_bindgen_test]
async fn a_run_without_failures_marks_none() {
    use_stylesheet();
    let (r, app) = mount_topology("#mode=topology&topology=shopping&at=9999");
    settle().await;
    assert!(!all(&r, "[data-testid=delay-chart] .dc-pt title").is_empty());
    assert!(all(&r, "[data-testid=delay-failure]").is_empty());
    app.destroy();
}
