//! Compare mode drawn in place (as the page's second module draws it): both runs made from the
//! link, their final verdicts and first divergence as `batchscope compare` gives them, the two
//! diagrams stepping in lockstep with the page's cursor, the crash matrix made on a click, and a
//! link that compares nothing named.
#![cfg(target_arch = "wasm32")]

use batchscope_check::compare::{compare, compare_matrices};
use batchscope_engine::microbatch::scenario::preset;
use batchscope_web::microbatch::components::compare_view::{CompareSlot, InlineCompare};
use wasm_bindgen_test::*;

mod common;

use common::*;

wasm_bindgen_test_configure!(run_in_browser);

const LINK: &str = "#preset=kafka-append&vs=kafka-idempotent&crash=sink-commit@3";

/// The designs of [`LINK`], as the CLI reads them.
fn designs() -> (
    batchscope_engine::microbatch::scenario::Scenario,
    batchscope_engine::microbatch::scenario::Scenario,
) {
    let mut a = preset("kafka-append").unwrap();
    a.crashes.push("sink-commit@3".parse().unwrap());
    (a, preset("kafka-idempotent").unwrap())
}

/// The `data-seq` of each side's current event.
fn current_seqs(r: &web_sys::Element) -> Vec<String> {
    all(
        r,
        "[data-testid=compare-a] [data-testid=current-event], [data-testid=compare-b] [data-testid=current-event]",
    )
    .iter()
    .map(|e| e.get_attribute("data-seq").unwrap_or_default())
    .collect()
}

#[wasm_bindgen_test]
async fn both_runs_step_in_lockstep_and_end_as_the_cli_says() {
    let (a, b) = designs();
    let c = compare(&a, &b);
    let index = c.first_divergence.as_ref().expect("the traces part").index as usize;
    let (r, app) = mount(LINK);
    settle().await;
    for (side, want) in [("a", c.a.verdict.name()), ("b", c.b.verdict.name())] {
        let fin = find(&r, &format!("[data-testid=compare-{side}]"))
            .get_attribute("data-final")
            .unwrap();
        assert_eq!(fin, want, "run {side}'s final verdict");
    }
    let divergence = find(&r, "[data-testid=divergence]");
    assert_eq!(
        divergence.get_attribute("data-index"),
        Some(index.to_string())
    );
    assert!(!divergence.class_list().contains("passed"));
    // Step past the divergence: both diagrams follow the page's cursor.
    for _ in 0..=index {
        click(&r, "#step");
        settle().await;
    }
    assert!(find(&r, "[data-testid=divergence]")
        .class_list()
        .contains("passed"));
    assert_eq!(current_seqs(&r), vec![index.to_string(), index.to_string()]);
    click(&r, "#back");
    settle().await;
    let back = (index - 1).to_string();
    assert_eq!(current_seqs(&r), vec![back.clone(), back]);
    app.destroy();
}

#[wasm_bindgen_test]
async fn the_crash_matrix_lists_the_points_the_cli_judges_differently() {
    let (a, b) = designs();
    let cells = compare_matrices(&a, &b);
    let (r, app) = mount(LINK);
    settle().await;
    click(&r, "[data-testid=matrix-go]");
    settle().await;
    let mut waited = 0;
    while r
        .query_selector("[data-testid=matrix-differences]")
        .unwrap()
        .is_none()
    {
        assert!(waited < 600, "the crash matrix should be made");
        yew::platform::time::sleep(std::time::Duration::from_millis(50)).await;
        waited += 1;
    }
    let list = find(&r, "[data-testid=matrix-differences]");
    assert_eq!(
        list.get_attribute("data-count"),
        Some(cells.len().to_string())
    );
    let named: Vec<String> = all(&r, ".cmp-cell")
        .iter()
        .map(|e| e.text_content().unwrap_or_default())
        .collect();
    let want: Vec<String> = cells.iter().map(|d| d.crash.clone()).collect();
    assert_eq!(named, want);
    app.destroy();
}

#[wasm_bindgen_test]
async fn a_link_that_compares_nothing_is_named() {
    let r = root();
    let app = yew::Renderer::<InlineCompare>::with_root_and_props(
        r.clone(),
        CompareSlot {
            link: "#preset=kafka-append".into(),
            cursor: 0,
            animate_ms: 0.0,
        },
    )
    .render();
    settle().await;
    let why = text(&r, "[data-testid=compare-error]");
    assert!(why.contains("vs="), "{why}");
    assert!(r.query_selector("[data-testid=compare]").unwrap().is_none());
    app.destroy();
}
