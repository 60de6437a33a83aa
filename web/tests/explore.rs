//! Component test of the Explore dialog in a real browser: it runs to completion without
//! blocking, shows the kafka-append matrix, a cell loads its crash into the player, and Cancel
//! stops a depth-2 run with partial results.
#![cfg(target_arch = "wasm32")]

use std::time::Duration;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, Event, HtmlSelectElement};

mod common;

use common::*;

wasm_bindgen_test_configure!(run_in_browser);

fn status(root: &Element) -> String {
    find(root, "[data-testid=explore-status]")
        .get_attribute("data-status")
        .unwrap_or_default()
}

/// Waits (yielding to the browser) until the explorer's status is `want`.
async fn wait_status(root: &Element, want: &str) {
    for _ in 0..600 {
        if status(root) == want {
            return;
        }
        yew::platform::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("status stayed {}, wanted {want}", status(root));
}

#[wasm_bindgen_test]
async fn explore_runs_and_a_cell_loads_its_crash() {
    let (r, app) = mount("#preset=kafka-append&seed=7");
    yew::platform::time::sleep(Duration::from_millis(30)).await;
    assert_eq!(status(&r), "idle");
    click(&r, "[data-testid=explore-open]");
    click(&r, "[data-testid=explore-run]");
    wait_status(&r, "done").await;
    let cell = find(&r, "[data-testid=cell-sink-commit-3]");
    assert_eq!(
        cell.get_attribute("data-verdict").as_deref(),
        Some("duplicates")
    );
    // The lesson's claims, each checked against these runs.
    let claimed = all(&r, "[data-testid=claim]");
    assert_eq!(
        claimed.len(),
        batchscope_view::microbatch::claims::claims("kafka-append").len()
    );
    assert!(claimed.len() >= 2);
    for c in &claimed {
        assert_eq!(c.get_attribute("data-status").as_deref(), Some("held"));
    }
    // The tooltip says what the oracle says of that one run.
    let mut crashed = batchscope_engine::microbatch::scenario::preset("kafka-append").unwrap();
    crashed.crashes.push("sink-commit@3".parse().unwrap());
    let report = batchscope_check::oracle::check(&crashed);
    assert!(report.duplicates > 0);
    assert_eq!(
        cell.get_attribute("title"),
        Some(format!(
            "sink-commit@3: duplicates ({} dup, {} lost)",
            report.duplicates, report.lost
        ))
    );
    click(&r, "[data-testid=cell-sink-commit-3]");
    yew::platform::time::sleep(Duration::from_millis(50)).await;
    assert!(find(&r, "[data-testid=explore]").has_attribute("hidden"));
    let current = || {
        r.query_selector("[data-testid=current-event]")
            .unwrap()
            .map(|e| e.text_content().unwrap_or_default())
    };
    // A hang guard, not a speed test: the run loads while the danger band maps the old one.
    for _ in 0..100 {
        if r.query_selector("[data-testid=current-event] .crash")
            .unwrap()
            .is_some()
        {
            break;
        }
        settle().await;
    }
    assert!(
        r.query_selector("[data-testid=current-event] .crash")
            .unwrap()
            .is_some(),
        "the player shows the crash as the current step, not {:?} (step count {:?}, link {:?})",
        current(),
        r.query_selector("[data-testid=step-count]")
            .unwrap()
            .map(|e| e.text_content()),
        gloo::utils::window().location().hash()
    );
    // The results stay for the same preset and seed.
    assert_eq!(status(&r), "done");
    app.destroy();
}

#[wasm_bindgen_test]
async fn cancel_stops_a_depth_2_run_with_partial_results() {
    let (r, app) = mount("#preset=tablestore&seed=7");
    yew::platform::time::sleep(Duration::from_millis(30)).await;
    click(&r, "[data-testid=explore-open]");
    let depth = find(&r, "[data-testid=explore-depth]")
        .dyn_into::<HtmlSelectElement>()
        .unwrap();
    depth.set_value("2");
    depth
        .dispatch_event(&Event::new("change").unwrap())
        .unwrap();
    yew::platform::time::sleep(Duration::from_millis(30)).await;
    click(&r, "[data-testid=explore-run]");
    wait_status(&r, "running").await;
    click(&r, "[data-testid=explore-cancel]");
    wait_status(&r, "cancelled").await;
    let progress = find(&r, "[data-testid=explore-progress]");
    let done: u64 = progress
        .get_attribute("data-done")
        .unwrap()
        .parse()
        .unwrap();
    let total: u64 = progress
        .get_attribute("data-total")
        .unwrap()
        .parse()
        .unwrap();
    assert!(done < total, "cancelled early: {done} of {total}");
    assert!(r
        .query_selector("[data-testid=explore-matrix]")
        .unwrap()
        .is_some());
    app.destroy();
}
