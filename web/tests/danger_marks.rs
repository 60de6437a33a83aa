//! The danger band's marks on the dashboard's own parts, in a real browser: the strip beside the
//! sequence diagram's rows takes each event's verdict colour from the band, the lesson card
//! says when a bad run's outcome was sealed once the run is past that moment, and a key chip of
//! the Sink panel opens that record's lane.
#![cfg(target_arch = "wasm32")]

use batchscope_check::explore::map::MapMaker;
use batchscope_check::oracle::check_world;
use batchscope_check::why::explain;
use batchscope_engine::microbatch::scenario::{preset, Scenario};
use batchscope_view::microbatch::danger::verdict_color;
use batchscope_web::microbatch::run::Run;
use std::time::Duration;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::Element;

mod common;

use common::*;

wasm_bindgen_test_configure!(run_in_browser);

/// kafka-append with a driver crash at the sink's commit of batch 3: duplicates.
fn bad_run() -> Scenario {
    let mut s = preset("kafka-append").unwrap();
    s.crashes = vec!["sink-commit@3".parse().unwrap()];
    s
}

/// Waits (a hang guard, not a speed test) until the band of the page at `r` is done.
async fn band_done(r: &Element) {
    for _ in 0..3000 {
        settle().await;
        let done = r
            .query_selector("[data-testid=danger][data-done=true]")
            .unwrap()
            .is_some();
        if done {
            // Let the run's judgement (the last slice) land.
            yield_now(60).await;
            return;
        }
    }
    panic!("the danger band was never done");
}

async fn yield_now(ms: u64) {
    yew::platform::time::sleep(Duration::from_millis(ms)).await;
    settle().await;
}

/// The fill the browser computes for `element`.
fn fill_of(element: &Element) -> String {
    gloo::utils::window()
        .get_computed_style(element)
        .unwrap()
        .unwrap()
        .get_property_value("fill")
        .unwrap()
}

/// `#rrggbb` as the browser's computed `rgb(r, g, b)`.
fn rgb(hex: &str) -> String {
    let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).unwrap();
    format!("rgb({}, {}, {})", byte(1), byte(3), byte(5))
}

#[wasm_bindgen_test]
async fn the_strip_beside_the_diagram_has_each_events_verdict_colour() {
    use_stylesheet();
    let s = bad_run();
    let events = Run::compute(s.clone(), None).len();
    let mut maker = MapMaker::over(&s, events);
    while maker.advance(usize::MAX) {}
    let map = maker.finish();
    let (r, app) = mount("#preset=kafka-append&crash=sink-commit@3&at=45");
    band_done(&r).await;
    let rows = all(&r, "svg#sequence g.row");
    assert!(rows.len() >= 5, "rows on screen: {}", rows.len());
    let mut verdicts = vec![];
    for row in rows {
        let seq: u64 = row.get_attribute("data-seq").unwrap().parse().unwrap();
        let strip = row.query_selector("rect.seq-dg").unwrap().expect("a strip");
        let fill = fill_of(&strip);
        let w = map
            .windows
            .iter()
            .find(|w| (w.after.event..=w.last.event).contains(&seq))
            .expect("every event in a window");
        let want = w
            .verdict
            .map_or("none".to_string(), |v| rgb(verdict_color(Some(v))));
        assert_eq!(fill, want, "the strip of #{seq}");
        verdicts.push(w.verdict);
    }
    verdicts.dedup();
    assert!(
        verdicts.len() >= 2,
        "two verdicts among the rows: {verdicts:?}"
    );
    app.destroy();
    // The band gone, so are its rules.
    let (r, app) = mount("#preset=kafka-append&crash=sink-commit@3&at=45");
    settle().await;
    let strip = find(&r, "svg#sequence g.row rect.seq-dg");
    assert_eq!(
        fill_of(&strip),
        "none",
        "no colour before the new band has one"
    );
    app.destroy();
}

#[wasm_bindgen_test]
async fn the_lesson_card_says_when_the_outcome_was_sealed_once_the_run_is_past_it() {
    use_stylesheet();
    let s = bad_run();
    let (mut report, _) = check_world(&s, false);
    explain(&s, &mut report);
    let sealed = report.inevitable_at.clone().expect("a sealed moment").event;
    // Before the moment: the card's line is empty (and hidden).
    let (r, app) = mount(&format!(
        "#preset=kafka-append&crash=sink-commit@3&at={}",
        sealed
    ));
    band_done(&r).await;
    assert_eq!(text(&r, "[data-testid=lesson-when]"), "");
    app.destroy();
    let (r, app) = mount(&format!(
        "#preset=kafka-append&crash=sink-commit@3&at={}",
        sealed + 1
    ));
    band_done(&r).await;
    let line = text(&r, "[data-testid=lesson-when]");
    assert!(line.contains(&format!("sealed at #{sealed} (")), "{line}");
    assert!(line.contains(report.verdict.name()), "{line}");
    let until = report.avoidable_until.clone().expect("an avoidable moment");
    assert!(line.contains(&format!("At #{} (", until.event)), "{line}");
    app.destroy();
}

#[wasm_bindgen_test]
async fn a_key_chip_of_the_sink_panel_opens_its_lane() {
    use_stylesheet();
    let s = bad_run();
    let (report, _) = check_world(&s, false);
    let key = report.duplicate_keys[0].to_string();
    let (r, app) = mount("#preset=kafka-append&crash=sink-commit@3&at=999999&tab=sink");
    band_done(&r).await;
    assert!(r
        .query_selector("[data-testid=record-lane]")
        .unwrap()
        .is_none());
    let chip = all(&r, "[data-testid=duplicate-keys] .key-chip")
        .into_iter()
        .find(|c| c.text_content().as_deref() == Some(key.as_str()))
        .expect("the duplicated key is a chip of the Sink panel");
    chip.dyn_into::<web_sys::HtmlElement>().unwrap().click();
    settle().await;
    let lane = find(&r, "[data-testid=record-lane]");
    assert_eq!(lane.get_attribute("data-key"), Some(key));
    assert_eq!(all(&r, "[data-testid=life-bar]").len(), 2, "two copies");
    app.destroy();
}
