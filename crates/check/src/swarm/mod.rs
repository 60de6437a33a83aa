//! The swarm: random scenarios × random fault schedules, each run to its end and held to
//! invariants stated here — the way a simulator hammers its own claims beyond the presets.
//!
//! Run `index` of swarm `seed` is drawn by [`draw::draw`] from `(seed, index)` alone. Each run
//! is checked for:
//! - **determinism**: run twice, the two traces are equal event for event;
//! - **no panic** anywhere in the engine or the oracle;
//! - **bounded**: the run ends before its step bound (the work budget validation computed);
//! - **counts add up**: what the sink shows is the expected records, less the lost and the
//!   unread, plus the duplicates — for a sink that keeps every copy (append, file, two-phase,
//!   foreachBatch, batch id in memory); an upsert sink keeps one row per key, so there the
//!   duplicates are overwrites and the sink shows expected − lost − unread;
//! - **idempotent sinks exactly-once**: a replayable (Kafka-like) source into the file sink or
//!   an upsert-by-key sink, with one driver crash, no other failure and no change of its sources at
//!   the restart, is exactly-once;
//! - **inspect agrees with the engine**: at every restart of the micro-batch engine, the
//!   checkpoint folder's files, read back through the bounded reader ([`Intake`]) and
//!   inspected as `batchscope inspect` does, predict the restart the engine took.
//!
//! A violation names its invariant and what was seen; the CLI writes its scenario into the
//! corpus, which the test suite replays.

pub mod draw;

use crate::liveness::{run_observed, Ending, Liveness};
use crate::oracle::{expected_counts, judge, Limit, Verdict};
use batchscope_engine::checkpoint::{inspect, InspectOptions, Intake};
use batchscope_engine::microbatch::event::{Event, EventKind, Recovery};
use batchscope_engine::microbatch::scenario::{Execution, Restart, Scenario, SinkKind, SourceKind};
use batchscope_engine::microbatch::World;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// One invariant a run broke.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// Which invariant (`determinism`, `panic`, `bounded`, `counts`, `idempotent`, `inspect`).
    pub invariant: String,
    /// What was seen, in one line.
    pub detail: String,
}

impl Violation {
    fn new(invariant: &str, detail: String) -> Violation {
        Violation {
            invariant: invariant.to_string(),
            detail,
        }
    }
}

/// What one run was, for the swarm's tally.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checked {
    /// The verdict (none when the run panicked).
    pub verdict: Option<Verdict>,
    /// Events in the trace.
    pub events: u64,
    /// Restarts whose prediction by `inspect` was compared.
    pub restarts_inspected: u64,
    /// The invariants broken.
    pub violations: Vec<Violation>,
}

/// What `inspect` says a restart does: its action (`fresh`, `rerun`, `next`, `fail`) and the
/// batch it names, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Prediction {
    action: String,
    batch: Option<u64>,
}

impl std::fmt::Display for Prediction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.batch {
            Some(b) => write!(f, "{} {b}", self.action),
            None => f.write_str(&self.action),
        }
    }
}

/// Runs a scenario once to its end: the world, how it ended, and (with `inspects`) every
/// restart's recovery with what `inspect` predicted from the folder at that moment.
fn run_once(
    scenario: &Scenario,
    inspects: bool,
) -> (World, Ending, Vec<(u64, Recovery, Prediction)>) {
    let mut world = World::new(scenario.clone());
    let mut restarts = vec![];
    let inspects = inspects && scenario.execution == Execution::MicroBatch;
    let ending = run_observed(&mut world, Limit::JUDGE, |w: &World| {
        let e = w.events().last().expect("a step takes an event");
        if let (true, EventKind::Recovered { recovery, .. }) = (inspects, &e.kind) {
            restarts.push((e.seq, recovery.clone(), predicted(w)));
        }
    });
    (world, ending, restarts)
}

