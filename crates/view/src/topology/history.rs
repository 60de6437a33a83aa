//! A topology run at every step (the frames the player seeks in) and the declared query's
//! answer over the run.

use batchscope_check::oracle::{run_observed, Limit};
use batchscope_engine::barrier::{Consistency, ReadLevel, TopologyRun, TopologyWorld};

/// A run stops here whatever happens (browser safety; the presets need about 100 steps).
pub const MAX_STEPS: usize = 5_000;

/// The world after every step of a run: `frames[i]` has emitted `i` events.
pub fn frames(run: &TopologyRun) -> Result<Vec<TopologyWorld>, String> {
    let mut world = TopologyWorld::from_run(run.clone()).map_err(|e| e.to_string())?;
    let mut out = vec![world.clone()];
    run_observed(&mut world, Limit::events(MAX_STEPS as u64), |w| {
        out.push(w.clone())
    });
    Ok(out)
}

/// The declared query's answer at one step.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryPoint {
    /// Steps emitted.
    pub step: u64,
    /// The ratio (avgPrice) of the first row (the seed's user 1 / item 1), if any.
    pub ratio: Option<f64>,
    /// Whether the answer was consistent.
    pub consistent: bool,
    /// Barrier each queried table was read at.
    pub barriers: Vec<u64>,
}

/// The declared query evaluated after every step.
pub fn query_history(
    frames: &[TopologyWorld],
    level: ReadLevel,
    consistency: Consistency,
) -> Vec<HistoryPoint> {
    frames
        .iter()
        .map(|w| {
            let r = w.query(&w.declared_query(level, consistency));
            HistoryPoint {
                step: w.steps(),
                ratio: r.rows.first().and_then(|row| row.ratio),
                consistent: r.consistent,
                barriers: r.reads.iter().map(|t| t.barrier).collect(),
            }
        })
        .collect()
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

/// Whether a change went back to an earlier version (a table read at a lower barrier).
pub fn rolled_back(prev: &HistoryPoint, next: &HistoryPoint) -> bool {
    prev.barriers.len() == next.barriers.len()
        && prev.barriers.iter().zip(&next.barriers).any(|(a, b)| b < a)
}

/// A ratio as the seed prints it: `10`, `25`, `8.333`.
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
