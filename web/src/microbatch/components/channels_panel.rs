//! Channels: per channel its Tunnel status, the server-committed checkpoint, the start and end
//! positions of the batch in view, what is held in memory, and records arrived so far. A
//! source of many channels draws only the rows in the panel's view (see
//! [`batchscope_view::rows_in_view`]).

use crate::hooks::use_element_size;
use batchscope_engine::microbatch::source::SourceCounters;
use batchscope_view::microbatch::panels::ChannelRow;
use batchscope_view::rows_in_view::RowWindow;
use yew::prelude::*;

/// From this many channels on, rows have a fixed height and only those in view are drawn
/// (fewer are drawn whole, their cells free to wrap).
pub const WINDOWED_FROM: usize = 24;

/// Above the first row of a windowed panel: the batch line (one or two lines) and the table's
/// header, at most this many CSS pixels.
const HEAD_PX: f64 = 160.0;

/// Rows drawn beyond each edge of the view.
const MARGIN: usize = 3;

/// Where the panel is scrolled to, in whole rows (scrolling within a row draws nothing new),
/// and the height of a row as drawn (`.ch-fixed` rows are `--ch-row` high, in `em`, so the
/// presentation mode's larger text has taller rows); read from the page after layout.
#[derive(Clone, Copy, PartialEq)]
struct Scrolled {
    rows: u32,
    row_px: f64,
}

/// Reads how far `panel` is scrolled and how high its first drawn row is.
fn scrolled(panel: &web_sys::Element, was: Scrolled) -> Scrolled {
    let row_px = panel
        .query_selector(".ch-fixed tbody tr[aria-rowindex]")
        .ok()
        .flatten()
        .map(|row| row.get_bounding_client_rect().height())
        .filter(|h| *h > 0.0)
        .unwrap_or(was.row_px);
    Scrolled {
        rows: (f64::from(panel.scroll_top()) / row_px) as u32,
        row_px,
    }
}

/// Props of [`ChannelsPanel`].
#[derive(Properties, PartialEq)]
pub struct ChannelsPanelProps {
    /// One row per channel.
    pub rows: Vec<ChannelRow>,
    /// Whether the source keeps its positions in a Meta table (start/end are Meta rows).
    pub meta_rows: bool,
    /// Kafka-like: no Tunnel status or server checkpoints.
    pub kafka: bool,
    /// `batch 3 (in flight)` / `batch 4 (next)`.
    pub batch: String,
    /// The start offset, compact.
    pub start: String,
    /// The end offset, compact.
    pub end: String,
    /// Source costs.
    pub counters: SourceCounters,
    /// Whether to show the pull-ahead counters.
    pub pull_ahead: bool,
    /// The key of the row the step points at (see `batchscope_view::microbatch::focus`).
    #[prop_or_default]
    pub focus: Option<String>,
}

