//! The sequence diagram: the source's own lanes (seven for Tablestore, six without a Meta table), the last events as arrows (current one highlighted and
//! animated), batch and restart separators, crashes in red. Laid out at the pixel size of its
//! pane and drawn unscaled, so its text keeps its CSS size on every screen.

use crate::hooks::{use_dot_travel, use_element_size, use_travel_ms, TRAVEL_SAMPLES};
use batchscope_engine::microbatch::event::{Actor, Event, EventKind};
use batchscope_engine::microbatch::scenario::SourceKind;
use batchscope_view::microbatch::geometry::{
    clamp_label_x, ease_in_out, fmt, lane_index, Arrow, Layout,
};
use batchscope_view::microbatch::labels::arrow_label_for;
use batchscope_view::microbatch::palette::{actor_color, actor_title_for, CRASH};
use yew::prelude::*;

/// Props of [`SequenceDiagram`].
#[derive(Properties, PartialEq)]
pub struct SequenceDiagramProps {
    /// The events in the window, oldest first; the last one is the current event.
    pub events: Vec<Event>,
    /// Events shown in all (the cursor), which keys the animation.
    pub cursor: usize,
    /// How long the current arrow's dot takes to travel (0 = no animation).
    pub animate_ms: f64,
    /// The scenario's source, whose own lanes the diagram draws (`Actor::lanes_for`).
    pub source: SourceKind,
    /// Fail an actor now: a click on the driver's, the sink's or the tasks' lane head (none: not
    /// clickable).
    #[prop_or_default]
    pub on_fail: Option<Callback<Actor>>,
}

/// What a click on a lane's head fails now, for the lanes that have one.
fn fails(actor: Actor) -> Option<&'static str> {
    match actor {
        Actor::Driver => Some("Click: the driver crashes now (as ✕ Crash now)"),
        Actor::Sink => Some("Click: the sink's store goes down now, for two trigger intervals"),
        Actor::Tasks => Some("Click: a task attempt of the batch in flight fails (task-fail)"),
        _ => None,
    }
}

fn separator(e: &Event) -> Option<(String, bool)> {
    match &e.kind {
        EventKind::TriggerFired { batch_id } => Some((format!("batch {batch_id}"), false)),
        EventKind::QueryStarted { created, .. } => Some(if *created {
            (format!("driver starts · run {}", e.run), false)
        } else {
            (format!("driver restarts · run {}", e.run), true)
        }),
        _ => None,
    }
}

/// A batch's or a restart's line across the diagram, at `y`, `w` wide.
fn separator_line((label, restart): (String, bool), y: f64, w: f64) -> Html {
    html! {
        <g class={classes!("sep", restart.then_some("sep-restart"))}>
            <line x1="0" y1={fmt(y)} x2={fmt(w)} y2={fmt(y)} />
            <text x={fmt(w - 4.0)} y={fmt(y + 11.0)} text-anchor="end">{ label }</text>
        </g>
    }
}

fn is_alarm(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Crashed { .. }
            | EventKind::QueryFailed { .. }
            | EventKind::SinkWriteFailed { .. }
            | EventKind::CheckpointWriteRejected { .. }
            | EventKind::DriverStalled { .. }
            | EventKind::DriverLostLogRace { .. }
    )
}

fn marker_id(from: Actor, alarm: bool) -> String {
    if alarm {
        "ah-crash".into()
    } else {
        format!("ah-{}", lane_index(from))
    }
}

/// Props of [`ArrowDot`].
#[derive(Properties, PartialEq)]
struct ArrowDotProps {
    /// The current arrow.
    arrow: Arrow,
    /// Its colour.
    color: &'static str,
    /// Events shown (keys the animation).
    cursor: usize,
    /// How long the dot takes to travel (0 = drawn at the head).
    animate_ms: f64,
}

