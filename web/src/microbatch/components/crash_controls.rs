//! Faults: arm a crash point (NAME@batch) on an upcoming step or a failure inside a batch
//! (KIND@batch: a task attempt fails, the foreachBatch function throws, the checkpoint folder is
//! deleted), see and remove the armed ones and the crash-now inputs, or try the lesson's
//! suggested crash.

use crate::microbatch::state::Action;
use crate::shell::release_focus;
use crate::shell::PlayerCmd;
use batchscope_engine::microbatch::scenario::{CrashKind, CrashPoint};
use batchscope_engine::microbatch::scenario::{Fault, FaultKind};
use wasm_bindgen::JsCast;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// An armed crash point and where it fires in this run.
#[derive(Clone, Debug, PartialEq)]
pub struct ArmedCrash {
    /// The point.
    pub point: CrashPoint,
    /// Sequence number of its `Crashed` event, if the run reaches it.
    pub fires_at: Option<u64>,
}

/// Props of [`CrashControls`].
#[derive(Properties, PartialEq)]
pub struct CrashControlsProps {
    /// Armed crash points.
    pub armed: Vec<ArmedCrash>,
    /// Failures inside a batch, the scenario's own included.
    pub faults: Vec<Fault>,
    /// Crash-now inputs (the driver dies after event #n).
    pub crash_after_events: Vec<u64>,
    /// Events shown.
    pub cursor: usize,
    /// Batch suggested in the batch field (the batch in view).
    pub batch_hint: u64,
    /// The lesson's suggested crash.
    pub suggestion: Option<String>,
    /// What the suggestion leads to.
    pub suggestion_outcome: String,
    /// Every intent.
    pub on_action: Callback<Action>,
}

