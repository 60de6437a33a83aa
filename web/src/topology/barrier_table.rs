//! The transaction state of every barrier: per table PROCESSED / WRITTEN, globally PRECOMMIT /
//! COMMIT (FLIP-276, "Data Consistency Type"), and the snapshots of each table.

use crate::shell::Shared;
use batchscope_engine::barrier::{TableTxnState, TopologyWorld, TransactionState};
use yew::prelude::*;

/// Props of [`BarrierTable`].
#[derive(Properties, PartialEq)]
pub struct BarrierTableProps {
    /// The world on screen.
    pub world: Shared<TopologyWorld>,
}

/// Barriers × tables.
#[component]
pub fn BarrierTable(props: &BarrierTableProps) -> Html {
    let w = &*props.world;
    let tables: Vec<&str> = w.tables().iter().map(|t| t.name.as_str()).collect();
    if w.spec().no_barriers {
        return html! {
            <section class="card txn" data-testid="barrier-table">
                <h2>{ "Snapshots (no barriers)" }</h2>
                <p class="muted small">{ "Without global barriers there is no PRECOMMIT or COMMIT: each job's checkpoint ids count on their own, so snapshot N of one table and snapshot N of another hold different CDC prefixes." }</p>
                <table class="grid txn-grid">
                    <thead><tr><th>{ "table" }</th><th>{ "snapshots (id → own checkpoint)" }</th></tr></thead>
                    <tbody>
                        { for w.tables().iter().map(|t| html! {
                            <tr><td class="mono">{ &t.name }</td>
                                <td class="mono small">{ t.snapshots.iter().map(|s| format!("#{}→{}", s.snapshot.id, s.barrier)).collect::<Vec<_>>().join("  ") }</td></tr>
                        }) }
                    </tbody>
                </table>
            </section>
        };
    }
    let views = w.barriers();
    let per_checkpoint = w.spec().barriers_per_checkpoint;
    let cell = |s: TableTxnState| match s {
        TableTxnState::Pending => html! { <td class="tx-cell tx-pending">{ "pending" }</td> },
        TableTxnState::Processed => html! { <td class="tx-cell tx-processed">{ "PROCESSED" }</td> },
        TableTxnState::Written => html! { <td class="tx-cell tx-written">{ "WRITTEN" }</td> },
    };
    html! {
        <section class="card txn" data-testid="barrier-table">
            <h2>{ "Barriers as transactions" }
                <span class="muted small">{ " · PRECOMMIT = PROCESSED in all tables, COMMIT = WRITTEN in all" }</span></h2>
            <div class="txn-scroll">
            <table class="grid txn-grid">
                <thead><tr>
                    <th>{ "barrier" }</th>
                    { for tables.iter().map(|t| html! { <th class="mono" title={t.to_string()}>{ t.replace('_', "_\u{200b}") }</th> }) }
                    <th>{ "global" }</th>
                </tr></thead>
                <tbody>
                    if views.is_empty() {
                        <tr><td class="muted" colspan={(tables.len() + 2).to_string()}>{ "No barrier issued yet: the MetaService issues one every second." }</td></tr>
                    }
                    { for views.iter().rev().map(|v| html! {
                        <tr>
                            <td class="mono" title={format!("barrier {} belongs to checkpoint {} (<checkpoint, barrier>)", v.barrier, w.meta().checkpoint_of(v.barrier))}>
                                { format!("b{}", v.barrier) }
                                if per_checkpoint > 1 { <span class="muted small">{ format!(" · ckpt {}", w.meta().checkpoint_of(v.barrier)) }</span> }
                            </td>
                            { for v.tables.iter().map(|(_, s)| cell(*s)) }
                            { match v.state {
                                TransactionState::Open => html! { <td class="tx-cell tx-open">{ "open" }</td> },
                                TransactionState::Precommit => html! { <td class="tx-cell tx-precommit">{ "PRECOMMIT" }</td> },
                                TransactionState::Commit => html! { <td class="tx-cell tx-commit">{ "COMMIT" }</td> },
                            } }
                        </tr>
                    }) }
                    <tr class="snap-row">
                        <td class="muted small">{ "snapshots" }</td>
                        { for w.tables().iter().map(|t| html! {
                            <td class="mono small snaps">{ t.snapshots.iter().map(|s| format!("#{}→b{}", s.snapshot.id, s.barrier)).collect::<Vec<_>>().join(" ") }</td>
                        }) }
                        <td></td>
                    </tr>
                </tbody>
            </table>
            </div>
        </section>
    }
}
