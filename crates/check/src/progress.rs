//! The oracle's count of a run so far: which expected keys the sink shows, which it shows more
//! than once, which are still missing, and the names of the crashes that fired.
//!
//! One count for every place that shows it: the final [`Report`](crate::Report), the wasm
//! API's `State`, the dashboard's Sink panel and verdict badge.

use batchscope_engine::World;
use std::collections::BTreeMap;

/// The sink of a run at one moment, counted against the expected records (see [`so_far`] and
/// `oracle::expected_counts`: every record the upstream produced).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Every visible key and its copies (with repeats), by key.
    pub counts: BTreeMap<String, u64>,
    /// Keys expected in the sink: every record the upstream produced.
    pub expected: u64,
    /// Expected keys visible now (each counted once).
    pub delivered: u64,
    /// Extra copies beyond the first (a duplicate never goes away).
    pub duplicates: u64,
    /// Keys visible more than once, by key.
    pub duplicate_keys: Vec<String>,
    /// Expected keys not visible (yet: lost only if still missing at the end), by key.
    pub missing_keys: Vec<String>,
}

impl Progress {
    /// Whether `key` is visible more than once.
    pub fn is_duplicate(&self, key: &str) -> bool {
        self.counts.get(key).is_some_and(|&n| n > 1)
    }
}

/// Counts each key's visible copies.
pub fn visible_counts(world: &World) -> BTreeMap<String, u64> {
    let mut counts = BTreeMap::new();
    for r in world.sink.visible() {
        *counts.entry(r.key.clone()).or_insert(0) += 1;
    }
    counts
}

/// The sink of `world` now, against `expected` (key → 1 for every record that should arrive).
pub fn so_far(world: &World, expected: &BTreeMap<String, u64>) -> Progress {
    let counts = visible_counts(world);
    let duplicate_keys: Vec<String> = counts
        .iter()
        .filter(|(_, &n)| n > 1)
        .map(|(k, _)| k.clone())
        .collect();
    let duplicates = counts.values().map(|&n| n.saturating_sub(1)).sum();
    let missing_keys: Vec<String> = expected
        .keys()
        .filter(|k| !counts.contains_key(*k))
        .cloned()
        .collect();
    Progress {
        expected: expected.len() as u64,
        delivered: (expected.len() - missing_keys.len()) as u64,
        duplicates,
        duplicate_keys,
        missing_keys,
        counts,
    }
}

/// The crashes that fired, in order: `NAME@N` for a named point, `after-event@SEQ` for a
/// crash-now input (the driver died right after event SEQ).
pub fn fired_crash_names(world: &World) -> Vec<String> {
    world
        .fired_crashes()
        .iter()
        .map(|c| {
            c.point
                .map_or_else(|| format!("after-event@{}", c.seq - 1), |p| p.to_string())
        })
        .collect()
}
