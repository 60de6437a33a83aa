//! Component tests of the Explore dialog in a real browser, each expected value computed by the
//! explorer itself: depth 2 lists the bad runs with two faults and one opens in the player with
//! both crashes armed; a fault run opens where it fails; the reproducing line is a short
//! `batchscope run` line; the matrix exports as SVG and PNG; focus enters the dialog, Tab stays
//! in it, and Escape closes it and gives focus back to the Explore button.
#![cfg(target_arch = "wasm32")]

use batchscope_check::explore::{Explorer, Fault, Summary};
use batchscope_engine::microbatch::scenario::preset;
use batchscope_engine::microbatch::World;
use batchscope_view::microbatch::explore::{pair_counts, pair_rows, reproduce, run_link};
use std::time::Duration;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, Event, HtmlElement, HtmlSelectElement, KeyboardEvent, KeyboardEventInit};

mod common;

use common::*;

wasm_bindgen_test_configure!(run_in_browser);

fn summary(name: &str, depth: u32) -> Summary {
    let mut e = Explorer::new(preset(name).unwrap(), depth);
    e.set_parallel(false);
    e.run_to_completion()
}

fn attr(el: &Element, name: &str) -> String {
    el.get_attribute(name).unwrap_or_default()
}

/// Opens the dialog (from the focused Explore button, as a keyboard user does) and explores
/// `depth` to the end.
async fn explore(r: &Element, depth: &str) {
    let open = find(r, "[data-testid=explore-open]").unchecked_into::<HtmlElement>();
    open.focus().unwrap();
    open.click();
    settle().await;
    let dialog = find(r, "[role=dialog]");
    assert!(
        dialog.contains(Some(&active())),
        "focus moves into the dialog"
    );
    if depth != "1" {
        let select = find(r, "[data-testid=explore-depth]").unchecked_into::<HtmlSelectElement>();
        select.set_value(depth);
        select
            .dispatch_event(&Event::new("change").unwrap())
            .unwrap();
        settle().await;
    }
    click(r, "[data-testid=explore-run]");
    let status = find(r, "[data-testid=explore-status]");
    for _ in 0..3000 {
        if attr(&status, "data-status") == "done" {
            settle().await;
            return;
        }
        yew::platform::time::sleep(Duration::from_millis(40)).await;
    }
    panic!(
        "the exploration did not finish: {}",
        attr(&status, "data-status")
    );
}

fn armed(r: &Element, testid: &str) -> Vec<String> {
    all(r, &format!("[data-testid={testid}] b"))
        .iter()
        .map(|b| b.text_content().unwrap_or_default())
        .collect()
}

/// The seq of the event the player shows after `at` steps of `link`'s run.
fn seq_at(scenario: batchscope_engine::microbatch::scenario::Scenario, at: u64) -> String {
    let mut world = World::new(scenario);
    for _ in 0..at {
        world.step();
    }
    world.events().last().unwrap().seq.to_string()
}

