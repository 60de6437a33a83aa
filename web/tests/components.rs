//! Component tests in a real browser (headless Chromium via wasm-bindgen-test-runner): what only
//! a browser can show — the app mounts, buttons and keys drive the player, a broken link is
//! reported, the diagram draws the events on screen.
#![cfg(target_arch = "wasm32")]

use batchscope_engine::microbatch::scenario::preset;
use batchscope_engine::microbatch::World;
use batchscope_view::microbatch::panels::Badge;
use batchscope_web::microbatch::components::{SequenceDiagram, VerdictBadge};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{KeyboardEvent, KeyboardEventInit};
use yew::prelude::*;

mod common;

use common::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn step_and_back_buttons_move_the_cursor() {
    let (r, app) = mount("#preset=kafka-append&seed=7");
    settle().await;
    assert!(text(&r, "[data-testid=step-count]").starts_with("0 /"));
    click(&r, "#step");
    settle().await;
    click(&r, "#step");
    settle().await;
    assert!(text(&r, "[data-testid=step-count]").starts_with("2 /"));
    assert!(text(&r, "[data-testid=step-note]").contains("#1"));
    click(&r, "#back");
    settle().await;
    assert!(text(&r, "[data-testid=step-count]").starts_with("1 /"));
    assert_eq!(
        r.query_selector_all("[data-testid=event], [data-testid=current-event]")
            .unwrap()
            .length(),
        1
    );
    app.destroy();
}

#[wasm_bindgen_test]
async fn the_right_arrow_key_steps() {
    let (r, app) = mount("#preset=tablestore&seed=7&at=3");
    settle().await;
    let init = KeyboardEventInit::new();
    init.set_key("ArrowRight");
    init.set_bubbles(true);
    let event = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    gloo::utils::document().dispatch_event(&event).unwrap();
    settle().await;
    assert!(text(&r, "[data-testid=step-count]").starts_with("4 /"));
    app.destroy();
}

#[wasm_bindgen_test]
async fn a_broken_link_is_named_and_can_be_dismissed() {
    let (r, app) = mount("#preset=nope&seed=abc");
    settle().await;
    let notice = text(&r, "[data-testid=notice]");
    assert!(notice.contains("unknown preset `nope`"), "{notice}");
    assert!(notice.contains("`abc` is not a seed"), "{notice}");
    assert!(text(&r, "[data-testid=lesson-title]").contains("Tablestore"));
    click(&r, "[data-testid=notice-dismiss]");
    settle().await;
    assert!(r.query_selector("[data-testid=notice]").unwrap().is_none());
    app.destroy();
}

#[wasm_bindgen_test]
async fn crash_now_draws_a_red_crash_row_and_records_it() {
    let (r, app) = mount("#preset=kafka-append&seed=7&at=12");
    settle().await;
    click(&r, "#crash-now");
    settle().await;
    assert!(text(&r, "[data-testid=step-count]").starts_with("13 /"));
    let current = r
        .query_selector("[data-testid=current-event]")
        .unwrap()
        .unwrap();
    assert!(
        current.query_selector(".crash").unwrap().is_some(),
        "the crash row is drawn as a crash"
    );
    assert!(text(&r, "[data-testid=armed]").contains("crash after #11"));
    assert!(text(&r, "[data-testid=step-note]").contains("The driver is killed"));
    app.destroy();
}

#[derive(Properties, PartialEq)]
struct DiagramHarnessProps {
    events: Vec<batchscope_engine::microbatch::event::Event>,
    source: batchscope_engine::microbatch::scenario::SourceKind,
}

/// The diagram of `w`'s events so far, in its scenario's lanes, mounted in a fresh root.
fn mount_diagram(w: &World) -> (web_sys::Element, yew::AppHandle<DiagramHarness>) {
    let r = root();
    let app = yew::Renderer::<DiagramHarness>::with_root_and_props(
        r.clone(),
        DiagramHarnessProps {
            events: w.events().to_vec(),
            source: w.scenario().source.kind,
        },
    )
    .render();
    (r, app)
}

#[component]
fn DiagramHarness(props: &DiagramHarnessProps) -> Html {
    html! { <SequenceDiagram events={props.events.clone()} cursor={props.events.len()} animate_ms={0.0} source={props.source} /> }
}

/// Kafka draws its own lanes: a Kafka broker, no Meta table, and `source.commit` on the source's
/// own lane (Spark's Kafka source commits nothing to the broker).
#[wasm_bindgen_test]
async fn a_kafka_run_draws_a_broker_and_no_meta_table() {
    use batchscope_engine::microbatch::event::EventKind;
    let mut w = World::new(preset("kafka-append").unwrap());
    while !w
        .events()
        .iter()
        .any(|e| matches!(e.kind, EventKind::SourceCommit { .. }))
    {
        w.step();
    }
    let (r, app) = mount_diagram(&w);
    settle().await;
    let lanes: Vec<String> = (0..r.query_selector_all(".lane").unwrap().length())
        .map(|i| {
            let n = r.query_selector_all(".lane").unwrap().item(i).unwrap();
            let e: web_sys::Element = n.dyn_into().unwrap();
            e.get_attribute("data-lane").unwrap_or_default()
        })
        .collect();
    assert_eq!(lanes.len(), 6, "{lanes:?}");
    assert!(lanes.iter().any(|l| l == "Kafka broker"), "{lanes:?}");
    assert!(
        !lanes
            .iter()
            .any(|l| l == "Meta table" || l == "Tunnel server"),
        "{lanes:?}"
    );
    let commit = r
        .query_selector("[data-testid=current-event]")
        .unwrap()
        .unwrap();
    assert!(
        commit.inner_html().contains("Commit"),
        "the commit is the last event: {}",
        commit.inner_html()
    );
    assert!(
        commit.query_selector(".arrow-self").unwrap().is_some(),
        "source.commit stays on the source's lane: {}",
        commit.inner_html()
    );
    app.destroy();
}

