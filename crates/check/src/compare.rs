//! Two scenarios run with the same seed and the same crashes, side by side: both verdicts, the
//! first event where the traces part, and what the runs end up differing in. The CLI's
//! `batchscope compare` and the dashboard's compare mode both use [`compare`] and [`Comparison`].

use crate::oracle::{check_world, Report, Verdict};
use batchscope_engine::microbatch::event::{Event, EventKind};
use batchscope_engine::microbatch::scenario::Scenario;
use batchscope_engine::microbatch::trace;
use batchscope_engine::microbatch::upstream::RowKey;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// One side of a comparison: its scenario's name, its judgement and what it wrote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Side {
    /// The scenario's name (a preset's name, or the file's `name`).
    pub name: String,
    /// The verdict.
    pub verdict: Verdict,
    /// The oracle's report (without the events).
    pub report: Report,
    /// Checkpoint files written: `offsets/N`, `commits/N` and state files.
    pub checkpoint_files: u64,
}

/// Where the two traces part: the first index whose events differ, and each side's event there
/// as a trace line (`None` when that side's trace already ended).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Divergence {
    /// Index in both traces (the event's `seq`), from 0.
    pub index: u64,
    /// A's event at `index`, as `batchscope run` prints it.
    pub a: Option<String>,
    /// B's event at `index`.
    pub b: Option<String>,
}

/// One quantity the two runs end with differently.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Difference {
    /// What (`rows delivered`, `lost keys`, …).
    pub what: String,
    /// A's value, as text.
    pub a: String,
    /// B's value, as text.
    pub b: String,
}

/// Two runs compared.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Comparison {
    /// The seed both ran with.
    pub seed: u64,
    /// The crashes both were given (`NAME@N`).
    pub crashes: Vec<String>,
    /// The first run.
    pub a: Side,
    /// The second run.
    pub b: Side,
    /// The first diverging event; `None` when both traces are equal.
    pub first_divergence: Option<Divergence>,
    /// What differs at the end (empty when nothing does).
    pub differences: Vec<Difference>,
}

/// `a` and `b` made comparable: B takes A's seed, and both get every crash either one names
/// (crash points and crashes after an event), so the one thing that differs is the design.
pub fn same_inputs(a: &Scenario, b: &Scenario) -> (Scenario, Scenario) {
    let crashes: BTreeSet<_> = a.crashes.iter().chain(&b.crashes).copied().collect();
    let after: BTreeSet<u64> = a
        .crash_after_events
        .iter()
        .chain(&b.crash_after_events)
        .copied()
        .collect();
    let (mut a, mut b) = (a.clone(), b.clone());
    b.seed = a.seed;
    for s in [&mut a, &mut b] {
        s.crashes = crashes.iter().copied().collect();
        s.crash_after_events = after.iter().copied().collect();
    }
    (a, b)
}

/// Runs both scenarios (after [`same_inputs`]) to their end and compares them.
pub fn compare(a: &Scenario, b: &Scenario) -> Comparison {
    let (a, b) = same_inputs(a, b);
    let (ra, wa) = check_world(&a, false);
    let (rb, wb) = check_world(&b, false);
    compare_runs(&a, ra, wa.events(), rb, wb.events())
}

/// Compares two finished runs of scenarios that share `a`'s seed and crashes.
pub fn compare_runs(
    a: &Scenario,
    ra: Report,
    ea: &[Event],
    rb: Report,
    eb: &[Event],
) -> Comparison {
    let side = |report: Report, events: &[Event]| Side {
        name: report.preset.clone(),
        verdict: report.verdict,
        checkpoint_files: checkpoint_files(events),
        report,
    };
    let (sa, sb) = (side(ra, ea), side(rb, eb));
    Comparison {
        seed: a.seed,
        crashes: a.crashes.iter().map(|c| c.to_string()).collect(),
        first_divergence: first_divergence(ea, eb),
        differences: differences(&sa, &sb),
        a: sa,
        b: sb,
    }
}

/// Checkpoint files the events wrote: `offsets/N`, `commits/N` and state files.
pub fn checkpoint_files(events: &[Event]) -> u64 {
    events
        .iter()
        .filter(|e| {
            matches!(
                e.kind,
                EventKind::OffsetLogWritten { .. }
                    | EventKind::CommitLogWritten { .. }
                    | EventKind::StateFile { .. }
            )
        })
        .count() as u64
}

/// The first index where the traces differ, or `None` when they are equal. When one trace is a
/// prefix of the other, the divergence is where the shorter one ends.
pub fn first_divergence(a: &[Event], b: &[Event]) -> Option<Divergence> {
    let index = match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => i,
        None if a.len() == b.len() => return None,
        None => a.len().min(b.len()),
    };
    Some(Divergence {
        index: index as u64,
        a: a.get(index).map(trace::line),
        b: b.get(index).map(trace::line),
    })
}

