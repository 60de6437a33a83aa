//! Sometimes-properties: a claim about an exploration ("a crash at sink-commit@3 duplicates",
//! "no crash loses data"), checked against its [`Summary`] as held, violated or never reached,
//! so that a claim no explored run exercises shows as such rather than as held.

use super::fault::{Counterexample, Origin};
use super::summary::Summary;
use crate::oracle::Verdict;
use batchscope_engine::microbatch::scenario::CrashKind;
use serde::{Deserialize, Serialize};

/// A claim about what an exploration finds, in the explorer's terms.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Property {
    /// Sometimes: a single crash at `point` (in batch `batch`, or in any batch) gives
    /// `verdict`. Held if an explored single-crash run there has it; violated if such runs were
    /// explored and none has it; never reached if no explored run crashed there. Decided by
    /// the summary's crash point × batch matrix.
    Sometimes {
        /// The crash point (`sink-commit`).
        point: CrashKind,
        /// The batch, or `None` for any batch.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        batch: Option<u64>,
        /// The verdict claimed.
        verdict: Verdict,
    },
    /// Never: no explored run (any crash schedule, any added fault) gives one of `verdicts`.
    /// Violated by the smallest run that does; never reached if nothing was explored.
    Never {
        /// The verdicts no run may have (`data-loss`, `duplicates-and-loss`: no loss).
        verdicts: Vec<Verdict>,
    },
    /// The run without any failure (no crash, no added fault; the scenario's own faults stay)
    /// gives `verdict`: a lesson whose point needs no crash.
    WithoutFailure {
        /// The verdict claimed.
        verdict: Verdict,
    },
}

/// What checking a property found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// An explored run shows it (sometimes), or no explored run breaks it (never).
    Held,
    /// The explored runs it is about contradict it.
    Violated,
    /// No explored run is of the kind it is about.
    NeverReached,
}

impl Status {
    /// The stable name (`never-reached`).
    pub fn name(self) -> &'static str {
        match self {
            Status::Held => "held",
            Status::Violated => "violated",
            Status::NeverReached => "never-reached",
        }
    }
}

/// One single-crash run of the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
    /// The crash point.
    pub point: CrashKind,
    /// The batch it crashed in.
    pub batch: u64,
    /// The run's verdict.
    pub verdict: Verdict,
}

/// A whole run that decides a claim: a never-claim's smallest breaking run, or the run
/// without failures.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Witness {
    /// Its crash schedule and fault, in words (`crashes [task@0]`; `crashes []` for the run
    /// without failures).
    pub schedule: String,
    /// Its verdict.
    pub verdict: Verdict,
    /// The command that reproduces it, when it is one of the summary's counterexamples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

/// What a status rests on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// In one line (what the CLI prints in parentheses).
    pub text: String,
    /// Runs the exploration judged.
    pub runs: u64,
    /// A sometimes-claim's single-crash runs: those with its verdict when held, every one at
    /// its point when violated; in batch order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cells: Vec<Cell>,
    /// A never-claim's runs with one of its verdicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matching: Option<u64>,
    /// The run that decides a never-claim broken, or the run without failures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<Witness>,
}

/// A property's status and its evidence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// Held, violated or never reached.
    pub status: Status,
    /// Why.
    pub evidence: Evidence,
}

impl Property {
    /// Checks the property against an exploration's summary; `origin` names the scenario in
    /// the reproducing commands.
    pub fn check(&self, summary: &Summary, origin: &Origin) -> Check {
        match self {
            Property::Sometimes {
                point,
                batch,
                verdict,
            } => sometimes(summary, *point, *batch, *verdict),
            Property::Never { verdicts } => never(summary, verdicts, origin),
            Property::WithoutFailure { verdict } => without_failure(summary, *verdict, origin),
        }
    }
}

/// The single-crash cells at `point` (in `batch`, or any), in batch order.
fn cells_at(summary: &Summary, point: CrashKind, batch: Option<u64>) -> Vec<Cell> {
    let Some(row) = summary.matrix.rows.iter().find(|r| r.point == point.name()) else {
        return vec![];
    };
    summary
        .matrix
        .batches
        .iter()
        .zip(&row.verdicts)
        .filter(|(b, _)| batch.is_none_or(|want| want == **b))
        .filter_map(|(&batch, v)| {
            v.map(|verdict| Cell {
                point,
                batch,
                verdict,
            })
        })
        .collect()
}