#[wasm_bindgen_test]
async fn depth_2_lists_pairs_worst_first_and_one_opens_with_both_crashes() {
    let s = summary("kafka-append", 2);
    let (counts, _) = pair_counts(&s);
    let want = pair_rows(&s, None);
    let (r, app) = mount("#preset=kafka-append&seed=7");
    settle().await;
    explore(&r, "2").await;
    let list = find(&r, "[data-testid=explore-pairs]");
    assert_eq!(attr(&list, "data-count"), want.len().to_string());
    let rows = all(&r, "[data-testid=pair-row]");
    assert!(!rows.is_empty() && rows.len() <= want.len());
    for (row, w) in rows.iter().zip(&want) {
        assert_eq!(attr(row, "data-verdict"), w.verdict.name());
        assert_eq!(attr(row, "data-crashes"), w.crash_list());
    }
    // The filter keeps one verdict.
    let (verdict, n) = counts[0];
    click(&r, &format!("[data-testid=pair-filter-{}]", verdict.name()));
    settle().await;
    let shown = all(&r, "[data-testid=pair-row]");
    assert!(shown.len() as u64 <= n && !shown.is_empty());
    assert!(shown
        .iter()
        .all(|e| attr(e, "data-verdict") == verdict.name()));
    // A run with two crashes opens in the player with both armed, at its first crash.
    let i = want.iter().position(|w| w.fault.is_none()).unwrap();
    let pair = &want[i];
    let row = all(&r, "[data-testid=pair-row]")
        .into_iter()
        .find(|e| attr(e, "data-crashes") == pair.crash_list() && !e.has_attribute("data-fault"))
        .expect("the pair is listed");
    row.query_selector("[data-testid=pair-open]")
        .unwrap()
        .unwrap()
        .unchecked_into::<HtmlElement>()
        .click();
    settle().await;
    assert!(find(&r, "[data-testid=explore]").has_attribute("hidden"));
    let names: Vec<String> = pair.crashes.iter().map(|c| c.to_string()).collect();
    assert_eq!(armed(&r, "armed-crash"), names);
    let link = run_link(
        "kafka-append",
        &preset("kafka-append").unwrap(),
        &pair.crashes,
        None,
    );
    let mut scenario = preset("kafka-append").unwrap();
    scenario.crashes = pair.crashes.clone();
    assert_eq!(
        attr(&find(&r, "[data-testid=current-event]"), "data-seq"),
        seq_at(scenario, link.base.at)
    );
    app.destroy();
}

/// The listed row of `fault` in the dialog, and its reproducing command line.
fn fault_row(r: &Element, fault: &Fault) -> (Element, String) {
    let row = all(r, "[data-testid=fault-row]")
        .into_iter()
        .find(|e| attr(e, "data-fault") == fault.to_string())
        .unwrap_or_else(|| panic!("{fault} is listed"));
    let line = row
        .query_selector("[data-testid=fault-command]")
        .unwrap()
        .unwrap()
        .text_content()
        .unwrap();
    (row, line)
}

#[wasm_bindgen_test]
async fn a_fault_run_opens_where_it_fails_and_reproduces_in_one_line() {
    let s = summary("kafka-append", 1);
    let base = preset("kafka-append").unwrap();
    let (r, app) = mount("#preset=kafka-append&seed=7");
    settle().await;
    explore(&r, "1").await;
    let fault = *s
        .faults
        .iter()
        .find(|f| matches!(f, Fault::InBatch { .. }))
        .unwrap();
    let (row, line) = fault_row(&r, &fault);
    let want = reproduce("kafka-append", &base, &[], Some(&fault));
    assert_eq!(line, want.line);
    assert!(
        line.starts_with("batchscope run --preset kafka-append --seed 7 --fault "),
        "{line}"
    );
    assert!(!line.contains('{') && !line.contains('\n'), "{line}");
    row.query_selector("[data-testid=fault-open]")
        .unwrap()
        .unwrap()
        .unchecked_into::<HtmlElement>()
        .click();
    settle().await;
    let Fault::InBatch { fault: inner } = fault else {
        unreachable!()
    };
    assert_eq!(armed(&r, "armed-fault"), vec![inner.to_string()]);
    let link = run_link("kafka-append", &base, &[], Some(&fault));
    let mut scenario = base.clone();
    scenario.faults.push(inner);
    assert_eq!(
        attr(&find(&r, "[data-testid=current-event]"), "data-seq"),
        seq_at(scenario, link.base.at)
    );
    app.destroy();
}

