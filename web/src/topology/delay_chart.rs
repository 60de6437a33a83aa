//! End-to-end delay per job and per table over time, drawn by plotters into an SVG string and
//! injected: every point's value on hover, the failures marked, and the job to optimise named
//! per table and explained. The definitions are batchscope's own: FLIP-276 asks "HOW to define
//! E2E delay" and which job to optimise, it does not define them.

use crate::hooks::use_element_size;
use crate::shell::Shared;
use batchscope_engine::barrier::TopologyWorld;
use batchscope_view::topology::{chart_width, delay_chart_svg, delay_failures, delay_legend};
use yew::prelude::*;

/// FLIP-276 on the Flink wiki, where the delay question is asked.
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
    let worst = report.worst_table().cloned();
    let per_table: Vec<String> = report
        .per_table
        .iter()
        .map(|t| format!("{} → {}", t.table, t.job))
        .collect();
    html! {
        <section class="card delay" data-testid="delay-chart">
            <h2>{ "End-to-end delay" }
                <span class="muted small">{ " · batchscope's definitions — table: snapshot time − CDC time of its newest record; job: snapshot time − inputs ready" }</span></h2>
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
                { match worst {
                    Some(t) => html! { <>{ "Job to optimise: " }<b class="mono">{ t.job.clone() }</b>
                        { format!(" for {}, the table with the largest mean delay: of the jobs on its path from CDC ({}), the one with the largest mean job delay ({} ms). A job's delay runs from all its inputs of a barrier being available to its snapshot of that barrier being written; every table downstream inherits it. Per table: {}. These definitions are batchscope's: ", t.table, t.path.join(" → "), t.mean_ms, per_table.join(" · ")) }
                        <a href={FLIP_276} target="_blank" rel="noopener">{ "FLIP-276" }</a>
                        { " asks “how to define the E2E delay … which ETL job needs to be optimized?” and leaves the answer open." }</> },
                    None => html! { <span class="muted">{ "No snapshot written yet: the delay is measured when a table writes a snapshot." }</span> },
                } }
            </p>
        </section>
    }
}
