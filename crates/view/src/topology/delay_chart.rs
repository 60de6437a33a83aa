//! The delay chart (plotters, SVG): each table's end-to-end delay per barrier, and its legend.

use batchscope_engine::barrier::{self, DelayReport};

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

/// The delay chart as an SVG string: one line per job (thick) and per table (thin), x = when
/// the snapshot was written, y = its delay. Empty series are skipped; colours follow
/// [`delay_legend`].
pub fn delay_chart_svg(report: &DelayReport, width: u32, height: u32, dark: bool) -> String {
    use plotters::prelude::*;
    let mut svg = String::new();
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
        let font = |px: u32| ("sans-serif", px).into_font().color(&fg);
        let chart = ChartBuilder::on(&root)
            .margin(6)
            .x_label_area_size(26)
            .y_label_area_size(44)
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
            .label_style(font(11))
            .axis_desc_style(font(11))
            .x_labels(6)
            .y_labels(5)
            .draw();
        for (i, (s, is_job)) in all.iter().enumerate() {
            let (r, g, b) = SERIES_COLORS[i % SERIES_COLORS.len()];
            let color = RGBColor(r, g, b);
            let style = color.stroke_width(if *is_job { 3 } else { 1 });
            let points: Vec<(u64, u64)> = s.samples.iter().map(|p| (p.at_ms, p.delay_ms)).collect();
            let _ = chart.draw_series(LineSeries::new(points.clone(), style));
            let _ = chart.draw_series(
                points
                    .iter()
                    .map(|p| Circle::new(*p, if *is_job { 3 } else { 2 }, color.filled())),
            );
        }
        let _ = root.present();
    }
    svg
}
