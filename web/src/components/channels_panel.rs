//! Channels: per channel its Tunnel status, the server-committed checkpoint, the start and end
//! positions of the batch in view, what is held in memory, and records arrived so far.

use batchscope_engine::source::SourceCounters;
use batchscope_view::panels::ChannelRow;
use yew::prelude::*;

/// Props of [`ChannelsPanel`].
#[derive(Properties, PartialEq)]
pub struct ChannelsPanelProps {
    /// One row per channel.
    pub rows: Vec<ChannelRow>,
    /// Whether the source keeps its positions in a Meta table (start/end are Meta rows).
    pub meta_rows: bool,
    /// Kafka-like: no Tunnel status or server checkpoints.
    pub kafka: bool,
    /// `batch 3 (in flight)` / `batch 4 (next)`.
    pub batch: String,
    /// The start offset, compact.
    pub start: String,
    /// The end offset, compact.
    pub end: String,
    /// Source costs.
    pub counters: SourceCounters,
    /// Whether to show the pull-ahead counters.
    pub pull_ahead: bool,
    /// The key of the row the step points at (see `batchscope_view::focus`).
    #[prop_or_default]
    pub focus: Option<String>,
}

/// The Channels tab.
#[component]
pub fn ChannelsPanel(props: &ChannelsPanelProps) -> Html {
    let (start_h, end_h) = if props.meta_rows {
        ("start row", "end row")
    } else {
        ("start", "end")
    };
    let c = &props.counters;
    html! {
        <div role="tabpanel" tabindex="0" aria-labelledby="tab-channels" class="panel" data-testid="panel-channels">
            <div class="panel-sub">
                <span class="pill">{ &props.batch }</span>
                <span>{ "start " }<code>{ &props.start }</code></span>
                <span>{ "end " }<code>{ &props.end }</code></span>
            </div>
            <table class="grid">
                <thead><tr>
                    <th>{ if props.kafka { "partition" } else { "channel" } }</th>
                    if !props.kafka { <th>{ "status" }</th><th title="Checkpoint committed to the Tunnel server (by source.commit)">{ "server" }</th> }
                    <th title="Position at the start of the batch in view">{ start_h }</th>
                    <th title="Position at the end of the batch in view">{ end_h }</th>
                    <th title="Volatile: lost on a crash">{ "in memory" }</th>
                    <th title="Records arrived upstream / total in the scenario">{ "arrived" }</th>
                </tr></thead>
                <tbody>
                    { for props.rows.iter().map(|r| {
                        let status = r.status.clone().unwrap_or_default();
                        html! {
                            <tr key={r.id.clone()} data-testid={format!("channel-{}", r.id)}
                                data-focus={(props.focus.as_deref() == Some(r.id.as_str())).then_some("true")}>
                                <td class="mono">
                                    { &r.id }
                                    if let Some(p) = &r.parent { <span class="muted small" title={format!("split from {p}")}>{ format!(" ←{p}") }</span> }
                                </td>
                                if !props.kafka {
                                    <td><span class={classes!("status", format!("status-{}", status.to_lowercase()))}>{ &status }</span></td>
                                    <td class="mono">{ r.server_checkpoint.clone().unwrap_or_default() }</td>
                                }
                                <td class="mono start-cell">{ &r.start }</td>
                                <td class="mono end-cell">{ &r.end }</td>
                                <td class="mono small">{ &r.in_memory }</td>
                                <td class="mono">{ format!("{} / {}", r.arrived, r.total) }</td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
            if props.kafka {
                <p class="muted small">{ "Spark never commits offsets to Kafka: the positions live in offsets/N of the checkpoint folder (Spark's Kafka integration guide: \"Kafka source doesn't commit any offset\")." }</p>
            }
            <div class="counters" data-testid="counters">
                <span>{ "rows read by tasks " }<b>{ c.rows_read_by_tasks }</b></span>
                if props.pull_ahead {
                    <span class="warn">{ "read ahead in getOffset " }<b>{ c.rows_read_ahead }</b></span>
                    <span>{ "cached now " }<b>{ c.rows_cached }</b></span>
                    <span>{ "cache peak " }<b>{ c.rows_cached_peak }</b></span>
                }
                if !props.kafka { <span>{ "ReadRecords calls " }<b>{ c.read_records_calls }</b></span> }
            </div>
        </div>
    }
}
