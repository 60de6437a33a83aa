//! Browser tests of the timeline of a long run: a few hundred columns however many events,
//! every event covered once, the crash drawn red and its re-run labelled, labels thinned, and a
//! step that moves only the cursor and the veil over what is not shown yet.
#![cfg(target_arch = "wasm32")]

use batchscope_check::oracle::{run, Limit};
use batchscope_engine::microbatch::scenario::{preset, Scenario};
use batchscope_engine::microbatch::World;
use batchscope_view::microbatch::strip::{Strip, MAX_COLUMNS, MAX_LABELS};
use batchscope_view::microbatch::url::scenario::{format_link, Link};
use batchscope_view::microbatch::url::UrlState;
use wasm_bindgen_test::*;
use web_sys::Element;

mod common;

use common::*;

wasm_bindgen_test_configure!(run_in_browser);

/// `kafka-append` over 16 channels and 60 trigger intervals, crashed at `sink-commit@30`.
fn long_run() -> Scenario {
    let mut s = preset("kafka-append").unwrap();
    s.upstream.channels = 16;
    s.batches = 60;
    s.crashes.push("sink-commit@30".parse().unwrap());
    s
}

fn number(e: &Element, attr: &str) -> f64 {
    e.get_attribute(attr).unwrap().parse().unwrap()
}

#[wasm_bindgen_test]
async fn a_long_run_is_drawn_in_bounded_columns_and_a_step_moves_only_the_cursor() {
    use_stylesheet();
    let s = long_run();
    let mut w = World::new(s.clone());
    run(&mut w, Limit::SCREEN);
    let strip = Strip::of(w.events());
    assert!(strip.len > 2 * MAX_COLUMNS, "long enough to bin");
    let link = format_link(&Link {
        base: UrlState {
            seed: s.seed,
            crashes: s.crashes.clone(),
            ..UrlState::default_for("kafka-append")
        },
        custom: Some(Box::new(s)),
        vs: None,
    });
    let (r, app) = mount(&link);
    settle().await;

    let rects = all(&r, ".tl-cells rect");
    assert_eq!(rects.len(), strip.columns.len());
    assert!(rects.len() <= MAX_COLUMNS, "{} columns", rects.len());
    // The columns tile the run: each starts where the one before ended.
    let mut next = 0.0;
    for (rect, column) in rects.iter().zip(&strip.columns) {
        assert_eq!(number(rect, "x"), next);
        next += column.len as f64;
    }
    assert_eq!(next, strip.len as f64);
    assert!(
        rects.iter().any(|r| r.class_list().contains("tl-alarm")),
        "the crash is drawn red"
    );
    let labels: Vec<String> = all(&r, ".tl-label")
        .iter()
        .map(|l| l.text_content().unwrap())
        .collect();
    assert!(labels.len() <= MAX_LABELS + 2, "{} labels", labels.len());
    assert!(labels.iter().any(|l| l == "30′"), "{labels:?}");

    // At the start the veil covers the whole run; a step moves it, not the columns.
    let veil = find(&r, ".tl-future");
    assert_eq!(
        veil.get_attribute("style").as_deref(),
        Some("left:0.000%;right:0")
    );
    click(&r, "[data-testid=step]");
    settle().await;
    let veil = find(&r, ".tl-future").get_attribute("style").unwrap();
    assert_eq!(
        veil,
        format!("left:{:.3}%;right:0", 100.0 / strip.len as f64)
    );
    assert_eq!(all(&r, ".tl-cells rect").len(), strip.columns.len());
    app.destroy();
}
