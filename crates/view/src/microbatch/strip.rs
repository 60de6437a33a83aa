//! The timeline under the diagram: every event of the run coloured by its batch, with crash,
//! failure and re-run marks, and where each batch (or its re-run) begins.

use batchscope_engine::microbatch::event::Recovery;
use batchscope_engine::microbatch::event::{Event, EventKind};

/// What a cell of the timeline carries besides its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// An ordinary step.
    None,
    /// The driver crashed here.
    Crash,
    /// The query failed (a sink write failed) here.
    Failed,
    /// The restarted driver decided to re-run a batch here.
    Rerun,
    /// `commits/N` was written here: batch N is done.
    Commit,
}

/// One event on the timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    /// The batch the event belongs to (carried forward over events that name none).
    pub batch: Option<u64>,
    /// The mark.
    pub mark: Mark,
}

/// The label where a batch, or a re-run of it, begins (`3`, `3′`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchStart {
    /// Index of the first event.
    pub index: usize,
    /// `3` for a first run, `3′` for a re-run.
    pub label: String,
    /// The batch id.
    pub batch: u64,
}

/// The batch an event belongs to, for colouring: its own, or `None` for waiting and start-up.
fn own_batch(kind: &EventKind) -> Option<u64> {
    match kind {
        EventKind::Idle { .. }
        | EventKind::QueryStarted { .. }
        | EventKind::NoNewData { .. }
        | EventKind::SourceInitialized { .. } => None,
        EventKind::Recovered { recovery, .. } => match recovery {
            Recovery::Rerun { batch_id } => Some(*batch_id),
            _ => None,
        },
        k => k.batch_id(),
    }
}

/// The cells of a whole trace.
pub fn cells(events: &[Event]) -> Vec<Cell> {
    let mut last: Option<u64> = None;
    events
        .iter()
        .map(|e| {
            let batch = match &e.kind {
                EventKind::Idle { .. } | EventKind::QueryStarted { .. } => {
                    last = None;
                    None
                }
                EventKind::Crashed { .. } | EventKind::QueryFailed { .. } => last,
                k => {
                    if let Some(b) = own_batch(k) {
                        last = Some(b);
                    }
                    last
                }
            };
            let mark = match &e.kind {
                EventKind::Crashed { .. } => Mark::Crash,
                EventKind::QueryFailed { .. } | EventKind::SinkWriteFailed { .. } => Mark::Failed,
                EventKind::Recovered {
                    recovery: Recovery::Rerun { .. },
                    ..
                } => Mark::Rerun,
                k if k.batch_done().is_some() => Mark::Commit,
                _ => Mark::None,
            };
            Cell { batch, mark }
        })
        .collect()
}

/// Where batches begin: at `offsets/N` (a batch is constructed) and at a re-run decision.
pub fn batch_starts(events: &[Event]) -> Vec<BatchStart> {
    events
        .iter()
        .enumerate()
        .filter_map(|(index, e)| match &e.kind {
            EventKind::TriggerFired { batch_id } => {
                // Only a trigger that leads to a batch (not one answered by "no new data").
                let constructed = events[index + 1..]
                    .iter()
                    .take_while(|n| {
                        !matches!(
                            n.kind,
                            EventKind::TriggerFired { .. } | EventKind::Crashed { .. }
                        )
                    })
                    .any(|n| n.kind.offsets_logged().is_some());
                constructed.then(|| BatchStart {
                    index,
                    label: batch_id.to_string(),
                    batch: *batch_id,
                })
            }
            EventKind::Recovered {
                recovery: Recovery::Rerun { batch_id },
                ..
            } => Some(BatchStart {
                index,
                label: format!("{batch_id}′"),
                batch: *batch_id,
            }),
            _ => None,
        })
        .collect()
}

/// Most columns the timeline draws; a longer run is drawn in bins of several events.
pub const MAX_COLUMNS: usize = 720;

/// Most batch labels the timeline prints; past it, labels too close to the one before are left
/// out (a re-run's label always stays).
pub const MAX_LABELS: usize = 48;

/// A stretch of consecutive events the timeline draws as one rectangle: one colour (the batch
/// of its first event), red if any of them is a crash or a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    /// Index of its first event.
    pub start: usize,
    /// Events it covers.
    pub len: usize,
    /// The batch that colours it.
    pub batch: Option<u64>,
    /// Whether a crash or a failure is among its events.
    pub alarm: bool,
}

/// What the timeline draws of a whole run, computed once per run: the page draws a few hundred
/// rectangles and labels however long the run is, and a step redraws only the cursor.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Strip {
    /// Events in the run.
    pub len: usize,
    /// Rectangles, in order, covering every event: runs of equal cells merged, and at most
    /// [`MAX_COLUMNS`] bins of equal width before merging.
    pub columns: Vec<Column>,
    /// Crash, failure and re-run marks: (event index, mark).
    pub marks: Vec<(usize, Mark)>,
    /// Batch labels, thinned to about [`MAX_LABELS`].
    pub labels: Vec<BatchStart>,
}

