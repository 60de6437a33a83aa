//! The timeline under the diagram: every event of the run coloured by its batch, with crash,
//! failure and re-run marks, and where each batch (or its re-run) begins.

use batchscope_engine::event::Recovery;
use batchscope_engine::{Event, EventKind};

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
                EventKind::CommitLogWritten { .. } => Mark::Commit,
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
                    .any(|n| matches!(n.kind, EventKind::OffsetLogWritten { .. }));
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

/// Index of the next `commits/N` at or after `cursor` (events shown), as a cursor that shows it.
pub fn next_commit_cursor(events: &[Event], cursor: usize) -> usize {
    events
        .iter()
        .enumerate()
        .skip(cursor)
        .find(|(_, e)| matches!(e.kind, EventKind::CommitLogWritten { .. }))
        .map_or(events.len(), |(i, _)| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use batchscope_check::oracle::{run, Limit};
    use batchscope_engine::{preset, World};

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
