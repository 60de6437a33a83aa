//! The oracle: runs a scenario to convergence and compares the sink with every record the
//! upstream produced (each expected exactly once).

use crate::anomaly::{Anomaly, Moment};
pub use crate::liveness::{
    is_stuck, last_progress_ms, liveness_bound_ms, run, run_observed, stall_bound_ms, Ending,
    Limit, Liveness,
};
pub use crate::progress::visible_counts;
use crate::progress::{expected_values, fired_crash_names, so_far};
use batchscope_engine::microbatch::event::Event;
use batchscope_engine::microbatch::scenario::Scenario;
use batchscope_engine::microbatch::source::SourceCounters;
use batchscope_engine::microbatch::upstream::RowKey;
use batchscope_engine::microbatch::World;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// The verdict on a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Every expected record is in the sink exactly once.
    ExactlyOnce,
    /// The query stopped for good (`restart: none`) before delivering every record: none is
    /// duplicated, none is lost — the undelivered ones (`unread`) are still upstream, and
    /// the next start from the checkpoint delivers them.
    Stopped,
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
    pub const ALL: [Verdict; 6] = [
        Verdict::ExactlyOnce,
        Verdict::Stopped,
        Verdict::Duplicates,
        Verdict::DataLoss,
        Verdict::DuplicatesAndLoss,
        Verdict::Stuck,
    ];

    /// The stable name (`exactly-once`).
    pub fn name(self) -> &'static str {
        match self {
            Verdict::ExactlyOnce => "exactly-once",
            Verdict::Stopped => "stopped",
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
    /// Records the upstream produced: each should reach the sink exactly once.
    pub expected: u64,
    /// Rows visible in the sink (with repeats).
    pub delivered: u64,
    /// Extra copies beyond the first.
    pub duplicates: u64,
    /// Expected records not visible.
    pub lost: u64,
    /// Keys visible more than once, in key order (as text in JSON: `ch0-17`).
    pub duplicate_keys: Vec<RowKey>,
    /// Keys missing, in key order (as text in JSON).
    pub lost_keys: Vec<RowKey>,
    /// A query stopped for good (`restart: none`): expected records it never delivered that
    /// are still upstream for its next start — not lost, not counted in `lost`.
    #[serde(default)]
    pub unread: u64,
    /// Those keys, in key order (as text in JSON).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unread_keys: Vec<RowKey>,
    /// Of the lost keys, the records retention deleted from the Kafka-like log before a task
    /// read them (`failOnDataLoss` false skipped them): aged out upstream, not lost by the
    /// protocol. Counted in `lost` too.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub aged_out: u64,
    /// Those keys, in key order (as text in JSON).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aged_out_keys: Vec<RowKey>,
    /// Keys whose value is wrong (`user-3: 57, expected 42`): a running sum that added a
    /// replayed batch twice (counted in `duplicates`) or missed records (counted in `lost`).
    pub wrong_values: Vec<String>,
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
    /// The verdict's parts with the events that prove them (filled by
    /// [`crate::why::explain`]; empty from [`judge`] alone).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub anomalies: Vec<Anomaly>,
    /// A bad run: the first event after which every failure-free continuation is bad (filled
    /// by [`crate::why::explain`]).
    #[serde(default)]
    pub inevitable_at: Option<Moment>,
    /// A bad run: the last event whose failure-free continuation is exactly-once (filled by
    /// [`crate::why::explain`]).
    #[serde(default)]
    pub avoidable_until: Option<Moment>,
}

/// What a failure-free run of the scenario delivers: no crashes, no faults, no outages.
pub fn failure_free(scenario: &Scenario) -> (World, bool) {
    let mut world = World::new(scenario.failure_free());
    let converged = run(&mut world, Limit::JUDGE).converged();
    (world, converged)
}

/// The expected key counts of a scenario: every record its upstream produces, once — the
/// records the scenario says should reach the sink. Not what a failure-free run happens to
/// deliver: a scenario that never delivers anything (a reader that never closes, a channel
/// whose first ReadRecords page never fits `max_offsets_per_channel`) still expects every
/// record, and its report shows them all as not delivered. The one definition of "expected"
/// that `check`, the explorer, the wasm API and the dashboard use, so a counterexample the
/// explorer reports reproduces with `batchscope run` exactly.
pub fn expected_counts(scenario: &Scenario) -> BTreeMap<RowKey, u64> {
    expected_of(&World::new(scenario.clone()))
}