/// `sink-commit@0,1 → exactly-once; sink-commit@3 → stuck`: cells grouped by verdict.
fn cells_text(cells: &[Cell]) -> String {
    let mut groups: Vec<String> = vec![];
    for v in Verdict::ALL {
        let batches: Vec<String> = cells
            .iter()
            .filter(|c| c.verdict == v)
            .map(|c| c.batch.to_string())
            .collect();
        if let Some(c) = cells.first().filter(|_| !batches.is_empty()) {
            groups.push(format!("{}@{} → {v}", c.point.name(), batches.join(",")));
        }
    }
    groups.join("; ")
}

fn sometimes(summary: &Summary, point: CrashKind, batch: Option<u64>, verdict: Verdict) -> Check {
    let all = cells_at(summary, point, batch);
    let with: Vec<Cell> = all
        .iter()
        .copied()
        .filter(|c| c.verdict == verdict)
        .collect();
    let (status, cells) = match (all.is_empty(), with.is_empty()) {
        (true, _) => (Status::NeverReached, vec![]),
        (false, false) => (Status::Held, with),
        (false, true) => (Status::Violated, all),
    };
    let text = match status {
        Status::NeverReached => {
            let at = batch.map_or(String::new(), |b| format!("@{b}"));
            format!("no explored run crashed at {}{at}", point.name())
        }
        _ => cells_text(&cells),
    };
    Check {
        status,
        evidence: Evidence {
            text,
            runs: summary.runs,
            cells,
            matching: None,
            run: None,
        },
    }
}

/// A counterexample as a witness, with its reproducing command.
fn witness(c: &Counterexample, origin: &Origin) -> Witness {
    Witness {
        schedule: c.outcome.schedule(),
        verdict: c.outcome.verdict,
        command: Some(c.command(origin)),
    }
}

/// `crashes [task@0] → duplicates; reproduce: batchscope run …`.
fn witness_text(w: &Witness) -> String {
    let command = w
        .command
        .as_deref()
        .map_or(String::new(), |c| format!("; reproduce: {c}"));
    format!("{} → {}{command}", w.schedule, w.verdict)
}

fn never(summary: &Summary, verdicts: &[Verdict], origin: &Origin) -> Check {
    let matching: u64 = verdicts
        .iter()
        .map(|v| summary.outcomes.get(v).copied().unwrap_or(0))
        .sum();
    let smallest = summary
        .counterexamples
        .iter()
        .filter(|c| verdicts.contains(&c.outcome.verdict))
        .min_by(|a, b| a.outcome.rank().cmp(&b.outcome.rank()));
    let names: Vec<&str> = verdicts.iter().map(|v| v.name()).collect();
    let names = names.join(" or ");
    let runs = summary.runs;
    let (status, text, run) = match (runs, smallest) {
        (0, _) => (Status::NeverReached, "no run explored".to_string(), None),
        (_, Some(c)) if matching > 0 => {
            let w = witness(c, origin);
            let text = format!(
                "{matching} of {runs} runs {names}; smallest: {}",
                witness_text(&w)
            );
            (Status::Violated, text, Some(w))
        }
        _ => (Status::Held, format!("{runs} runs, none {names}"), None),
    };
    Check {
        status,
        evidence: Evidence {
            text,
            runs,
            cells: vec![],
            matching: Some(matching),
            run,
        },
    }
}

fn without_failure(summary: &Summary, verdict: Verdict, origin: &Origin) -> Check {
    let explored = summary.runs_by_depth.get(&0).copied().unwrap_or(0) > 0;
    // The smallest run of each bad verdict comes first by its number of faults: the run without
    // failures is the counterexample of its verdict if that verdict is bad, and exactly-once if
    // no counterexample has zero faults.
    let run = summary
        .counterexamples
        .iter()
        .find(|c| c.outcome.depth() == 0)
        .map_or(
            Witness {
                schedule: "crashes []".into(),
                verdict: Verdict::ExactlyOnce,
                command: None,
            },
            |c| witness(c, origin),
        );
    let status = match (explored, run.verdict == verdict) {
        (false, _) => Status::NeverReached,
        (true, true) => Status::Held,
        (true, false) => Status::Violated,
    };
    let text = match status {
        Status::NeverReached => "the run without failures was not explored".to_string(),
        _ => witness_text(&Witness {
            schedule: "the run without failures".into(),
            ..run.clone()
        }),
    };
    Check {
        status,
        evidence: Evidence {
            text,
            runs: summary.runs,
            cells: vec![],
            matching: None,
            run: explored.then_some(run),
        },
    }
}
