//! The Explore panel's view-model: verdict colours and chips, the crash-point × batch matrix
//! (cell colour, short label, tooltip), the fault runs with their verdicts, and the moment of a
//! crash (the cursor at its `Crashed` event) for loading a cell into the player.

use batchscope_check::explore::{Fault, Progress, Summary};
use batchscope_check::oracle::Verdict;
use batchscope_engine::microbatch::scenario::{CrashKind, CrashPoint, Scenario};

/// The colour of a verdict: green, blue (stopped), orange, red, purple, grey (readable on both themes, and
/// white cell text on each has at least WCAG AA's 4.5:1 contrast).
pub fn verdict_color(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::ExactlyOnce => "#1a7f45",
        Verdict::Stopped => "#2f6690",
        Verdict::Duplicates => "#b35900",
        Verdict::DataLoss => "#c92a2f",
        Verdict::DuplicatesAndLoss => "#8e2bb8",
        Verdict::Stuck => "#6b7280",
    }
}

/// A verdict as people say it (`duplicates and loss`).
pub fn verdict_title(verdict: Verdict) -> String {
    verdict.name().replace('-', " ")
}

/// The short text inside a matrix cell: ✓, `+6` (duplicates), `−3` (lost), `±`, `stuck`.
pub fn cell_label(verdict: Verdict, duplicates: u64, lost: u64) -> String {
    match verdict {
        Verdict::ExactlyOnce => "✓".into(),
        Verdict::Stopped => "‖".into(),
        Verdict::Duplicates => format!("+{duplicates}"),
        Verdict::DataLoss => format!("−{lost}"),
        Verdict::DuplicatesAndLoss => "±".into(),
        Verdict::Stuck => "■".into(),
    }
}

/// The tooltip of a run: `sink-commit@3: duplicates (6 dup, 0 lost)`.
pub fn run_tooltip(what: &str, verdict: Verdict, duplicates: u64, lost: u64) -> String {
    format!("{what}: {} ({duplicates} dup, {lost} lost)", verdict.name())
}

/// One cell of the verdict matrix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    /// The crash point of the cell.
    pub point: CrashPoint,
    /// The verdict of the run crashing there; `None` when the base run never reaches the point.
    pub verdict: Option<Verdict>,
    /// Extra copies in that run.
    pub duplicates: u64,
    /// Expected records missing in that run.
    pub lost: u64,
    /// Short text in the cell.
    pub label: String,
    /// Tooltip.
    pub tooltip: String,
    /// Background colour (`None`: empty).
    pub color: Option<&'static str>,
}

/// One row of the matrix: a crash point name and its cells, one per batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// Crash point name (`sink-commit`).
    pub point: String,
    /// One cell per column.
    pub cells: Vec<Cell>,
}

/// The verdict matrix as drawn: rows = crash points in protocol order, columns = batches.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct MatrixView {
    /// Column headers.
    pub batches: Vec<u64>,
    /// Rows, get-offset … commit-log.
    pub rows: Vec<Row>,
}

/// Duplicates and losses of the run with exactly these crashes (and no other fault); 0/0 for an
/// exactly-once run (only bad runs are kept in the summary).
fn counts_of(summary: &Summary, crashes: &[CrashPoint], fault: Option<Fault>) -> (u64, u64) {
    summary
        .bad_runs
        .iter()
        .find(|o| o.crashes == crashes && o.fault == fault)
        .map_or((0, 0), |o| (o.duplicates, o.lost))
}