/// [`expected_counts`] of the scenario `world` runs, from its upstream (generated in full when
/// the world is made, so any moment of the run gives the same answer).
/// For a running-sum sink the keys are the users' sums (`user-<id>`), whose values
/// [`crate::progress::so_far`] judges as well.
pub fn expected_of(world: &World) -> BTreeMap<RowKey, u64> {
    expected_values(world).into_keys().map(|k| (k, 1)).collect()
}

/// Judges a finished world against the expected key set.
pub fn judge(
    world: &World,
    converged: bool,
    expected: &BTreeMap<RowKey, u64>,
    with_events: bool,
) -> Report {
    judge_progress(world, converged, &so_far(world, expected), with_events)
}

/// The verdict alone of [`judge_progress`]: what a run that `converged` (or not) with the sink
/// counted as `progress` amounts to.
pub fn verdict_of(converged: bool, progress: &crate::progress::Progress) -> Verdict {
    match (converged, progress.duplicates > 0, progress.missing > 0) {
        (false, _, _) => Verdict::Stuck,
        (true, false, false) if progress.unread > 0 => Verdict::Stopped,
        (true, false, false) => Verdict::ExactlyOnce,
        (true, true, false) => Verdict::Duplicates,
        (true, false, true) => Verdict::DataLoss,
        (true, true, true) => Verdict::DuplicatesAndLoss,
    }
}

/// [`judge`] from the sink's count already taken ([`so_far`] of this world): the dashboard
/// counts once per step for both the badge and the Sink panel. The report's `lost_keys` are
/// the keys `progress` lists (every one from `so_far`; the first few from
/// `progress::so_far_listing`); `lost` counts them all.
pub fn judge_progress(
    world: &World,
    converged: bool,
    progress: &crate::progress::Progress,
    with_events: bool,
) -> Report {
    let (duplicates, lost) = (progress.duplicates, progress.missing);
    let verdict = verdict_of(converged, progress);
    let aged_out_keys = aged_out_of(world, &progress.missing_keys);
    let s = world.scenario();
    Report {
        preset: s.name.clone(),
        seed: s.seed,
        batches_committed: world.batches_committed(),
        expected: progress.expected,
        delivered: world.sink.visible_len(),
        duplicates,
        lost,
        duplicate_keys: progress.duplicate_keys.clone(),
        lost_keys: progress.missing_keys.clone(),
        unread: progress.unread,
        unread_keys: progress.unread_keys.clone(),
        aged_out: aged_out_keys.len() as u64,
        aged_out_keys,
        wrong_values: progress.wrong_values.clone(),
        verdict,
        crashes: s.crashes.iter().map(|c| c.to_string()).collect(),
        crashes_fired: fired_crash_names(world),
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
        anomalies: vec![],
        inevitable_at: None,
        avoidable_until: None,
    }
}

/// Of `missing` (in key order), the records a task skipped because retention had deleted
/// them (`World::aged_out`), in key order.
pub fn aged_out_of(world: &World, missing: &[RowKey]) -> Vec<RowKey> {
    if world.aged_out.is_empty() {
        return vec![];
    }
    let is_gone = |k: &&RowKey| match **k {
        RowKey::Record { channel, seq } => {
            (world.aged_out.runs()).any(|(c, from, to)| c == channel && (from..to).contains(&seq))
        }
        RowKey::User(_) => false,
    };
    missing.iter().filter(is_gone).copied().collect()
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Runs a scenario with its crashes to the end and judges it; also returns the final world.
pub fn check_world(scenario: &Scenario, with_events: bool) -> (Report, World) {
    let expected = expected_counts(scenario);
    let mut world = World::new(scenario.clone());
    let converged = run(&mut world, Limit::JUDGE).converged();
    (judge(&world, converged, &expected, with_events), world)
}

/// Runs a scenario with its crashes to the end and judges it.
pub fn check(scenario: &Scenario) -> Report {
    check_world(scenario, false).0
}
