//! Shards: one exploration split over processes (or the tasks of a Spark job) and merged into
//! exactly the summary one process prints.
//!
//! **What a shard runs.** Every shard steps the same exploration: the base run, and every run
//! with children (a run that places further crashes), judged alike in every shard. A run of the
//! last level (its faults reach the depth: no children) is forked in every shard, which gives
//! its state's key; the shard whose index the key's spread names runs it (or judges it by an
//! equal run), the others drop it. So every run with one key is in one shard, and there the
//! de-duplication places them in the same order as one process does: the same runs run, the
//! same are pruned, the same re-run from zero. Runs without a key (de-duplication off) are
//! owned by their place in the order of last-level runs, which is the same in every shard.
//!
//! **What merging adds.** Counts of the last level are each shard's own; counts of the runs
//! with children are in every report, and the report says what they are
//! ([`ShardReport::shared`]), so the merge adds the reports and takes the shared part out
//! N − 1 times. Windows passed and named sites are sets: a union. Crash counts per window come
//! only from runs with children: the same in every report (the merge checks). Counterexamples,
//! bad runs and matrix cells are chosen by an order that does not depend on the process (see
//! the explorer's *Order*). Reports of different explorations — another scenario, depth,
//! option or build — are refused, as are a missing or a repeated shard.
//!
//! **What sharding costs.** Each shard still forks and keys every run of the last level (a
//! fork steps a few events; a run steps to the end), and runs every run with children.

use super::coverage::{RawTally, Tally};
use super::dedup::Counts;
use super::fault::{Counterexample, Origin, Outcome, MAX_BAD_RUNS_KEPT};
use super::summary::{Matrix, MatrixRow, Summary};
use crate::oracle::Verdict;
use batchscope_engine::microbatch::scenario::CrashKind;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// One share of an exploration: shard `index` (from 1) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which share, from 1 to [`Shard::count`].
    pub index: u32,
    /// Shares in all.
    pub count: u32,
}

impl Shard {
    /// Parses `K/N` with 1 ≤ K ≤ N; the error says what is wrong.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("`{text}` is not K/N with 1 ≤ K ≤ N (shard 2 of 3: 2/3)");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            k.trim().parse::<u32>().map_err(|_| bad())?,
            n.trim().parse::<u32>().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// Whether this shard owns a run whose key spreads to `spread`.
    pub(crate) fn owns(self, spread: u64) -> bool {
        spread % u64::from(self.count) == u64::from(self.index - 1)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// A single-crash cell of the matrix with the crash site that set it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatrixCell {
    /// The crash point.
    pub point: CrashKind,
    /// The batch.
    pub batch: u64,
    /// The crash site's event (the latest site of a cell wins).
    pub site: u64,
    /// The run's verdict.
    pub verdict: Verdict,
}

/// What `batchscope explore --shard K/N` prints: the shard's summary (the runs with children
/// and its own share of the rest) and what merging needs beyond it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardReport {
    /// Which share this is.
    pub shard: Shard,
    /// The exploration: scenario, seed, depth, options and build. Shards merge only with
    /// shards of the same one.
    pub space: String,
    /// Where the scenario came from (for the reproducing commands).
    pub origin: Origin,
    /// This shard's summary.
    pub summary: Summary,
    /// The counts of the runs with children, which every shard ran.
    pub shared: Counts,
    /// Of the summary's inexact forks, those of runs with children.
    pub inexact_shared: u64,
    /// The coverage tally, whole.
    pub tally: RawTally,
    /// The matrix with each cell's crash site.
    pub cells: Vec<MatrixCell>,
}

/// Keeps the smallest 10 000 bad runs by (faults, fault, crash sites, crashes), in that order.
fn keep_smallest(runs: &mut Vec<Outcome>) {
    runs.sort_by(|a, b| a.rank().cmp(&b.rank()));
    runs.dedup();
    runs.truncate(MAX_BAD_RUNS_KEPT);
}

/// A summary whose bad runs were all kept ([`super::Options::every_bad_run`]) with the smallest
/// 10 000 kept, in order: what any process, or a merge of shards, prints for the exploration.
pub fn ordered(mut summary: Summary) -> Summary {
    keep_smallest(&mut summary.bad_runs);
    summary
}