/// The matrix of a summary, with labels, tooltips and colours.
pub fn matrix_view(summary: &Summary) -> MatrixView {
    let batches = summary.matrix.batches.clone();
    let rows = summary
        .matrix
        .rows
        .iter()
        .filter_map(|row| {
            let kind = CrashKind::from_name(&row.point)?;
            let cells = batches
                .iter()
                .zip(&row.verdicts)
                .map(|(&batch_id, verdict)| {
                    let point = CrashPoint { kind, batch_id };
                    match verdict {
                        Some(v) => {
                            let (duplicates, lost) = counts_of(summary, &[point], None);
                            Cell {
                                point,
                                verdict: Some(*v),
                                duplicates,
                                lost,
                                label: cell_label(*v, duplicates, lost),
                                tooltip: run_tooltip(&point.to_string(), *v, duplicates, lost),
                                color: Some(verdict_color(*v)),
                            }
                        }
                        None => Cell {
                            point,
                            verdict: None,
                            duplicates: 0,
                            lost: 0,
                            label: String::new(),
                            tooltip: format!(
                                "{point}: not reached (no such step in batch {batch_id})"
                            ),
                            color: None,
                        },
                    }
                })
                .collect();
            Some(Row {
                point: row.point.clone(),
                cells,
            })
        })
        .collect();
    MatrixView { batches, rows }
}

/// Runs per verdict, every verdict in [`Verdict::ALL`] order (zeros included).
pub fn verdict_counts(summary: &Summary) -> Vec<(Verdict, u64)> {
    Verdict::ALL
        .iter()
        .map(|v| (*v, summary.outcomes.get(v).copied().unwrap_or(0)))
        .collect()
}

/// A non-crash fault run alone (sink outage, partition split) and its verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultRow {
    /// What the fault is (`sink outage [1000, 1500) ms (batch 2)`).
    pub label: String,
    /// Its verdict.
    pub verdict: Verdict,
    /// Extra copies.
    pub duplicates: u64,
    /// Missing records.
    pub lost: u64,
}

/// The fault runs (each fault alone) with their verdicts, in exploration order.
pub fn fault_rows(summary: &Summary) -> Vec<FaultRow> {
    summary
        .faults
        .iter()
        .map(|f| {
            let run = summary
                .bad_runs
                .iter()
                .find(|o| o.crashes.is_empty() && o.fault == Some(*f));
            FaultRow {
                label: f.to_string(),
                verdict: run.map_or(Verdict::ExactlyOnce, |o| o.verdict),
                duplicates: run.map_or(0, |o| o.duplicates),
                lost: run.map_or(0, |o| o.lost),
            }
        })
        .collect()
}

/// The faults of `scenario` that the preset `preset` does not list itself (what a link adds).
pub fn extra_faults(
    preset: &str,
    scenario: &Scenario,
) -> Vec<batchscope_engine::microbatch::scenario::Fault> {
    let own = batchscope_engine::microbatch::scenario::preset(preset)
        .map(|p| p.faults)
        .unwrap_or_default();
    extra_of(&own, &scenario.faults)
}

/// The items of `all` beyond those of `own` (each of `own` cancels one equal item of `all`):
/// a link's faults, or its sink outages, beyond the scenario's own.
pub fn extra_of<T: Copy + PartialEq>(own: &[T], all: &[T]) -> Vec<T> {
    let mut own = own.to_vec();
    all.iter()
        .filter(|f| match own.iter().position(|o| o == *f) {
            Some(i) => {
                own.remove(i);
                false
            }
            None => true,
        })
        .copied()
        .collect()
}

/// `12 / 57 runs` and the fraction for the progress bar.
pub fn progress_text(p: &Progress) -> (String, f64) {
    let fraction = if p.total == 0 {
        0.0
    } else {
        (p.done as f64 / p.total as f64).clamp(0.0, 1.0)
    };
    (format!("{} / {} runs", p.done, p.total), fraction)
}

#[cfg(test)]
mod tests {
    use super::*;
    use batchscope_check::explore::Explorer;
    use batchscope_engine::microbatch::scenario::preset;

    fn kafka_summary() -> Summary {
        let mut e = Explorer::new(preset("kafka-append").unwrap(), 1);
        e.set_parallel(false);
        e.run_to_completion()
    }