/// The dot travelling along the current arrow, drawn at its head; the browser moves it there
/// from the tail after each step (see [`use_dot_travel`]), without re-rendering anything.
#[component]
fn ArrowDot(props: &ArrowDotProps) -> Html {
    let dot = use_node_ref();
    let (hx, hy) = props.arrow.point_at(1.0);
    let offsets = (0..=TRAVEL_SAMPLES)
        .map(|k| {
            let (x, y) = props
                .arrow
                .point_at(ease_in_out(k as f64 / TRAVEL_SAMPLES as f64));
            (x - hx, y - hy)
        })
        .collect();
    use_dot_travel(&dot, props.cursor, offsets, props.animate_ms);
    html! { <circle ref={dot} class="dot" cx={fmt(hx)} cy={fmt(hy)} r="5" fill={props.color} /> }
}

/// One lane: its head (a button that fails the actor now, for the driver, the sink and the
/// tasks), its title and its lifeline down to `h`.
fn lane(a: Actor, layout: &Layout, h: f64, props: &SequenceDiagramProps) -> Html {
    let x = layout.lane_x(a);
    let (t1, t2) = actor_title_for(a, props.source);
    let color = actor_color(a);
    let bw = layout.lane_w() - 8.0;
    let fail = fails(a).zip(props.on_fail.as_ref());
    let actor = a;
    html! {
        <g class={classes!("lane", fail.is_some().then_some("lane-fail"))} data-lane={a.label_for(props.source)}
            role={fail.map(|_| "button")} tabindex={fail.map(|_| "0")}
            onclick={fail.map(|(_, cb)| cb.reform(move |_: MouseEvent| actor))}
            onkeydown={fail.map(|(_, cb)| {
                let cb = cb.clone();
                Callback::from(move |e: KeyboardEvent| if e.key() == "Enter" { cb.emit(actor) })
            })}>
            <line class="lifeline" x1={fmt(x)} y1={fmt(layout.header_h - 4.0)} x2={fmt(x)} y2={fmt(h)} stroke={color} />
            <rect class="lane-head" x={fmt(x - bw / 2.0)} y="4" width={fmt(bw)} height={fmt(layout.header_h - 10.0)} rx="7"
                  stroke={color} />
            <rect x={fmt(x - bw / 2.0)} y="4" width="4" height={fmt(layout.header_h - 10.0)} rx="2" fill={color} />
            <text class="lane-title" x={fmt(x + 2.0)} y={if t2.is_empty() { "27" } else { "21" }} text-anchor="middle">{ t1 }</text>
            if !t2.is_empty() {
                <text class="lane-title lane-sub" x={fmt(x + 2.0)} y="35" text-anchor="middle">{ t2 }</text>
            }
            <title>{ match fail {
                Some((what, _)) => format!("{} · {what}", a.label_for(props.source)),
                None => a.label_for(props.source).to_string(),
            } }</title>
        </g>
    }
}