/// The Channels tab.
#[component]
pub fn ChannelsPanel(props: &ChannelsPanelProps) -> Html {
    let (start_h, end_h) = if props.meta_rows {
        ("start row", "end row")
    } else {
        ("start", "end")
    };
    let c = &props.counters;
    let panel = use_node_ref();
    let (_, view_px) = use_element_size(&panel);
    let len = props.rows.len();
    let windowed = len >= WINDOWED_FROM;
    let at = use_state_eq(|| Scrolled {
        rows: 0,
        row_px: 26.0,
    });
    let on_scroll = {
        let (panel, at) = (panel.clone(), at.clone());
        Callback::from(move |_: Event| {
            if let Some(el) = panel.cast::<web_sys::Element>() {
                at.set(scrolled(&el, *at));
            }
        })
    };
    {
        // The row height once drawn, and again when the panel's size changes (a window
        // resize, the presentation mode): not at each step.
        let (panel, at) = (panel.clone(), at.clone());
        use_effect_with((windowed, view_px.to_bits()), move |(windowed, _)| {
            if let Some(el) = panel.cast::<web_sys::Element>().filter(|_| *windowed) {
                at.set(scrolled(&el, *at));
            }
        });
    }
    let runs = if windowed {
        let pinned = props
            .focus
            .as_deref()
            .and_then(|f| props.rows.iter().position(|r| r.id == f));
        let window = RowWindow {
            row_px: at.row_px,
            head_px: HEAD_PX,
            margin: MARGIN,
        };
        window.runs(len, f64::from(at.rows) * at.row_px, view_px, pinned)
    } else {
        std::iter::once(0..len).collect()
    };
    let columns = if props.kafka { 5 } else { 7 };
    let gap = |key: String, rows: usize| {
        html! {
            <tr key={key} class="ch-gap" aria-hidden="true" style={format!("height:calc(var(--ch-row) * {rows})")}>
                <td colspan={columns.to_string()}></td>
            </tr>
        }
    };
    let mut body: Vec<Html> = Vec::new();
    let mut next = 0;
    for run in runs {
        if run.start > next {
            body.push(gap(format!("gap-{next}"), run.start - next));
        }
        body.extend(props.rows[run.clone()].iter().enumerate().map(|(i, r)| {
            let status = r.status.clone().unwrap_or_default();
            html! {
                <tr key={r.id.clone()} data-testid={format!("channel-{}", r.id)}
                    aria-rowindex={windowed.then(|| (run.start + i + 2).to_string())}
                    data-focus={(props.focus.as_deref() == Some(r.id.as_str())).then_some("true")}>
                    <td class="mono">
                        { &r.id }
                        if let Some(p) = &r.parent { <span class="muted small" title={format!("split from {p}")}>{ format!(" ←{p}") }</span> }
                    </td>
                    if !props.kafka {
                        <td><span class={classes!("status", format!("status-{}", status.to_ascii_lowercase()))}>{ &status }</span></td>
                        <td class="mono">{ r.server_checkpoint.clone().unwrap_or_default() }</td>
                    }
                    <td class="mono start-cell">{ &r.start }</td>
                    <td class="mono end-cell">{ &r.end }</td>
                    <td class="mono small">{ &r.in_memory }</td>
                    <td class="mono">{ format!("{} / {}", r.arrived, r.total) }</td>
                </tr>
            }
        }));
        next = run.end;
    }
    if len > next {
        body.push(gap(format!("gap-{next}"), len - next));
    }
    html! {
        <div role="tabpanel" tabindex="0" aria-labelledby="tab-channels" class="panel" data-testid="panel-channels"
             ref={panel} onscroll={on_scroll}>
            <div class="panel-sub">
                <span class="pill">{ &props.batch }</span>
                <span>{ "start " }<code>{ &props.start }</code></span>
                <span>{ "end " }<code>{ &props.end }</code></span>
            </div>
            <table class={classes!("grid", windowed.then_some("ch-fixed"))}
                   aria-rowcount={windowed.then(|| (len + 1).to_string())}>
                <thead><tr aria-rowindex={windowed.then_some("1")}>
                    <th>{ if props.kafka { "partition" } else { "channel" } }</th>
                    if !props.kafka { <th>{ "status" }</th><th title="Checkpoint committed to the Tunnel server (by source.commit)">{ "server" }</th> }
                    <th title="Position at the start of the batch in view">{ start_h }</th>
                    <th title="Position at the end of the batch in view">{ end_h }</th>
                    <th title="Volatile: lost on a crash">{ "in memory" }</th>
                    <th title="Records arrived upstream / total in the scenario">{ "arrived" }</th>
                </tr></thead>
                <tbody>{ for body }</tbody>
            </table>
            if props.kafka {
                <p class="muted small">{ "Spark never commits offsets to Kafka: the positions live in offsets/N of the checkpoint folder (Spark's Kafka integration guide: \"Kafka source doesn't commit any offset\")." }</p>
            }
            <div class="counters" data-testid="counters">
                <span>{ "rows read by tasks " }<b>{ c.rows_read_by_tasks }</b></span>
                if props.pull_ahead {
                    <span class="warn">{ "read ahead in getOffset " }<b>{ c.rows_read_ahead }</b></span>
                    <span>{ "cached now " }<b>{ c.rows_cached }</b></span>
                    <span>{ "cache peak " }<b>{ c.rows_cached_peak }</b></span>
                }
                if !props.kafka { <span>{ "ReadRecords calls " }<b>{ c.read_records_calls }</b></span> }
            </div>
        </div>
    }
}
