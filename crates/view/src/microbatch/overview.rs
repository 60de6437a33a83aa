//! The whole run at a glance (the micro-batch minimap): one mark per batch the run constructed,
//! what happened to it (committed, re-run after a crash, crashed, the query failed, never
//! committed), where its crashes and the guided tour's stops fall, where a click seeks to, and
//! which batch the cursor is in. Pure functions of the trace; the web crate only draws them.

use crate::microbatch::strip::{batch_starts, cells, Cell, Mark};
use batchscope_engine::microbatch::event::{Event, EventKind, Recovery};

/// What happened to a batch over the whole run (the mark's colour).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `commits/N` was written, first time round.
    Committed,
    /// The driver crashed during it and the restarted driver ran it again.
    Rerun,
    /// The driver crashed during it and it was not run again (the crash came after `commits/N`,
    /// or the run ended first).
    Crashed,
    /// The query failed during it (a sink write failed, a foreachBatch function threw).
    Failed,
    /// Constructed (`offsets/N` written) but never committed: the run ended or got stuck first.
    Open,
}

impl Outcome {
    /// Short words for a label or a table cell.
    pub fn text(self) -> &'static str {
        match self {
            Outcome::Committed => "committed",
            Outcome::Rerun => "re-run after a crash",
            Outcome::Crashed => "a crash, not re-run",
            Outcome::Failed => "the query failed",
            Outcome::Open => "not committed",
        }
    }

    /// CSS class suffix (`ov-committed`, …).
    pub fn class(self) -> &'static str {
        match self {
            Outcome::Committed => "committed",
            Outcome::Rerun => "rerun",
            Outcome::Crashed => "crashed",
            Outcome::Failed => "failed",
            Outcome::Open => "open",
        }
    }
}

/// One batch of the run, as the minimap draws it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchMark {
    /// Batch id N.
    pub batch_id: u64,
    /// Which query it belongs to: 0, or +1 for each new query on a fresh checkpoint folder
    /// (after the folder was deleted), whose batch ids start again at 0.
    pub query: u32,
    /// Index of its first event (the trigger that constructed it).
    pub first_event: usize,
    /// One past the index of its last event.
    pub end_event: usize,
    /// What happened to it.
    pub outcome: Outcome,
    /// Whether `commits/N` was written.
    pub committed: bool,
    /// Indices of the driver crashes during it (or, for a crash outside any batch, the batch
    /// before it).
    pub crashes: Vec<usize>,
    /// The crash points that fired (`sink-commit@3`, or `after #41` for a crash after an event).
    pub crash_names: Vec<String>,
    /// Driver runs it had events in (1 for the first start, +1 per restart).
    pub runs: Vec<u32>,
    /// Rows its tasks handed to the sink in its last run.
    pub rows: u64,
}

impl BatchMark {
    /// The cursor a click seeks to: its first event shown as the current one.
    pub fn seek_cursor(&self) -> usize {
        self.first_event + 1
    }

    /// What happened to it, in words (`re-run after a crash`).
    pub fn outcome_text(&self) -> String {
        let mut s = self.outcome.text().to_string();
        if self.outcome == Outcome::Failed && self.committed {
            s.push_str(", committed after the restart");
        }
        s
    }

    /// Its name: `Batch 3`, or `Batch 0 of query 2` for a batch of a new query.
    pub fn name(&self) -> String {
        match self.query {
            0 => format!("Batch {}", self.batch_id),
            q => format!("Batch {} of query {}", self.batch_id, q + 1),
        }
    }

    /// Its mark's text: `3`, or `q2·0` for a batch of a new query.
    pub fn short_label(&self) -> String {
        match self.query {
            0 => self.batch_id.to_string(),
            q => format!("q{}·{}", q + 1, self.batch_id),
        }
    }

    /// The accessible name of its button: `Batch 3: re-run after a crash`.
    pub fn aria_label(&self) -> String {
        format!("{}: {}", self.name(), self.outcome_text())
    }

