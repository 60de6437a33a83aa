//! Faults in Topology mode: fail a job after a barrier is PRECOMMIT (FLIP-276's roll-back
//! point, `--fail JOB@B`) or right now, revise a WRITTEN barrier of a table, and the list of
//! recorded faults (each removable). Recorded, so step back and replay stay exact.

use super::state::TopoAction;
use batchscope_engine::barrier::Fault;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// Props of [`TopoFaults`].
#[derive(Properties, PartialEq)]
pub struct TopoFaultsProps {
    /// Job names.
    pub jobs: Vec<String>,
    /// Table names.
    pub tables: Vec<String>,
    /// Barriers of the run.
    pub barriers: u64,
    /// Whether barriers are off (no revision then).
    pub no_barriers: bool,
    /// Recorded faults.
    pub faults: Vec<Fault>,
    /// Each recorded fault in words, for this topology (when it strikes relative to PRECOMMIT).
    pub fault_texts: Vec<String>,
    /// The failures the topology ships with, in words (part of the preset: not removable).
    #[prop_or_default]
    pub own_texts: Vec<String>,
    /// Every intent.
    pub on_action: Callback<TopoAction>,
}

fn value_of(node: &NodeRef) -> String {
    node.cast::<HtmlSelectElement>()
        .map(|s| s.value())
        .unwrap_or_default()
}

/// The fault card.
#[component]
pub fn TopoFaults(props: &TopoFaultsProps) -> Html {
    let job = use_node_ref();
    let barrier = use_node_ref();
    let table = use_node_ref();
    let rbarrier = use_node_ref();
    let fail_at = {
        let (cb, job, barrier) = (props.on_action.clone(), job.clone(), barrier.clone());
        Callback::from(move |_: MouseEvent| {
            if let Ok(b) = value_of(&barrier).parse() {
                cb.emit(TopoAction::FailAfterPrecommit(value_of(&job), b));
            }
        })
    };
    let fail_now = {
        let (cb, job) = (props.on_action.clone(), job.clone());
        Callback::from(move |_: MouseEvent| cb.emit(TopoAction::FailNow(value_of(&job))))
    };
    let revise = {
        let (cb, table, rbarrier) = (props.on_action.clone(), table.clone(), rbarrier.clone());
        Callback::from(move |_: MouseEvent| {
            if let Ok(b) = value_of(&rbarrier).parse() {
                cb.emit(TopoAction::ReviseNow(value_of(&table), b));
            }
        })
    };
    let default_job = props
        .jobs
        .iter()
        .position(|j| j == "price_job" || j == "sum_job")
        .unwrap_or(0);
    html! {
        <section class="card faults topo-faults" data-testid="topo-faults">
            <div class="arm">
                <span class="field-label">{ "fail" }</span>
                <select ref={job} data-testid="fault-job" aria-label="Job to fail">
                    { for props.jobs.iter().enumerate().map(|(i, j)| html! { <option value={j.clone()} selected={i == default_job}>{ j }</option> }) }
                </select>
                <span class="at">{ "@" }</span>
                <select ref={barrier} class="arm-batch" data-testid="fault-barrier" aria-label="Barrier">
                    { for (1..=props.barriers).map(|b| html! { <option value={b.to_string()} selected={b == 2}>{ format!("b{b}") }</option> }) }
                </select>
                <button class="danger" data-testid="fail-after-precommit" onclick={fail_at}
                        title="The job fails after this barrier is PRECOMMIT (PROCESSED in all tables) and before its table WROTE the snapshot (a table other jobs read fails after PROCESSED, before PRECOMMIT: PRECOMMIT waits for its snapshot): Read Committed rolls back in every query that read the lost barrier, Repeatable Read does not">
                    { "Fail after PRECOMMIT" }</button>
                <button data-testid="fail-now" onclick={fail_now} title="The job fails right after the step on screen">{ "now" }</button>
            </div>
            if !props.no_barriers {
                <div class="arm">
                    <span class="field-label">{ "revise" }</span>
                    <select ref={table} data-testid="revise-table" aria-label="Table to revise">
                        { for props.tables.iter().map(|t| html! { <option value={t.clone()}>{ t }</option> }) }
                    </select>
                    <span class="at">{ "@" }</span>
                    <select ref={rbarrier} class="arm-batch" data-testid="revise-barrier" aria-label="Barrier revised">
                        { for (1..=props.barriers).map(|b| html! { <option value={b.to_string()} selected={b == 1}>{ format!("b{b}") }</option> }) }
                    </select>
                    <button data-testid="revise-now" onclick={revise}
                            title="Revise this WRITTEN barrier: each corrected row the topology ships for it replaces the barrier's row with the same key, the other rows are kept (without corrected rows: the same data); the table and everything downstream roll back to the checkpoint before it and recompute. Read Committed and Repeatable Read both see the roll-back.">
                        { "Revise now" }</button>
                </div>
            }
            { own_chips(&props.own_texts) }
            if !props.faults.is_empty() {
                <div class="armed">
                    { for props.fault_texts.iter().enumerate().map(|(i, text)| {
                        let cb = props.on_action.clone();
                        html! {
                            <span class="chip chip-crash" data-testid="topo-fault">
                                { text }
                                <button class="chip-x" title="Remove this fault" aria-label="Remove"
                                        onclick={Callback::from(move |_| cb.emit(TopoAction::RemoveFault(i)))}>{ "×" }</button>
                            </span>
                        }
                    }) }
                </div>
            }
        </section>
    }
}

/// The failures the topology ships with, as chips without a remove button.
fn own_chips(texts: &[String]) -> Html {
    if texts.is_empty() {
        return html! {};
    }
    html! {
        <div class="armed" data-testid="topo-own-faults">
            { for texts.iter().map(|text| html! {
                <span class="chip chip-crash" title="This topology's own failure (part of the preset)">{ text }</span>
            }) }
        </div>
    }
}
