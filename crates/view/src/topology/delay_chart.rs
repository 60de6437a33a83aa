//! The delay chart (plotters, SVG): each table's and job's end-to-end delay per barrier, a value
//! on hover of every point (an SVG `<title>`), a marker where a job failed, and its legend.

use batchscope_engine::barrier::{self, BarrierEvent, BarrierEventKind, DelayReport};
use std::fmt::Write as _;

/// Default width of the chart's viewBox, about the width it is shown at beside the barrier table
/// on a 1280 px laptop. The dashboard draws it at the width it measures (see [`chart_width`]),
/// so a tick drawn at [`TICK_PX`] is [`TICK_PX`] on screen.
pub const CHART_W: u32 = 300;
/// The narrowest and widest the chart is drawn.
pub const CHART_W_RANGE: (u32, u32) = (160, 900);
/// Height of the chart's viewBox.
pub const CHART_H: u32 = 210;
/// Font size of the ticks and axis names, in viewBox units.
pub const TICK_PX: u32 = 13;

/// A job failure the chart marks: when, which job, and the barrier it had in flight.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DelayFailure {
    /// Simulated time of the failure.
    pub at_ms: u64,
    /// The job that failed.
    pub job: String,
    /// The barrier in flight (the first its table had not WRITTEN).
    pub barrier: u64,
}

impl DelayFailure {
    /// The marker's label: `✕ price_job fails at b2` (b2: barrier 2, as the graph writes it).
    pub fn label(&self) -> String {
        format!("✕ {} fails at b{}", self.job, self.barrier)
    }
}

/// The viewBox width to draw the chart at when its box is `shown_px` wide: the same, within
/// [`CHART_W_RANGE`] (an unmeasured box, 0, gets [`CHART_W`]).
pub fn chart_width(shown_px: u32) -> u32 {
    if shown_px == 0 {
        CHART_W
    } else {
        shown_px.clamp(CHART_W_RANGE.0, CHART_W_RANGE.1)
    }
}

/// The job failures in a trace, in order (the run's `JobFailed` events so far).
pub fn delay_failures(trace: &[BarrierEvent]) -> Vec<DelayFailure> {
    trace
        .iter()
        .filter_map(|e| match &e.kind {
            BarrierEventKind::JobFailed { job, in_flight, .. } => Some(DelayFailure {
                at_ms: e.at_ms,
                job: job.clone(),
                barrier: *in_flight,
            }),
            _ => None,
        })
        .collect()
}

/// The label of failure `i` and the row it is drawn in: a job failing again at the same
/// barrier (a restart loop) gets one label, counted (`✕ custom_job fails at b3 (×4)`), and its
/// repeats none; each label takes the next row.
fn loop_label(failures: &[DelayFailure], i: usize) -> (String, i32) {
    let key = |g: &DelayFailure| (g.job.clone(), g.barrier);
    let first = |k: usize| !failures[..k].iter().any(|g| key(g) == key(&failures[k]));
    let row = (0..i).filter(|k| first(*k)).count() as i32;
    let f = &failures[i];
    let label = match (
        first(i),
        failures.iter().filter(|g| key(g) == key(f)).count(),
    ) {
        (false, _) => String::new(),
        (true, 1) => f.label(),
        (true, n) => format!("{} (×{n})", f.label()),
    };
    (label, row)
}