/// Checks that the reports are the N shards of one exploration, each once; returns them in
/// shard order.
fn complete(reports: &[ShardReport]) -> Result<Vec<&ShardReport>, String> {
    let first = reports.first().ok_or("no shard reports to merge")?;
    let count = first.shard.count;
    let mut by_index: BTreeMap<u32, &ShardReport> = BTreeMap::new();
    for r in reports {
        if r.space != first.space {
            return Err(format!(
                "shard {} explored `{}`, shard {} `{}`: not one exploration",
                first.shard, first.space, r.shard, r.space
            ));
        }
        if r.shard.count != count {
            return Err(format!(
                "shard {} and shard {}: not one split",
                first.shard, r.shard
            ));
        }
        if by_index.insert(r.shard.index, r).is_some() {
            return Err(format!("shard {} is given twice", r.shard));
        }
    }
    let missing: Vec<String> = (1..=count)
        .filter(|k| !by_index.contains_key(k))
        .map(|k| format!("{k}/{count}"))
        .collect();
    if !missing.is_empty() {
        return Err(format!("missing shards: {}", missing.join(", ")));
    }
    Ok(by_index.into_values().collect())
}

/// Adds the shards' counts, the shared part once.
fn add_counts(parts: &[&ShardReport]) -> Counts {
    let extra = parts.len() as u64 - 1;
    let mut total = Counts::default();
    for p in parts {
        let s = &p.summary;
        total.runs += s.runs;
        total.executed += s.runs - s.pruned;
        for (v, n) in &s.outcomes {
            *total.outcomes.entry(*v).or_insert(0) += n;
        }
        for (d, n) in &s.runs_by_depth {
            *total.runs_by_depth.entry(*d).or_insert(0) += n;
        }
    }
    let shared = &parts[0].shared;
    total.runs -= extra * shared.runs;
    total.executed -= extra * shared.executed;
    for (v, n) in &shared.outcomes {
        *total.outcomes.entry(*v).or_insert(0) -= extra * n;
    }
    for (d, n) in &shared.runs_by_depth {
        *total.runs_by_depth.entry(*d).or_insert(0) -= extra * n;
    }
    total.runs_by_depth.retain(|_, n| *n > 0);
    total
}

/// The single-crash matrix from every shard's cells: the latest site of a cell wins.
fn merge_matrix(parts: &[&ShardReport]) -> Matrix {
    let mut cells: BTreeMap<(CrashKind, u64), (u64, Verdict)> = BTreeMap::new();
    for c in parts.iter().flat_map(|p| &p.cells) {
        let cell = cells
            .entry((c.point, c.batch))
            .or_insert((c.site, c.verdict));
        if c.site >= cell.0 {
            *cell = (c.site, c.verdict);
        }
    }
    let mut batches: Vec<u64> = cells.keys().map(|&(_, b)| b).collect();
    batches.sort_unstable();
    batches.dedup();
    let rows = parts[0]
        .summary
        .matrix
        .rows
        .iter()
        .map(|row| MatrixRow {
            point: row.point.clone(),
            verdicts: batches
                .iter()
                .map(|&b| {
                    CrashKind::ALL
                        .iter()
                        .find(|k| k.name() == row.point)
                        .and_then(|&k| cells.get(&(k, b)))
                        .map(|c| c.1)
                })
                .collect(),
        })
        .collect();
    Matrix { batches, rows }
}

/// The smallest counterexample of each bad verdict over every shard.
fn merge_counterexamples(parts: &[&ShardReport]) -> Vec<Counterexample> {
    Verdict::ALL
        .iter()
        .filter_map(|v| {
            parts
                .iter()
                .flat_map(|p| &p.summary.counterexamples)
                .filter(|c| c.outcome.verdict == *v)
                .min_by(|a, b| a.outcome.rank().cmp(&b.outcome.rank()))
                .cloned()
        })
        .collect()
}

/// Combines the N reports of a sharded exploration into exactly the summary one process
/// prints (see the module docs), with the scenario's origin; the error names what does not fit.
pub fn merge(reports: &[ShardReport]) -> Result<(Summary, Origin), String> {
    let parts = complete(reports)?;
    let mut tally = Tally::from_raw(&parts[0].tally);
    for p in &parts[1..] {
        if p.tally.crashed != parts[0].tally.crashed {
            return Err(format!(
                "shard {} and shard {} placed different crashes in their shared runs: not one build",
                parts[0].shard, p.shard
            ));
        }
        tally.union(&p.tally);
    }
    let counts = add_counts(&parts);
    let extra = parts.len() as u64 - 1;
    let inexact: u64 = parts.iter().map(|p| p.summary.inexact_forks).sum();
    let mut bad_runs: Vec<Outcome> = parts
        .iter()
        .flat_map(|p| p.summary.bad_runs.iter().cloned())
        .collect();
    keep_smallest(&mut bad_runs);
    let summary = Summary {
        runs: counts.runs,
        pruned: counts.runs - counts.executed,
        outcomes: counts.outcomes,
        runs_by_depth: counts.runs_by_depth,
        coverage: tally.coverage(),
        counterexamples: merge_counterexamples(&parts),
        matrix: merge_matrix(&parts),
        bad_runs,
        inexact_forks: inexact - extra * parts[0].inexact_shared,
        ..parts[0].summary.clone()
    };
    Ok((summary, parts[0].origin.clone()))
}
