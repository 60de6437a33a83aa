//! The whole run at a glance, above the sequence diagram (which shows only the last events):
//! one button per batch coloured by what happened to it, its crashes and the tour's stops, the
//! batch the cursor is in; a click seeks to the batch's first event. A toggle switches to one
//! table row per batch (driver runs, rows, outcome, crash). Layout comes from
//! [`batchscope_view::microbatch::overview`]. The page has its second module draw it
//! (`super::minimap_host`): none of this is in the page's first load.

use super::danger_band::DangerBand;
use super::Shared;
use crate::hooks::use_element_size;
use crate::microbatch::run::Run;
use batchscope_view::microbatch::overview::{stops_by_mark, BatchMark, Outcome, Overview};
use batchscope_view::rows_in_view::RowWindow;
use std::ops::Range;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// From this many batches the marks are drawn only in and near the view of their scroll box
/// (two rows high): a thousand marks drawn whole cost the browser ~3 ms of every step to lay
/// out, layerise and paint, though only about sixty are in view.
pub const MARKS_WINDOWED_FROM: usize = 100;

/// Rows of marks drawn beyond each edge of the view.
const MARGIN_ROWS: usize = 2;

/// How the marks wrap, read from the page after layout (on mount, on a size change, on a
/// scroll): marks per row, the distance from one row's top to the next's, the gap between
/// rows, and the first row in view.
#[derive(Clone, Copy, PartialEq, Debug)]
struct Grid {
    per_row: usize,
    row_px: f64,
    gap_px: f64,
    first_row: usize,
}

/// Reads how the drawn marks of `host` wrap; `None` until two rows are drawn.
fn measure(host: &web_sys::Element) -> Option<Grid> {
    let marks = host.query_selector_all(".mm-mark").ok()?;
    let rect = |i: u32| {
        marks
            .get(i)?
            .dyn_into::<web_sys::Element>()
            .ok()
            .map(|e| e.get_bounding_client_rect())
    };
    let first = rect(0)?;
    // The drawn marks begin at a row's start: count those on the first one's line.
    let mut per_row = 1;
    while let Some(r) = rect(per_row) {
        if (r.top() - first.top()).abs() > 0.5 {
            let row_px = r.top() - first.top();
            return Some(Grid {
                per_row: per_row as usize,
                row_px,
                gap_px: (row_px - first.height()).max(0.0),
                first_row: (f64::from(host.scroll_top()) / row_px) as usize,
            });
        }
        per_row += 1;
    }
    None
}

/// Props of [`Minimap`].
#[derive(Properties, PartialEq)]
pub struct MinimapProps {
    /// The whole run.
    pub run: Shared<Run>,
    /// Events shown.
    pub cursor: usize,
    /// The guided tour's stops in this run (cursor, title); empty when the tour is off.
    #[prop_or_default]
    pub stops: Vec<(usize, String)>,
    /// Seek the page to this many events shown (a click on a batch).
    pub on_seek: Callback<usize>,
}

/// The outcomes, in legend order.
const OUTCOMES: [Outcome; 5] = [
    Outcome::Committed,
    Outcome::Rerun,
    Outcome::Crashed,
    Outcome::Failed,
    Outcome::Open,
];

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The tooltip of a batch: its outcome, crashes, tour stops, and what a click does.
fn title_of(m: &BatchMark, stops: &[String]) -> String {
    let mut t = m.aria_label();
    if !m.crash_names.is_empty() {
        t.push_str(&format!(" · crash {}", m.crash_names.join(", ")));
    }
    for s in stops {
        t.push_str(&format!(" · tour stop: {s}"));
    }
    t.push_str(&format!(
        " · events #{}–#{}",
        m.first_event,
        m.end_event - 1
    ));
    t.push_str(" · click to go to its first event");
    t
}

/// Props of [`MarkButton`].
#[derive(Properties, PartialEq)]
struct MarkProps {
    /// The run's overview (the same `Rc` for as long as the run is), compared by pointer: a
    /// deep compare in each of a thousand marks was the whole cost of a step at 1,000 batches.
    overview: Shared<Overview>,
    /// Which mark.
    index: usize,
    /// Whether the cursor is in this batch.
    here: bool,
    /// Whether the batch begins after the cursor.
    future: bool,
    /// How much of the batch is shown, in thousandths (0 unless `here`).
    fill: u16,
    /// The tour stops in this batch.
    stops: Vec<String>,
    /// Seek the page (a click).
    on_seek: Callback<usize>,
}

