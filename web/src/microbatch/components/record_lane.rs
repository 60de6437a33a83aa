//! A lane per record, under the danger band (both drawn by the page's second module): the
//! life of one key across the run on screen (`batchscope_view::microbatch::life`) on the same
//! axis as the band — when it arrived upstream, each task read of it, the failures between,
//! and each copy the sink showed as a bar (a duplicate is two bars at once). A tick is a
//! button to its moment.

use super::strip::pct;
use super::Shared;
use crate::microbatch::run::Run;
use batchscope_engine::microbatch::upstream::RowKey;
use batchscope_view::microbatch::life::{life_of, TickKind};
use yew::prelude::*;

/// Props of [`RecordLane`].
#[derive(Properties, PartialEq)]
pub struct RecordLaneProps {
    /// The run on screen.
    pub run: Shared<Run>,
    /// The key followed.
    pub key_followed: RowKey,
    /// Events shown.
    pub cursor: usize,
    /// Seek the page to this many events shown.
    pub on_seek: Callback<usize>,
    /// Stop following the key.
    pub on_close: Callback<()>,
}

/// Height of one bar's row, px.
const ROW_PX: usize = 9;

/// Height of one row of ticks, px: the reads and failures above, the sink's side below.
const TICK_ROW_PX: usize = 12;

/// Height of the ticks' two rows above the bars, px.
const TICKS_PX: usize = 2 * TICK_ROW_PX + 2;

/// The lane's node, scrolled into sight whenever `key` changes: a key picked elsewhere on the
/// page (a Sink panel's chip) brings its lane into view.
#[hook]
fn use_in_sight(key: RowKey) -> NodeRef {
    let lane = use_node_ref();
    {
        let lane = lane.clone();
        use_effect_with(key, move |_| {
            if let Some(lane) = lane.cast::<web_sys::Element>() {
                let options = web_sys::ScrollIntoViewOptions::new();
                options.set_block(web_sys::ScrollLogicalPosition::Nearest);
                lane.scroll_into_view_with_scroll_into_view_options(&options);
            }
        });
    }
    lane
}

/// The lane.
#[component]
pub fn RecordLane(props: &RecordLaneProps) -> Html {
    let life = use_memo((props.run.clone(), props.key_followed), |(run, key)| {
        life_of(&run.0.scenario, run.0.len(), *key)
    });
    let n = life.events;
    // Each bar on the first row free at its start: two copies at once sit on two rows.
    let mut rows_end: Vec<usize> = vec![];
    let placed: Vec<usize> = life
        .bars
        .iter()
        .map(|b| {
            let row = rows_end.iter().position(|&end| end <= b.from);
            let row = row.unwrap_or_else(|| {
                rows_end.push(0);
                rows_end.len() - 1
            });
            rows_end[row] = b.to;
            row
        })
        .collect();
    let rows = rows_end.len().max(1);
    let bars = life.bars.iter().zip(&placed).map(|(b, row)| {
        let title = format!(
            "{}: in the sink from #{} {}",
            life.key,
            b.from,
            match b.ended {
                Some(why) => format!("until #{} ({why})", b.to),
                None => "to the end".to_string(),
            }
        );
        html! {
            <span class={classes!("lf-bar", (*row > 0).then_some("lf-extra"))} data-testid="life-bar" data-from={b.from.to_string()}
                data-to={b.to.to_string()} title={title}
                style={format!("left:{};width:{};top:{}px", pct(b.from as f64, n),
                    pct((b.to - b.from) as f64, n), TICKS_PX + row * ROW_PX)}></span>
        }
    });
    let ticks = life.ticks.iter().map(|t| {
        let cb = props.on_seek.clone();
        let to = t.at + 1;
        let (glyph, _) = t.kind.glyph_and_word();
        let row = t.kind.row();
        html! {
            <button class={classes!("lf-tick", format!("lf-{}", t.kind.name()))} data-testid="life-tick"
                data-kind={t.kind.name()} style={format!("left:{};top:{}px", pct(t.at as f64 + 0.5, n), row * TICK_ROW_PX)}
                title={format!("#{}: {}", t.at, t.text)} aria-label={format!("#{}: {}", t.at, t.text)}
                onclick={Callback::from(move |_: MouseEvent| cb.emit(to))}>{ glyph }</button>
        }
    });
    let copies = life.most_copies();
    let on_close = props.on_close.reform(|_: MouseEvent| ());
    let lane = use_in_sight(props.key_followed);
    html! {
        <div class="lf" ref={lane} data-testid="record-lane" data-key={life.key.to_string()}>
            <div class="dg-head">
                <span class="dg-title">{ format!("Record {}", life.key) }</span>
                <span class="dg-sum" title="Above: the record's moments (a click goes there). Below: a bar per copy of it in the sink, from the event that made it visible.">{ format!(
                    "{} reads · {} · {}",
                    life.ticks_of(TickKind::Read).count(),
                    match copies { 0 => "never in the sink".to_string(), 1 => "one copy at most".to_string(), c => format!("{c} copies at once") },
                    TickKind::legend()
                ) }</span>
                <button class="dg-go" onclick={on_close} aria-label="Stop following this record">{ "✕" }</button>
            </div>
            <div class="lf-track" style={format!("height:{}px", TICKS_PX + rows * ROW_PX)}>
                { for bars }
                { for ticks }
                <span class="dg-cursor" style={format!("left:{}", pct(props.cursor as f64, n))}></span>
            </div>
        </div>
    }
}
