//! The oracle: runs a scenario to convergence and compares the sink with what a failure-free run delivers.

use batchscope_engine::source::SourceCounters;
use batchscope_engine::{Event, EventKind, Scenario, World};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// The verdict on a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Every expected record is in the sink exactly once.
    ExactlyOnce,
    /// Some record is visible more than once; none is missing.
    Duplicates,
    /// Some record is missing; none is duplicated.
    DataLoss,
    /// Both.
    DuplicatesAndLoss,
    /// No convergence within the bound while data was available (a liveness failure).
    Stuck,
}

impl Verdict {
    /// Every verdict, good first.
    pub const ALL: [Verdict; 5] = [
        Verdict::ExactlyOnce,
        Verdict::Duplicates,
        Verdict::DataLoss,
        Verdict::DuplicatesAndLoss,
        Verdict::Stuck,
    ];

    /// The stable name (`exactly-once`).
    pub fn name(self) -> &'static str {
        match self {
            Verdict::ExactlyOnce => "exactly-once",
            Verdict::Duplicates => "duplicates",
            Verdict::DataLoss => "data-loss",
            Verdict::DuplicatesAndLoss => "duplicates-and-loss",
            Verdict::Stuck => "stuck",
        }
    }

    /// Parses a stable name.
    pub fn from_name(s: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.name() == s)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The judgement of one run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// Scenario (preset) name.
    pub preset: String,
    /// Seed.
    pub seed: u64,
    /// Batches committed (`commits/` ids).
    pub batches_committed: u64,
    /// Records a failure-free run delivers.
    pub expected: u64,
    /// Rows visible in the sink (with repeats).
    pub delivered: u64,
    /// Extra copies beyond the first.
    pub duplicates: u64,
    /// Expected records not visible.
    pub lost: u64,
    /// Keys visible more than once.
    pub duplicate_keys: Vec<String>,
    /// Keys missing.
    pub lost_keys: Vec<String>,
    /// The verdict.
    pub verdict: Verdict,
    /// The crashes asked for (`NAME@N`).
    pub crashes: Vec<String>,
    /// The crashes that fired.
    pub crashes_fired: Vec<String>,
    /// The crashes never reached (their point did not occur in this run).
    pub crashes_unreached: Vec<String>,
    /// Upsert sinks: rows written again by a replay and absorbed by the key.
    pub rewrites: u64,
    /// File sinks: data files of failed attempts, not in the manifest (invisible).
    pub orphan_files: u64,
    /// Source costs (pull-ahead's extra reads and cache).
    pub source: SourceCounters,
    /// Driver runs (1 + restarts).
    pub runs: u32,
    /// Simulated time at the end.
    pub end_ms: u64,
    /// Events in the trace.
    pub steps: u64,
    /// Every event, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<Event>>,
}

/// How long a run may go without progress (a committed batch or a finished task), counted
/// from the end of the data at the earliest, before it is stuck: 30 trigger intervals, plus a restart for every crash and failure,
/// plus the outages.
pub fn stall_bound_ms(s: &Scenario) -> u64 {
    let restarts = (s.crashes.len() + s.crash_after_events.len() + 2) as u64
        * (s.restart_delay_ms + s.trigger_interval_ms);
    let outages: u64 = s
        .sink
        .outages
        .iter()
        .map(|w| w.to_ms - w.from_ms + s.restart_delay_ms)
        .sum();
    30 * s.trigger_interval_ms + restarts + outages
}

/// Whether an event counts as progress for liveness.
fn is_progress(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::CommitLogWritten { .. } | EventKind::TaskFinished { .. }
    )
}

/// When the run last made progress (0 if never), read from its trace.
pub fn last_progress_ms(world: &World) -> u64 {
    world
        .events()
        .iter()
        .rev()
        .find(|e| is_progress(&e.kind))
        .map_or(0, |e| e.at_ms)
}

/// The simulated time by which the run must make progress again, or it is stuck. Before the
/// data has ended, a quiet query may simply be waiting for records, so the clock starts then.
pub fn liveness_bound_ms(world: &World) -> u64 {
    let s = world.scenario();
    last_progress_ms(world).max(s.data_end_ms()) + stall_bound_ms(s)
}

/// Whether a stepping run is stuck: not converged and past its liveness bound.
pub fn is_stuck(world: &World) -> bool {
    !world.is_converged() && world.now_ms() > liveness_bound_ms(world)
}