/// The fault card.
#[component]
pub fn CrashControls(props: &CrashControlsProps) -> Html {
    let kind = use_state(|| CrashKind::SinkCommit);
    let batch = use_state(|| None::<String>);
    let batch_text = (*batch)
        .clone()
        .unwrap_or_else(|| props.batch_hint.to_string());
    let on_kind = {
        let kind = kind.clone();
        Callback::from(move |e: Event| {
            if let Some(k) = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlSelectElement>().ok())
                .and_then(|s| CrashKind::from_name(&s.value()))
            {
                kind.set(k);
            }
            release_focus(&e);
        })
    };
    let on_batch = {
        let batch = batch.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(i) = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
            {
                batch.set(Some(i.value()));
            }
        })
    };
    let on_arm = {
        let cb = props.on_action.clone();
        let kind = *kind;
        let text = batch_text.clone();
        Callback::from(move |_: MouseEvent| match text.trim().parse::<u64>() {
            Ok(batch_id) => cb.emit(Action::ArmCrash(CrashPoint { kind, batch_id })),
            Err(_) => cb.emit(
                PlayerCmd::Notify(format!(
                    "crash point batch: `{text}` is not a batch id (a whole number ≥ 0)."
                ))
                .into(),
            ),
        })
    };
    let fault_kind = use_state(|| FaultKind::TaskFail);
    let on_fault_kind = {
        let fault_kind = fault_kind.clone();
        Callback::from(move |e: Event| {
            if let Some(k) = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlSelectElement>().ok())
                .and_then(|s| FaultKind::from_name(&s.value()))
            {
                fault_kind.set(k);
            }
            release_focus(&e);
        })
    };
    let on_arm_fault = {
        let cb = props.on_action.clone();
        let kind = *fault_kind;
        let text = batch_text.clone();
        Callback::from(move |_: MouseEvent| match text.trim().parse::<u64>() {
            Ok(batch_id) => cb.emit(Action::ArmFault(Fault { kind, batch_id })),
            Err(_) => cb.emit(
                PlayerCmd::Notify(format!(
                    "fault batch: `{text}` is not a batch id (a whole number ≥ 0)."
                ))
                .into(),
            ),
        })
    };
    let suggestion = props.suggestion.as_ref().and_then(|s| {
        let point: CrashPoint = s.parse().ok()?;
        let armed = props.armed.iter().any(|a| a.point == point);
        let cb = props.on_action.clone();
        Some(html! {
            <div class="suggest">
                <button class="suggest-btn" data-testid="try-crash" disabled={armed}
                        onclick={Callback::from(move |_| cb.emit(Action::ArmCrash(point)))}>
                    { if armed { format!("✓ {s} armed") } else { format!("Try: arm {s}") } }
                </button>
                <span class="suggest-text">{ format!("→ {}", props.suggestion_outcome) }</span>
            </div>
        })
    });
    html! {
        <section class="card faults" aria-label="Crash and recovery">
            <div class="card-head">
                <h2>{ "Crash & recovery" }</h2>
                <div class="arm">
                    <select data-testid="arm-kind" aria-label="crash point" onchange={on_kind}>
                        { for CrashKind::ALL.iter().map(|k| html! {
                            <option value={k.name()} selected={*k == *kind}>{ k.name() }</option>
                        }) }
                    </select>
                    <span class="at">{ "@" }</span>
                    <input data-testid="arm-batch" class="arm-batch" type="text" inputmode="numeric"
                           aria-label="batch" value={batch_text} oninput={on_batch} />
                    <button data-testid="arm" onclick={on_arm}
                            title="Crash the driver when the run reaches this step of this batch">{ "Arm" }</button>
                </div>
                <div class="arm">
                    <select data-testid="arm-fault-kind" aria-label="fault" onchange={on_fault_kind}>
                        { for FaultKind::ALL.iter().map(|k| html! {
                            <option value={k.name()} selected={*k == *fault_kind}>{ k.name() }</option>
                        }) }
                    </select>
                    <button data-testid="arm-fault" onclick={on_arm_fault}
                            title="A failure inside this batch: a task attempt fails, the foreachBatch function throws, or the checkpoint folder is deleted after it">{ "Arm fault" }</button>
                </div>
            </div>
            { for suggestion }
            <div class="armed" data-testid="armed">
                if props.armed.is_empty() && props.crash_after_events.is_empty() && props.faults.is_empty() {
                    <span class="muted">{ "No crash armed: the run is failure-free (except sink outages)." }</span>
                }
                { for props.armed.iter().enumerate().map(|(i, a)| {
                    let cb = props.on_action.clone();
                    let status = match a.fires_at {
                        Some(seq) if (seq as usize) < props.cursor => format!("fired at #{seq}"),
                        Some(seq) => format!("fires at #{seq}"),
                        None => "not reached".to_string(),
                    };
                    html! {
                        <span class={classes!("chip", "chip-crash", a.fires_at.is_none().then_some("chip-dim"))}
                              data-testid="armed-crash">
                            <b>{ a.point.to_string() }</b>
                            <span class="chip-note">{ status }</span>
                            <button class="chip-x" title="Remove" aria-label="Remove"
                                    onclick={Callback::from(move |_| cb.emit(Action::DisarmCrash(i)))}>{ "×" }</button>
                        </span>
                    }
                }) }
                { for props.faults.iter().enumerate().map(|(i, f)| {
                    let cb = props.on_action.clone();
                    html! {
                        <span class="chip chip-crash" data-testid="armed-fault">
                            <b>{ f.to_string() }</b>
                            <button class="chip-x" title="Remove" aria-label="Remove"
                                    onclick={Callback::from(move |_| cb.emit(Action::DisarmFault(i)))}>{ "×" }</button>
                        </span>
                    }
                }) }
                { for props.crash_after_events.iter().enumerate().map(|(i, n)| {
                    let cb = props.on_action.clone();
                    html! {
                        <span class="chip chip-crash" data-testid="crash-now-input">
                            <b>{ format!("crash after #{n}") }</b>
                            <button class="chip-x" title="Remove" aria-label="Remove"
                                    onclick={Callback::from(move |_| cb.emit(Action::RemoveCrashNow(i)))}>{ "×" }</button>
                        </span>
                    }
                }) }
            </div>
        </section>
    }
}
