//! What Spark's UI would show for the simulated run: one progress entry per batch attempt, as
//! `StreamingQueryProgress` reports it (`numInputRows`, `inputRowsPerSecond`,
//! `processedRowsPerSecond`, and `durationMs` split into `latestOffset`, `walCommit`,
//! `getBatch`, `queryPlanning`, `addBatch`, `commitOffsets`), and the Structured Streaming
//! tab's charts drawn from them (plotters, SVG).
//!
//! The durations are the simulation's logical clock (fixed costs per call, see the trace), not
//! measurements: they show where a batch's time goes in Spark's terms, not how fast Spark is.

use batchscope_engine::microbatch::event::{Event, EventKind, Recovery};

/// Spark's `durationMs` keys this model reports, in the order a batch runs them.
pub const OPERATIONS: [&str; 6] = [
    "latestOffset",
    "walCommit",
    "getBatch",
    "queryPlanning",
    "addBatch",
    "commitOffsets",
];

/// One batch attempt, as a `StreamingQueryProgress`.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchProgress {
    /// `batchId`.
    pub batch_id: u64,
    /// Which run of the driver (a re-run after a restart is a new attempt).
    pub run: u32,
    /// When the trigger fired (simulated ms).
    pub start_ms: u64,
    /// `numInputRows`: rows the tasks read.
    pub input_rows: u64,
    /// Milliseconds per operation, in [`OPERATIONS`] order.
    pub durations: [u64; 6],
    /// `triggerExecution`: the whole attempt (includes untimed work such as the source
    /// commit of the previous batch).
    pub trigger_ms: u64,
    /// `inputRowsPerSecond`: input rows over the time since the previous trigger.
    pub input_rate: f64,
    /// `processedRowsPerSecond`: input rows over `triggerExecution`.
    pub processing_rate: f64,
    /// Whether the attempt wrote `commits/N` (a crash or a failure ends it without).
    pub completed: bool,
}

/// The progress of every batch attempt that read data or committed, in order: an attempt
/// starts when the trigger fires, or when a restart re-runs the batch `offsets/N` holds (its
/// `latestOffset` and `walCommit` are then 0: the offsets come from the log). Triggers that
/// found no new data (Spark reports them, without a batch) are left out.
pub fn progress(events: &[Event]) -> Vec<BatchProgress> {
    let mut fold = Fold::default();
    for e in events {
        fold.feed(e);
    }
    fold.finish()
}

/// [`progress`] read event by event: the attempts closed so far (rates not yet computed), the
/// one open, and when the previous one started.
#[derive(Clone, Debug, Default)]
struct Fold {
    out: Vec<BatchProgress>,
    current: Option<(BatchProgress, u64)>,
    previous_start: Option<u64>,
}

impl Fold {
    fn close(&mut self) {
        if let Some((p, _)) = self.current.take() {
            if p.completed || p.input_rows > 0 {
                self.out.push(p);
            }
        }
    }

    fn feed(&mut self, e: &Event) {
        let at = e.at_ms;
        match &e.kind {
            EventKind::TriggerFired { batch_id }
            | EventKind::Recovered {
                recovery: Recovery::Rerun { batch_id },
                ..
            } => {
                self.close();
                let since = self.previous_start.map_or(0, |s| at.saturating_sub(s));
                self.previous_start = Some(at);
                let p = BatchProgress {
                    batch_id: *batch_id,
                    run: e.run,
                    start_ms: at,
                    input_rows: 0,
                    durations: [0; 6],
                    trigger_ms: 0,
                    input_rate: since as f64,
                    processing_rate: 0.0,
                    completed: false,
                };
                self.current = Some((p, at));
            }
            EventKind::NoNewData { .. }
            | EventKind::Crashed { .. }
            | EventKind::QueryFailed { .. } => self.close(),
            kind => {
                let Some((p, mark)) = self.current.as_mut() else {
                    return;
                };
                let op = match kind {
                    EventKind::GetOffset { .. } => Some(0),
                    k if k.offsets_logged().is_some() => Some(1),
                    EventKind::GetBatch { .. } => Some(2),
                    EventKind::AddBatch { .. } => Some(3),
                    EventKind::SinkCommitted { .. } => Some(4),
                    k if k.batch_done().is_some() => Some(5),
                    EventKind::SourceCommit { .. } => None,
                    EventKind::TaskRead { rows, .. } => {
                        p.input_rows += rows;
                        return;
                    }
                    _ => return,
                };
                if let Some(op) = op {
                    p.durations[op] += at.saturating_sub(*mark);
                }
                *mark = at;
                if kind.batch_done().is_some() {
                    p.completed = true;
                    p.trigger_ms = at.saturating_sub(p.start_ms);
                    self.close();
                }
            }
        }
    }

