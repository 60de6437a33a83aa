//! The declared query (avgPrice for `shopping`) at the step on screen under a chosen level and
//! consistency: rows, the barrier each table was read at, a consistent / mixes-barriers badge,
//! and the history of its value so a roll-back is visible; with several named queries (the
//! FLIP's Query1/2/3) all of them side by side at the same moment, so Strong's agreement and
//! Weak's disagreements show.

use super::state::TopoAction;
use crate::shell::Shared;
use batchscope_check::topology::{disagree, value_text};
use batchscope_engine::barrier::{Consistency, QueryResult, ReadLevel, TopologyWorld};
use batchscope_view::topology::{
    after_event, consistency_short, history_caption, level_title, query_sql, ratio_text,
    rolled_back, value_changes, HistoryPoint,
};
use yew::prelude::*;

/// Props of [`QueryPanel`].
#[derive(Properties, PartialEq)]
pub struct QueryPanelProps {
    /// The world on screen.
    pub world: Shared<TopologyWorld>,
    /// The query after every step at this level and consistency.
    pub history: Shared<Vec<HistoryPoint>>,
    /// Steps shown.
    pub cursor: usize,
    /// Level.
    pub level: ReadLevel,
    /// Consistency.
    pub consistency: Consistency,
    /// Every intent.
    pub on_action: Callback<TopoAction>,
}

fn short_col(c: &str) -> &str {
    c.rsplit('.').next().unwrap_or(c)
}

/// How many barriers `r` lags the newest version one of its tables has at `level`.
fn lag(w: &TopologyWorld, level: ReadLevel, r: &QueryResult) -> u64 {
    let newest = r
        .reads
        .iter()
        .filter_map(|t| w.table(&t.table))
        .map(|t| match level {
            ReadLevel::RepeatableRead => t.written(),
            _ => t.processed(),
        })
        .max()
        .unwrap_or(0);
    let oldest = r.reads.iter().map(|t| t.barrier).min().unwrap_or(0);
    newest.saturating_sub(oldest)
}

