//! The scenario editor drawn in place (the page has its second module draw it): a valid edit
//! runs as a scenario of its own, with the verdict the oracle gives that scenario; a broken
//! JSON edit names the field and leaves the run on screen.
#![cfg(target_arch = "wasm32")]

use batchscope_check::oracle::check;
use batchscope_engine::microbatch::scenario::{preset, SinkKind};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

mod common;

use common::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Dispatches `kind` (`change`, `input`) on `el`, bubbling, as a browser does after a user edit.
fn fire(el: &web_sys::Element, kind: &str) {
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    let event = web_sys::Event::new_with_event_init_dict(kind, &init).unwrap();
    el.dispatch_event(&event).unwrap();
}

/// The verdict on the dashboard's badge.
fn verdict(r: &web_sys::Element) -> String {
    find(r, "[data-testid=verdict]")
        .get_attribute("data-verdict")
        .unwrap_or_default()
}

#[wasm_bindgen_test]
async fn an_edit_runs_as_a_scenario_of_its_own_and_a_broken_one_names_the_field() {
    let mut before = preset("kafka-append").unwrap();
    before.crashes.push("sink-commit@3".parse().unwrap());
    let mut after = before.clone();
    after.sink.kind = SinkKind::File;
    let (was, now) = (check(&before).verdict.name(), check(&after).verdict.name());
    assert_ne!(was, now, "the file sink should change the verdict");

    let (r, app) = mount("#preset=kafka-append&crash=sink-commit@3&at=999999");
    settle().await;
    assert_eq!(verdict(&r), was);
    click(&r, "[data-testid=editor-open]");
    settle().await;
    let sink: web_sys::HtmlSelectElement = find(&r, "[data-testid=ed-sink]").dyn_into().unwrap();
    sink.set_value("file");
    fire(&sink, "change");
    settle().await;
    settle().await;
    assert_eq!(verdict(&r), now, "the edited run's verdict");
    let menu: web_sys::HtmlSelectElement = find(&r, "#preset").dyn_into().unwrap();
    assert_eq!(menu.value(), "kafka-append-edited");

    // A wrong type in the JSON tab: the error names the field, the edited run stays.
    click(&r, "[data-testid=ed-tab-json]");
    settle().await;
    let area: web_sys::HtmlTextAreaElement = find(&r, "[data-testid=ed-json]").dyn_into().unwrap();
    let json = area.value();
    let start = json.find("\"channels\": ").expect("the channels field");
    let end = start + json[start..].find(',').expect("a comma after it");
    area.set_value(&format!(
        "{}\"channels\": \"two\"{}",
        &json[..start],
        &json[end..]
    ));
    fire(&area, "input");
    settle().await;
    let error = text(&r, "[data-testid=ed-error]");
    assert!(error.contains("upstream.channels"), "{error}");
    assert_eq!(verdict(&r), now, "the last valid run stays");
    app.destroy();
}

#[wasm_bindgen_test]
async fn the_form_arms_a_fault_and_names_an_unknown_one() {
    let mut with_fault = preset("kafka-append").unwrap();
    with_fault.faults.push("second-driver@2".parse().unwrap());
    let want = check(&with_fault).verdict.name();
    let plain = check(&preset("kafka-append").unwrap()).verdict.name();
    assert_ne!(want, plain, "the fault should change the verdict");

    let (r, app) = mount("#preset=kafka-append&at=999999");
    settle().await;
    assert_eq!(verdict(&r), plain);
    click(&r, "[data-testid=editor-open]");
    settle().await;
    let faults: web_sys::HtmlInputElement = find(&r, "[data-testid=ed-faults]").dyn_into().unwrap();
    faults.set_value("second-driver@2");
    fire(&faults, "change");
    settle().await;
    settle().await;
    assert_eq!(verdict(&r), want, "the run with the fault");

    // An unknown kind: the error names the field and the kinds, the run stays.
    let faults: web_sys::HtmlInputElement = find(&r, "[data-testid=ed-faults]").dyn_into().unwrap();
    faults.set_value("no-such@2");
    fire(&faults, "change");
    settle().await;
    let error = text(&r, "[data-testid=ed-error]");
    assert!(
        error.contains("faults") && error.contains("second-driver"),
        "{error}"
    );
    assert_eq!(verdict(&r), want, "the last valid run stays");
    app.destroy();
}
