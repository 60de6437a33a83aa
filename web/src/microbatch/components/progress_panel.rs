//! The "Spark UI" tab: the charts of Spark's Structured Streaming tab drawn from the simulated
//! run so far — input and processing rate, batch duration split into the operations Spark
//! reports, input rows per batch — and the progress of the latest batch as
//! `StreamingQueryProgress` prints it, so a learner can hold the simulation against their own
//! Spark UI.

use super::chart_host::{ChartRender, ChartSlot};
use batchscope_view::microbatch::spark_ui::{BatchProgress, Chart, OPERATIONS, OPERATION_COLORS};
use std::rc::Rc;
use yew::prelude::*;

/// Props of [`ProgressPanel`].
#[derive(Properties, PartialEq)]
pub struct ProgressPanelProps {
    /// Every batch attempt up to the step on screen.
    pub progress: Rc<Vec<BatchProgress>>,
    /// Dark theme colours.
    pub dark: bool,
    /// Draws a chart (the page: [`super::chart_host::lazy_chart`], by the second module;
    /// tests: [`super::chart_host::inline_chart`]).
    pub charts: ChartRender,
}

fn swatch(i: usize) -> String {
    let (r, g, b) = OPERATION_COLORS[i];
    format!("background:#{r:02x}{g:02x}{b:02x}")
}

/// The Spark UI tab.
#[component]
pub fn ProgressPanel(props: &ProgressPanelProps) -> Html {
    if props.progress.is_empty() {
        return html! {
            <div class="empty">{ "No batch has read data yet. Step on: each batch adds a point, as in Spark's Structured Streaming tab." }</div>
        };
    }
    let chart = |c: Chart, title: &str, testid: &str| {
        let slot = ChartSlot {
            progress: props.progress.clone(),
            chart: c,
            width: 400,
            height: 150,
            dark: props.dark,
        };
        html! {
            <figure class="spark-chart" data-testid={testid.to_string()}>
                <figcaption>{ title.to_string() }</figcaption>
                { props.charts.emit(slot) }
            </figure>
        }
    };
    let last = props.progress.last().expect("not empty");
    let durations = OPERATIONS
        .iter()
        .zip(last.durations)
        .map(|(op, ms)| format!("\"{op}\" : {ms}"))
        .collect::<Vec<_>>()
        .join(", ");
    html! {
        <div class="spark-ui" data-testid="spark-ui" role="tabpanel" tabindex="0" aria-labelledby="tab-progress">
            <p class="muted small">{ "Simulated time: each call's cost in the engine's clock, not a measurement. ✗ marks an attempt a crash or failure ended before commits/N." }</p>
            { chart(Chart::Rates, "Input rate and processing rate (rows/s)", "chart-rates") }
            <div class="chart-legend">
                <span><i style={swatch(0)}></i>{ "inputRowsPerSecond" }</span>
                <span><i style={swatch(4)}></i>{ "processedRowsPerSecond" }</span>
            </div>
            { chart(Chart::Durations, "Batch duration (ms), by operation", "chart-durations") }
            <div class="chart-legend">
                { for OPERATIONS.iter().enumerate().map(|(i, op)| html! { <span><i style={swatch(i)}></i>{ *op }</span> }) }
            </div>
            { chart(Chart::Rows, "Input rows", "chart-rows") }
            <pre class="progress-json" data-testid="progress-json">{ format!(
                "batchId : {}\nnumInputRows : {}\ninputRowsPerSecond : {:.1}\nprocessedRowsPerSecond : {:.1}\ndurationMs : {{ {durations}, \"triggerExecution\" : {} }}",
                last.batch_id, last.input_rows, last.input_rate, last.processing_rate, last.trigger_ms) }</pre>
        </div>
    }
}