    fn finish(mut self) -> Vec<BatchProgress> {
        self.close();
        for p in &mut self.out {
            let since_ms = p.input_rate;
            p.input_rate = rate(p.input_rows, since_ms);
            if p.trigger_ms == 0 {
                p.trigger_ms = p.durations.iter().sum();
            }
            p.processing_rate = rate(p.input_rows, p.trigger_ms as f64);
        }
        self.out
    }
}

/// [`progress`] of any prefix of one run's events without reading the prefix: the attempts
/// the whole run closed, and where the reading stood every [`ProgressIndex::EVERY`] events.
/// The dashboard shows the progress at every step, and a long run has hundreds of thousands
/// of events.
#[derive(Clone, Debug, Default)]
pub struct ProgressIndex {
    /// Every attempt the whole run closed, rates not yet computed.
    closed: Vec<BatchProgress>,
    /// At event `k × EVERY`: how many of `closed` were closed, the open attempt, when the
    /// previous one started.
    marks: Vec<Mark>,
}

/// Where [`ProgressIndex`]'s reading stood at a mark: attempts closed, the open one (and the
/// time of its last operation), when the previous attempt started.
type Mark = (usize, Option<(BatchProgress, u64)>, Option<u64>);

impl ProgressIndex {
    /// Events between two marks.
    pub const EVERY: usize = 256;

    /// The index of `events` (the whole run).
    pub fn of(events: &[Event]) -> ProgressIndex {
        let mut fold = Fold::default();
        let mut marks = Vec::with_capacity(events.len() / Self::EVERY + 1);
        for (i, e) in events.iter().enumerate() {
            if i % Self::EVERY == 0 {
                marks.push((fold.out.len(), fold.current.clone(), fold.previous_start));
            }
            fold.feed(e);
        }
        ProgressIndex {
            closed: fold.out,
            marks,
        }
    }

    /// `progress(&events[..cursor])`, where `events` is the run the index was made of.
    pub fn at(&self, events: &[Event], cursor: usize) -> Vec<BatchProgress> {
        let cursor = cursor.min(events.len());
        let k = (cursor / Self::EVERY).min(self.marks.len().saturating_sub(1));
        let mut fold = match self.marks.get(k) {
            Some((closed, current, previous_start)) => Fold {
                out: self.closed[..*closed].to_vec(),
                current: current.clone(),
                previous_start: *previous_start,
            },
            None => Fold::default(),
        };
        // Mark k stands at event k × EVERY ≤ cursor (0 when there are no events).
        for e in &events[k * Self::EVERY..cursor] {
            fold.feed(e);
        }
        fold.finish()
    }
}

fn rate(rows: u64, ms: f64) -> f64 {
    if ms <= 0.0 {
        0.0
    } else {
        rows as f64 * 1000.0 / ms
    }
}

/// Colours of the operations in the duration chart, distinct on both themes.
pub const OPERATION_COLORS: [(u8, u8, u8); 6] = [
    (91, 108, 240),
    (13, 154, 152),
    (217, 130, 11),
    (139, 92, 246),
    (31, 157, 85),
    (214, 51, 132),
];