/// One batch of the minimap.
#[component]
fn MarkButton(props: &MarkProps) -> Html {
    let m = &props.overview.marks[props.index];
    let onclick = {
        let cb = props.on_seek.clone();
        let to = m.seek_cursor();
        Callback::from(move |_: MouseEvent| cb.emit(to))
    };
    html! {
        <button class={classes!("mm-mark", format!("ov-{}", m.outcome.class()),
                    props.here.then_some("mm-current"), props.future.then_some("mm-future"))}
            data-testid="minimap-mark" data-batch={m.batch_id.to_string()}
            aria-label={m.aria_label()} aria-current={props.here.then_some("step")}
            title={title_of(m, &props.stops)} onclick={onclick}>
            <span class="mm-id">{ m.short_label() }</span>
            if !m.crashes.is_empty() {
                <span class="mm-crash" aria-hidden="true">{ "✕" }</span>
            }
            if !props.stops.is_empty() {
                <span class="mm-stop" aria-hidden="true" data-testid="minimap-stop">{ "◆" }</span>
            }
            if props.here {
                <span class="mm-fill" style={format!("width:{:.1}%", f64::from(props.fill) / 10.0)}></span>
            }
        </button>
    }
}

/// Marks per [`MarkGroup`] (at most; a group is cut where the drawn marks end): a step builds
/// one group's props per 50 batches, not one mark's per batch, and re-renders only the groups
/// the step changed (the cursor's, and the one the cursor left or moved into).
const GROUP: usize = 50;

/// Props of [`MarkGroup`]: everything a step can change in the group is a number, so a group
/// the step did not touch compares equal and is skipped whole.
#[derive(Properties, PartialEq)]
struct GroupProps {
    /// The run's overview, compared by pointer.
    overview: Shared<Overview>,
    /// The tour stops of every mark, compared by pointer (made once per run and tour).
    stops: Shared<Vec<Vec<String>>>,
    /// The group's marks: `start..end`.
    start: usize,
    /// One past the group's last mark.
    end: usize,
    /// The mark the cursor is in, if it is in this group.
    here: Option<usize>,
    /// How much of that mark is shown, in thousandths (0 when `here` is `None`).
    fill: u16,
    /// The group's first mark still to come (`end` when every mark has begun).
    future_from: usize,
    /// Seek the page (a click).
    on_seek: Callback<usize>,
}

/// Consecutive marks of the minimap, drawn without an element of their own (the marks stay
/// children of the wrapping row).
#[component]
fn MarkGroup(props: &GroupProps) -> Html {
    let buttons = (props.start..props.end).map(|i| {
        let here = props.here == Some(i);
        html! {
            <MarkButton key={i} overview={props.overview.clone()} index={i} here={here}
                future={i >= props.future_from} fill={if here { props.fill } else { 0 }}
                stops={props.stops.0[i].clone()} on_seek={props.on_seek.clone()} />
        }
    });
    html! { <>{ for buttons }</> }
}