/// The diagram.
#[component]
pub fn SequenceDiagram(props: &SequenceDiagramProps) -> Html {
    let pane = use_node_ref();
    let (pane_w, pane_h) = use_element_size(&pane);
    let travel_ms = use_travel_ms(props.cursor, props.animate_ms);
    let layout = Layout::fitted(pane_w, pane_h).with_lanes(Actor::lanes_for(props.source));
    let w = layout.width;
    let h = layout.height();
    // The newest events that fit.
    let shown = &props.events[props.events.len().saturating_sub(layout.rows as usize)..];
    let n = shown.len();
    let markers = Actor::ALL
        .iter()
        .map(|a| (marker_id(*a, false), actor_color(*a)))
        .chain(std::iter::once(("ah-crash".to_string(), CRASH)));
    let lanes = layout.lanes.iter().map(|a| lane(*a, &layout, h, props));
    let rows = shown.iter().enumerate().map(|(i, e)| {
        // Each row is drawn at the top row's place and moved by a transform: as the window
        // slides one event per step, a kept row changes one attribute.
        let shift = layout.row_top(i as u32) - layout.row_top(0);
        let row = 0;
        let current = i + 1 == n;
        let (from, to) = e.kind.lanes_for(props.source);
        let alarm = is_alarm(&e.kind);
        let color = if alarm { CRASH } else { actor_color(from) };
        let y_top = layout.row_top(row);
        let sep = separator(e).map(|sep| separator_line(sep, y_top, w));
        let label = arrow_label_for(&e.kind, props.source);
        let body = if let EventKind::Crashed { .. } = e.kind {
            let y = layout.row_y(row);
            html! {
                <g class="crash">
                    <rect x="0" y={fmt(y_top + 2.0)} width={fmt(w)} height={fmt(layout.row_h - 4.0)} rx="4" class="crash-band" />
                    <line x1={fmt(layout.lane_x(Actor::Driver))} y1={fmt(y)} x2={fmt(layout.lane_x(Actor::Sink))} y2={fmt(y)} class="crash-line" />
                    <text class="crash-x" x={fmt(layout.lane_x(Actor::Driver))} y={fmt(y + 6.0)} text-anchor="middle">{ "✕" }</text>
                    <text class="arrow-label crash-label" x={fmt(w / 2.0)} y={fmt(y - 5.0)} text-anchor="middle">
                        { format!("{label} — the driver dies; durable state stays") }
                    </text>
                </g>
            }
        } else {
            let arrow = layout.arrow(from, to, row);
            let (lx, ly, anchor) = arrow.label_anchor();
            let lx = clamp_label_x(lx, anchor, &label, w);
            let dot = current.then(|| {
                html! { <ArrowDot arrow={arrow.clone()} color={color} cursor={props.cursor}
                                  animate_ms={travel_ms} /> }
            });
            html! {
                <g class={classes!("arrow", alarm.then_some("arrow-alarm"))}>
                    <path d={arrow.path_d()} stroke={color} fill="none"
                          class={classes!("arrow-line", arrow.self_loop.then_some("arrow-self"))}
                          marker-end={format!("url(#{})", marker_id(from, alarm))} />
                    <text class="arrow-label" x={fmt(lx)} y={fmt(ly)} text-anchor={anchor}>{ label }</text>
                    { for dot }
                </g>
            }
        };
        html! {
            <g class={classes!("row", current.then_some("row-current"))} key={e.seq.to_string()}
               transform={format!("translate(0 {})", fmt(shift))}
               data-testid={if current { "current-event" } else { "event" }} data-seq={e.seq.to_string()}>
                if current {
                    <rect class="current-band" x="0" y={fmt(y_top + 1.0)} width={fmt(w)} height={fmt(layout.row_h - 2.0)} rx="5" />
                }
                { for sep }
                // The danger band's verdict after this event, coloured by `danger_marks`.
                <rect class="seq-dg" x="0" y={fmt(y_top)} width="3" height={fmt(layout.row_h)} />
                <text class="seq" x="3" y={fmt(layout.row_y(row) + 4.0)}>{ format!("#{}", e.seq) }</text>
                { body }
            </g>
        }
    });
    html! {
        <div class="seq-wrap" ref={pane} tabindex="0" role="region" aria-label="Sequence diagram, the newest events">
        <svg class={classes!("seq-diagram", (w < 700.0).then_some("seq-narrow"))} id="sequence" data-testid="sequence"
             viewBox={format!("0 0 {} {}", fmt(w), fmt(h))} width={fmt(w)} height={fmt(h)}
             role="group" aria-label="Sequence diagram of the last events (the driver, Sink and tasks lane heads fail them now)">
            <defs>
                { for markers.map(|(id, color)| html! {
                    <marker id={id} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                        <path d="M0,0 L10,5 L0,10 z" fill={color} />
                    </marker>
                }) }
            </defs>
            { for lanes }
            // The rows in a group of their own: a keyed list only when every sibling has a key
            // (mixed with the lanes, rows were matched by position and, their keys differing,
            // all drawn again at every step).
            <g class="rows">{ for rows }</g>
            if n == 0 {
                <text class="empty-hint" x={fmt(w / 2.0)} y={fmt(layout.row_y(3))} text-anchor="middle">
                    { "Press ▶| (or →) to perform the first step, ▶ (or space) to play." }
                </text>
            }
        </svg>
        </div>
    }
}