/// Which chart of the Structured Streaming tab.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chart {
    /// Input rate and processing rate (rows/s) per batch.
    Rates,
    /// Batch duration split into operations (ms), stacked.
    Durations,
    /// Input rows per batch.
    Rows,
}

impl Chart {
    /// Every chart, in the tab's order.
    pub const ALL: [Chart; 3] = [Chart::Rates, Chart::Durations, Chart::Rows];

    /// Its stable name (`rates`).
    pub fn name(self) -> &'static str {
        match self {
            Chart::Rates => "rates",
            Chart::Durations => "durations",
            Chart::Rows => "rows",
        }
    }

    /// The chart of a stable name.
    pub fn from_name(name: &str) -> Option<Chart> {
        Chart::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// Numbers [`pack`] writes per batch attempt.
const PACKED: usize = 14;

/// The attempts as plain numbers, [`PACKED`] each, for the page to hand its second module (which
/// draws the charts) in one typed array: integers up to 2^53 are exact in an `f64`.
pub fn pack(progress: &[BatchProgress]) -> Vec<f64> {
    let mut out = Vec::with_capacity(progress.len() * PACKED);
    for p in progress {
        out.extend([
            p.batch_id as f64,
            f64::from(p.run),
            p.start_ms as f64,
            p.input_rows as f64,
        ]);
        out.extend(p.durations.map(|d| d as f64));
        out.extend([
            p.trigger_ms as f64,
            p.input_rate,
            p.processing_rate,
            f64::from(u8::from(p.completed)),
        ]);
    }
    out
}

/// The attempts [`pack`] wrote; numbers it did not write are an error that says why.
pub fn unpack(numbers: &[f64]) -> Result<Vec<BatchProgress>, String> {
    if !numbers.len().is_multiple_of(PACKED) {
        return Err(format!(
            "{} numbers are not whole batch attempts of {PACKED} numbers each",
            numbers.len()
        ));
    }
    let whole = |x: f64| -> Result<u64, String> {
        if x >= 0.0 && x.fract() == 0.0 && x <= (1u64 << 53) as f64 {
            Ok(x as u64)
        } else {
            Err(format!("{x} is not a count"))
        }
    };
    numbers
        .chunks_exact(PACKED)
        .map(|n| {
            let mut durations = [0u64; 6];
            for (d, x) in durations.iter_mut().zip(&n[4..10]) {
                *d = whole(*x)?;
            }
            Ok(BatchProgress {
                batch_id: whole(n[0])?,
                run: u32::try_from(whole(n[1])?).map_err(|_| format!("{} is not a run", n[1]))?,
                start_ms: whole(n[2])?,
                input_rows: whole(n[3])?,
                durations,
                trigger_ms: whole(n[10])?,
                input_rate: n[11],
                processing_rate: n[12],
                completed: match n[13] {
                    0.0 => false,
                    1.0 => true,
                    x => return Err(format!("{x} is not 0 or 1 (whether the attempt committed)")),
                },
            })
        })
        .collect()
}

/// A chart as an SVG string, `width` × `height`, text in the theme's colour.
pub fn chart_svg(
    progress: &[BatchProgress],
    chart: Chart,
    width: u32,
    height: u32,
    dark: bool,
) -> String {
    use plotters::prelude::*;
    let mut svg = String::new();
    let text = if dark {
        RGBColor(200, 208, 220)
    } else {
        RGBColor(60, 70, 86)
    };
    let grid = if dark {
        RGBColor(52, 62, 78)
    } else {
        RGBColor(225, 230, 238)
    };
    let n = progress.len().max(1);
    let y_max = match chart {
        Chart::Rates => progress
            .iter()
            .map(|p| p.input_rate.max(p.processing_rate))
            .fold(1.0, f64::max),
        Chart::Durations => progress
            .iter()
            .map(|p| p.durations.iter().sum::<u64>() as f64)
            .fold(1.0, f64::max),
        Chart::Rows => progress
            .iter()
            .map(|p| p.input_rows as f64)
            .fold(1.0, f64::max),
    } * 1.15;
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        // plotters draws a font of size s at 0.8 s px: 15 gives 12 px.
        let style = ("sans-serif", 15).into_font().color(&text);
        let mut c = ChartBuilder::on(&root)
            .margin(8)
            .x_label_area_size(26)
            .y_label_area_size(46)
            .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), 0f64..y_max)
            .expect("chart area");
        let labels: Vec<String> = progress
            .iter()
            .map(|p| format!("{}{}", p.batch_id, if p.completed { "" } else { "✗" }))
            .collect();
        c.configure_mesh()
            .light_line_style(grid)
            .bold_line_style(grid)
            .axis_style(grid)
            .x_labels(n.min(12))
            .x_label_formatter(&|x| {
                let i = x.round();
                if (x - i).abs() < 1e-6 && i >= 0.0 {
                    labels.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .y_labels(5)
            .y_label_formatter(&|y| format!("{y:.0}"))
            .label_style(style.clone())
            .x_desc("batch")
            .axis_desc_style(style)
            .draw()
            .expect("mesh");
        match chart {
            Chart::Rates => {
                for (i, (color, pick)) in [
                    (
                        OPERATION_COLORS[0],
                        (|p: &BatchProgress| p.input_rate) as fn(&BatchProgress) -> f64,
                    ),
                    (OPERATION_COLORS[4], |p: &BatchProgress| p.processing_rate),
                ]
                .into_iter()
                .enumerate()
                {
                    let color = RGBColor(color.0, color.1, color.2);
                    let points: Vec<(f64, f64)> = progress
                        .iter()
                        .enumerate()
                        .map(|(x, p)| (x as f64, pick(p)))
                        .collect();
                    c.draw_series(LineSeries::new(
                        points.clone(),
                        color.stroke_width(2 + i as u32),
                    ))
                    .expect("line");
                    c.draw_series(
                        points
                            .into_iter()
                            .map(|pt| Circle::new(pt, 3, color.filled())),
                    )
                    .expect("points");
                }
            }
            Chart::Durations => {
                for (x, p) in progress.iter().enumerate() {
                    let mut base = 0.0;
                    for (op, ms) in p.durations.iter().enumerate() {
                        let (r, g, b) = OPERATION_COLORS[op];
                        let top = base + *ms as f64;
                        if *ms > 0 {
                            c.draw_series(std::iter::once(Rectangle::new(
                                [(x as f64 - 0.35, base), (x as f64 + 0.35, top)],
                                RGBColor(r, g, b).filled(),
                            )))
                            .expect("bar");
                        }
                        base = top;
                    }
                }
            }
            Chart::Rows => {
                let (r, g, b) = OPERATION_COLORS[0];
                c.draw_series(progress.iter().enumerate().map(|(x, p)| {
                    Rectangle::new(
                        [
                            (x as f64 - 0.35, 0.0),
                            (x as f64 + 0.35, p.input_rows as f64),
                        ],
                        RGBColor(r, g, b)
                            .mix(if p.completed { 1.0 } else { 0.45 })
                            .filled(),
                    )
                }))
                .expect("bars");
            }
        }
        root.present().expect("svg");
    }
    svg
}

#[cfg(test)]
mod tests {
    use super::*;
    use batchscope_check::oracle::check_world;

    fn run(crash: Option<&str>) -> Vec<Event> {
        let mut s = batchscope_engine::microbatch::scenario::preset("kafka-append").unwrap();
        s.crashes = crash.map(|c| vec![c.parse().unwrap()]).unwrap_or_default();
        check_world(&s, false).1.events().to_vec()
    }

    #[test]
    fn packed_attempts_come_back_as_they_were() {
        let p = progress(&run(Some("sink-commit@3")));
        assert!(p.iter().any(|a| !a.completed) && p.iter().any(|a| a.completed));
        assert_eq!(unpack(&pack(&p)), Ok(p));
        assert_eq!(unpack(&[]), Ok(vec![]));
        for c in Chart::ALL {
            assert_eq!(Chart::from_name(c.name()), Some(c));
        }
        assert_eq!(Chart::from_name("pie"), None);
    }

    #[test]
    fn numbers_pack_did_not_write_are_named() {
        let mut numbers = pack(&progress(&run(None)));
        numbers.pop();
        assert!(unpack(&numbers)
            .unwrap_err()
            .contains("not whole batch attempts"));
        let mut numbers = pack(&progress(&run(None)));
        numbers[0] = -1.0;
        assert_eq!(unpack(&numbers).unwrap_err(), "-1 is not a count");
        let mut numbers = pack(&progress(&run(None)));
        numbers[13] = 0.5;
        assert!(unpack(&numbers).unwrap_err().contains("0.5 is not 0 or 1"));
    }

    #[test]
    fn the_index_gives_the_progress_of_every_prefix() {
        let mut long = batchscope_engine::microbatch::scenario::preset("kafka-idempotent").unwrap();
        long.upstream.channels = 32;
        long.batches = 30;
        long.crashes = vec!["sink-commit@4".parse().unwrap()];
        let long = check_world(&long, false).1.events().to_vec();
        assert!(
            long.len() > 4 * ProgressIndex::EVERY,
            "the run crosses several marks"
        );
        let runs = [
            run(None),
            run(Some("sink-commit@3")),
            run(Some("offset-log@2")),
            long,
        ];
        for events in runs {
            let index = ProgressIndex::of(&events);
            for cursor in 0..=events.len() + 1 {
                let prefix = &events[..cursor.min(events.len())];
                assert_eq!(index.at(&events, cursor), progress(prefix), "at {cursor}");
            }
        }
        assert!(ProgressIndex::of(&[]).at(&[], 3).is_empty());
    }

    #[test]
    fn every_committed_batch_has_a_progress_whose_parts_add_up() {
        let events = run(None);
        let p = progress(&events);
        let commits = events
            .iter()
            .filter(|e| matches!(e.kind, EventKind::CommitLogWritten { .. }))
            .count();
        assert_eq!(p.iter().filter(|b| b.completed).count(), commits);
        let read: u64 = events
            .iter()
            .map(|e| match e.kind {
                EventKind::TaskRead { rows, .. } => rows,
                _ => 0,
            })
            .sum();
        assert_eq!(p.iter().map(|b| b.input_rows).sum::<u64>(), read);
        for b in &p {
            assert!(b.durations.iter().sum::<u64>() <= b.trigger_ms, "{b:?}");
            assert!(b.durations[4] > 0, "addBatch takes time: {b:?}");
            assert!(b.processing_rate > 0.0);
        }
    }

    #[test]
    fn a_crashed_attempt_is_reported_unfinished_and_its_rerun_again() {
        let p = progress(&run(Some("sink-commit@3")));
        let attempts: Vec<&BatchProgress> = p.iter().filter(|b| b.batch_id == 3).collect();
        assert_eq!(attempts.len(), 2, "{p:?}");
        assert!(!attempts[0].completed && attempts[1].completed);
        assert!(attempts[1].run > attempts[0].run);
    }

    #[test]
    fn charts_draw_every_batch() {
        let p = progress(&run(None));
        for chart in [Chart::Rates, Chart::Durations, Chart::Rows] {
            let svg = chart_svg(&p, chart, 360, 160, false);
            let last = format!("\n{}\n</text>", p.last().unwrap().batch_id);
            assert!(svg.starts_with("<svg") && svg.contains(&last), "{chart:?}");
            // Tick labels stay readable on a projector: at least 11 px.
            for size in svg.split("font-size=\"").skip(1) {
                let px: f64 = size.split('"').next().unwrap().parse().unwrap();
                assert!(px >= 11.0, "{chart:?}: {px} px");
            }
        }
    }
}
