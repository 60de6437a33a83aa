//! End-to-end delay per job and per table over time, drawn by plotters into an SVG string and
//! injected: every point's value on hover, the failures marked, and the job to optimise named
//! and explained (FLIP-276, "HOW to define E2E delay").

use crate::hooks::use_element_size;
use crate::shell::Shared;
use batchscope_engine::barrier::TopologyWorld;
use batchscope_view::topology::{chart_width, delay_chart_svg, delay_failures, delay_legend};
use yew::prelude::*;

/// FLIP-276 on the Flink wiki, the source of the delay definitions.
const FLIP_276: &str = "https://cwiki.apache.org/confluence/display/FLINK/FLIP-276%3A+Data+Consistency+of+Streaming+and+Batch+ETL+in+Flink+and+Table+Store";

/// Props of [`DelayChart`].
#[derive(Properties, PartialEq)]
pub struct DelayChartProps {
    /// The world at the step on screen (its delays and its failures so far).
    pub world: Shared<TopologyWorld>,
    /// Dark theme colours.
    pub dark: bool,
}

/// The chart and its caption.
#[component]
pub fn DelayChart(props: &DelayChartProps) -> Html {
    // Drawn at the width it is shown at (measured after each render and on resize), so its
    // text keeps the size it is drawn at instead of being scaled into the box.
    let holder = use_node_ref();
    let (shown_w, _) = use_element_size(&holder);
    let width = chart_width(shown_w as u32);
    let report = props.world.delays();
    let failures = delay_failures(props.world.trace());
    let svg = delay_chart_svg(&report, &failures, width, props.dark);
    let legend = delay_legend(&report);
    let job = report.job_to_optimise.clone();
    let mean = job.as_ref().and_then(|j| {
        report
            .jobs
            .iter()
            .find(|s| &s.name == j)
            .map(|s| s.mean_ms())
    });
    html! {
        <section class="card delay" data-testid="delay-chart">
            <h2>{ "End-to-end delay" }
                <span class="muted small">{ " · table: snapshot time − CDC time of its newest record; job: snapshot time − inputs ready" }</span></h2>
            <div class="delay-legend">
                { for legend.iter().map(|(name, color, job)| html! {
                    <span class={classes!("dl", job.then_some("dl-job"))}><i style={format!("background:{color}")}></i>{ name }</span>
                }) }
                if !failures.is_empty() {
                    <span class="dl dl-failure"><i></i>{ "job failure" }</span>
                }
            </div>
            <div class="delay-svg" ref={holder}>{ Html::from_html_unchecked(AttrValue::from(svg)) }</div>
            if !legend.is_empty() {
                <p class="dc-hint muted small">{ "Hover (or tap) a point for its barrier and delay." }</p>
            }
            <p class="optimise" data-testid="job-to-optimise">
                { match job {
                    Some(j) => html! { <>{ "Job to optimise: " }<b class="mono">{ j }</b>
                        { format!(" — the largest mean job delay ({} ms): a job's delay runs from all its inputs of a barrier being available to its snapshot of that barrier being written, and every table downstream inherits it (", mean.unwrap_or(0)) }
                        <a href={FLIP_276} target="_blank" rel="noopener">{ "FLIP-276" }</a>
                        { ", “HOW to define E2E delay”)." }</> },
                    None => html! { <span class="muted">{ "No snapshot written yet: the delay is measured when a table writes a snapshot." }</span> },
                } }
            </p>
        </section>
    }
}
