//! The runs with two faults (depth 2) as a list sorted by how bad they are.

use super::matrix::{run_tooltip, verdict_title};
use batchscope_check::explore::{Fault, Outcome, Summary};
use batchscope_check::oracle::Verdict;
use batchscope_engine::microbatch::scenario::CrashPoint;

/// How bad a verdict is, worst first: data loss, loss with duplicates, stuck, duplicates,
/// stopped (nothing wrong delivered, the rest still upstream), exactly once (lost records cannot be repaired downstream; duplicates often can).
pub fn severity(verdict: Verdict) -> u8 {
    match verdict {
        Verdict::DataLoss => 0,
        Verdict::DuplicatesAndLoss => 1,
        Verdict::Stuck => 2,
        Verdict::Duplicates => 3,
        Verdict::Stopped => 4,
        Verdict::ExactlyOnce => 5,
    }
}

/// Bad verdicts, worst first.
pub const BAD_ORDER: [Verdict; 4] = [
    Verdict::DataLoss,
    Verdict::DuplicatesAndLoss,
    Verdict::Stuck,
    Verdict::Duplicates,
];

/// One run with two faults (two crashes, or a fault and a crash) and its verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairRow {
    /// The first crash (`offset-log@3`), or the non-crash fault's label.
    pub first: String,
    /// The second crash (`get-batch@3`), or the only one.
    pub second: String,
    /// Both, as said: `offset-log@3 → get-batch@3` (crashes in firing order), or
    /// `sink outage [1000, 1500) ms (batch 2) + task@3` (the crash may come before the outage).
    pub what: String,
    /// The crashes, in firing order.
    pub crashes: Vec<CrashPoint>,
    /// The non-crash fault, if any.
    pub fault: Option<Fault>,
    /// The oracle's verdict.
    pub verdict: Verdict,
    /// Extra copies.
    pub duplicates: u64,
    /// Missing records.
    pub lost: u64,
    /// Tooltip: `task@3 → task@3: duplicates (6 dup, 0 lost)`.
    pub tooltip: String,
}

impl PairRow {
    fn of(o: &Outcome) -> PairRow {
        let mut faults: Vec<String> = o.fault.iter().map(|f| f.to_string()).collect();
        faults.extend(o.crashes.iter().map(|c| c.to_string()));
        let second = faults.pop().unwrap_or_default();
        let first = faults.pop().unwrap_or_default();
        let joiner = if o.fault.is_some() { "+" } else { "→" };
        let what = format!("{first} {joiner} {second}");
        PairRow {
            tooltip: run_tooltip(&what, o.verdict, o.duplicates, o.lost),
            first,
            second,
            what,
            crashes: o.crashes.clone(),
            fault: o.fault,
            verdict: o.verdict,
            duplicates: o.duplicates,
            lost: o.lost,
        }
    }

    /// The crashes as a link writes them (`offset-log@3,get-batch@3`).
    pub fn crash_list(&self) -> String {
        let list: Vec<String> = self.crashes.iter().map(|c| c.to_string()).collect();
        list.join(",")
    }
}

/// The bad runs with two faults, worst verdict first, then most records lost, most duplicates,
/// and in the order the explorer found them. `only` keeps one verdict.
pub fn pair_rows(summary: &Summary, only: Option<Verdict>) -> Vec<PairRow> {
    let mut runs: Vec<(usize, &Outcome)> = summary
        .bad_runs
        .iter()
        .filter(|o| o.depth() == 2 && only.is_none_or(|v| o.verdict == v))
        .enumerate()
        .collect();
    runs.sort_by_key(|(i, o)| {
        (
            severity(o.verdict),
            std::cmp::Reverse(o.lost),
            std::cmp::Reverse(o.duplicates),
            *i,
        )
    });
    runs.into_iter().map(|(_, o)| PairRow::of(o)).collect()
}

/// How many runs with two faults each bad verdict has (worst first, zeros left out), and how
/// many were exactly once. `None` for the latter when the summary kept only some bad runs.
pub fn pair_counts(summary: &Summary) -> (Vec<(Verdict, u64)>, Option<u64>) {
    let pairs: Vec<&Outcome> = summary.bad_runs.iter().filter(|o| o.depth() == 2).collect();
    let counts: Vec<(Verdict, u64)> = BAD_ORDER
        .iter()
        .map(|v| (*v, pairs.iter().filter(|o| o.verdict == *v).count() as u64))
        .filter(|(_, n)| *n > 0)
        .collect();
    let bad_total: u64 = summary
        .outcomes
        .iter()
        .filter(|(v, _)| **v != Verdict::ExactlyOnce)
        .map(|(_, n)| n)
        .sum();
    let complete = bad_total == summary.bad_runs.len() as u64;
    let runs = summary.runs_by_depth.get(&2).copied().unwrap_or(0);
    (counts, complete.then(|| runs - pairs.len() as u64))
}

/// The title of a verdict filter button: `data loss · 12`.
pub fn filter_title(verdict: Option<Verdict>, count: u64) -> String {
    let what = verdict.map_or("all".to_string(), verdict_title);
    format!("{what} · {count}")
}
