//! The checkpoint panel: each job's checkpoints counted as Flink's web UI counts them
//! (Triggered, In Progress, Completed, Failed, Restored, and the latest restore), a Kafka
//! table's transactions, and the two progress markers of each job reading CDC over time.

use crate::shell::Shared;
use batchscope_engine::barrier::TopologyWorld;
use batchscope_view::topology::checkpoints::{
    checkpoint_rows, kafka_lines, latest_text, marker_caption, marker_series, markers_svg,
    restore_text, MARKER_COLORS,
};
use yew::prelude::*;

/// Flink's documentation of the checkpoint tab these columns follow.
const FLINK_MONITORING: &str = "https://nightlies.apache.org/flink/flink-docs-stable/docs/ops/monitoring/checkpoint_monitoring/";

/// Props of [`CheckpointPanel`].
#[derive(Properties, PartialEq)]
pub struct CheckpointPanelProps {
    /// The world at the step on screen.
    pub world: Shared<TopologyWorld>,
    /// Dark theme colours.
    pub dark: bool,
}

/// Counts per job, the latest restore, Kafka transactions and the progress markers.
#[component]
pub fn CheckpointPanel(props: &CheckpointPanelProps) -> Html {
    let w = &*props.world;
    let rows = checkpoint_rows(w);
    let kafka = kafka_lines(w);
    let series = marker_series(w);
    let color = |k: usize| {
        let (r, g, b) = MARKER_COLORS[k];
        format!("background:#{r:02x}{g:02x}{b:02x}")
    };
    html! {
        <section class="card cps" data-testid="checkpoint-panel">
            <h2>{ "Checkpoints" }
                <span class="muted small">{ " · counted as " }
                    <a href={FLINK_MONITORING} target="_blank" rel="noopener">{ "Flink's web UI" }</a>
                    { " counts them (REST: CheckpointingStatistics)" }</span></h2>
            <div class="txn-scroll">
            <table class="grid cps-grid">
                <thead><tr>
                    <th>{ "job" }</th><th title="total">{ "Triggered" }</th><th title="in_progress">{ "In progress" }</th>
                    <th title="completed">{ "Completed" }</th><th title="failed">{ "Failed" }</th>
                    <th title="restored">{ "Restored" }</th><th title="checkpoint id · when">{ "Latest completed" }</th>
                    <th title="checkpoint id · when (type: checkpoint; batchscope takes no savepoints)">{ "Latest restore" }</th>
                </tr></thead>
                <tbody>
                    { for rows.iter().map(|r| {
                        let c = r.stats.counts;
                        let id = |k: &str| format!("ckpt-{}-{k}", r.job);
                        html! {
                            <tr data-testid={format!("ckpt-row-{}", r.job)}>
                                <td class="mono">{ &r.job }</td>
                                <td data-testid={id("total")}>{ c.total }</td>
                                <td data-testid={id("in_progress")}>{ c.in_progress }</td>
                                <td data-testid={id("completed")}>{ c.completed }</td>
                                <td data-testid={id("failed")} class={classes!((c.failed > 0).then_some("cps-bad"))}>{ c.failed }</td>
                                <td data-testid={id("restored")} class={classes!((c.restored > 0).then_some("cps-bad"))}>{ c.restored }</td>
                                <td class="mono small">{ latest_text(r.stats.latest.completed.as_ref()) }</td>
                                <td class="mono small" data-testid={id("restore")}
                                    title={restore_text(r.stats.latest.restored.as_ref())}>{ latest_text(r.stats.latest.restored.as_ref()) }</td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
            </div>
            { for kafka.iter().map(|l| html! { <p class="cps-kafka small" data-testid="ckpt-kafka">{ l }</p> }) }
            if !series.is_empty() {
                <div class="cps-markers">
                    <p class="muted small">
                        <span class="dl"><i style={color(0)}></i>{ "CDC head" }</span>
                        <span class="dl"><i style={color(1)}></i>{ "checkpoint offset (a restore resumes here)" }</span>
                        <span class="dl"><i style={color(2)}></i>{ "group offset (committed on notification; what a lag monitor sees)" }</span>
                    </p>
                    { for series.iter().map(|(job, points)| html! {
                        <figure class="cps-marker" data-testid={format!("ckpt-markers-{job}")}>
                            <div class="cps-svg">{ Html::from_html_unchecked(AttrValue::from(markers_svg(points, 320, props.dark))) }</div>
                            <figcaption class="small">{ points.last().map(|p| marker_caption(job, p)).unwrap_or_default() }</figcaption>
                        </figure>
                    }) }
                </div>
            }
        </section>
    }
}