#[wasm_bindgen_test]
async fn the_diagram_draws_one_arrow_per_event_and_highlights_the_last() {
    let mut w = World::new(preset("tablestore").unwrap());
    for _ in 0..8 {
        w.step();
    }
    let (r, app) = mount_diagram(&w);
    settle().await;
    assert_eq!(r.query_selector_all(".lane").unwrap().length(), 7);
    assert_eq!(
        r.query_selector_all("[data-testid=event]")
            .unwrap()
            .length(),
        7
    );
    let current = r
        .query_selector("[data-testid=current-event]")
        .unwrap()
        .unwrap();
    assert_eq!(current.get_attribute("data-seq").as_deref(), Some("7"));
    assert!(current.query_selector(".current-band").unwrap().is_some());
    assert!(
        current.query_selector("circle.dot").unwrap().is_some(),
        "the moving dot"
    );
    assert!(r.text_content().unwrap().contains("GetOffset"));
    app.destroy();
}

#[derive(Properties, PartialEq)]
struct BadgeHarnessProps {
    badge: Badge,
}

#[component]
fn BadgeHarness(props: &BadgeHarnessProps) -> Html {
    html! { <VerdictBadge badge={props.badge.clone()} /> }
}

#[wasm_bindgen_test]
async fn the_badge_carries_its_verdict() {
    let r = root();
    let badge = batchscope_view::microbatch::panels::badge(
        Some(batchscope_check::oracle::Verdict::DataLoss),
        36,
        25,
        0,
        11,
        0,
    );
    let app =
        yew::Renderer::<BadgeHarness>::with_root_and_props(r.clone(), BadgeHarnessProps { badge })
            .render();
    settle().await;
    let el = r.query_selector("[data-testid=verdict]").unwrap().unwrap();
    assert_eq!(
        el.get_attribute("data-verdict").as_deref(),
        Some("data-loss")
    );
    assert!(el.class_name().contains("badge-data-loss"));
    assert!(el.text_content().unwrap().contains("11 of 36 lost"));
    app.destroy();
}

#[wasm_bindgen_test]
async fn after_picking_a_preset_the_right_arrow_steps() {
    let (r, app) = mount("#preset=tablestore&seed=7&at=3");
    settle().await;
    let select: web_sys::HtmlSelectElement = find(&r, "#preset").dyn_into().unwrap();
    select.focus().unwrap();
    select.set_value("kafka-append");
    let change = web_sys::Event::new_with_event_init_dict("change", &{
        let init = web_sys::EventInit::new();
        init.set_bubbles(true);
        init
    })
    .unwrap();
    select.dispatch_event(&change).unwrap();
    settle().await;
    let active = gloo::utils::document().active_element();
    assert!(
        active.as_ref().is_none_or(|a| a.id() != "preset"),
        "the preset picker keeps the focus"
    );
    let before = text(&r, "[data-testid=step-count]");
    let init = KeyboardEventInit::new();
    init.set_key("ArrowRight");
    init.set_bubbles(true);
    let event = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    active
        .unwrap_or_else(|| gloo::utils::document().body().unwrap().into())
        .dispatch_event(&event)
        .unwrap();
    settle().await;
    assert!(text(&r, "[data-testid=lesson-title]").contains("append"));
    assert_ne!(text(&r, "[data-testid=step-count]"), before, "→ steps");
    app.destroy();
}

#[wasm_bindgen_test]
async fn a_shared_link_opens_its_tab_and_file() {
    let (r, app) = mount("#preset=kafka-append&seed=7&tab=checkpoint&file=offsets/1&at=40");
    settle().await;
    assert_eq!(
        find(&r, "[data-testid=tab-checkpoint]").get_attribute("aria-selected"),
        Some("true".into())
    );
    let mut s = preset("kafka-append").unwrap();
    s.seed = 7;
    let mut w = World::new(s);
    for _ in 0..40 {
        w.step();
    }
    let bytes = w
        .checkpoint
        .read("offsets/1")
        .expect("offsets/1 is written by event 40");
    let shown = text(&r, "[data-testid=file-text]");
    let last = String::from_utf8_lossy(bytes);
    assert!(shown.contains(last.lines().last().unwrap()), "{shown}");
    app.destroy();
}

/// The animations running on the current arrow's dot (`Element.getAnimations()`).
fn dot_animations(r: &web_sys::Element) -> u32 {
    let dot = find(r, "[data-testid=current-event] circle.dot");
    let get = js_sys::Reflect::get(&dot, &"getAnimations".into()).unwrap();
    let list = get
        .dyn_into::<js_sys::Function>()
        .unwrap()
        .call0(&dot)
        .unwrap();
    list.dyn_into::<js_sys::Array>().unwrap().length()
}

#[wasm_bindgen_test]
async fn the_dot_travels_after_a_pause_and_not_while_steps_come_fast() {
    let (r, app) = mount("#preset=kafka-append&seed=7&at=3");
    settle().await;
    yew::platform::time::sleep(std::time::Duration::from_millis(400)).await;
    click(&r, "#step");
    settle().await;
    assert_eq!(
        dot_animations(&r),
        1,
        "a step after a pause: the dot travels"
    );
    // The browser plays it; the dot is drawn where it ends, at the arrow's head.
    click(&r, "#step");
    settle().await;
    assert_eq!(
        dot_animations(&r),
        0,
        "a step before the last dot arrived: drawn at once"
    );
    app.destroy();
}
