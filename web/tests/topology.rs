//! Component tests of the Topology mode in a real browser (headless Chromium via
//! wasm-bindgen-test-runner): the DAG and the panels mount from a link, buttons step, the
//! level selector changes the query's answer, failing a job is recorded and shown, several
//! queries side by side disagree under Weak and agree under Strong.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

mod common;

use common::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn the_topology_mounts_steps_and_shows_every_table() {
    let (r, app) = mount_topology("#mode=topology&topology=chain&seed=1");
    settle().await;
    assert!(text(&r, "[data-testid=topo-step-count]").starts_with("0 /"));
    let nodes = r
        .query_selector_all("[data-testid=topology-svg] [data-node]")
        .unwrap();
    assert_eq!(nodes.length(), 7, "CDC, 3 jobs, 3 tables");
    click(&r, "#topo-step");
    settle().await;
    assert!(text(&r, "[data-testid=topo-step-count]").starts_with("1 /"));
    assert!(text(&r, "[data-testid=topo-step-note]").contains("CDC record #0"));
    assert!(text(&r, "[data-testid=topo-lesson-title]").contains("table1"));
    app.destroy();
}

#[wasm_bindgen_test]
async fn read_uncommitted_mixes_barriers_where_repeatable_read_does_not() {
    // Somewhere in barrier 2 price_job has PROCESSED it and amount_job not yet: 2500 / 100.
    let (r, app) = mount_topology("#mode=topology&topology=shopping&seed=1&level=ru&at=0");
    settle().await;
    let mut saw_mix = false;
    for _ in 0..40 {
        click(&r, "#topo-step");
        settle().await;
        let ratio = r
            .query_selector("[data-testid=query-ratio]")
            .unwrap()
            .and_then(|e| e.text_content());
        if ratio.as_deref() == Some("25") {
            assert!(text(&r, "[data-testid=query-badge]").contains("mixes barriers"));
            saw_mix = true;
            break;
        }
    }
    assert!(saw_mix, "Read Uncommitted shows the seed's 25");
    click(&r, "[data-testid=level-rr]");
    settle().await;
    assert!(text(&r, "[data-testid=query-badge]").contains("consistent"));
    assert_eq!(text(&r, "[data-testid=query-ratio]"), "10");
    app.destroy();
}

#[wasm_bindgen_test]
async fn fail_now_is_recorded_and_drawn() {
    let (r, app) = mount_topology("#mode=topology&topology=shopping&seed=1&at=30");
    settle().await;
    click(&r, "[data-testid=fail-now]");
    settle().await;
    assert!(text(&r, "[data-testid=topo-step-count]").starts_with("31 /"));
    assert!(text(&r, "[data-testid=topo-fault]").contains("price_job fails after #29"));
    assert!(text(&r, "[data-testid=topo-step-note]").contains("price_job FAILED"));
    assert!(r.query_selector(".job-down").unwrap().is_some());
    app.destroy();
}

#[wasm_bindgen_test]
async fn three_queries_side_by_side_disagree_under_weak_and_agree_under_strong() {
    let (r, app) = mount_topology(
        "#mode=topology&topology=three-queries&seed=1&level=rc&consistency=weak&at=0",
    );
    settle().await;
    let rows = r
        .query_selector_all("[data-testid=queries-side-row]")
        .unwrap();
    assert_eq!(rows.length(), 3, "Query1, Query2, Query3");
    let mut saw = false;
    for _ in 0..60 {
        click(&r, "#topo-step");
        settle().await;
        if text(&r, "[data-testid=queries-agree]").contains("different versions") {
            saw = true;
            break;
        }
    }
    assert!(saw, "Weak: Query1 runs ahead of Query2 on table1");
    click(&r, "[data-testid=consistency-strong]");
    settle().await;
    assert!(text(&r, "[data-testid=queries-agree]").contains("agree"));
    assert!(text(&r, "[data-testid=query-badge]").contains("consistent"));
    app.destroy();
}