    /// Whether event index `event` lies in its span.
    pub fn contains(&self, event: usize) -> bool {
        (self.first_event..self.end_event).contains(&event)
    }

    /// How far the cursor is through it, 0–1 (0 before it, 1 after it).
    pub fn progress(&self, cursor: usize) -> f64 {
        let len = (self.end_event - self.first_event).max(1) as f64;
        (cursor.saturating_sub(self.first_event) as f64 / len).min(1.0)
    }
}

/// The minimap of one run: its marks, and what each event belongs to (computed once per run, so
/// finding the cursor's mark at each step is a lookup, not a scan of the trace).
#[derive(Clone, Debug, PartialEq)]
pub struct Overview {
    /// One mark per batch ([`batch_marks`]).
    pub marks: Vec<BatchMark>,
    /// The timeline cell of each event.
    cells: Vec<Cell>,
    /// The query of each event.
    query: Vec<u32>,
}

impl Overview {
    /// The overview of a whole trace.
    pub fn of(events: &[Event]) -> Overview {
        let cells = cells(events);
        let query = queries(events);
        let marks = marks_of(events, &cells, &query);
        Overview {
            marks,
            cells,
            query,
        }
    }

    /// The first mark that begins at or after the cursor (events shown): that mark and every
    /// later one are still to come (marks are in start order), the ones before it have begun.
    pub fn future_from(&self, cursor: usize) -> usize {
        self.marks.partition_point(|m| m.first_event < cursor)
    }

    /// The mark the cursor (events shown) is in: the batch of the current event, else the last
    /// mark begun before it; `None` before the first batch. (A cell and a query depend only on
    /// the events before them, so the whole trace's cell at the cursor is the shown one's.)
    pub fn current(&self, cursor: usize) -> Option<usize> {
        let current = cursor.checked_sub(1)?.min(self.cells.len().checked_sub(1)?);
        let query = self.query[current];
        self.cells[current]
            .batch
            .and_then(|b| {
                self.marks
                    .iter()
                    .position(|m| m.batch_id == b && m.query == query)
            })
            .or_else(|| begun_by(&self.marks, current))
    }
}

/// One mark per batch the run constructed (each batch id whose `offsets/N` or re-run appears),
/// in the order they first start.
pub fn batch_marks(events: &[Event]) -> Vec<BatchMark> {
    Overview::of(events).marks
}

/// A batch's key: (query, batch id).
type Key = (u32, u64);

/// The index of `key` in a list sorted by key (a sorted list rather than a map: one more map
/// type costs the page's first load more code than these few thousand entries need).
fn find<V>(list: &[(Key, V)], key: Key) -> Result<usize, usize> {
    list.binary_search_by(|(k, _)| k.cmp(&key))
}

/// One mark per (query, batch) of the trace, where it begins and ends, in page order; what
/// happened to it is left for [`marks_of`] to fill in.
fn bare_marks(events: &[Event], cells: &[Cell], query: &[u32]) -> Vec<BatchMark> {
    // First and last event of each (query, batch), in one pass.
    let mut spans: Vec<(Key, (usize, usize))> = Vec::new();
    for (j, c) in cells.iter().enumerate() {
        if let Some(b) = c.batch {
            match find(&spans, (query[j], b)) {
                Ok(k) => spans[k].1 .1 = j,
                Err(k) => spans.insert(k, ((query[j], b), (j, j))),
            }
        }
    }
    // Where each batch starts: its trigger (or re-run) if it has one; otherwise (continuous
    // processing's epochs, which no trigger starts) its first event.
    let mut firsts: Vec<(Key, usize)> = Vec::new();
    let mut first_at = |key: Key, at: usize| {
        if let Err(k) = find(&firsts, key) {
            firsts.insert(k, (key, at));
        }
    };
    for start in batch_starts(events) {
        first_at((query[start.index], start.batch), start.index);
    }
    for (i, e) in events.iter().enumerate() {
        if let Some(batch_id) = e.kind.offsets_logged() {
            let key = (query[i], batch_id);
            let first = find(&spans, key).map_or(i, |k| spans[k].1 .0.min(i));
            first_at(key, first);
        }
    }
    let mut marks: Vec<BatchMark> = firsts
        .into_iter()
        .map(|((q, b), first_event)| BatchMark {
            batch_id: b,
            query: q,
            first_event,
            end_event: find(&spans, (q, b))
                .map_or(first_event + 1, |k| spans[k].1 .1 + 1)
                .max(first_event + 1),
            outcome: Outcome::Open,
            committed: false,
            crashes: vec![],
            crash_names: vec![],
            runs: vec![],
            rows: 0,
        })
        .collect();
    marks.sort_by_key(|m| (m.first_event, m.batch_id));
    marks
}

