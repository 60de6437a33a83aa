//! The timeline: every event of the run coloured by batch, crash / failure / re-run / commit
//! marks, the guided tour's stops, batch labels, and a scrubber. A long run is drawn in a few
//! hundred columns ([`Strip`]), once per run.

use crate::microbatch::state::Action;
use crate::shell::PlayerCmd;
use batchscope_view::microbatch::palette::batch_color;
use batchscope_view::microbatch::strip::{Mark, Strip};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Props of [`BatchStrip`].
#[derive(Properties, PartialEq)]
pub struct BatchStripProps {
    /// What the timeline draws of the whole run (the same `Rc` for as long as the run is).
    pub strip: Rc<Strip>,
    /// Events shown.
    pub cursor: usize,
    /// The guided tour's stops in this run (cursor, title); empty when the tour is off.
    #[prop_or_default]
    pub stops: Vec<(usize, String)>,
    /// Every intent.
    pub on_action: Callback<Action>,
}

/// Event `i` of `n` as a CSS percentage across the run (the timeline's, the danger band's and
/// a record lane's x).
pub(super) fn pct(i: f64, n: usize) -> String {
    format!("{:.3}%", if n == 0 { 0.0 } else { i * 100.0 / n as f64 })
}

/// Props of [`StripCells`] and [`StripLabels`].
#[derive(Properties, PartialEq)]
struct StripProps {
    strip: Rc<Strip>,
}

/// The run's columns and marks: drawn once per run, never on a step (its props do not change).
#[component]
fn StripCells(props: &StripProps) -> Html {
    let n = props.strip.len;
    let rects = props.strip.columns.iter().map(|c| {
        let class = if c.alarm {
            "tl-cell tl-alarm"
        } else {
            "tl-cell"
        };
        html! {
            <rect class={class} x={c.start.to_string()} y="0" width={format!("{}.02", c.len)}
                  height="10" fill={batch_color(c.batch)} />
        }
    });
    let marks = props.strip.marks.iter().map(|(i, mark)| {
        let (class, glyph, title) = match mark {
            Mark::Crash => ("tl-mark tl-crash", "✕", "driver crash"),
            Mark::Failed => ("tl-mark tl-failed", "!", "sink write failed"),
            _ => ("tl-mark tl-rerun", "↻", "re-run decided on restart"),
        };
        html! {
            <span class={class} style={format!("left:{}", pct(*i as f64 + 0.5, n))}
                  title={format!("#{i}: {title}")}>{ glyph }</span>
        }
    });
    html! {
        <>
            <svg class="tl-cells" viewBox={format!("0 0 {} 10", n.max(1))} preserveAspectRatio="none" aria-hidden="true">
                { for rects }
            </svg>
            { for marks }
        </>
    }
}

/// The batch labels above the track, drawn once per run.
#[component]
fn StripLabels(props: &StripProps) -> Html {
    let n = props.strip.len;
    let labels = props.strip.labels.iter().map(|s| {
        html! {
            <span class={classes!("tl-label", s.label.ends_with('′').then_some("tl-label-rerun"))}
                  style={format!("left:{}", pct(s.index as f64, n))}
                  title={format!("batch {} starts at #{}", s.batch, s.index)}>{ &s.label }</span>
        }
    });
    html! { <>{ for labels }</> }
}

/// The scrubbable timeline. A step changes only the cursor, the veil over the events not shown
/// yet, and the tour stops reached; the run's columns and labels stay as they are.
#[component]
pub fn BatchStrip(props: &BatchStripProps) -> Html {
    let n = props.strip.len;
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
    let stops = props.stops.iter().enumerate().map(|(i, (c, title))| {
        html! {
            <span class={classes!("tl-stop", (*c <= props.cursor).then_some("tl-stop-reached"))}
                  style={format!("left:{}", pct(*c as f64, n))} data-testid="timeline-stop"
                  title={format!("Tour stop {}: {title}", i + 1)}></span>
        }
    });
    let ahead = n.saturating_sub(props.cursor);
    html! {
        <div class="timeline" data-testid="timeline">
            <div class="tl-labels">
                <span class="tl-caption">{ "batch" }</span>
                <StripLabels strip={props.strip.clone()} />
            </div>
            <div class="tl-track">
                <StripCells strip={props.strip.clone()} />
                if ahead > 0 {
                    <span class="tl-future" aria-hidden="true"
                          style={format!("left:{};right:0", pct(props.cursor as f64, n))}></span>
                }
                { for stops }
                <span class="tl-cursor" style={format!("left:{}", pct(props.cursor as f64, n))}></span>
                <input class="tl-range" type="range" min="0" max={n.to_string()} step="1"
                       value={props.cursor.to_string()} oninput={on_input}
                       data-testid="timeline-range" aria-label="Scrub through the run" />
            </div>
        </div>
    }
}
