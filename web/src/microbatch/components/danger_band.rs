//! The danger band, under the minimap (both drawn by the page's second module): for the run on
//! screen, what one more driver crash right after each event would lead to, one colour per
//! verdict, each window named by the protocol steps on either side
//! (`batchscope_check::explore::map`, the explorer's crash-anywhere map); what a crash *now*
//! would do; and, for a bad run, why: its anomalies with the events that prove them and the
//! moments its outcome was sealed and last avoidable (`batchscope_check::why`), each a button
//! to that moment; a key of an anomaly, or of the Sink panel, opens its lane
//! (`super::record_lane`). Its marks on the page's own parts: `super::danger_marks`.
//!
//! A verdict per event is a run to the end per event: the map is made in slices of a few
//! milliseconds, between which the page paints and takes input.

use super::danger_marks::{sealed_sentence, use_key_chips, use_row_marks, SealedLine};
use super::record_lane::RecordLane;
use super::strip::pct;
use super::Shared;
use crate::microbatch::run::Run;
use crate::shell::now_ms;
use batchscope_check::anomaly::when_text;
use batchscope_check::explore::map::{DangerMap, MapMaker};
use batchscope_check::oracle::{check_world, Report, Verdict};
use batchscope_check::why::{explain, proof_text};
use batchscope_engine::microbatch::event::Event;
use batchscope_engine::microbatch::upstream::RowKey;
use batchscope_view::microbatch::danger::{
    legend, legend_word, stretches, verdict_color, Stretch, MAX_BAND_EVENTS,
};
use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;
use yew::prelude::*;

/// A slice's budget: well under a long task (50 ms), and a frame's worth of work.
const SLICE_MS: f64 = 14.0;

/// How often the band drawn so far is drawn again while it is being made.
const DRAW_EVERY_MS: f64 = 60.0;

/// How far the map of the run on screen is.
#[derive(Clone, Debug, PartialEq)]
pub struct DangerState {
    /// The windows found so far (of the first [`DangerState::done`] events).
    pub map: Option<Rc<DangerMap>>,
    /// Events with a verdict.
    pub done: usize,
    /// Events of the run.
    pub total: usize,
    /// Milliseconds from the start of the map to its last slice (the band's whole making,
    /// paints between slices included).
    pub elapsed_ms: f64,
    /// The run's judgement with its anomalies and moments, once the map is done (a bad run's).
    pub why: Option<Rc<Report>>,
}

/// Makes the danger map of `run` in slices, from scratch whenever the run changes; nothing
/// for a run longer than [`MAX_BAND_EVENTS`].
#[hook]
pub fn use_danger_map(run: &Shared<Run>) -> DangerState {
    let total = run.0.len();
    let empty = move || DangerState {
        map: None,
        done: 0,
        total,
        elapsed_ms: 0.0,
        why: None,
    };
    let state = use_state_eq(empty);
    {
        let state = state.clone();
        use_effect_with(run.clone(), move |run| {
            // Nothing of the run before stays on screen (its windows, its moments, its length).
            state.set(empty());
            let going = Rc::new(Cell::new(total <= MAX_BAND_EVENTS));
            if going.get() {
                let scenario = run.0.scenario.clone();
                let flag = going.clone();
                yew::platform::spawn_local(make_in_slices(scenario, total, state, flag));
            }
            move || going.set(false)
        });
    }
    (*state).clone()
}

/// Lets the page run its other tasks (paint, input, timers) before the next slice: one message
/// through a `MessageChannel`, which, unlike a zero timeout, the browser does not delay by
/// 4 ms once timeouts nest.
async fn yield_to_page() {
    let Ok(channel) = web_sys::MessageChannel::new() else {
        yew::platform::time::sleep(Duration::ZERO).await;
        return;
    };
    let port = channel.port1();
    let promise = js_sys::Promise::new(&mut |resolve, _| port.set_onmessage(Some(&resolve)));
    if channel
        .port2()
        .post_message(&wasm_bindgen::JsValue::NULL)
        .is_err()
    {
        yew::platform::time::sleep(Duration::ZERO).await;
        return;
    }
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    port.set_onmessage(None);
}

