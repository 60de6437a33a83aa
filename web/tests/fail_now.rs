//! Failing an actor by clicking its lane's head, in a real browser: the sink's head arms a sink
//! outage from the moment on screen, the tasks' head a failed task attempt of the batch in
//! flight, the driver's head a crash now; each is recorded in the link, so the moment
//! reproduces.
#![cfg(target_arch = "wasm32")]

use batchscope_engine::microbatch::event::EventKind;
use batchscope_view::microbatch::url::scenario::parse_link;
use std::time::Duration;
use wasm_bindgen_test::*;
use web_sys::Element;

mod common;

use common::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The link in the address bar once the page has written it (a hang guard, not a speed test).
async fn written_link(containing: &str) -> String {
    for _ in 0..100 {
        let hash = gloo::utils::window().location().hash().unwrap_or_default();
        if hash.contains(containing) {
            return hash;
        }
        yew::platform::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the link never held {containing}");
}

fn click_lane(r: &Element, lane: &str) {
    let head = all(r, "g.lane-fail")
        .into_iter()
        .find(|g| g.get_attribute("data-lane").as_deref() == Some(lane))
        .unwrap_or_else(|| panic!("the {lane} lane's head is clickable"));
    // A click that bubbles to the app's root, where Yew listens.
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    let click = web_sys::Event::new_with_event_init_dict("click", &init).unwrap();
    head.dispatch_event(&click).unwrap();
}

#[wasm_bindgen_test]
async fn clicking_the_sink_lane_arms_an_outage_that_the_link_keeps() {
    let (r, app) = mount("#preset=kafka-append&seed=7&at=20");
    settle().await;
    click_lane(&r, "Sink");
    settle().await;
    let hash = written_link("outage=").await;
    let link = parse_link(
        &hash,
        &batchscope_engine::microbatch::scenario::presets()
            .iter()
            .map(|p| p.name)
            .collect::<Vec<_>>(),
    )
    .expect("the written link reads back");
    assert_eq!(link.base.outages.len(), 1, "{hash}");
    let outage = link.base.outages[0];
    // The outage begins after the moment on screen, and the run it makes writes into it.
    let mut s = batchscope_engine::microbatch::scenario::preset("kafka-append").unwrap();
    let clean = batchscope_check::oracle::check_world(&s, false).1;
    assert!(outage.from_ms > clean.events()[19].at_ms, "{hash}");
    s.sink.outages.push(outage);
    let (_, failed) = batchscope_check::oracle::check_world(&s, false);
    assert!(
        failed.events().iter().any(|e| matches!(
            e.kind,
            EventKind::SinkWriteFailed { .. } | EventKind::TaskFailed { .. }
        )),
        "a write meets the down store"
    );
    app.destroy();
}

#[wasm_bindgen_test]
async fn clicking_the_tasks_lane_fails_a_task_of_the_batch_in_flight() {
    let (r, app) = mount("#preset=kafka-append&seed=7&at=12");
    settle().await;
    click_lane(&r, "SourceRDD tasks");
    settle().await;
    let hash = written_link("fault=task-fail@").await;
    assert!(hash.contains("fault=task-fail@0"), "{hash}");
    app.destroy();
}

#[wasm_bindgen_test]
async fn clicking_the_drivers_lane_crashes_it_now() {
    let (r, app) = mount("#preset=kafka-append&seed=7&at=20");
    settle().await;
    click_lane(&r, "MicroBatchExecution");
    settle().await;
    let hash = written_link("after=").await;
    assert!(
        hash.contains("after=19"),
        "a crash after the last event on screen: {hash}"
    );
    app.destroy();
}