/// What `inspect` says a restart does on the world's checkpoint folder, read back file by file
/// through the bounded reader.
fn predicted(world: &World) -> Prediction {
    let mut intake = Intake::new();
    for (path, bytes) in world.checkpoint.files() {
        intake.push(path, bytes.to_vec());
    }
    let (folder, _) = intake.finish();
    let options = InspectOptions {
        restart: world.restart_options(),
        ..InspectOptions::default()
    };
    let r = inspect(&folder, &options).restart;
    let batch = r
        .batch
        .filter(|_| matches!(r.action.as_str(), "rerun" | "next"));
    Prediction {
        action: r.action,
        batch,
    }
}

/// A restart's recovery in `inspect`'s words.
fn recovered(recovery: &Recovery) -> &'static [&'static str] {
    match recovery {
        Recovery::Fresh => &["fresh"],
        Recovery::Failed => &["fail"],
        Recovery::Rerun { .. } => &["rerun"],
        Recovery::Next { .. } => &["next"],
    }
}

fn recovered_batch(recovery: &Recovery) -> Option<u64> {
    match recovery {
        Recovery::Fresh | Recovery::Failed => None,
        Recovery::Rerun { batch_id } | Recovery::Next { batch_id } => Some(*batch_id),
    }
}

/// Whether the scenario is one the idempotent-sink invariant speaks of.
fn idempotent_case(s: &Scenario) -> bool {
    s.source.kind == SourceKind::ReplayableLog
        && matches!(s.sink.kind, SinkKind::File | SinkKind::Upsert)
        && s.execution == Execution::MicroBatch
        && s.crashes.len() + s.crash_after_events.len() == 1
        && s.faults.is_empty()
        && s.sink.outages.is_empty()
        && s.restart != Some(Restart::None)
        // A restart with a changed source count is refused: nothing is idempotent about it.
        && s.on_restart.is_none_or(|c| c.sources.is_none())
}

/// Checks one scenario against every invariant (see the module docs).
pub fn check(scenario: &Scenario) -> Checked {
    guarded(|| check_unguarded(scenario))
}

/// Runs a check; a panic in it is the `panic` violation, with its message.
fn guarded(f: impl FnOnce() -> Checked) -> Checked {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(checked) => checked,
        Err(panic) => {
            let text = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic without a message".into());
            Checked {
                violations: vec![Violation::new("panic", text.replace('\n', " "))],
                ..Checked::default()
            }
        }
    }
}

fn check_unguarded(scenario: &Scenario) -> Checked {
    let (world, ending, restarts) = run_once(scenario, true);
    let mut v = vec![];
    // The determinism re-run compares events only: it need not inspect again.
    let (again, _, _) = run_once(scenario, false);
    if again.events() != world.events() {
        let at = first_difference(world.events(), again.events());
        v.push(Violation::new(
            "determinism",
            format!("the same scenario ran twice differs from event #{at}"),
        ));
    }
    let taken = world.events().len() as u64;
    if ending == Ending::Capped || world.step_bound().is_some_and(|b| taken >= b) {
        v.push(Violation::new(
            "bounded",
            format!(
                "{taken} events: the run did not end before its step bound {:?}",
                world.step_bound()
            ),
        ));
    }
    let expected = expected_counts(scenario);
    let report = judge(&world, ending.converged(), &expected, false);
    v.extend(counts_add_up(scenario, &report));
    if idempotent_case(scenario) && report.verdict != Verdict::ExactlyOnce {
        v.push(Violation::new(
            "idempotent",
            format!(
                "a {} sink after one crash: {} (duplicates {}, lost {})",
                scenario.sink.kind, report.verdict, report.duplicates, report.lost
            ),
        ));
    }
    for (seq, recovery, said) in &restarts {
        if !inspect_agrees(recovery, said) {
            v.push(Violation::new(
                "inspect",
                format!(
                    "restart at event #{seq}: the engine took {recovery:?}, inspect says {said}"
                ),
            ));
        }
    }
    Checked {
        verdict: Some(report.verdict),
        events: taken,
        restarts_inspected: restarts.len() as u64,
        violations: v,
    }
}

