//! The Topology tab's checkpoint panel, apart from the page: each job's checkpoint counts and
//! latest checkpoints in Flink's web UI's words, a Kafka table's transactions, and the progress
//! markers of a job reading CDC (its checkpoint's offset and the consumer group's) drawn over
//! time with plotters.

use batchscope_check::topology::{checkpoint_history, kafka_report, markers};
use batchscope_engine::barrier::{CheckpointRef, CheckpointStats, MarkerPoint, TopologyWorld};

/// One job's row of the panel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointRow {
    /// Job.
    pub job: String,
    /// Its statistics so far.
    pub stats: CheckpointStats,
}

/// Every job's row, in the topology's order, as the trace on screen stands.
pub fn checkpoint_rows(world: &TopologyWorld) -> Vec<CheckpointRow> {
    let mut all = checkpoint_history(world);
    world
        .spec()
        .jobs
        .iter()
        .map(|j| CheckpointRow {
            job: j.name.clone(),
            stats: all.remove(&j.name).unwrap_or_default(),
        })
        .collect()
}

/// A latest checkpoint in the panel's words: `3 · 2090 ms`, or `–`.
pub fn latest_text(c: Option<&CheckpointRef>) -> String {
    c.map_or_else(|| "–".into(), |c| format!("{} · {} ms", c.id, c.at_ms))
}

/// The latest restore as Flink's UI shows it: `checkpoint 2 (barriers up to 2) at 92090 ms`,
/// or that there was none.
pub fn restore_text(c: Option<&CheckpointRef>) -> String {
    match c {
        Some(c) => format!(
            "checkpoint {} (barriers up to {}) at {} ms",
            c.id, c.barrier, c.at_ms
        ),
        None => "none yet".into(),
    }
}

/// Each Kafka table's transactions in one line: `orders_topic: 9 rows committed, 3 lost
/// (barrier 2 aborted)`; empty without a Kafka table.
pub fn kafka_lines(world: &TopologyWorld) -> Vec<String> {
    let Some(k) = kafka_report(world) else {
        return Vec::new();
    };
    let mut tables: Vec<&str> = k.transactions.iter().map(|t| t.table.as_str()).collect();
    tables.dedup();
    tables
        .into_iter()
        .map(|table| {
            let of = || k.transactions.iter().filter(move |t| t.table == table);
            let rows = |s: batchscope_engine::barrier::TxnState| -> u32 {
                of().filter(|t| t.state == s).map(|t| t.rows).sum()
            };
            use batchscope_engine::barrier::TxnState as S;
            let aborted: Vec<String> = of()
                .filter(|t| t.state == S::Aborted)
                .map(|t| format!("barrier {}", t.barrier))
                .collect();
            let pending = rows(S::Open) + rows(S::Precommitted);
            let mut line = format!(
                "{table}: {} rows committed, {} lost",
                rows(S::Committed),
                rows(S::Aborted)
            );
            if !aborted.is_empty() {
                line.push_str(&format!(" ({} aborted by the broker)", aborted.join(", ")));
            }
            if pending > 0 {
                line.push_str(&format!(
                    ", {pending} in open or pre-committed transactions"
                ));
            }
            line
        })
        .collect()
}

/// Each CDC-reading job's markers so far (jobs whose markers never moved are left out).
pub fn marker_series(world: &TopologyWorld) -> Vec<(String, Vec<MarkerPoint>)> {
    if world.spec().no_barriers {
        return Vec::new();
    }
    markers(world)
        .into_iter()
        .filter(|(_, p)| p.iter().any(|p| p.checkpoint > 0 || p.group > 0))
        .collect()
}

/// What the markers say at their last point: the lag a monitor reading the group sees, and
/// how far behind the job really is.
pub fn marker_caption(job: &str, p: &MarkerPoint) -> String {
    format!(
        "{job}: CDC head {}, checkpoint {}, group {} — a lag monitor reading the group sees {} records of lag; a restore resumes from the checkpoint, {} behind.",
        p.head,
        p.checkpoint,
        p.group,
        p.head - p.group.min(p.head),
        p.head - p.checkpoint.min(p.head)
    )
}

/// The markers' colours: the CDC head, the checkpoint's offset, the group's offset.
pub const MARKER_COLORS: [(u8, u8, u8); 3] = [(107, 122, 144), (91, 108, 240), (217, 130, 11)];

/// Height of the markers chart's viewBox.
pub const MARKERS_H: u32 = 120;