/// The minimap.
#[component]
pub fn Minimap(props: &MinimapProps) -> Html {
    let table = use_state(|| false);
    let overview = use_memo(props.run.clone(), |r| Overview::of(r.events()));
    let marks = &overview.marks;
    let cursor = props.cursor;
    let current = overview.current(cursor);
    let stops = Shared(use_memo(
        (Shared(overview.clone()), props.stops.clone()),
        |(o, stops)| stops_by_mark(&o.0.marks, stops),
    ));
    let crashes: usize = marks.iter().map(|m| m.crashes.len()).sum();
    // How the marks wrap (long runs only), measured after layout, never at a step.
    let host = use_node_ref();
    let (width, view_px) = use_element_size(&host);
    let grid = use_state_eq(|| None::<Grid>);
    {
        let (host, grid) = (host.clone(), grid.clone());
        let long = marks.len() >= MARKS_WINDOWED_FROM;
        use_effect_with(
            (long, *table, width.to_bits(), view_px.to_bits()),
            move |(long, table, _, _)| {
                if *long && !*table {
                    if let Some(el) = host.cast::<web_sys::Element>() {
                        grid.set(measure(&el).or(*grid));
                    }
                }
            },
        );
    }
    let on_scroll = {
        let (host, grid) = (host.clone(), grid.clone());
        Callback::from(move |_: Event| {
            if let (Some(el), Some(g)) = (host.cast::<web_sys::Element>(), *grid) {
                let first_row = (f64::from(el.scroll_top()) / g.row_px.max(1.0)) as usize;
                grid.set(Some(Grid { first_row, ..g }));
            }
        })
    };
    let seek = |m: &BatchMark| {
        let cb = props.on_seek.clone();
        let to = m.seek_cursor();
        Callback::from(move |_: MouseEvent| cb.emit(to))
    };
    let state_class = |i: usize, m: &BatchMark| {
        classes!(
            (current == Some(i)).then_some("mm-current"),
            (m.first_event >= cursor).then_some("mm-future"),
        )
    };
    let legend = OUTCOMES
        .iter()
        .filter(|o| marks.iter().any(|m| m.outcome == **o))
        .map(|o| {
            html! { <span class="mm-key"><i class={format!("ov-{}", o.class())}></i>{ o.text() }</span> }
        });
    let body = if *table {
        let rows = marks.iter().enumerate().map(|(i, m)| {
            let runs: Vec<String> = m.runs.iter().map(u32::to_string).collect();
            html! {
                <tr class={state_class(i, m)} data-testid="minimap-row">
                    <td><button class={classes!("mm-go", format!("ov-{}", m.outcome.class()))}
                        aria-label={format!("{} — go to its first event", m.aria_label())}
                        title={title_of(m, &stops.0[i])} onclick={seek(m)}>{ m.short_label() }</button></td>
                    <td>{ runs.join(", ") }</td>
                    <td class="num">{ m.rows }</td>
                    <td>{ m.outcome_text() }</td>
                    <td class="mm-crashcol">{ if m.crash_names.is_empty() { "—".to_string() } else { format!("✕ {}", m.crash_names.join(", ")) } }</td>
                </tr>
            }
        });
        html! {
            <div class="mm-table-wrap">
                <table class="mm-table" data-testid="minimap-table">
                    <thead><tr>
                        <th scope="col">{ "batch" }</th><th scope="col">{ "driver runs" }</th>
                        <th scope="col" class="num">{ "rows to the sink" }</th>
                        <th scope="col">{ "outcome" }</th><th scope="col">{ "crash" }</th>
                    </tr></thead>
                    <tbody>{ for rows }</tbody>
                </table>
            </div>
        }
    } else {
        // Marks in groups of `GROUP`: a step compares a few groups' numbers, and re-renders
        // only the marks whose state changed (the current one, the one the cursor left, one
        // that moved from future to past). A long run draws only the rows near the view (and
        // the current mark's row), with spacers of the skipped rows' height.
        let future_from = overview.future_from(cursor);
        let group = |range: Range<usize>| {
            let (start, end) = (range.start, range.end);
            let here = current.filter(|i| range.contains(i));
            let fill = here.map_or(0, |i| (marks[i].progress(cursor) * 1000.0).round() as u16);
            html! {
                <MarkGroup key={start} overview={Shared(overview.clone())} stops={stops.clone()}
                    start={start} end={end} here={here} fill={fill}
                    future_from={future_from.clamp(start, end)} on_seek={props.on_seek.clone()} />
            }
        };
        let windowed = (*grid).filter(|_| marks.len() >= MARKS_WINDOWED_FROM);
        let drawn: Vec<Range<usize>> = match windowed {
            Some(g) => {
                let rows = marks.len().div_ceil(g.per_row);
                let window = RowWindow {
                    row_px: g.row_px,
                    head_px: 0.0,
                    margin: MARGIN_ROWS,
                };
                window
                    .runs(
                        rows,
                        g.first_row as f64 * g.row_px,
                        view_px,
                        current.map(|i| i / g.per_row),
                    )
                    .into_iter()
                    .map(|r| r.start * g.per_row..(r.end * g.per_row).min(marks.len()))
                    .collect()
            }
            None => std::iter::once(0..marks.len()).collect(),
        };
        let mut children: Vec<Html> = Vec::new();
        let mut next = 0;
        // Only a windowed run skips marks, so only then is there a spacer to draw.
        let spacer = |g: Grid, from: usize, to: usize| {
            let rows = (to - from).div_ceil(g.per_row);
            html! {
                <div key={format!("gap-{from}")} class="mm-gap" aria-hidden="true"
                    style={format!("height:{:.1}px", rows as f64 * g.row_px - g.gap_px)}></div>
            }
        };
        for run in drawn {
            if let Some(g) = windowed.filter(|_| run.start > next) {
                children.push(spacer(g, next, run.start));
            }
            let mut start = run.start;
            while start < run.end {
                let end = ((start / GROUP + 1) * GROUP).min(run.end);
                children.push(group(start..end));
                start = end;
            }
            next = run.end;
        }
        if let Some(g) = windowed.filter(|_| marks.len() > next) {
            children.push(spacer(g, next, marks.len()));
        }
        html! {
            <div class="mm-marks" role="group" ref={host.clone()} onscroll={on_scroll}
                aria-label={format!("Batches of the run ({} marks; the table lists every batch)", marks.len())}>
                { for children }
            </div>
        }
    };
    let on_toggle = use_callback(table.clone(), |_: MouseEvent, table| table.set(!**table));
    html! {
        <section class="minimap" data-testid="minimap" aria-label="The whole run, batch by batch">
            <div class="mm-head">
                <span class="mm-title">{ "Whole run" }</span>
                <span class="mm-sum">
                    { format!("{} · {}", plural(marks.len(), "batch", "batches"), plural(crashes, "crash", "crashes")) }
                </span>
                <span class="mm-legend">{ for legend }</span>
                <button class="mm-toggle" data-testid="minimap-toggle" aria-pressed={(*table).to_string()}
                    onclick={on_toggle}
                    title="Switch between one mark per batch and one table row per batch">
                    { if *table { "▦ Marks" } else { "☰ Table" } }
                </button>
            </div>
            <DangerBand run={props.run.clone()} cursor={cursor} on_seek={props.on_seek.clone()} />
            { body }
        </section>
    }
}
