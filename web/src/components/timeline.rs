//! The timeline: every event of the run coloured by batch, crash / failure / re-run / commit
//! marks, the guided tour's stops, batch labels, and a scrubber.

use crate::shell::PlayerCmd;
use crate::state::Action;
use batchscope_view::palette::batch_color;
use batchscope_view::timeline::{BatchStart, Cell, Mark};
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Props of [`Timeline`].
#[derive(Properties, PartialEq)]
pub struct TimelineProps {
    /// One cell per event of the run.
    pub cells: Vec<Cell>,
    /// Where batches (and re-runs) begin.
    pub starts: Vec<BatchStart>,
    /// Events shown.
    pub cursor: usize,
    /// The guided tour's stops in this run (cursor, title); empty when the tour is off.
    #[prop_or_default]
    pub stops: Vec<(usize, String)>,
    /// Every intent.
    pub on_action: Callback<Action>,
}

fn pct(i: f64, n: usize) -> String {
    format!("{:.3}%", if n == 0 { 0.0 } else { i * 100.0 / n as f64 })
}

/// The scrubbable timeline.
#[component]
pub fn Timeline(props: &TimelineProps) -> Html {
    let n = props.cells.len();
    let on_input = {
        let cb = props.on_action.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(v) = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
                .and_then(|i| i.value().parse::<usize>().ok())
            {
                cb.emit(PlayerCmd::Seek(v).into());
            }
        })
    };
    let rects = props.cells.iter().enumerate().map(|(i, c)| {
        let class = match c.mark {
            Mark::Crash | Mark::Failed => "tl-cell tl-alarm",
            _ if i >= props.cursor => "tl-cell tl-future",
            _ => "tl-cell",
        };
        html! { <rect class={class} x={i.to_string()} y="0" width="1.02" height="10" fill={batch_color(c.batch)} /> }
    });
    let marks = props.cells.iter().enumerate().filter_map(|(i, c)| {
        let (class, glyph, title) = match c.mark {
            Mark::Crash => ("tl-mark tl-crash", "✕", "driver crash"),
            Mark::Failed => ("tl-mark tl-failed", "!", "sink write failed"),
            Mark::Rerun => ("tl-mark tl-rerun", "↻", "re-run decided on restart"),
            _ => return None,
        };
        Some(html! {
            <span class={class} style={format!("left:{}", pct(i as f64 + 0.5, n))}
                  title={format!("#{i}: {title}")}>{ glyph }</span>
        })
    });
    let stops = props.stops.iter().enumerate().map(|(i, (c, title))| {
        html! {
            <span class={classes!("tl-stop", (*c <= props.cursor).then_some("tl-stop-reached"))}
                  style={format!("left:{}", pct(*c as f64, n))} data-testid="timeline-stop"
                  title={format!("Tour stop {}: {title}", i + 1)}></span>
        }
    });
    let labels = props.starts.iter().map(|s| {
        html! {
            <span class={classes!("tl-label", s.label.ends_with('′').then_some("tl-label-rerun"))}
                  style={format!("left:{}", pct(s.index as f64, n))}
                  title={format!("batch {} starts at #{}", s.batch, s.index)}>{ &s.label }</span>
        }
    });
    html! {
        <div class="timeline" data-testid="timeline">
            <div class="tl-labels">
                <span class="tl-caption">{ "batch" }</span>
                { for labels }
            </div>
            <div class="tl-track">
                <svg class="tl-cells" viewBox={format!("0 0 {} 10", n.max(1))} preserveAspectRatio="none" aria-hidden="true">
                    { for rects }
                </svg>
                { for marks }
                { for stops }
                <span class="tl-cursor" style={format!("left:{}", pct(props.cursor as f64, n))}></span>
                <input class="tl-range" type="range" min="0" max={n.to_string()} step="1"
                       value={props.cursor.to_string()} oninput={on_input}
                       data-testid="timeline-range" aria-label="Scrub through the run" />
            </div>
        </div>
    }
}
