//! The Channels panel in a real browser: with many channels it draws only the rows in its view
//! (and the row a tour stop points at), spacers keep every row's place, and scrolling draws
//! the rows that come into view; with few channels it draws them all.
#![cfg(target_arch = "wasm32")]

use batchscope_engine::microbatch::source::SourceCounters;
use batchscope_view::microbatch::panels::ChannelRow;
use batchscope_web::microbatch::components::{ChannelsPanel, WINDOWED_FROM};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement};
use yew::prelude::*;

mod common;

use common::*;

wasm_bindgen_test_configure!(run_in_browser);

#[derive(Properties, PartialEq)]
struct HarnessProps {
    channels: usize,
    focus: Option<String>,
}

#[component]
fn Harness(props: &HarnessProps) -> Html {
    let rows: Vec<ChannelRow> = (0..props.channels)
        .map(|i| ChannelRow {
            id: format!("ch{i}"),
            parent: None,
            status: Some("OPEN".into()),
            server_checkpoint: Some(format!("t:{i}")),
            start: i.to_string(),
            end: (i + 3).to_string(),
            in_memory: "—".into(),
            arrived: i as u64,
            total: 100,
        })
        .collect();
    html! {
        <section class="card panels" style="height: 240px; width: 600px">
            <ChannelsPanel rows={rows} meta_rows={false} kafka={false} batch="batch 1"
                start="{}" end="{}" counters={SourceCounters::default()} pull_ahead={false}
                focus={props.focus.clone()} />
        </section>
    }
}

fn drawn(r: &Element) -> Vec<usize> {
    all(r, "tbody tr[data-testid^=channel-]")
        .iter()
        .map(|e| {
            e.get_attribute("data-testid").unwrap()["channel-ch".len()..]
                .parse()
                .unwrap()
        })
        .collect()
}

fn mount_panel(channels: usize, focus: Option<&str>) -> (Element, yew::AppHandle<Harness>) {
    use_stylesheet();
    let r = root();
    let app = yew::Renderer::<Harness>::with_root_and_props(
        r.clone(),
        HarnessProps {
            channels,
            focus: focus.map(str::to_string),
        },
    )
    .render();
    (r, app)
}

/// The panel's view is covered by drawn rows from its top (or the first row) to its bottom (or
/// the last of `len` rows).
fn view_is_covered(r: &Element, len: usize) {
    let panel = find(r, "[data-testid=panel-channels]");
    let view = panel.get_bounding_client_rect();
    let rows = all(r, "tbody tr[data-testid^=channel-]");
    let first = rows.first().unwrap().get_bounding_client_rect();
    let last = rows.last().unwrap().get_bounding_client_rect();
    assert!(
        first.top() <= view.top() + 1.0 || drawn(r)[0] == 0,
        "the first drawn row starts at or above the view's top (or is the first row)"
    );
    assert!(
        last.bottom() >= view.bottom() - 1.0 || drawn(r).last() == Some(&(len - 1)),
        "the drawn rows reach the view's bottom ({} < {}): {:?}, scrolled to {} of {}",
        last.bottom(),
        view.bottom(),
        drawn(r),
        panel.scroll_top(),
        panel.scroll_height()
    );
}

#[wasm_bindgen_test]
async fn many_channels_draw_the_rows_in_view_and_keep_their_places() {
    let (r, app) = mount_panel(64, None);
    settle().await;
    settle().await;
    let shown = drawn(&r);
    assert!(shown.len() < 40, "{} of 64 rows drawn", shown.len());
    assert_eq!(shown, (0..shown.len()).collect::<Vec<_>>());
    view_is_covered(&r, 64);
    // The spacer stands for the rows not drawn: the table is as tall as 64 rows.
    let row_h = find(&r, "tbody tr[data-testid=channel-ch0]")
        .get_bounding_client_rect()
        .height();
    let body_h = find(&r, "tbody").get_bounding_client_rect().height();
    assert!(
        (body_h - 64.0 * row_h).abs() < 2.0,
        "tbody {body_h}px for 64 rows of {row_h}px"
    );
    assert_eq!(
        find(&r, "table").get_attribute("aria-rowcount").as_deref(),
        Some("65")
    );

    // Scrolled to the end: the last rows are drawn, the first are not.
    let panel: HtmlElement = find(&r, "[data-testid=panel-channels]").dyn_into().unwrap();
    panel.set_scroll_top(panel.scroll_height());
    panel
        .dispatch_event(&web_sys::Event::new("scroll").unwrap())
        .unwrap();
    settle().await;
    let shown = drawn(&r);
    assert!(shown.contains(&63), "{shown:?}");
    assert!(!shown.contains(&0), "{shown:?}");
    view_is_covered(&r, 64);
    let row63 = find(&r, "tbody tr[data-testid=channel-ch63]");
    assert_eq!(row63.get_attribute("aria-rowindex").as_deref(), Some("65"));
    app.destroy();
}

#[wasm_bindgen_test]
async fn the_row_a_stop_points_at_is_drawn_wherever_it_is() {
    let (r, app) = mount_panel(64, Some("ch60"));
    settle().await;
    settle().await;
    let shown = drawn(&r);
    assert!(shown.contains(&0) && shown.contains(&60), "{shown:?}");
    assert!(shown.len() < 40, "{shown:?}");
    let focused = find(&r, "[data-focus]");
    assert_eq!(
        focused.get_attribute("data-testid").as_deref(),
        Some("channel-ch60")
    );
    // In its place: below the spacer of the rows between.
    let ch0 = find(&r, "tbody tr[data-testid=channel-ch0]").get_bounding_client_rect();
    let ch60 = focused.get_bounding_client_rect();
    assert!(
        (ch60.top() - ch0.top() - 60.0 * ch0.height()).abs() < 2.0,
        "row 60 at {} (row 0 at {}, {}px a row)",
        ch60.top(),
        ch0.top(),
        ch0.height()
    );
    app.destroy();
}

#[wasm_bindgen_test]
async fn few_channels_are_all_drawn() {
    let few = WINDOWED_FROM - 1;
    let (r, app) = mount_panel(few, None);
    settle().await;
    settle().await;
    assert_eq!(drawn(&r), (0..few).collect::<Vec<_>>());
    assert!(r.query_selector(".ch-gap").unwrap().is_none());
    app.destroy();
}