/// Every named query at the same moment: the barrier of each table it read, its value, and
/// whether it disagrees with another query on a shared table. Nothing with one query.
fn side_by_side(w: &TopologyWorld, level: ReadLevel, consistency: Consistency) -> Html {
    let specs = w.spec().all_queries();
    if specs.len() < 2 {
        return html! {};
    }
    let results: Vec<_> = w
        .named_queries(level, consistency)
        .iter()
        .map(|q| w.query(q))
        .collect();
    let disagree = disagree(&results);
    html! {
        <div class="queries-side" data-testid="queries-side">
            <div class="small">
                { format!("All {} queries at this moment ({}): ", results.len(), consistency_short(consistency)) }
                <b data-testid="queries-agree">{ if disagree { "they read different versions of a shared table" } else { "they agree on every shared table" } }</b>
            </div>
            <table class="grid qrows">
                <thead><tr><th>{ "query" }</th><th>{ "tables @ barrier" }</th><th>{ "value" }</th>
                    <th title="Barriers between the newest version one of its tables has at this level and the oldest it read: Weak lags less">{ "lag" }</th></tr></thead>
                <tbody>
                    { for results.iter().zip(&specs).map(|(r, spec)| html! {
                        <tr data-testid="queries-side-row">
                            <td class="mono">{ &r.name }</td>
                            <td class="mono">{ r.reads.iter().map(|t| format!("{}@{}", t.table, t.barrier)).collect::<Vec<_>>().join(" ") }</td>
                            <td class="mono">{ value_text(r, spec.ratio.is_some()) }</td>
                            <td class="mono" data-testid="queries-side-lag">{ lag(w, level, r) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}

/// The query panel.
#[component]
pub fn QueryPanel(props: &QueryPanelProps) -> Html {
    let w = &*props.world;
    let q = w.declared_query(props.level, props.consistency);
    let r = w.query(&q);
    let spec = &w.spec().query;
    let level_btn = |l: ReadLevel, short: &'static str| {
        let cb = props.on_action.clone();
        let on = props.level == l;
        html! {
            <button class={classes!("seg", on.then_some("seg-on"))} aria-pressed={on.to_string()}
                    data-testid={format!("level-{}", l.short())} title={level_title(l)}
                    onclick={Callback::from(move |_| cb.emit(TopoAction::SetLevel(l)))}>{ short }</button>
        }
    };
    let cons_btn = |c: Consistency, label: &'static str, title: &'static str| {
        let cb = props.on_action.clone();
        let on = props.consistency == c;
        html! {
            <button class={classes!("seg", on.then_some("seg-on"))} aria-pressed={on.to_string()}
                    data-testid={format!("consistency-{}", label.to_ascii_lowercase())} title={title}
                    onclick={Callback::from(move |_| cb.emit(TopoAction::SetConsistency(c)))}>{ label }</button>
        }
    };
    let columns: Vec<String> = r
        .rows
        .first()
        .map(|row| row.columns.iter().map(|(c, _)| c.clone()).collect())
        .unwrap_or_default();
    let ratio_name = spec.ratio.as_ref().map(|x| x.name.clone());
    let changes = value_changes(&props.history, props.cursor);
    let shown = changes.len().saturating_sub(6);
    // Before the first row the value columns are unknown: list only what is.
    let shown_columns: Vec<String> = columns.iter().map(|c| short_col(c).to_string()).collect();
    let sql = query_sql(spec, &shown_columns);
    let caption = history_caption(spec, r.rows.first().map(|x| x.on.as_slice()));
    html! {
        <section class="card query" data-testid="query-panel">
            <div class="card-head">
                <h2>{ format!("Query {}", spec.name) }</h2>
                <span class={classes!("qbadge", if r.consistent { "q-ok" } else { "q-bad" })} data-testid="query-badge"
                      title="Consistent: every table reflects the same CDC records (the same barrier), no partly processed barrier">
                    { if r.consistent { "✓ consistent" } else { "✗ mixes barriers" } }
                </span>
            </div>
            <div class="qsql mono small" title={sql.clone()}>{ sql }</div>
            <div class="qcontrols">
                <div class="segs" role="group" aria-label="Read level">
                    { level_btn(ReadLevel::ReadUncommitted, "Read Uncommitted") }
                    { level_btn(ReadLevel::ReadCommitted, "Read Committed") }
                    { level_btn(ReadLevel::RepeatableRead, "Repeatable Read") }
                </div>
                <div class="segs" role="group" aria-label="Consistency">
                    { cons_btn(Consistency::Strong, "Strong", "Every query at the minimum version over the tables all the queries depend on: queries asked together agree") }
                    { cons_btn(Consistency::Weak, "Weak", "Every query at its own latest consistent version: fresher, two queries may read different versions of a shared table") }
                </div>
            </div>
            <div class="reads small">
                { for r.reads.iter().map(|t| html! {
                    <span class="read" data-testid="query-read">
                        <span class="mono">{ &t.table }</span>{ " @ " }<b>{ format!("{} {}", if w.spec().no_barriers { "checkpoint" } else { "barrier" }, t.barrier) }</b>
                        if t.partial_records > 0 { <span class="partial">{ format!(" + {} uncommitted", t.partial_records) }</span> }
                    </span>
                }) }
            </div>
            <table class="grid qrows">
                <thead><tr>
                    { for spec.on.iter().map(|c| html! { <th>{ c }</th> }) }
                    { for columns.iter().map(|c| html! { <th title={c.clone()}>{ short_col(c) }</th> }) }
                    if let Some(n) = &ratio_name { <th>{ n }</th> }
                </tr></thead>
                <tbody>
                    if r.rows.is_empty() {
                        <tr><td class="muted" colspan="9">{ "No rows visible at this level yet." }</td></tr>
                    }
                    { for r.rows.iter().take(5).enumerate().map(|(i, row)| html! {
                        <tr class={classes!((i == 0).then_some("row-seed"))}>
                            { for row.on.iter().map(|v| html! { <td class="mono">{ v }</td> }) }
                            { for row.columns.iter().map(|(_, v)| html! { <td class="mono">{ v }</td> }) }
                            if ratio_name.is_some() { <td class="mono ratio" data-testid={(i == 0).then_some("query-ratio")}>{ ratio_text(row.ratio) }</td> }
                        </tr>
                    }) }
                </tbody>
            </table>
            { side_by_side(w, props.level, props.consistency) }
            <div class="history" data-testid="query-history">
                <span class="muted small">{ caption }</span>
                <div class="hist-chips">
                    if shown > 0 { <span class="muted small">{ "…" }</span> }
                    { for changes.iter().enumerate().skip(shown).map(|(i, p)| {
                        let back = i > 0 && rolled_back(&changes[i - 1], p);
                        html! {
                            <span class={classes!("hist", (!p.consistent).then_some("hist-bad"), back.then_some("hist-back"))}
                                  title={format!("{}: tables read at barriers {:?}", after_event(p.step), p.barriers)}>
                                <span class="hist-step">{ after_event(p.step) }</span>
                                <b>{ ratio_text(p.ratio) }</b>
                                { if back { " ↩ rolled back" } else if !p.consistent { " ✗" } else { "" } }
                            </span>
                        }
                    }) }
                </div>
            </div>
        </section>
    }
}