/// What a point's tooltip says: `job amount_job · barrier 3: 420 ms (snapshot written at 3150 ms)`.
pub fn point_title(series: &str, is_job: bool, sample: &barrier::DelaySample) -> String {
    let kind = if is_job { "job" } else { "table" };
    format!(
        "{kind} {series} · barrier {}: {} ms (snapshot written at {} ms)",
        sample.barrier, sample.delay_ms, sample.at_ms
    )
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Colours of the chart's series (jobs first, then tables), distinct on both themes.
pub const SERIES_COLORS: [(u8, u8, u8); 8] = [
    (91, 108, 240),
    (217, 130, 11),
    (31, 157, 85),
    (214, 51, 132),
    (13, 154, 152),
    (139, 92, 246),
    (107, 122, 144),
    (229, 72, 77),
];

/// The chart's legend: (label, CSS colour, is a job) per drawn series, in drawing order (the
/// legend is HTML next to the chart, so it never hides a line).
pub fn delay_legend(report: &DelayReport) -> Vec<(String, String, bool)> {
    report
        .jobs
        .iter()
        .map(|s| (s, true))
        .chain(report.tables.iter().map(|s| (s, false)))
        .filter(|(s, _)| !s.samples.is_empty())
        .enumerate()
        .map(|(i, (s, job))| {
            let (r, g, b) = SERIES_COLORS[i % SERIES_COLORS.len()];
            let kind = if job { "job" } else { "table" };
            (
                format!("{kind} {}", s.name),
                format!("#{r:02x}{g:02x}{b:02x}"),
                job,
            )
        })
        .collect()
}

/// The delay chart as an SVG string of `width` × [`CHART_H`]: one line per job (thick) and
/// per table (thin), x = when the snapshot was written, y = its delay; every point carries its
/// value in a `<title>`, and each of `failures` is a dashed vertical marker with its label.
/// Empty series are skipped; colours follow [`delay_legend`].
pub fn delay_chart_svg(
    report: &DelayReport,
    failures: &[DelayFailure],
    width: u32,
    dark: bool,
) -> String {
    use plotters::prelude::*;
    let height = CHART_H;
    let mut svg = String::new();
    let mut extra = String::new();
    let all: Vec<(&barrier::DelaySeries, bool)> = report
        .jobs
        .iter()
        .map(|s| (s, true))
        .chain(report.tables.iter().map(|s| (s, false)))
        .filter(|(s, _)| !s.samples.is_empty())
        .collect();
    let x_max = all
        .iter()
        .flat_map(|(s, _)| s.samples.iter().map(|p| p.at_ms))
        .chain(failures.iter().map(|f| f.at_ms))
        .max()
        .unwrap_or(1000)
        .max(1000);
    let y_max = all
        .iter()
        .map(|(s, _)| s.max_ms())
        .max()
        .unwrap_or(100)
        .max(100);
    let (fg, grid) = if dark {
        (RGBColor(200, 208, 220), RGBColor(45, 56, 72))
    } else {
        (RGBColor(70, 80, 98), RGBColor(228, 232, 240))
    };
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        // plotters writes a font of size s as `font-size` s / 1.24 (points to pixels).
        let font = |px: u32| ("sans-serif", f64::from(px) * 1.24).into_font().color(&fg);
        let chart = ChartBuilder::on(&root)
            .margin(6)
            .margin_top(TICK_PX + 10)
            .margin_right(12)
            .x_label_area_size(34)
            .y_label_area_size(52)
            .build_cartesian_2d(0u64..x_max + x_max / 20, 0u64..y_max + y_max / 8);
        let Ok(mut chart) = chart else {
            return String::new();
        };
        let _ = chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .bold_line_style(grid)
            .axis_style(fg)
            .x_desc("simulated time (ms)")
            .y_desc("delay (ms)")
            .label_style(font(TICK_PX))
            .axis_desc_style(font(TICK_PX))
            .x_labels(5)
            .y_labels(5)
            .draw();
        let (_, y_range) = chart.plotting_area().get_pixel_range();
        for (i, f) in failures.iter().enumerate() {
            let (x, _) = chart.backend_coord(&(f.at_ms, 0));
            let (mut label, row) = loop_label(failures, i);
            // The label sits above the plot (the next ones just below its top), centred on the
            // line and kept inside the chart (its width estimated at 0.6 em a character).
            // A chart too narrow for the label says only `✕ b2`; the tooltip says the rest.
            let half_of = |l: &str| (l.chars().count() as f64 * f64::from(TICK_PX) * 0.3) as i32;
            if 2 * half_of(&label) + 4 > width as i32 {
                label = format!("✕ b{}", f.barrier);
            }
            let half = half_of(&label);
            let tx = x.clamp(half + 2, (width as i32 - half - 2).max(half + 2));
            let ty = y_range.start - 4 + row * (TICK_PX as i32 + 3);
            let _ = write!(
                extra,
                r##"<g class="dc-failure" data-testid="delay-failure"><line x1="{x}" y1="{top}" x2="{x}" y2="{bottom}" stroke="#e5484d" stroke-width="2" stroke-dasharray="5 4"/><text x="{tx}" y="{ty}" text-anchor="middle" font-family="sans-serif" font-size="{TICK_PX}" font-weight="600" fill="#e5484d">{label}</text><title>{title}</title></g>"##,
                top = y_range.start,
                bottom = y_range.end,
                label = xml_escape(&label),
                title = xml_escape(&format!(
                    "{} failed at {} ms with barrier {} in flight: its table lost what was not written, and the job replays from its checkpoint",
                    f.job, f.at_ms, f.barrier
                )),
            );
        }
        for (i, (s, is_job)) in all.iter().enumerate() {
            let (r, g, b) = SERIES_COLORS[i % SERIES_COLORS.len()];
            let color = RGBColor(r, g, b);
            let style = color.stroke_width(if *is_job { 3 } else { 1 });
            let points: Vec<(u64, u64)> = s.samples.iter().map(|p| (p.at_ms, p.delay_ms)).collect();
            let _ = chart.draw_series(LineSeries::new(points, style));
            for p in &s.samples {
                let (cx, cy) = chart.backend_coord(&(p.at_ms, p.delay_ms));
                let _ = write!(
                    extra,
                    r##"<g class="dc-pt"><circle cx="{cx}" cy="{cy}" r="{r0}" fill="#{r:02x}{g:02x}{b:02x}"/><circle class="dc-hit" cx="{cx}" cy="{cy}" r="8" fill="transparent"/><title>{title}</title></g>"##,
                    r0 = if *is_job { 3.5 } else { 2.5 },
                    title = xml_escape(&point_title(&s.name, *is_job, p)),
                );
            }
        }
        let _ = root.present();
    }
    match svg.rfind("</svg>") {
        Some(end) => {
            svg.insert_str(end, &extra);
            svg
        }
        None => svg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{parse_topology, record};

    /// The world at the end of a topology link's run.
    fn last_world(hash: &str) -> barrier::TopologyWorld {
        let url = parse_topology(hash).unwrap();
        record(&url.run().unwrap()).unwrap().last().clone()
    }

    #[test]
    fn every_point_has_its_value_in_a_title() {
        let w = last_world("#mode=topology&topology=shopping");
        let report = w.delays();
        let svg = delay_chart_svg(&report, &delay_failures(w.trace()), CHART_W, false);
        let samples: Vec<(&barrier::DelaySeries, bool)> = report
            .jobs
            .iter()
            .map(|s| (s, true))
            .chain(report.tables.iter().map(|s| (s, false)))
            .collect();
        let n: usize = samples.iter().map(|(s, _)| s.samples.len()).sum();
        assert!(n > 0);
        assert_eq!(svg.matches("<title>").count(), n);
        for (s, is_job) in samples {
            for p in &s.samples {
                let title = point_title(&s.name, is_job, p);
                assert!(svg.contains(&xml_escape(&title)), "{title}");
                assert!(title.contains(&format!("{} ms", p.delay_ms)));
            }
        }
        // Every text (ticks, axis names) is drawn at TICK_PX at least.
        let sizes: Vec<f64> = svg
            .split("font-size=\"")
            .skip(1)
            .map(|rest| rest.split('"').next().unwrap().parse().unwrap())
            .collect();
        assert!(sizes.len() > 6, "{sizes:?}");
        assert!(
            sizes.iter().all(|s| *s >= f64::from(TICK_PX) - 0.01),
            "{sizes:?}"
        );
        assert!(!svg.contains("delay-failure"), "no failure, no marker");
        assert!(svg.contains(&format!("viewBox=\"0 0 {CHART_W} {CHART_H}\"")));
        assert_eq!(chart_width(0), CHART_W);
        assert_eq!(chart_width(20), CHART_W_RANGE.0);
        assert_eq!(chart_width(4000), CHART_W_RANGE.1);
    }

    #[test]
    fn a_failed_job_is_marked_where_it_failed() {
        let w = last_world("#mode=topology&topology=shopping&fail=price_job@2");
        let failures = delay_failures(w.trace());
        let failed: Vec<&barrier::BarrierEvent> = w
            .trace()
            .iter()
            .filter(|e| matches!(e.kind, BarrierEventKind::JobFailed { .. }))
            .collect();
        assert_eq!(failures.len(), failed.len());
        assert!(!failures.is_empty(), "the link fails price_job");
        assert_eq!(failures[0].job, "price_job");
        assert_eq!(failures[0].at_ms, failed[0].at_ms);
        let svg = delay_chart_svg(&w.delays(), &failures, CHART_W, true);
        assert_eq!(
            svg.matches("data-testid=\"delay-failure\"").count(),
            failures.len()
        );
        assert!(svg.contains(&xml_escape(&failures[0].label())));
        // Too narrow for the whole label: the barrier only, the job in the tooltip.
        let narrow = delay_chart_svg(&w.delays(), &failures, CHART_W_RANGE.0, true);
        assert!(narrow.contains(&format!(">✕ b{}<", failures[0].barrier)));
        assert!(narrow.contains("price_job failed at"));
    }

    #[test]
    fn a_restart_loop_is_one_label_with_its_count() {
        let w = last_world("#mode=topology&topology=notify-twice");
        let failures = delay_failures(w.trace());
        let loops = failures
            .iter()
            .filter(|f| f.job == "custom_job" && f.barrier == failures[1].barrier)
            .count();
        assert!(loops > 1, "{failures:?}");
        let svg = delay_chart_svg(&w.delays(), &failures, 900, false);
        // One marker per failure, one label per job and barrier.
        assert_eq!(
            svg.matches("data-testid=\"delay-failure\"").count(),
            failures.len()
        );
        let label = format!("{} (×{loops})", xml_escape(&failures[1].label()));
        assert_eq!(svg.matches(&label).count(), 1, "{svg}");
    }
}
