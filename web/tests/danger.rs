//! The danger band in a real browser: its windows are the explorer's crash-anywhere map of the
//! run on screen, coloured by verdict; a bad run shows its anomalies and the moment its outcome
//! was sealed, and that moment's button seeks there.
#![cfg(target_arch = "wasm32")]

use batchscope_check::explore::map::MapMaker;
use batchscope_check::oracle::{check_world, Verdict};
use batchscope_check::why::explain;
use batchscope_engine::microbatch::scenario::{preset, Scenario};
use batchscope_view::microbatch::danger::{legend_word, verdict_color};
use batchscope_web::microbatch::components::danger_band::DangerBand;
use batchscope_web::microbatch::run::Run;
use batchscope_web::shell::Shared;
use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::JsCast;
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
    on_seek: Callback<usize>,
}

#[component]
fn Harness(props: &HarnessProps) -> Html {
    html! {
        <div style="width: 800px">
            <DangerBand run={props.run.clone()} cursor={props.cursor} on_seek={props.on_seek.clone()} />
        </div>
    }
}

/// The band of `scenario`'s run at `cursor`, drawn to its end; the cursor a seek asked for.
async fn band(
    scenario: Scenario,
    cursor: usize,
) -> (
    Element,
    yew::AppHandle<Harness>,
    Rc<Cell<usize>>,
    Shared<Run>,
) {
    use_stylesheet();
    let run = Shared(Rc::new(Run::compute(scenario, None)));
    let sought = Rc::new(Cell::new(usize::MAX));
    let on_seek = {
        let sought = sought.clone();
        Callback::from(move |to| sought.set(to))
    };
    let r = root();
    let app = yew::Renderer::<Harness>::with_root_and_props(
        r.clone(),
        HarnessProps {
            run: run.clone(),
            cursor,
            on_seek,
        },
    )
    .render();
    // A hang guard, not a speed test: the map is made in slices while the page paints.
    for _ in 0..3000 {
        settle().await;
        if find(&r, "[data-testid=danger]")
            .get_attribute("data-done")
            .as_deref()
            == Some("true")
            && (r
                .query_selector("[data-testid=danger-when]")
                .unwrap()
                .is_some()
                || r.query_selector("[data-testid=anomaly]").unwrap().is_none())
        {
            // Let the run's judgement (the last slice) land.
            yew::platform::time::sleep(Duration::from_millis(50)).await;
            settle().await;
            break;
        }
    }
    (r, app, sought, run)
}

/// The drawn windows: (from, to, verdict word, fill).
fn windows(r: &Element) -> Vec<(usize, usize, String, String)> {
    all(r, "[data-testid=danger-window]")
        .iter()
        .map(|w| {
            let attr = |a: &str| w.get_attribute(a).unwrap();
            (
                attr("data-from").parse().unwrap(),
                attr("data-to").parse().unwrap(),
                attr("data-verdict"),
                attr("fill"),
            )
        })
        .collect()
}

#[wasm_bindgen_test]
async fn the_band_is_the_explorers_map_coloured_by_verdict() {
    let s = preset("kafka-append").unwrap();
    let (r, app, _, run) = band(s.clone(), 0).await;
    let mut maker = MapMaker::over(&s, run.0.len());
    while maker.advance(usize::MAX) {}
    let map = maker.finish();
    let drawn = windows(&r);
    assert_eq!(drawn.len(), map.windows.len());
    for (d, w) in drawn.iter().zip(&map.windows) {
        assert_eq!(d.0 as u64, w.after.event);
        assert_eq!(d.1 as u64, w.last.event + 1);
        assert_eq!(d.2, legend_word(w.verdict));
        assert_eq!(d.3, verdict_color(w.verdict));
    }
    // Two known windows: a crash before batch 0's rows reach the sink, and one between the
    // sink's append and commits/0.
    let at = |event: usize| drawn.iter().find(|d| (d.0..d.1).contains(&event)).unwrap();
    assert_eq!(at(0).2, "exactly-once");
    assert_eq!(at(0).3, verdict_color(Some(Verdict::ExactlyOnce)));
    let dup = map
        .windows
        .iter()
        .find(|w| w.verdict == Some(Verdict::Duplicates))
        .expect("a duplicates window");
    let inside = at(dup.after.event as usize);
    assert_eq!(inside.2, "duplicates");
    assert_eq!(inside.3, verdict_color(Some(Verdict::Duplicates)));
    assert!(dup.span().contains("rows appended") && dup.span().contains("commits/0"));
    app.destroy();
}

#[wasm_bindgen_test]
async fn a_bad_run_names_its_anomaly_and_its_sealed_moment_seeks_there() {
    let mut s = preset("kafka-append").unwrap();
    s.crashes = vec!["sink-commit@3".parse().unwrap()];
    let (mut report, _) = check_world(&s, false);
    explain(&s, &mut report);
    let sealed = report.inevitable_at.clone().expect("a sealed moment");
    let (r, app, sought, _) = band(s, 10).await;
    let names: Vec<String> = all(&r, "[data-testid=anomaly]")
        .iter()
        .map(|a| a.get_attribute("data-name").unwrap())
        .collect();
    let want: Vec<&str> = report.anomalies.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, want);
    assert!(text(&r, "[data-testid=danger-when]").contains(&format!("#{}", sealed.event)));
    click(&r, "[data-testid=dg-sealed]");
    settle().await;
    assert_eq!(sought.get(), sealed.event as usize + 1);
    app.destroy();
}

#[wasm_bindgen_test]
async fn a_duplicated_keys_lane_has_two_bars_at_once() {
    let mut s = preset("kafka-append").unwrap();
    s.crashes = vec!["sink-commit@3".parse().unwrap()];
    let (report, _) = check_world(&s, false);
    let key = report.duplicate_keys[0];
    let (r, app, sought, _) = band(s, 10).await;
    let button = all(&r, "[data-testid=anomaly-key]")
        .into_iter()
        .find(|b| b.text_content().as_deref() == Some(key.to_string().as_str()))
        .expect("the duplicated key is a button");
    button.dyn_into::<web_sys::HtmlElement>().unwrap().click();
    settle().await;
    let lane = find(&r, "[data-testid=record-lane]");
    assert_eq!(lane.get_attribute("data-key"), Some(key.to_string()));
    let bars: Vec<(usize, usize)> = all(&r, "[data-testid=life-bar]")
        .iter()
        .map(|b| {
            let at = |a: &str| b.get_attribute(a).unwrap().parse::<usize>().unwrap();
            (at("data-from"), at("data-to"))
        })
        .collect();
    assert_eq!(bars.len(), 2, "{bars:?}");
    // Two copies at once: the second begins before the first ends.
    assert!(bars[1].0 < bars[0].1, "{bars:?}");
    // Each read of the key is a tick; a click goes to its moment.
    let reads = all(&r, "[data-testid=life-tick][data-kind=read]");
    assert_eq!(reads.len(), 2);
    // Each read's task wrote the key (two copies), and only the re-run's batch reached commits/3.
    assert_eq!(
        all(&r, "[data-testid=life-tick][data-kind=written]").len(),
        2
    );
    assert_eq!(
        all(&r, "[data-testid=life-tick][data-kind=commit-log]").len(),
        1
    );
    reads[1]
        .clone()
        .dyn_into::<web_sys::HtmlElement>()
        .unwrap()
        .click();
    settle().await;
    assert!(
        sought.get() > bars[0].0,
        "the re-run's read comes after the first copy"
    );
    app.destroy();
}