/// [`batch_marks`] from the trace's cells and queries.
fn marks_of(events: &[Event], cells: &[Cell], query: &[u32]) -> Vec<BatchMark> {
    let mut marks = bare_marks(events, cells, query);
    let owner = owners(&marks, cells, query);
    // The rows each mark's last run handed to the sink: (run, rows).
    let mut last_run_rows: Vec<(u32, u64)> = vec![(0, 0); marks.len()];
    let mut failed = vec![false; marks.len()];
    let mut rerun = vec![false; marks.len()];
    for (i, e) in events.iter().enumerate() {
        let Some(m) = owner[i] else { continue };
        let mark = &mut marks[m];
        if cells[i].batch == Some(mark.batch_id) && !mark.runs.contains(&e.run) {
            mark.runs.push(e.run);
        }
        match &e.kind {
            EventKind::Crashed {
                point, after_seq, ..
            } => {
                mark.crashes.push(i);
                mark.crash_names.push(match point {
                    Some(p) => p.to_string(),
                    None => format!("after #{after_seq}"),
                });
            }
            k if k.batch_done() == Some(mark.batch_id) => {
                mark.committed = true;
            }
            EventKind::TaskFinished { batch_id, rows, .. } if *batch_id == mark.batch_id => {
                let entry = &mut last_run_rows[m];
                if entry.0 != e.run {
                    *entry = (e.run, 0);
                }
                entry.1 += rows;
            }
            _ => {}
        }
        match cells[i].mark {
            Mark::Failed => failed[m] = true,
            Mark::Rerun => rerun[m] = true,
            _ => {}
        }
    }
    for (m, mark) in marks.iter_mut().enumerate() {
        mark.rows = last_run_rows[m].1;
        mark.outcome = if failed[m] {
            Outcome::Failed
        } else if rerun[m] {
            Outcome::Rerun
        } else if !mark.crashes.is_empty() {
            Outcome::Crashed
        } else if mark.committed {
            Outcome::Committed
        } else {
            Outcome::Open
        };
    }
    marks
}

/// Which mark each event counts towards: its own batch's, else (start-up, a restart, a crash
/// between batches) the last mark begun before it, else the first.
fn owners(marks: &[BatchMark], cells: &[Cell], query: &[u32]) -> Vec<Option<usize>> {
    let mut by_id: Vec<(Key, usize)> = marks
        .iter()
        .enumerate()
        .map(|(i, m)| ((m.query, m.batch_id), i))
        .collect();
    by_id.sort_unstable_by_key(|(k, _)| *k);
    cells
        .iter()
        .enumerate()
        .map(|(i, c)| {
            c.batch
                .and_then(|b| find(&by_id, (query[i], b)).ok().map(|k| by_id[k].1))
                .or_else(|| begun_by(marks, i))
                .or(if marks.is_empty() { None } else { Some(0) })
        })
        .collect()
}

