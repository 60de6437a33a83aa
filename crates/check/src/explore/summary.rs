//! What an exploration reports: its progress, the summary of every run judged, and the
//! crash point × batch matrix of single-crash verdicts.

use crate::explore::coverage::Coverage;
use crate::explore::fault::{Counterexample, Fault, Origin, Outcome};
use crate::oracle::Verdict;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Verdicts of the single-crash runs of the base scenario: crash point × batch.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Matrix {
    /// Column headers: the batches that occur.
    pub batches: Vec<u64>,
    /// One row per crash point name, in protocol order.
    pub rows: Vec<MatrixRow>,
}

/// One row of the verdict matrix.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatrixRow {
    /// Crash point name (`task`).
    pub point: String,
    /// Verdict per batch of [`Matrix::batches`]; `None` where the point does not occur.
    pub verdicts: Vec<Option<Verdict>>,
}

/// How far an exploration has got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// Runs judged.
    pub done: u64,
    /// Runs known so far. At depth 1 it is final from the start; at depth 2 it grows while
    /// runs discover the crash points of their recoveries.
    pub total: u64,
    /// Whether every run has been judged.
    pub finished: bool,
}

/// What an exploration found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// The explored scenario's name.
    pub scenario: String,
    /// Seed.
    pub seed: u64,
    /// Batches (trigger intervals with data).
    pub batches: u64,
    /// Maximum faults per run.
    pub depth: u32,
    /// Runs judged: crash schedules explored, each run or judged by a run that reached the
    /// same state after its crash.
    pub runs: u64,
    /// Of [`Summary::runs`], those not run: an earlier run reached the same durable and
    /// volatile state after its crash, so they share its future and verdict (0 without
    /// de-duplication).
    #[serde(default)]
    pub pruned: u64,
    /// Whether the driver was crashed after every event, not only at the named crash points.
    #[serde(default)]
    pub every_event: bool,
    /// Which crash windows of the protocol a crash went into, and the named points never reached.
    #[serde(default)]
    pub coverage: Coverage,
    /// Runs per verdict, every verdict present (zeros included).
    pub outcomes: BTreeMap<Verdict, u64>,
    /// Runs per number of faults.
    pub runs_by_depth: BTreeMap<u32, u64>,
    /// Crash points reached by the base run (the depth-1 crash runs).
    pub crash_points: u64,
    /// Non-crash faults explored (each alone, and at depth 2 with each crash).
    pub faults: Vec<Fault>,
    /// The smallest run per bad verdict, in [`Verdict::ALL`] order.
    pub counterexamples: Vec<Counterexample>,
    /// Single-crash verdicts of the base scenario.
    pub matrix: Matrix,
    /// Bad runs (every verdict but exactly-once), up to 10 000.
    pub bad_runs: Vec<Outcome>,
    /// Forks that did not fire where expected and were replayed from zero (should be 0).
    pub inexact_forks: u64,
}

impl Summary {
    /// The summary with every counterexample's reproducing command filled in for `origin`
    /// (what `batchscope explore --json` prints).
    pub fn with_commands(&self, origin: &Origin) -> Summary {
        Summary {
            counterexamples: self
                .counterexamples
                .iter()
                .map(|c| c.with_command(origin))
                .collect(),
            ..self.clone()
        }
    }
}
