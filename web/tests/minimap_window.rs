//! The minimap of a long run in a real browser: it draws only the rows of marks near its view
//! (and the current mark's row), spacers keep every mark where it would be if all were drawn,
//! and scrolling draws the marks that come into view.
#![cfg(target_arch = "wasm32")]

use batchscope_web::microbatch::components::minimap::{Minimap, MARKS_WINDOWED_FROM};
use batchscope_web::microbatch::run::Run;
use batchscope_web::shell::Shared;
use std::rc::Rc;
use wasm_bindgen_test::*;
use web_sys::Element;
use yew::prelude::*;

mod common;

use common::*;

wasm_bindgen_test_configure!(run_in_browser);

#[derive(Properties, PartialEq)]
struct HarnessProps {
    run: Shared<Run>,
    cursor: usize,
}

#[component]
fn Harness(props: &HarnessProps) -> Html {
    html! {
        <div style="width: 600px">
            <Minimap run={props.run.clone()} cursor={props.cursor} on_seek={Callback::noop()} />
        </div>
    }
}

/// A run of `kafka-append` with `batches` batches.
fn long_run(batches: u64) -> Run {
    let mut s = batchscope_engine::microbatch::scenario::preset("kafka-append").unwrap();
    s.batches = batches;
    Run::compute(s, None)
}

/// The batch ids of the drawn marks, in page order.
fn drawn(r: &Element) -> Vec<u64> {
    all(r, "[data-testid=minimap-mark]")
        .iter()
        .map(|e| e.get_attribute("data-batch").unwrap().parse().unwrap())
        .collect()
}

/// Each drawn mark's top, relative to the first mark's row, is its row's: mark `i` (by batch
/// order) sits on row `i / per_row`, as if every mark were drawn.
fn marks_in_place(r: &Element, order: &[u64]) {
    let marks = all(r, "[data-testid=minimap-mark]");
    let box_top = find(r, ".mm-marks").get_bounding_client_rect().top()
        - f64::from(find(r, ".mm-marks").scroll_top());
    let tops: Vec<f64> = marks
        .iter()
        .map(|m| m.get_bounding_client_rect().top() - box_top)
        .collect();
    let per_row = tops
        .iter()
        .take_while(|t| (**t - tops[0]).abs() < 0.5)
        .count();
    let row_px = tops[per_row] - tops[0];
    let first_index = order.iter().position(|b| *b == drawn(r)[0]).unwrap();
    let first_row_top = tops[0] - (first_index / per_row) as f64 * row_px;
    for (m, top) in marks.iter().zip(&tops) {
        let batch: u64 = m.get_attribute("data-batch").unwrap().parse().unwrap();
        let i = order.iter().position(|b| *b == batch).unwrap();
        let want = first_row_top + (i / per_row) as f64 * row_px;
        assert!(
            (top - want).abs() < 1.0,
            "batch {batch} (mark {i}) at {top}, its row is at {want}"
        );
    }
}

#[wasm_bindgen_test]
async fn a_long_run_draws_the_marks_in_view_and_keeps_every_mark_in_place() {
    use_stylesheet();
    let run = Rc::new(long_run(300));
    let order: Vec<u64> = batchscope_view::microbatch::overview::batch_marks(run.events())
        .iter()
        .map(|m| m.batch_id)
        .collect();
    assert!(order.len() >= MARKS_WINDOWED_FROM, "{} marks", order.len());
    let r = root();
    let mut app = yew::Renderer::<Harness>::with_root_and_props(
        r.clone(),
        HarnessProps {
            run: Shared(run.clone()),
            cursor: 0,
        },
    )
    .render();
    settle().await;
    settle().await;
    let first = drawn(&r);
    assert!(
        first.len() < order.len() / 2 && first[0] == order[0],
        "at the top: {} of {} marks drawn, from {}",
        first.len(),
        order.len(),
        first[0]
    );
    marks_in_place(&r, &order);
    // The scroll box is as tall as all the marks.
    let host = find(&r, ".mm-marks");
    let all_marks_height = host.scroll_height();
    // Scrolled to the end: the last marks are drawn in their place, the first are not.
    host.set_scroll_top(all_marks_height);
    host.dispatch_event(&web_sys::Event::new("scroll").unwrap())
        .unwrap();
    settle().await;
    settle().await;
    let end = drawn(&r);
    assert_eq!(
        end.last(),
        order.last(),
        "the last batch is drawn at the end"
    );
    assert!(
        !end.contains(&order[0]),
        "the first batch is not drawn at the end"
    );
    assert_eq!(
        host.scroll_height(),
        all_marks_height,
        "the spacers keep the height"
    );
    marks_in_place(&r, &order);
    // Back at the top with the cursor in the last batch: its row is drawn too.
    host.set_scroll_top(0);
    host.dispatch_event(&web_sys::Event::new("scroll").unwrap())
        .unwrap();
    app.update(HarnessProps {
        run: Shared(run.clone()),
        cursor: run.len(),
    });
    settle().await;
    settle().await;
    let pinned = drawn(&r);
    assert!(pinned.contains(&order[0]) && pinned.contains(order.last().unwrap()));
    assert!(
        find(&r, ".mm-current")
            .get_attribute("data-batch")
            .as_deref()
            == Some(order.last().unwrap().to_string().as_str())
    );
    marks_in_place(&r, &order);
    app.destroy();
}
