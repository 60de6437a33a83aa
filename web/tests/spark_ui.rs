//! Component test of the "Spark UI" tab in a real browser: the three charts of Spark's
//! Structured Streaming tab and the latest batch's progress, from the run on screen.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

mod common;

use common::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn the_spark_ui_tab_charts_the_run_so_far() {
    let mut scenario = batchscope_engine::microbatch::scenario::preset("kafka-append").unwrap();
    scenario.crashes = vec!["sink-commit@3".parse().unwrap()];
    let (_, world) = batchscope_check::oracle::check_world(&scenario, false);
    let expected = batchscope_view::microbatch::spark_ui::progress(world.events());
    let end = world.events().len();
    let (r, _app) = mount(&format!(
        "#preset=kafka-append&seed=7&crash=sink-commit@3&at={end}"
    ));
    settle().await;
    click(&r, "[data-testid=tab-progress]");
    settle().await;
    for chart in ["chart-rates", "chart-durations", "chart-rows"] {
        let svg = find(&r, &format!("[data-testid={chart}] svg"));
        assert!(svg.child_element_count() > 0, "{chart} is drawn");
    }
    let last = expected.last().unwrap();
    let json = text(&r, "[data-testid=progress-json]");
    assert!(
        json.contains(&format!("batchId : {}", last.batch_id)),
        "{json}"
    );
    assert!(
        json.contains(&format!("numInputRows : {}", last.input_rows)),
        "{json}"
    );
    let committed = expected.iter().filter(|p| p.completed).count();
    assert!(text(&r, "[data-testid=tab-progress]").contains(&committed.to_string()));
}