impl Strip {
    /// The strip of a whole trace.
    pub fn of(events: &[Event]) -> Strip {
        let cells = cells(events);
        let len = cells.len();
        let width = len.div_ceil(MAX_COLUMNS).max(1);
        let mut columns: Vec<Column> = Vec::new();
        for (i, bin) in cells.chunks(width).enumerate() {
            let column = Column {
                start: i * width,
                len: bin.len(),
                batch: bin[0].batch,
                alarm: bin
                    .iter()
                    .any(|c| matches!(c.mark, Mark::Crash | Mark::Failed)),
            };
            match columns.last_mut() {
                Some(prev) if prev.batch == column.batch && prev.alarm == column.alarm => {
                    prev.len += column.len;
                }
                _ => columns.push(column),
            }
        }
        let marks = cells
            .iter()
            .enumerate()
            .filter(|(_, c)| matches!(c.mark, Mark::Crash | Mark::Failed | Mark::Rerun))
            .map(|(i, c)| (i, c.mark))
            .collect();
        let gap = len / MAX_LABELS;
        let mut labels: Vec<BatchStart> = Vec::new();
        for start in batch_starts(events) {
            let rerun = start.label.ends_with('′');
            let room = labels.last().is_none_or(|l| start.index >= l.index + gap);
            if rerun || room {
                labels.push(start);
            }
        }
        Strip {
            len,
            columns,
            marks,
            labels,
        }
    }
}

/// Index of the next `commits/N` at or after `cursor` (events shown), as a cursor that shows it.
pub fn next_commit_cursor(events: &[Event], cursor: usize) -> usize {
    events
        .iter()
        .enumerate()
        .skip(cursor)
        .find(|(_, e)| e.kind.batch_done().is_some())
        .map_or(events.len(), |(i, _)| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use batchscope_check::oracle::{run, Limit};
    use batchscope_engine::microbatch::scenario::preset;
    use batchscope_engine::microbatch::World;

    /// The trace of a preset run to its end (at most 400 events).
    fn trace_with_crash(name: &str, crash: &str) -> Vec<Event> {
        let mut s = preset(name).unwrap();
        if !crash.is_empty() {
            s.crashes.push(crash.parse().unwrap());
        }
        let mut w = World::new(s);
        run(&mut w, Limit::events(400));
        w.events().to_vec()
    }

    #[test]
    fn a_crash_and_the_rerun_are_marked_and_labelled() {
        let events = trace_with_crash("kafka-append", "sink-commit@3");
        let cells = cells(&events);
        assert_eq!(cells.len(), events.len());
        let crash = cells.iter().position(|c| c.mark == Mark::Crash).unwrap();
        assert_eq!(cells[crash].batch, Some(3));
        let rerun = cells.iter().position(|c| c.mark == Mark::Rerun).unwrap();
        assert!(rerun > crash);
        assert_eq!(cells[rerun].batch, Some(3));
        let starts = batch_starts(&events);
        let labels: Vec<&str> = starts.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["0", "1", "2", "3", "3′", "4", "5"]);
        // The "no new data" trigger at the start is not a batch start.
        assert!(starts[0].index > 2);
        assert_eq!(
            cells.iter().filter(|c| c.mark == Mark::Commit).count(),
            6,
            "commits/0..5"
        );
    }

    #[test]
    fn a_short_run_is_drawn_event_by_event_in_merged_runs() {
        let events = trace_with_crash("kafka-append", "sink-commit@3");
        let strip = Strip::of(&events);
        let cells = cells(&events);
        assert_eq!(strip.len, events.len());
        // Every event is covered once, in order, and each column has its first cell's colour.
        let mut next = 0;
        for c in &strip.columns {
            assert_eq!(c.start, next);
            assert_eq!(c.batch, cells[c.start].batch);
            let alarm = cells[c.start..c.start + c.len]
                .iter()
                .any(|x| matches!(x.mark, Mark::Crash | Mark::Failed));
            assert_eq!(c.alarm, alarm);
            next += c.len;
        }
        assert_eq!(next, events.len());
        assert!(strip.columns.len() < events.len(), "equal neighbours merge");
        assert_eq!(
            strip.labels,
            batch_starts(&events),
            "few batches: every label"
        );
        let crash = cells.iter().position(|c| c.mark == Mark::Crash).unwrap();
        assert!(strip.marks.contains(&(crash, Mark::Crash)));
    }

    #[test]
    fn a_long_run_is_drawn_in_bounded_columns_and_labels() {
        let mut s = preset("kafka-append").unwrap();
        s.upstream.channels = 16;
        s.batches = 120;
        s.crashes.push("sink-commit@60".parse().unwrap());
        let mut w = World::new(s);
        run(&mut w, Limit::events(20_000));
        let events = w.events();
        assert!(events.len() > 2 * MAX_COLUMNS, "long enough to bin");
        let strip = Strip::of(events);
        assert!(strip.columns.len() <= MAX_COLUMNS);
        assert_eq!(
            strip.columns.iter().map(|c| c.len).sum::<usize>(),
            events.len()
        );
        let starts = batch_starts(events);
        assert!(starts.len() > MAX_LABELS && strip.labels.len() <= MAX_LABELS + 2);
        // The re-run's label stays, and the crash still shows as an alarm column and a mark.
        assert!(strip.labels.iter().any(|l| l.label == "60′"));
        assert!(strip.columns.iter().any(|c| c.alarm));
        assert!(strip.marks.iter().any(|(_, m)| *m == Mark::Crash));
    }

    #[test]
    fn next_batch_jumps_to_just_after_the_next_commit_log() {
        let events = trace_with_crash("kafka-append", "");
        let first = next_commit_cursor(&events, 0);
        assert!(matches!(
            events[first - 1].kind,
            EventKind::CommitLogWritten { batch_id: 0, .. }
        ));
        let second = next_commit_cursor(&events, first);
        assert!(matches!(
            events[second - 1].kind,
            EventKind::CommitLogWritten { batch_id: 1, .. }
        ));
        assert_eq!(next_commit_cursor(&events, events.len()), events.len());
    }
}