#[wasm_bindgen_test]
async fn a_sink_outage_run_opens_in_the_player_and_names_a_scenario_file() {
    let s = summary("auto-commit", 1);
    let base = preset("auto-commit").unwrap();
    let (r, app) = mount("#preset=auto-commit&seed=7");
    settle().await;
    explore(&r, "1").await;
    let fault = *s
        .faults
        .iter()
        .find(|f| matches!(f, Fault::SinkOutage { .. }))
        .unwrap();
    let (row, line) = fault_row(&r, &fault);
    assert_eq!(
        line,
        reproduce("auto-commit", &base, &[], Some(&fault)).line
    );
    assert_eq!(line, "batchscope run counterexample.json");
    row.query_selector("[data-testid=fault-open]")
        .unwrap()
        .unwrap()
        .unchecked_into::<HtmlElement>()
        .click();
    settle().await;
    let link = run_link("auto-commit", &base, &[], Some(&fault));
    assert_eq!(
        attr(&find(&r, "[data-testid=current-event]"), "data-seq"),
        seq_at(*link.custom.unwrap(), link.base.at)
    );
    assert!(text(&r, "[data-testid=step-note]").len() > 10);
    app.destroy();
}

#[wasm_bindgen_test]
async fn the_matrix_exports_as_svg_and_png() {
    let s = summary("kafka-append", 1);
    let (r, app) = mount("#preset=kafka-append&seed=7");
    settle().await;
    explore(&r, "1").await;
    click(&r, "[data-testid=export-matrix-svg]");
    let (name, mime, bytes) = last_saved(&r, "[data-testid=explore-export]", ".svg").await;
    assert_eq!(name, "kafka-append-seed7-explore-matrix.svg");
    assert_eq!(mime, "image/svg+xml");
    let svg = String::from_utf8(bytes).unwrap();
    assert!(svg.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    let cells = s
        .matrix
        .rows
        .iter()
        .flat_map(|r| &r.verdicts)
        .flatten()
        .count();
    assert_eq!(svg.matches("<g><title>").count(), cells);
    click(&r, "[data-testid=export-matrix-png]");
    let (_, mime, png) = last_saved(&r, "[data-testid=explore-export]", ".png").await;
    assert_eq!(mime, "image/png");
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 1000,
        "{} bytes",
        png.len()
    );
    app.destroy();
}

fn key(target: &Element, name: &str, shift: bool) {
    let init = KeyboardEventInit::new();
    init.set_key(name);
    init.set_bubbles(true);
    init.set_cancelable(true);
    init.set_shift_key(shift);
    let e = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    target.dispatch_event(&e).unwrap();
}

fn active() -> Element {
    gloo::utils::document().active_element().unwrap()
}

#[wasm_bindgen_test]
async fn focus_enters_the_dialog_cycles_inside_and_escape_returns_it() {
    let (r, app) = mount("#preset=kafka-append&seed=7");
    settle().await;
    let dialog = find(&r, "[role=dialog]");
    assert_eq!(attr(&dialog, "aria-modal"), "true");
    let heading = find(&r, &format!("#{}", attr(&dialog, "aria-labelledby")));
    assert_eq!(heading.tag_name(), "H2");
    explore(&r, "1").await;
    assert!(
        dialog.contains(Some(&active())),
        "focus is back in the dialog when done"
    );
    // Icon-only buttons are named.
    let close = find(&r, "[data-testid=explore-close]");
    assert!(!attr(&close, "aria-label").is_empty());
    // Tab from the last control goes to the first; Shift+Tab back.
    let focusable = all(&dialog, "button:not([disabled]), select:not([disabled])");
    let last = focusable
        .last()
        .unwrap()
        .clone()
        .unchecked_into::<HtmlElement>();
    last.focus().unwrap();
    key(&last, "Tab", false);
    assert_eq!(active(), focusable[0]);
    key(&focusable[0], "Tab", true);
    assert_eq!(active(), *focusable.last().unwrap());
    // A player shortcut does nothing behind the dialog.
    let before = attr(&find(&r, "[data-testid=explore]"), "hidden");
    key(&active(), "c", false);
    settle().await;
    assert!(armed(&r, "crash-now-input").is_empty());
    assert_eq!(before, attr(&find(&r, "[data-testid=explore]"), "hidden"));
    // Escape closes and gives focus back to the Explore button.
    key(&active(), "Escape", false);
    settle().await;
    assert!(find(&r, "[data-testid=explore]").has_attribute("hidden"));
    assert_eq!(active(), find(&r, "[data-testid=explore-open]"));
    app.destroy();
}