/// Steps until the world converges; returns `false` (stuck) when it makes no progress for
/// [`stall_bound_ms`], or when a generous step cap is reached.
pub fn run_to_end(world: &mut World) -> bool {
    let stall = stall_bound_ms(world.scenario());
    let mut last_progress_ms = last_progress_ms(world).max(world.scenario().data_end_ms());
    let max_steps = 10_000_000u64;
    for _ in 0..max_steps {
        if world.is_converged() {
            return true;
        }
        let event = world.step();
        if is_progress(&event.kind) {
            last_progress_ms = last_progress_ms.max(event.at_ms);
        } else if event.at_ms.saturating_sub(last_progress_ms) > stall {
            return false;
        }
    }
    false
}

/// Counts each key's visible copies.
pub fn visible_counts(world: &World) -> BTreeMap<String, u64> {
    let mut counts = BTreeMap::new();
    for r in world.sink.visible() {
        *counts.entry(r.key.clone()).or_insert(0) += 1;
    }
    counts
}

/// What a failure-free run of the scenario delivers: no crashes, no outages.
pub fn failure_free(scenario: &Scenario) -> (World, bool) {
    let mut clean = scenario.clone();
    clean.crashes.clear();
    clean.crash_after_events.clear();
    clean.sink.outages.clear();
    let mut world = World::new(clean);
    let converged = run_to_end(&mut world);
    (world, converged)
}

/// The expected key counts of a scenario: what its failure-free run makes visible. The one
/// definition of "expected" that `check` and the explorer both use, so a counterexample the
/// explorer reports reproduces with `batchscope run` exactly.
pub fn expected_counts(scenario: &Scenario) -> BTreeMap<String, u64> {
    visible_counts(&failure_free(scenario).0)
}

/// Judges a finished world against the expected key set.
pub fn judge(
    world: &World,
    converged: bool,
    expected: &BTreeMap<String, u64>,
    with_events: bool,
) -> Report {
    let counts = visible_counts(world);
    let duplicate_keys: Vec<String> = counts
        .iter()
        .filter(|(_, &n)| n > 1)
        .map(|(k, _)| k.clone())
        .collect();
    let duplicates = counts.values().map(|&n| n.saturating_sub(1)).sum();
    let lost_keys: Vec<String> = expected
        .keys()
        .filter(|k| !counts.contains_key(*k))
        .cloned()
        .collect();
    let lost = lost_keys.len() as u64;
    let verdict = match (converged, duplicates > 0, lost > 0) {
        (false, _, _) => Verdict::Stuck,
        (true, false, false) => Verdict::ExactlyOnce,
        (true, true, false) => Verdict::Duplicates,
        (true, false, true) => Verdict::DataLoss,
        (true, true, true) => Verdict::DuplicatesAndLoss,
    };
    let s = world.scenario();
    Report {
        preset: s.name.clone(),
        seed: s.seed,
        batches_committed: world.batches_committed(),
        expected: expected.len() as u64,
        delivered: world.sink.visible_len(),
        duplicates,
        lost,
        duplicate_keys,
        lost_keys,
        verdict,
        crashes: s.crashes.iter().map(|c| c.to_string()).collect(),
        crashes_fired: world
            .fired_crashes()
            .iter()
            .map(|c| {
                c.point
                    .map_or_else(|| format!("after-event@{}", c.seq - 1), |p| p.to_string())
            })
            .collect(),
        crashes_unreached: world
            .pending_crashes()
            .iter()
            .map(|c| c.to_string())
            .collect(),
        rewrites: world.sink.rewrites(),
        orphan_files: world.sink.files.iter().filter(|f| !f.committed).count() as u64,
        source: world.counters.clone(),
        runs: world.run(),
        end_ms: world.now_ms(),
        steps: world.events().len() as u64,
        events: with_events.then(|| world.events().to_vec()),
    }
}

/// Runs a scenario with its crashes to the end and judges it; also returns the final world.
pub fn check_world(scenario: &Scenario, with_events: bool) -> (Report, World) {
    let expected = expected_counts(scenario);
    let mut world = World::new(scenario.clone());
    let converged = run_to_end(&mut world);
    (judge(&world, converged, &expected, with_events), world)
}

/// Runs a scenario with its crashes to the end and judges it.
pub fn check(scenario: &Scenario) -> Report {
    check_world(scenario, false).0
}