/// The map of the first `total` events of `scenario`'s run, shown in `state` after each
/// slice, while `going` holds; then the run's judgement, explained if it is bad.
async fn make_in_slices(
    scenario: batchscope_engine::microbatch::scenario::Scenario,
    total: usize,
    state: UseStateHandle<DangerState>,
    going: Rc<Cell<bool>>,
) {
    let started = now_ms();
    let mut maker = MapMaker::over(&scenario, total);
    let mut more = true;
    let mut shown = None;
    let mut drawn_at = started;
    while more {
        // Yield first: the page paints (and takes input) between slices.
        yield_to_page().await;
        if !going.get() {
            return;
        }
        // One event at a time: a crash's run to the end costs from microseconds to a
        // millisecond, so the slice ends close to its budget.
        let slice = now_ms();
        while more && now_ms() - slice < SLICE_MS {
            more = maker.advance(1);
        }
        // The band drawn so far, a few times a second (each drawing costs the slices time).
        if !more || now_ms() - drawn_at >= DRAW_EVERY_MS {
            drawn_at = now_ms();
            let now = DangerState {
                map: Some(Rc::new(maker.finish())),
                done: maker.done(),
                total,
                elapsed_ms: now_ms() - started,
                why: None,
            };
            state.set(now.clone());
            shown = Some(now);
        }
    }
    yew::platform::time::sleep(Duration::ZERO).await;
    if !going.get() {
        return;
    }
    let (mut report, _) = check_world(&scenario, false);
    if report.verdict != Verdict::ExactlyOnce {
        explain(&scenario, &mut report);
    }
    if let Some(shown) = shown {
        state.set(DangerState {
            why: Some(Rc::new(report)),
            ..shown
        });
    }
}

/// Props of [`DangerBand`].
#[derive(Properties, PartialEq)]
pub struct DangerBandProps {
    /// The run on screen.
    pub run: Shared<Run>,
    /// Events shown.
    pub cursor: usize,
    /// Seek the page to this many events shown.
    pub on_seek: Callback<usize>,
}

/// The window a crash right now goes in: after the last event shown.
fn now_text(stretches: &[Stretch], cursor: usize) -> String {
    let Some(last) = cursor.checked_sub(1) else {
        return "step once to place a crash".to_string();
    };
    stretches
        .iter()
        .find(|s| (s.from..s.to).contains(&last))
        .map_or_else(
            || "…".to_string(),
            |s| format!("a crash now, after #{last}: {}", legend_word(s.verdict)),
        )
}

/// The band's windows, one rect each, over `0..n` events.
fn windows(stretches: &[Stretch]) -> Html {
    let rects = stretches.iter().map(|s| {
        html! {
            <rect x={s.from.to_string()} y="0" width={format!("{}.02", s.to - s.from)} height="10"
                fill={verdict_color(s.verdict)} data-testid="danger-window"
                data-from={s.from.to_string()} data-to={s.to.to_string()}
                data-verdict={legend_word(s.verdict)}>
                <title>{ &s.title }</title>
            </rect>
        }
    });
    html! { <>{ for rects }</> }
}

/// The legend: the verdicts the band holds.
fn legend_keys(stretches: &[Stretch]) -> Html {
    let keys = legend(stretches).into_iter().map(|v| {
        html! {
            <span class="mm-key"><i style={format!("background:{}", verdict_color(v))}></i>{ legend_word(v) }</span>
        }
    });
    html! { <span class="mm-legend">{ for keys }</span> }
}

/// A bad run's two moments on the band: ⚑ where its outcome was sealed, ◇ the last moment it
/// was still avoidable; a click goes there.
fn moments(report: &Report, n: usize, on_seek: &Callback<usize>) -> Html {
    let moment = |event: u64, glyph: &'static str, class: &'static str, what: String| {
        let to = event as usize + 1;
        html! {
            <button class={classes!("dg-moment", class)} style={format!("left:{}", pct(event as f64 + 0.5, n))}
                title={what.clone()} aria-label={what} data-testid={class}
                onclick={on_seek.reform(move |_: MouseEvent| to)}>{ glyph }</button>
        }
    };
    let sealed = report.inevitable_at.as_ref().map(|m| {
        let what = format!(
            "#{}: from here on the outcome ({}) is sealed",
            m.event,
            report.verdict.name()
        );
        moment(m.event, "⚑", "dg-sealed", what)
    });
    let open = report.avoidable_until.as_ref().map(|m| {
        let what = format!(
            "#{}: the last moment the outcome was still avoidable",
            m.event
        );
        moment(m.event, "◇", "dg-open", what)
    });
    html! { <>{ for sealed }{ for open }</> }
}

