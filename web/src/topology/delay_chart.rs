//! End-to-end delay per job and per table over time, drawn by plotters into an SVG string and
//! injected; names the job to optimise (FLIP-276, "HOW to define E2E delay").

use batchscope_engine::barrier::DelayReport;
use batchscope_view::topology::{delay_chart_svg, delay_legend};
use yew::prelude::*;

/// Props of [`DelayChart`].
#[derive(Properties, PartialEq)]
pub struct DelayChartProps {
    /// Delays at the step on screen.
    pub report: DelayReport,
    /// Dark theme colours.
    pub dark: bool,
}

/// The chart and its caption.
#[component]
pub fn DelayChart(props: &DelayChartProps) -> Html {
    let svg = delay_chart_svg(&props.report, 440, 230, props.dark);
    let legend = delay_legend(&props.report);
    let job = props.report.job_to_optimise.clone();
    let mean = job.as_ref().and_then(|j| {
        props
            .report
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
            </div>
            <div class="delay-svg">{ Html::from_html_unchecked(AttrValue::from(svg)) }</div>
            <div class="optimise" data-testid="job-to-optimise">
                { match job {
                    Some(j) => html! { <>{ "Job to optimise: " }<b class="mono">{ j }</b>
                        { format!(" — mean job delay {} ms, the largest of all jobs (a job's delay: its snapshot of barrier N written − all its inputs of N available). Every table downstream inherits it, so shortening it shortens their end-to-end delay.", mean.unwrap_or(0)) }</> },
                    None => html! { <span class="muted">{ "No snapshot written yet: the delay is measured when a table writes a snapshot." }</span> },
                } }
            </div>
        </section>
    }
}
