//! The sink: stores and their rows by writing batch, duplicates and missing keys marked, file
//! sink manifests with orphan files greyed, upsert rewrites counted.

use batchscope_engine::microbatch::event::label::rows_text;
use batchscope_engine::microbatch::upstream::RowKey;
use batchscope_view::microbatch::focus::sink_key;
use batchscope_view::microbatch::labels::{ellipsize, id_ranges};
use batchscope_view::microbatch::panels::SinkView;
use yew::prelude::*;

/// Props of [`SinkPanel`].
#[derive(Properties, PartialEq)]
pub struct SinkPanelProps {
    /// What to show.
    pub view: SinkView,
    /// Whether the run has settled (missing keys are then lost, not just not yet delivered).
    pub settled: bool,
    /// The key of the rows the step points at (see `batchscope_view::microbatch::focus`).
    #[prop_or_default]
    pub focus: Option<String>,
}

/// The first `max` of `keys` as chips, then how many more of `total` there are. A chip is a
/// button: the page's second module opens its record's lane on a click
/// (`danger_marks::use_key_chips`).
fn key_list(keys: &[RowKey], total: u64, class: &'static str, max: usize) -> Html {
    let shown = keys.len().min(max);
    html! {
        <span class="keys">
            { for keys.iter().take(max).map(|k| html! { <button class={classes!("key-chip", class)}>{ k.to_string() }</button> }) }
            if total > shown as u64 { <span class="muted">{ format!(" +{} more", total - shown as u64) }</span> }
        </span>
    }
}

/// Records retention deleted before a task read them (`failOnDataLoss` false): aged out.
fn aged_out_line(v: &SinkView) -> Html {
    if v.aged_out_keys.is_empty() {
        return Html::default();
    }
    html! {
        <div class="sink-line" data-testid="aged-out-keys">
            <span class="line-label">{ "aged out (retention)" }</span>
            { key_list(&v.aged_out_keys, v.aged_out_keys.len() as u64, "lost", 40) }
        </div>
    }
}

/// The sink's counts: visible rows, delivered, duplicate keys, rewrites, staged rows, epoch.
fn stats(v: &SinkView) -> Html {
    html! {
        <div class="sink-stats">
            <span>{ "visible rows " }<b>{ v.visible }</b></span>
            <span>{ "delivered " }<b>{ format!("{} / {}", v.delivered, v.expected) }</b></span>
            <span class={classes!((!v.duplicate_keys.is_empty()).then_some("bad"))} data-testid="dup-count">
                { "duplicate keys " }<b>{ v.duplicate_keys.len() }</b>
            </span>
            if v.rewrites > 0 {
                <span title="Rows written again by a re-run and absorbed by the upsert key">{ "upsert rewrites " }<b>{ v.rewrites }</b></span>
            }
            if v.staged_rows > 0 {
                <span title="Staged by the attempt in flight; visible only after its commit">{ "staged " }<b>{ v.staged_rows }</b></span>
            }
            if let Some(e) = v.last_committed_epoch {
                <span>{ "last committed epoch " }<b>{ e }</b></span>
            }
        </div>
    }
}

/// The Sink tab.
#[component]
pub fn SinkPanel(props: &SinkPanelProps) -> Html {
    let v = &props.view;
    // Every group and file of the batch the step points at carries `data-focus`; only the
    // newest is outlined (style.css) and scrolled to (`use_stop_focus`): a re-run's rows.
    let is_focus =
        |batch: u64| (props.focus.as_deref() == Some(sink_key(batch).as_str())).then_some("true");
    html! {
        <div role="tabpanel" tabindex="0" aria-labelledby="tab-sink" class="panel sink" data-testid="panel-sink">
            <div class="panel-sub">
                <span class="pill">{ v.kind }</span>
            </div>
            { stats(v) }{ aged_out_line(v) }
            if !v.duplicate_keys.is_empty() {
                <div class="sink-line bad" data-testid="duplicate-keys">
                    <span class="line-label">{ "duplicated" }</span>{ key_list(&v.duplicate_keys, v.duplicate_keys.len() as u64, "dup", 24) }
                </div>
            }
            if !v.lost_keys.is_empty() {
                <div class="sink-line bad" data-testid="lost-keys"
                     title="Not in the sink, and behind where the last committed batch ended: the next batch starts after them">
                    <span class="line-label">
                        { v.lost_behind.map_or("lost".to_string(), |c| format!("lost (behind commits/{c})")) }
                    </span>
                    { key_list(&v.lost_keys, v.lost_keys.len() as u64, "lost", 40) }
                </div>
            }
            if !v.missing_keys.is_empty() {
                <div class={classes!("sink-line", props.settled.then_some("bad"))} data-testid="missing-keys">
                    <span class="line-label">{ if props.settled { "lost" } else { "not yet delivered" } }</span>
                    { key_list(&v.missing_keys.first, v.missing_keys.total, if props.settled { "lost" } else { "pending" }, if props.settled { 40 } else { 12 }) }
                </div>
            }
            { for v.stores.iter().map(|s| html! {
                <div class="store">
                    <div class="store-head"><code>{ &s.name }</code><span class="muted">{ rows_text(s.rows) }</span></div>
                    if s.groups.is_empty() { <div class="muted small">{ "empty" }</div> }
                    if s.earlier_rows > 0 {
                        <div class="muted small" data-testid="sink-earlier">
                            { format!("{} earlier not drawn: the newest {} batch groups follow",
                                rows_text(s.earlier_rows), s.groups.len()) }
                        </div>
                    }
                    { for s.groups.iter().map(|g| html! {
                        <div class="group" data-focus={is_focus(g.batch_id)}>
                            <span class="group-label">{ format!("batch {}", g.batch_id) }</span>
                            <span class="keys">
                                { for g.keys.iter().map(|k| html! {
                                    <button class={classes!("key-chip", k.duplicate.then_some("dup"))}>{ k.key.to_string() }</button>
                                }) }
                            </span>
                        </div>
                    }) }
                </div>
            }) }
            if !v.files.is_empty() {
                <div class="store">
                    <div class="store-head"><code>{ "files" }</code>
                        <span class="muted">{ format!("_spark_metadata: {}", id_ranges(&v.manifest)) }</span>
                    </div>
                    if v.earlier_files.files > 0 {
                        <div class="muted small" data-testid="sink-earlier-files">
                            { format!("{} earlier files not drawn ({}): the newest {} follow",
                                v.earlier_files.files,
                                match v.earlier_files.orphans { 0 => "none an orphan".to_string(), 1 => "1 an orphan".to_string(), n => format!("{n} orphans") },
                                v.files.len()) }
                        </div>
                    }
                    { for v.files.iter().map(|f| html! {
                        <div class={classes!("sink-file", (!f.committed && !f.staged).then_some("orphan"), f.staged.then_some("staged"))}
                             data-focus={is_focus(f.batch_id)}>
                            <code>{ ellipsize(&f.name, 30) }</code>
                            <span>{ format!("batch {} · {}", f.batch_id, rows_text(f.rows)) }</span>
                            if f.staged {
                                <span class="pill" title="Written by this attempt's task; the batch's commit lists it in _spark_metadata">{ "staged: listed at commit" }</span>
                            } else if !f.committed {
                                <span class="pill">{ "orphan: not in the manifest" }</span>
                            }
                        </div>
                    }) }
                </div>
            }
        </div>
    }
}