/// The markers of one job over time as an SVG string `width` × [`MARKERS_H`]: three step lines
/// (CDC head, checkpoint offset, group offset) against simulated time.
pub fn markers_svg(points: &[MarkerPoint], width: u32, dark: bool) -> String {
    use plotters::prelude::*;
    let mut svg = String::new();
    let x_max = points
        .iter()
        .map(|p| p.at_ms)
        .max()
        .unwrap_or(1000)
        .max(1000);
    let y_max = points.iter().map(|p| p.head).max().unwrap_or(1).max(1);
    let text = if dark {
        RGBColor(200, 208, 220)
    } else {
        RGBColor(60, 68, 80)
    };
    {
        let root = SVGBackend::with_string(&mut svg, (width, MARKERS_H)).into_drawing_area();
        let chart = ChartBuilder::on(&root)
            .margin(6)
            .x_label_area_size(20)
            .y_label_area_size(30)
            .build_cartesian_2d(0u64..x_max, 0u64..y_max + 1);
        if let Ok(mut chart) = chart {
            let style = ("sans-serif", 11).into_font().color(&text);
            let _ = chart
                .configure_mesh()
                .disable_mesh()
                .x_labels(4)
                .y_labels(3)
                .x_label_formatter(&|v| format!("{:.0} s", *v as f64 / 1000.0))
                .label_style(style)
                .axis_style(text.mix(0.5))
                .draw();
            let pick: [fn(&MarkerPoint) -> u64; 3] = [|p| p.head, |p| p.checkpoint, |p| p.group];
            for (k, get) in pick.iter().enumerate() {
                let (r, g, b) = MARKER_COLORS[k];
                let mut steps = Vec::new();
                for (i, p) in points.iter().enumerate() {
                    if i > 0 {
                        steps.push((p.at_ms, get(&points[i - 1])));
                    }
                    steps.push((p.at_ms, get(p)));
                }
                let w = if k == 0 { 1 } else { 2 };
                let _ =
                    chart.draw_series(LineSeries::new(steps, RGBColor(r, g, b).stroke_width(w)));
            }
        }
        let _ = root.present();
    }
    svg
}

#[cfg(test)]
mod tests {
    use super::*;
    use batchscope_engine::barrier::{preset, TopologyWorld};

    fn run(name: &str) -> TopologyWorld {
        let mut w = TopologyWorld::new(preset(name).unwrap(), 1).unwrap();
        w.run_to_end();
        w
    }

    #[test]
    fn the_rows_follow_the_topology_and_count_the_restores() {
        let w = run("notify-twice");
        let rows = checkpoint_rows(&w);
        let jobs: Vec<&str> = rows.iter().map(|r| r.job.as_str()).collect();
        let spec_jobs: Vec<&str> = w.spec().jobs.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(jobs, spec_jobs);
        let custom = &rows[1].stats;
        assert!(custom.counts.restored > rows[0].stats.counts.restored);
        assert!(restore_text(custom.latest.restored.as_ref()).starts_with("checkpoint "));
        assert_eq!(latest_text(None), "–");
    }

    #[test]
    fn a_kafka_line_names_the_aborted_barrier_and_the_group_marker_lags() {
        let w = run("kafka-2pc-timeout");
        let lines = kafka_lines(&w);
        assert_eq!(lines.len(), 1);
        let k = kafka_report(&w).unwrap();
        assert!(
            lines[0].contains(&format!("{} lost", k.lost_rows)),
            "{}",
            lines[0]
        );
        assert!(lines[0].contains("aborted by the broker"), "{}", lines[0]);
        assert!(kafka_lines(&run("shopping")).is_empty());

        let w = run("group-offset-lag");
        let series = marker_series(&w);
        let (job, points) = series.iter().find(|(j, _)| j == "fast_job").unwrap();
        // At some moment the group offset trails the checkpoint: the lag a monitor sees is
        // larger than the job's.
        let lagging = points
            .iter()
            .find(|p| p.group < p.checkpoint)
            .expect("a lagging group");
        let caption = marker_caption(job, lagging);
        assert!(
            caption.contains(&format!("checkpoint {}", lagging.checkpoint)),
            "{caption}"
        );
        let svg = markers_svg(points, 300, false);
        assert!(
            svg.starts_with("<svg") && svg.matches("<polyline").count() >= 3,
            "{svg}"
        );
    }
}