/// Whether `inspect`'s prediction (`fresh`, `fail`, `rerun N`, `next N`) is the recovery the
/// engine took.
fn inspect_agrees(recovery: &Recovery, said: &Prediction) -> bool {
    recovered(recovery).contains(&said.action.as_str()) && said.batch == recovered_batch(recovery)
}

/// The sink's rows against the oracle's counts (see the module docs).
fn counts_add_up(scenario: &Scenario, r: &crate::oracle::Report) -> Option<Violation> {
    // A running-sum sink keeps one row per user: its keys are the sums, judged by value.
    let keyed = scenario.sink.kind == SinkKind::Upsert;
    let copies = if keyed { 0 } else { r.duplicates };
    let want = (r.expected + copies).checked_sub(r.lost + r.unread);
    (want != Some(r.delivered)).then(|| {
        Violation::new(
            "counts",
            format!(
                "the sink shows {} rows; expected {} − lost {} − unread {} + duplicates {} = {want:?}",
                r.delivered, r.expected, r.lost, r.unread, copies
            ),
        )
    })
}

fn first_difference(a: &[Event], b: &[Event]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// What a swarm found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Runs checked.
    pub runs: u64,
    /// Runs per verdict.
    pub verdicts: BTreeMap<String, u64>,
    /// Runs per source kind and per sink kind drawn (`source:tablestore`, `sink:append`).
    pub kinds: BTreeMap<String, u64>,
    /// Restarts whose `inspect` prediction was compared.
    pub restarts_inspected: u64,
    /// Runs the idempotent-sink invariant spoke of.
    pub idempotent_runs: u64,
    /// Events stepped, over every run (once per run; the determinism re-run not counted).
    pub events: u64,
    /// Each broken invariant: the run's index and the violation.
    pub violations: Vec<(u64, Violation)>,
}

impl Tally {
    /// Adds run `index` of scenario `s`, checked.
    pub fn add(&mut self, index: u64, s: &Scenario, c: Checked) {
        self.runs += 1;
        let verdict = c.verdict.map_or("panic", Verdict::name).to_string();
        *self.verdicts.entry(verdict).or_insert(0) += 1;
        for kind in [
            format!("source:{:?}", s.source.kind),
            format!("sink:{}", s.sink.kind),
        ] {
            *self.kinds.entry(kind).or_insert(0) += 1;
        }
        self.restarts_inspected += c.restarts_inspected;
        self.idempotent_runs += u64::from(idempotent_case(s));
        self.events += c.events;
        self.violations
            .extend(c.violations.into_iter().map(|v| (index, v)));
    }

    /// Adds another tally (of other runs) to this one, field by field: the shards of one swarm
    /// merge into what one process counts.
    pub fn absorb(&mut self, t: Tally) {
        self.runs += t.runs;
        for (k, n) in t.verdicts {
            *self.verdicts.entry(k).or_insert(0) += n;
        }
        for (k, n) in t.kinds {
            *self.kinds.entry(k).or_insert(0) += n;
        }
        self.restarts_inspected += t.restarts_inspected;
        self.idempotent_runs += t.idempotent_runs;
        self.events += t.events;
        self.violations.extend(t.violations);
    }
}

/// Checks runs `from .. from + runs` of swarm `seed` (in parallel with the `parallel`
/// feature; the tally does not depend on it) and returns the tally with the violating
/// scenarios.
pub fn swarm(seed: u64, from: u64, runs: u64) -> (Tally, Vec<Scenario>) {
    let bases = draw::bases();
    let indices: Vec<u64> = (from..from + runs).collect();
    let checked = crate::explore::run_all(true, indices, |index| {
        let s = draw::draw(&bases, seed, index);
        let c = check(&s);
        (index, s, c)
    });
    let mut tally = Tally::default();
    let mut bad = vec![];
    for (index, s, c) in checked {
        if !c.violations.is_empty() {
            bad.push(s.clone());
        }
        tally.add(index, &s, c);
    }
    (tally, bad)
}

#[cfg(test)]
mod tests;