/// The band: the windows, the cursor, and a bad run's two moments.
#[component]
pub fn DangerBand(props: &DangerBandProps) -> Html {
    let state = use_danger_map(&props.run);
    let followed = use_state(|| None::<RowKey>);
    {
        // A new run: the key followed may not be in it.
        let followed = followed.clone();
        use_effect_with(props.run.clone(), move |_| followed.set(None));
    }
    let on_follow = {
        let followed = followed.clone();
        Callback::from(move |key: Option<RowKey>| followed.set(key))
    };
    let stretches = use_memo(state.map.clone(), |m| {
        m.as_ref().map(|m| stretches(m)).unwrap_or_default()
    });
    // The band's marks on the page's own parts: the diagram's row numbers, the Sink's keys.
    use_row_marks(stretches.clone());
    use_key_chips(on_follow.reform(Some));
    let n = state.total;
    if n > MAX_BAND_EVENTS {
        return html! {
            <div class="dg" data-testid="danger">
                <span class="dg-title">{ "If the driver crashed here" }</span>
                <span class="dg-sum">{ format!(
                    "{n} events: too long a run to map here (batchscope explore --every-event --map maps any run)"
                ) }</span>
            </div>
        };
    }
    let done = state.done >= n;
    let why = state.why.clone();
    let sealed = why
        .as_deref()
        .and_then(|r| sealed_sentence(r, props.run.0.events(), props.cursor));
    html! {
        <div class="dg" data-testid="danger" data-done={done.to_string()}
            data-ms={done.then(|| format!("{:.0}", state.elapsed_ms))}>
            <div class="dg-head">
                <span class="dg-title" title="The verdict one more driver crash right after each event would lead to (the explorer's crash-anywhere map); the strip left of the diagram's rows has the same colours">
                    { "If the driver crashed here" }</span>
                <span class="dg-now" data-testid="danger-now">{
                    if done { now_text(&stretches, props.cursor) }
                    else { format!("mapping… {} of {n} events", state.done) }
                }</span>
                { legend_keys(&stretches) }
            </div>
            <div class="dg-track">
                <svg class="dg-cells" viewBox={format!("0 0 {} 10", n.max(1))} preserveAspectRatio="none">
                    { windows(&stretches) }
                </svg>
                <span class="dg-cursor" style={format!("left:{}", pct(props.cursor as f64, n))}></span>
                { for why.as_deref().map(|r| moments(r, n, &props.on_seek)) }
            </div>
            <SealedLine text={sealed} />
            if let Some(key) = *followed {
                <RecordLane run={props.run.clone()} key_followed={key} cursor={props.cursor}
                    on_seek={props.on_seek.clone()} on_close={on_follow.reform(|()| None)} />
            }
            if let Some(report) = why.filter(|r| r.verdict != Verdict::ExactlyOnce) {
                <WhyLines report={report} run={props.run.clone()} on_seek={props.on_seek.clone()}
                    on_follow={on_follow.reform(Some)} />
            }
        </div>
    }
}

/// Props of [`WhyLines`].
#[derive(Properties, PartialEq)]
struct WhyProps {
    report: Rc<Report>,
    run: Shared<Run>,
    on_seek: Callback<usize>,
    /// Follow a key in its lane.
    on_follow: Callback<RowKey>,
}

/// A bad run's anomalies (each with its proof and a button to its first event) and when its
/// outcome was sealed: one line that opens to the whole story (the diagram keeps its room).
#[component]
fn WhyLines(props: &WhyProps) -> Html {
    let events: &[Event] = props.run.0.events();
    let go = |event: u64| {
        let cb = props.on_seek.clone();
        Callback::from(move |_: MouseEvent| cb.emit(event as usize + 1))
    };
    let count = |n: usize| {
        if n == 1 {
            "1 key".to_string()
        } else {
            format!("{n} keys")
        }
    };
    let lines = props.report.anomalies.iter().map(|a| {
        let keys = a.keys.iter().take(8).map(|k| {
            let key = *k;
            html! {
                <button class="dg-key" data-testid="anomaly-key" title={format!("Follow {key} in its lane")}
                    onclick={props.on_follow.reform(move |_: MouseEvent| key)}>{ key.to_string() }</button>
            }
        });
        let more = a.keys.len().saturating_sub(8);
        html! {
            <li data-testid="anomaly" data-name={a.name.as_str()}>
                <b>{ a.name.as_str() }</b>
                { format!(": {} ", count(a.keys.len())) }
                { for keys }
                { format!("{} ({})", if more > 0 { format!(" … +{more}") } else { String::new() },
                    proof_text(a, events)) }
                if let Some(first) = a.events.first() {
                    <button class="dg-go" onclick={go(*first)}>{ format!("go to #{first}") }</button>
                }
            </li>
        }
    });
    let names: Vec<String> = props
        .report
        .anomalies
        .iter()
        .map(|a| format!("{} ({})", a.name.as_str(), count(a.keys.len())))
        .collect();
    let sealed = props
        .report
        .inevitable_at
        .as_ref()
        .map(|m| format!(" · sealed at #{}", m.event))
        .unwrap_or_default();
    html! {
        <details class="dg-why" data-testid="danger-why">
            <summary>{ format!("Why: {}{sealed}", names.join(", ")) }</summary>
            <ul>{ for lines }</ul>
            if let Some(when) = when_text(
                props.report.inevitable_at.as_ref(),
                props.report.avoidable_until.as_ref(),
                events,
            ) {
                <p data-testid="danger-when">{ format!("When: {when}.") }</p>
            }
        </details>
    }
}