/// The quantities two runs end with differently, in a fixed order.
pub fn differences(a: &Side, b: &Side) -> Vec<Difference> {
    let (ra, rb) = (&a.report, &b.report);
    let mut out = Vec::new();
    let mut row = |what: &str, x: String, y: String| {
        if x != y {
            out.push(Difference {
                what: what.to_string(),
                a: x,
                b: y,
            });
        }
    };
    row("verdict", a.verdict.to_string(), b.verdict.to_string());
    row(
        "rows delivered",
        ra.delivered.to_string(),
        rb.delivered.to_string(),
    );
    row(
        "duplicates",
        ra.duplicates.to_string(),
        rb.duplicates.to_string(),
    );
    row("lost keys", keys(&ra.lost_keys), keys(&rb.lost_keys));
    row(
        "checkpoint files written",
        a.checkpoint_files.to_string(),
        b.checkpoint_files.to_string(),
    );
    row(
        "batches committed",
        ra.batches_committed.to_string(),
        rb.batches_committed.to_string(),
    );
    row("driver runs", ra.runs.to_string(), rb.runs.to_string());
    row(
        "end time (ms)",
        ra.end_ms.to_string(),
        rb.end_ms.to_string(),
    );
    row(
        "rows read ahead (read twice)",
        ra.source.rows_read_ahead.to_string(),
        rb.source.rows_read_ahead.to_string(),
    );
    row(
        "rows cached (peak)",
        ra.source.rows_cached_peak.to_string(),
        rb.source.rows_cached_peak.to_string(),
    );
    row(
        "rewrites absorbed",
        ra.rewrites.to_string(),
        rb.rewrites.to_string(),
    );
    out
}

/// The triggers of a trace: (index, batch id) of each `TriggerFired`.
fn triggers(events: &[Event]) -> Vec<(usize, u64)> {
    events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match e.kind {
            EventKind::TriggerFired { batch_id } => Some((i, batch_id)),
            _ => None,
        })
        .collect()
}

/// Compare mode's lockstep: B's cursor for A's `cursor`, by batch and by event within it. The
/// last trigger A has shown is the j-th trigger of batch N; B goes to its j-th trigger of batch
/// N (or its last one) and as many events further, without passing B's next trigger. Before
/// any trigger, and wherever the traces are still equal, B's cursor is A's.
pub fn lockstep_cursor(a: &[Event], cursor: usize, b: &[Event]) -> usize {
    let ta = triggers(&a[..cursor.min(a.len())]);
    let Some(&(start_a, batch)) = ta.last() else {
        return cursor.min(b.len());
    };
    let nth = ta.iter().filter(|(_, n)| *n == batch).count();
    let tb = triggers(b);
    let same_batch: Vec<usize> = tb
        .iter()
        .filter(|(_, n)| *n == batch)
        .map(|(i, _)| *i)
        .collect();
    let Some(&start_b) = same_batch.get(nth - 1).or(same_batch.last()) else {
        return cursor.min(b.len());
    };
    let next_b = tb
        .iter()
        .map(|(i, _)| *i)
        .find(|i| *i > start_b)
        .unwrap_or(b.len());
    (start_b + (cursor - start_a)).min(next_b).min(b.len())
}

/// A crash point whose verdict differs between the two designs (the explorer's single-crash
/// matrix of each, side by side).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellDifference {
    /// The crash point, `NAME@BATCH`.
    pub crash: String,
    /// A's verdict with that crash (`None`: A never reaches the point).
    pub a: Option<Verdict>,
    /// B's verdict.
    pub b: Option<Verdict>,
}

/// Every single crash point of either scenario (seed from A, the scenarios' own crash lists
/// ignored, as the explorer does) where the two verdicts differ, in protocol order.
pub fn compare_matrices(a: &Scenario, b: &Scenario) -> Vec<CellDifference> {
    let (a, b) = same_inputs(a, b);
    let cells = |s: Scenario| {
        let matrix = crate::explore::Explorer::new(s, 1)
            .run_to_completion()
            .matrix;
        let mut out = std::collections::BTreeMap::new();
        for (rank, row) in matrix.rows.iter().enumerate() {
            for (batch, verdict) in matrix.batches.iter().zip(&row.verdicts) {
                if let Some(v) = verdict {
                    out.insert((*batch, rank, row.point.clone()), *v);
                }
            }
        }
        out
    };
    let (ca, cb) = (cells(a), cells(b));
    let keys: BTreeSet<_> = ca.keys().chain(cb.keys()).cloned().collect();
    keys.into_iter()
        .filter(|k| ca.get(k) != cb.get(k))
        .map(|k| CellDifference {
            crash: format!("{}@{}", k.2, k.0),
            a: ca.get(&k).copied(),
            b: cb.get(&k).copied(),
        })
        .collect()
}