    #[test]
    fn verdict_colours_differ() {
        let mut seen: Vec<&str> = Verdict::ALL.iter().map(|v| verdict_color(*v)).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), Verdict::ALL.len());
    }

    /// WCAG 2 relative luminance of `#rrggbb`.
    fn luminance(hex: &str) -> f64 {
        let channel = |i: usize| {
            let c = u8::from_str_radix(&hex[i..i + 2], 16).unwrap() as f64 / 255.0;
            if c <= 0.03928 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5)
    }

    #[test]
    fn white_cell_text_reads_on_every_verdict_colour() {
        for v in Verdict::ALL {
            let contrast = 1.05 / (luminance(verdict_color(v)) + 0.05);
            assert!(contrast >= 4.5, "{}: {contrast:.2}", v.name());
        }
    }

    #[test]
    fn labels_and_tooltips_name_the_damage() {
        assert_eq!(cell_label(Verdict::Duplicates, 6, 0), "+6");
        assert_eq!(cell_label(Verdict::DataLoss, 0, 3), "−3");
        assert_eq!(cell_label(Verdict::ExactlyOnce, 0, 0), "✓");
        assert_eq!(
            run_tooltip("sink-commit@3", Verdict::Duplicates, 6, 0),
            "sink-commit@3: duplicates (6 dup, 0 lost)"
        );
        assert_eq!(
            verdict_title(Verdict::DuplicatesAndLoss),
            "duplicates and loss"
        );
    }

    #[test]
    fn kafka_append_matrix_has_duplicates_at_task_and_sink_commit_and_no_loss() {
        let s = kafka_summary();
        let m = matrix_view(&s);
        let names: Vec<&str> = m.rows.iter().map(|r| r.point.as_str()).collect();
        // Every crash point but a SeaTunnel reader's snapshot, which this source never passes.
        let points: Vec<&str> = CrashKind::ALL
            .iter()
            .filter(|k| **k != CrashKind::StatePrepared)
            .map(|k| k.name())
            .collect();
        assert_eq!(names, points);
        assert!(!m.batches.is_empty());
        for row in &m.rows {
            assert_eq!(row.cells.len(), m.batches.len());
        }
        let cell = |point: &str, batch: u64| {
            let row = m.rows.iter().find(|r| r.point == point).unwrap();
            let col = m.batches.iter().position(|b| *b == batch).unwrap();
            row.cells[col].clone()
        };
        let sc = cell("sink-commit", 3);
        assert_eq!(sc.verdict, Some(Verdict::Duplicates));
        // The cell says what the oracle says of that one run.
        let mut crashed = preset("kafka-append").unwrap();
        crashed.crashes.push("sink-commit@3".parse().unwrap());
        let report = batchscope_check::oracle::check(&crashed);
        assert!(report.duplicates > 0);
        assert_eq!(
            sc.tooltip,
            format!(
                "sink-commit@3: duplicates ({} dup, {} lost)",
                report.duplicates, report.lost
            )
        );
        assert_eq!(sc.color, Some(verdict_color(Verdict::Duplicates)));
        assert_eq!(cell("task", 3).verdict, Some(Verdict::Duplicates));
        assert_eq!(cell("commit-log", 3).verdict, Some(Verdict::ExactlyOnce));
        assert!(m.rows.iter().flat_map(|r| &r.cells).all(|c| !matches!(
            c.verdict,
            Some(Verdict::DataLoss | Verdict::DuplicatesAndLoss)
        )));
        let counts = verdict_counts(&s);
        assert_eq!(counts.len(), Verdict::ALL.len());
        assert_eq!(counts.iter().map(|(_, n)| n).sum::<u64>(), s.runs);
    }

    #[test]
    fn fault_rows_list_every_fault_with_its_verdict() {
        let s = kafka_summary();
        let rows = fault_rows(&s);
        assert_eq!(rows.len(), s.faults.len());
        assert!(rows.iter().any(|r| r.label.starts_with("sink outage")));
        for r in &rows {
            let bad = s.bad_runs.iter().any(|o| {
                o.crashes.is_empty() && o.fault.map(|f| f.to_string()) == Some(r.label.clone())
            });
            assert_eq!(bad, r.verdict != Verdict::ExactlyOnce, "{}", r.label);
        }
    }

    #[test]
    fn progress_text_and_fraction() {
        let p = Progress {
            done: 3,
            total: 12,
            finished: false,
        };
        assert_eq!(progress_text(&p), ("3 / 12 runs".to_string(), 0.25));
        let none = Progress {
            done: 0,
            total: 0,
            finished: true,
        };
        assert_eq!(progress_text(&none).1, 0.0);
    }
}
