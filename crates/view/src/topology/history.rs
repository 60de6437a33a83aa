//! A topology run recorded for seeking (the same [`Timeline`] as the micro-batch player) and
//! the declared query's answer over the run.

use crate::replay::Timeline;
use batchscope_check::liveness::Limit;
use batchscope_engine::barrier::{Consistency, ReadLevel, TopologyRun, TopologyWorld};

/// A run stops here whatever happens (browser safety; the presets need about 100 steps).
pub const MAX_STEPS: usize = 5_000;

/// A run recorded to its end (or [`MAX_STEPS`]), seekable to any step.
pub fn record(run: &TopologyRun) -> Result<Timeline<TopologyWorld>, String> {
    let first = TopologyWorld::from_run(run.clone()).map_err(|e| e.to_string())?;
    Ok(Timeline::record(first, Limit::events(MAX_STEPS as u64)).0)
}

/// The declared query's answer at one step.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryPoint {
    /// Steps emitted.
    pub step: u64,
    /// The ratio (avgPrice) of the first row (FLIP-276's user 1 / item 1), if any.
    pub ratio: Option<f64>,
    /// Whether the answer was consistent.
    pub consistent: bool,
    /// Barrier each queried table was read at.
    pub barriers: Vec<u64>,
}

/// The declared query's answer in one world.
pub fn history_point(
    w: &TopologyWorld,
    level: ReadLevel,
    consistency: Consistency,
) -> HistoryPoint {
    let r = w.query(&w.declared_query(level, consistency));
    HistoryPoint {
        step: w.steps(),
        ratio: r.rows.first().and_then(|row| row.ratio),
        consistent: r.consistent,
        barriers: r.reads.iter().map(|t| t.barrier).collect(),
    }
}

/// The declared query evaluated before the first step and after every step.
pub fn query_history(
    timeline: &Timeline<TopologyWorld>,
    level: ReadLevel,
    consistency: Consistency,
) -> Vec<HistoryPoint> {
    timeline.map_worlds(|w| history_point(w, level, consistency))
}

/// The points where the value or its consistency changed, up to and including `cursor`: the
/// short story the query panel tells (10 → 25 ✗ → 8.333 …).
pub fn value_changes(history: &[HistoryPoint], cursor: usize) -> Vec<HistoryPoint> {
    let mut out: Vec<HistoryPoint> = vec![];
    for p in history.iter().take(cursor + 1) {
        let same = out
            .last()
            .is_some_and(|l| l.ratio == p.ratio && l.consistent == p.consistent);
        if !same && p.ratio.is_some() {
            out.push(p.clone());
        }
    }
    out
}

/// When a history point's answer appeared, in the trace's numbers: `after #N` once `steps`
/// events are shown (the trace numbers them from #0), `at the start` before the first.
pub fn after_event(steps: u64) -> String {
    match steps {
        0 => "at the start".into(),
        n => format!("after #{}", n - 1),
    }
}

/// Whether a change went back to an earlier version (a table read at a lower barrier).
pub fn rolled_back(prev: &HistoryPoint, next: &HistoryPoint) -> bool {
    prev.barriers.len() == next.barriers.len()
        && prev.barriers.iter().zip(&next.barriers).any(|(a, b)| b < a)
}

/// A ratio as FLIP-276 prints it: `10`, `25`, `8.333`.
pub fn ratio_text(r: Option<f64>) -> String {
    match r {
        None => "–".into(),
        Some(v) if (v - v.round()).abs() < 1e-9 => format!("{}", v.round() as i64),
        Some(v) => {
            let s = format!("{v:.3}");
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        }
    }
}