/// A key list as text: the count and the first keys (`2: k1, k7`).
fn keys(list: &[RowKey]) -> String {
    if list.is_empty() {
        return "0".to_string();
    }
    let shown: Vec<String> = list.iter().take(6).map(RowKey::to_string).collect();
    let more = if list.len() > 6 { ", …" } else { "" };
    format!("{}: {}{more}", list.len(), shown.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use batchscope_engine::microbatch::scenario::preset;

    fn with_crash(name: &str, crash: &str) -> Scenario {
        let mut s = preset(name).expect("preset");
        s.crashes.push(crash.parse().expect("crash"));
        s
    }

    #[test]
    fn append_and_idempotent_part_where_the_sink_differs() {
        let a = with_crash("kafka-append", "sink-commit@3");
        let b = preset("kafka-idempotent").expect("preset");
        let c = compare(&a, &b);
        assert_eq!(c.a.verdict, crate::oracle::check(&a).verdict);
        let (_, b_same) = same_inputs(&a, &b);
        assert_eq!(b_same.crashes, a.crashes, "B gets A's crash");
        assert_eq!(c.b.verdict, crate::oracle::check(&b_same).verdict);
        assert_ne!(c.a.verdict, c.b.verdict);
        let d = c.first_divergence.expect("the traces part");
        let (_, wa) = check_world(&a, false);
        let (_, wb) = check_world(&b_same, false);
        let i = d.index as usize;
        assert_eq!(wa.events()[..i], wb.events()[..i]);
        assert_ne!(wa.events().get(i), wb.events().get(i));
        assert_eq!(d.a, wa.events().get(i).map(trace::line));
        assert!(c.differences.iter().any(|x| x.what == "verdict"));
    }

    #[test]
    fn the_matrices_differ_where_single_crashes_are_judged_differently() {
        let a = preset("kafka-append").expect("preset");
        let b = preset("kafka-idempotent").expect("preset");
        let cells = compare_matrices(&a, &b);
        assert!(!cells.is_empty());
        for cell in &cells {
            let crash: batchscope_engine::microbatch::scenario::CrashPoint =
                cell.crash.parse().expect("a crash point");
            let judge = |s: &Scenario| {
                let mut s = s.clone();
                s.crashes = vec![crash];
                crate::oracle::check(&s).verdict
            };
            assert_eq!(Some(judge(&a)), cell.a, "{}", cell.crash);
            assert_eq!(Some(judge(&b)), cell.b, "{}", cell.crash);
            assert_ne!(cell.a, cell.b);
        }
        assert!(cells.iter().any(|c| c.crash == "sink-commit@3"));
        assert!(compare_matrices(&a, &a).is_empty());
    }

    #[test]
    fn lockstep_keeps_both_runs_in_the_same_batch() {
        let (a, b) = same_inputs(
            &with_crash("tablestore", "sink-commit@2"),
            &preset("pull-ahead").expect("preset"),
        );
        let (ea, eb) = (
            check_world(&a, true).0.events.expect("events"),
            check_world(&b, true).0.events.expect("events"),
        );
        let d = first_divergence(&ea, &eb).expect("they part").index as usize;
        let batch_at = |events: &[Event], cursor: usize| {
            events[..cursor].iter().rev().find_map(|e| match e.kind {
                EventKind::TriggerFired { batch_id } => Some(batch_id),
                _ => None,
            })
        };
        for cursor in 0..=ea.len() {
            let c = lockstep_cursor(&ea, cursor, &eb);
            assert!(c <= eb.len());
            if cursor <= d {
                assert_eq!(c, cursor, "equal traces step together");
            }
            if let Some(n) = batch_at(&ea, cursor) {
                if eb
                    .iter()
                    .any(|e| e.kind == (EventKind::TriggerFired { batch_id: n }))
                {
                    assert_eq!(batch_at(&eb, c), Some(n), "cursor {cursor}: B in batch {n}");
                }
            }
        }
        assert_eq!(lockstep_cursor(&ea, ea.len(), &ea), ea.len());
    }

    #[test]
    fn a_scenario_compared_with_itself_has_no_divergence() {
        let a = with_crash("tablestore", "task@2");
        let c = compare(&a, &a);
        assert_eq!(c.first_divergence, None);
        assert!(c.differences.is_empty(), "{:?}", c.differences);
        assert_eq!(c.a, c.b);
    }
}
