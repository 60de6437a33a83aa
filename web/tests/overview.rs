//! Browser tests of the micro-batch minimap: one button per batch the engine constructed, the
//! crashed batch named for what happened to it, a click seeks the player to the batch's first
//! event, and the table view shows one row per batch.
#![cfg(target_arch = "wasm32")]

use batchscope_check::oracle::{run, Limit};
use batchscope_engine::microbatch::event::{Event, EventKind};
use batchscope_engine::microbatch::scenario::{preset, CrashPoint};
use batchscope_engine::microbatch::World;
use std::collections::BTreeSet;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::HtmlElement;

mod common;

use common::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The link the tests open, and the same run computed here from the engine.
const LINK: &str = "#preset=kafka-append&crash=sink-commit@3";

fn engine_trace() -> Vec<Event> {
    let mut s = preset("kafka-append").unwrap();
    s.crashes
        .push("sink-commit@3".parse::<CrashPoint>().unwrap());
    let mut w = World::new(s);
    run(&mut w, Limit::events(600));
    w.events().to_vec()
}

/// Batch ids with an `offsets/N` in the trace.
fn batches(events: &[Event]) -> BTreeSet<u64> {
    events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::OffsetLogWritten { batch_id, .. } => Some(batch_id),
            _ => None,
        })
        .collect()
}

/// The cursor that shows the trigger which constructed `batch` as the current event.
fn trigger_cursor(events: &[Event], batch: u64) -> usize {
    let log = events
        .iter()
        .position(
            |e| matches!(e.kind, EventKind::OffsetLogWritten { batch_id, .. } if batch_id == batch),
        )
        .unwrap();
    events[..log]
        .iter()
        .rposition(|e| matches!(e.kind, EventKind::TriggerFired { batch_id } if batch_id == batch))
        .unwrap()
        + 1
}

#[wasm_bindgen_test]
async fn one_button_per_batch_and_a_click_seeks_to_its_first_event() {
    use_stylesheet();
    let events = engine_trace();
    let (r, app) = mount(LINK);
    settle().await;
    let marks = all(&r, "[data-testid=minimap-mark]");
    assert_eq!(marks.len(), batches(&events).len());
    assert!(
        marks.iter().all(|m| m.tag_name() == "BUTTON"),
        "keyboard reachable"
    );
    let three = find(&r, "[data-testid=minimap-mark][data-batch='3']");
    assert_eq!(
        three.get_attribute("aria-label").as_deref(),
        Some("Batch 3: re-run after a crash")
    );
    assert!(three.text_content().unwrap().contains('✕'));
    let minimap = find(&r, "[data-testid=minimap]")
        .dyn_into::<HtmlElement>()
        .unwrap();
    assert!(
        minimap.scroll_width() <= minimap.client_width(),
        "no overflow: {} > {}",
        minimap.scroll_width(),
        minimap.client_width()
    );

    assert!(text(&r, "[data-testid=step-count]").starts_with("0 /"));
    click(&r, "[data-testid=minimap-mark][data-batch='2']");
    settle().await;
    let expected = trigger_cursor(&events, 2);
    let count = text(&r, "[data-testid=step-count]");
    assert!(count.starts_with(&format!("{expected} /")), "{count}");
    let current = text(&r, "[data-testid=current-event]");
    assert!(current.contains("trigger batch 2"), "{current}");
    let two = find(&r, "[data-testid=minimap-mark][data-batch='2']");
    assert_eq!(two.get_attribute("aria-current").as_deref(), Some("step"));
    app.destroy();
}

#[wasm_bindgen_test]
async fn the_table_view_has_one_row_per_batch() {
    use_stylesheet();
    let events = engine_trace();
    let (r, app) = mount(LINK);
    settle().await;
    let toggle = find(&r, "[data-testid=minimap-toggle]");
    assert_eq!(
        toggle.get_attribute("aria-pressed").as_deref(),
        Some("false")
    );
    click(&r, "[data-testid=minimap-toggle]");
    settle().await;
    let rows = all(&r, "[data-testid=minimap-row]");
    assert_eq!(rows.len(), batches(&events).len());
    assert!(all(&r, "[data-testid=minimap-mark]").is_empty());
    let crashed: Vec<String> = rows
        .iter()
        .map(|row| row.text_content().unwrap())
        .filter(|t| t.contains("sink-commit@3"))
        .collect();
    assert_eq!(crashed.len(), 1, "{crashed:?}");
    assert!(
        crashed[0].contains("re-run after a crash"),
        "{}",
        crashed[0]
    );
    assert_eq!(
        find(&r, "[data-testid=minimap-toggle]")
            .get_attribute("aria-pressed")
            .as_deref(),
        Some("true")
    );
    // A row's button seeks too.
    click(&r, "[data-testid=minimap-row] .mm-go");
    settle().await;
    let expected = trigger_cursor(&events, 0);
    assert!(text(&r, "[data-testid=step-count]").starts_with(&format!("{expected} /")));
    app.destroy();
}