/// The last mark begun at or before event index `event` (marks are in start order).
fn begun_by(marks: &[BatchMark], event: usize) -> Option<usize> {
    marks
        .partition_point(|m| m.first_event <= event)
        .checked_sub(1)
}

/// The query each event belongs to: 0, +1 at each fresh start after the first (a new
/// checkpoint folder, so batch ids start again). A restart that only writes a new `metadata`
/// (a lost file) keeps its batch ids: it is the same query here.
fn queries(events: &[Event]) -> Vec<u32> {
    let mut fresh = 0u32;
    events
        .iter()
        .map(|e| {
            if let EventKind::Recovered {
                recovery: Recovery::Fresh,
                ..
            } = e.kind
            {
                fresh += 1;
            }
            fresh.saturating_sub(1)
        })
        .collect()
}

/// For each tour stop (cursor, title), the mark its current event falls in.
pub fn stops_by_mark(marks: &[BatchMark], stops: &[(usize, String)]) -> Vec<Vec<String>> {
    let mut out = vec![Vec::new(); marks.len()];
    for (cursor, title) in stops {
        let event = cursor.saturating_sub(1);
        let m = begun_by(marks, event);
        if let Some(m) = m {
            out[m].push(title.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use batchscope_check::oracle::{run, Limit};
    use batchscope_engine::microbatch::scenario::Fault;
    use batchscope_engine::microbatch::scenario::{preset, presets, CrashPoint};
    use batchscope_engine::microbatch::World;
    use std::collections::BTreeSet;

    /// The trace of a preset run to its end, with crashes and faults.
    fn trace(name: &str, crashes: &[&str], faults: &[Fault]) -> Vec<Event> {
        let mut s = preset(name).unwrap();
        s.crashes
            .extend(crashes.iter().map(|c| c.parse::<CrashPoint>().unwrap()));
        s.faults.extend(faults.iter().cloned());
        let mut w = World::new(s);
        run(&mut w, Limit::events(600));
        w.events().to_vec()
    }

    /// (query, batch id) of every `offsets/N` the trace wrote: a new query (a fresh checkpoint
    /// folder) numbers its batches from 0 again.
    fn constructed(events: &[Event]) -> BTreeSet<(u32, u64)> {
        let mut query = 0;
        let mut out = BTreeSet::new();
        for e in events {
            match e.kind {
                EventKind::Recovered {
                    recovery: Recovery::Fresh,
                    ..
                } if e.seq > 1 => query += 1,
                ref k => {
                    if let Some(batch_id) = k.offsets_logged() {
                        out.insert((query, batch_id));
                    }
                }
            }
        }
        out
    }

    #[test]
    fn one_mark_per_batch_and_the_crashed_batch_is_rerun() {
        let events = trace("kafka-append", &["sink-commit@3"], &[]);
        let marks = batch_marks(&events);
        let ids: BTreeSet<(u32, u64)> = marks.iter().map(|m| (m.query, m.batch_id)).collect();
        assert_eq!(ids, constructed(&events));
        assert_eq!(ids.len(), marks.len(), "no batch twice");
        let crashes: Vec<usize> = events
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e.kind, EventKind::Crashed { .. }))
            .map(|(i, _)| i)
            .collect();
        let marked: Vec<usize> = marks.iter().flat_map(|m| m.crashes.clone()).collect();
        assert_eq!(marked, crashes, "every crash on exactly one mark");
        let three = marks.iter().find(|m| m.batch_id == 3).unwrap();
        assert_eq!(three.outcome, Outcome::Rerun);
        assert_eq!(three.aria_label(), "Batch 3: re-run after a crash");
        assert_eq!(three.crash_names, ["sink-commit@3"]);
        assert_eq!(three.runs.len(), 2, "{:?}", three.runs);
        let committed: BTreeSet<u64> = events
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::CommitLogWritten { batch_id, .. } => Some(batch_id),
                _ => None,
            })
            .collect();
        for m in marks.iter().filter(|m| m.batch_id != 3) {
            assert_eq!(m.outcome, Outcome::Committed, "batch {}", m.batch_id);
            assert_eq!(m.committed, committed.contains(&m.batch_id));
        }
    }

    #[test]
    fn a_click_seeks_to_the_trigger_of_the_batch_and_the_cursor_finds_its_mark() {
        let events = trace("kafka-append", &["sink-commit@3"], &[]);
        let overview = Overview::of(&events);
        let marks = &overview.marks;
        for (i, m) in marks.iter().enumerate() {
            let current = &events[m.seek_cursor() - 1];
            assert!(
                matches!(current.kind, EventKind::TriggerFired { batch_id } if batch_id == m.batch_id),
                "{:?}",
                current.kind
            );
            assert_eq!(overview.current(m.seek_cursor()), Some(i));
            assert_eq!(m.progress(m.first_event), 0.0);
            assert_eq!(m.progress(m.end_event), 1.0);
        }
        // Spans follow one another.
        for pair in marks.windows(2) {
            assert!(pair[0].first_event < pair[1].first_event);
        }
        assert_eq!(overview.current(0), None);
    }

    #[test]
    fn future_from_splits_the_marks_begun_from_those_to_come_at_every_cursor() {
        let events = trace("kafka-append", &["sink-commit@3"], &[]);
        let overview = Overview::of(&events);
        for cursor in 0..=events.len() {
            let split = overview.future_from(cursor);
            for (i, m) in overview.marks.iter().enumerate() {
                assert_eq!(
                    i >= split,
                    m.first_event >= cursor,
                    "cursor {cursor}, mark {i}"
                );
            }
        }
    }

    #[test]
    fn rows_are_those_the_last_run_handed_to_the_sink() {
        let events = trace("kafka-append", &["sink-commit@3"], &[]);
        for m in batch_marks(&events) {
            let last_run = *m.runs.iter().max().unwrap();
            let rows: u64 = events
                .iter()
                .filter(|e| e.run == last_run)
                .filter_map(|e| match e.kind {
                    EventKind::TaskFinished { batch_id, rows, .. } if batch_id == m.batch_id => {
                        Some(rows)
                    }
                    _ => None,
                })
                .sum();
            assert_eq!(m.rows, rows, "batch {}", m.batch_id);
        }
    }

    #[test]
    fn a_failed_query_marks_its_batch() {
        let fault: Fault = "foreach-fail@2".parse().unwrap();
        let events = trace("foreach-batch-multi", &[], &[fault]);
        let failed_batches: BTreeSet<u64> = cells(&events)
            .iter()
            .filter(|c| c.mark == Mark::Failed)
            .filter_map(|c| c.batch)
            .collect();
        assert!(!failed_batches.is_empty(), "the fault fails the query");
        let marks = batch_marks(&events);
        for m in &marks {
            assert_eq!(
                m.outcome == Outcome::Failed,
                failed_batches.contains(&m.batch_id),
                "batch {}",
                m.batch_id
            );
        }
    }

    #[test]
    fn every_preset_gets_one_mark_per_constructed_batch_and_tour_stops_land_on_marks() {
        for p in presets() {
            let events = trace(p.name, &[], &[]);
            let marks = batch_marks(&events);
            let ids: BTreeSet<(u32, u64)> = marks.iter().map(|m| (m.query, m.batch_id)).collect();
            assert_eq!(ids, constructed(&events), "{}", p.name);
            let stops: Vec<(usize, String)> = marks
                .iter()
                .map(|m| (m.seek_cursor(), format!("stop {}", m.batch_id)))
                .collect();
            let by_mark = stops_by_mark(&marks, &stops);
            for (m, titles) in marks.iter().zip(&by_mark) {
                assert_eq!(titles, &[format!("stop {}", m.batch_id)], "{}", p.name);
            }
        }
    }
}
