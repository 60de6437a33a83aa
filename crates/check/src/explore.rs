//! The crash-point explorer: "is there ANY moment where a crash loses or duplicates my data?"
//!
//! For one scenario it enumerates every fault schedule up to a depth, runs each to convergence
//! and judges it with the oracle against the failure-free run (computed once per scenario).
//!
//! **Faults.** A run's depth is its number of faults:
//! - *crash points*: `NAME@N` for every named point the run actually reaches (learned from the
//!   trace as the engine records them, `World::crash_sites`). With depth 2
//!   every ordered pair is explored, the second crash anywhere after the first: in its recovery
//!   (`offset-log@3` then `get-batch@3` of the re-run) or in any later batch, and the same point
//!   twice (`task@3, task@3`: the second in the re-run).
//! - *sink outages* (bounded: 4 per batch): for every batch that runs tasks in the base run, a
//!   window starting when the batch is handed to the sink (`addBatch`: its tasks' writes fail) and
//!   one starting at its sink commit (only the commit fails), each lasting half a trigger interval
//!   or two trigger intervals.
//! - *partition splits* (Tunnel-based sources only; bounded: 1 per batch): the lowest-index
//!   initial channel not already split splits in the middle of each batch's trigger interval.
//!   A split changes the upstream records, so its expected set is its own failure-free run.
//!
//! At most one non-crash fault per run: at depth 1 each runs alone, at depth 2 also with every
//! single crash point its run reaches. The scenario's own faults (outages, splits) stay in
//! every run; its listed crashes are ignored (the explorer places crashes itself).
//!
//! **Forking.** A run with crashes `[c1 … ck]` is not replayed from zero: the world is Clone and
//! deterministic, so the parent run (crashes `[c1 … ck-1]`) is stepped to just before the event
//! that is ck's crash site, cloned, and ck is armed there ([`World::arm_crash`] fires at the next
//! site of that point, which is that very event). This is exact because a crash list fires each
//! entry at the first site of its point, and the enumeration only arms ck at the occurrence a
//! replay of the whole list would fire it at. Each fork checks afterwards that ck fired right
//! after the expected event; if not, the run is replayed from zero and counted in
//! [`Summary::inexact_forks`] (tests assert it stays 0).
//!
//! **Chunks.** [`Explorer::run_chunk`] does a bounded slice of runs, so a browser can explore
//! between animation frames; natively the runs of a chunk go in parallel (rayon, feature
//! `parallel`). Results do not depend on the chunk size or on parallelism.

use crate::oracle::{expected_counts, failure_free, judge, run_to_end, visible_counts, Verdict};
use batchscope_engine::scenario::{SplitSpec, Window};
use batchscope_engine::{CrashKind, CrashPoint, EventKind, Scenario, World};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};
use std::fmt;

/// Outage lengths, in trigger intervals as (numerator, denominator): half an interval, two intervals.
const OUTAGE_LENGTHS: [(u64, u64); 2] = [(1, 2), (2, 1)];
/// Bad outcomes kept in [`Summary::bad_runs`] (counts are always complete).
const MAX_BAD_RUNS_KEPT: usize = 10_000;

/// A fault other than a driver crash, added to the scenario for one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Fault {
    /// Every sink write fails in `[from_ms, to_ms)`.
    SinkOutage {
        /// The batch whose task phase or sink commit the window starts at.
        batch_id: u64,
        /// Start (inclusive).
        from_ms: u64,
        /// End (exclusive).
        to_ms: u64,
    },
    /// Channel `channel` splits at `at_ms` (during batch `batch_id`'s trigger interval).
    PartitionSplit {
        /// The batch during whose interval the split happens.
        batch_id: u64,
        /// Parent channel index.
        channel: u32,
        /// When.
        at_ms: u64,
    },
}

impl Fault {
    /// Adds the fault to a scenario.
    pub fn apply(&self, scenario: &mut Scenario) {
        match *self {
            Fault::SinkOutage { from_ms, to_ms, .. } => {
                scenario.sink.outages.push(Window { from_ms, to_ms })
            }
            Fault::PartitionSplit { channel, at_ms, .. } => {
                scenario.upstream.splits.push(SplitSpec { channel, at_ms })
            }
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::SinkOutage {
                batch_id,
                from_ms,
                to_ms,
            } => write!(f, "sink outage [{from_ms}, {to_ms}) ms (batch {batch_id})"),
            Fault::PartitionSplit {
                batch_id,
                channel,
                at_ms,
            } => write!(f, "split of ch{channel} at {at_ms} ms (batch {batch_id})"),
        }
    }
}

/// Every crash site of a world's trace in order: (sequence number of the site event, point).
/// The engine records them as it steps ([`World::crash_sites`]), so there is one mapping.
pub fn crash_sites(world: &World) -> Vec<(u64, CrashPoint)> {
    world.crash_sites().to_vec()
}

/// The judgement of one explored run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// The crashes, in the order they fired (the scenario's crash list).
    pub crashes: Vec<CrashPoint>,
    /// The non-crash fault, if any.
    pub fault: Option<Fault>,
    /// The oracle's verdict.
    pub verdict: Verdict,
    /// Extra copies beyond the first.
    pub duplicates: u64,
    /// Expected records not visible.
    pub lost: u64,
    /// Sequence numbers of the crash-site events, in firing order (the "earliest" order).
    pub site_seqs: Vec<u64>,
}

impl Outcome {
    /// Number of faults: crashes plus the non-crash fault.
    pub fn depth(&self) -> u32 {
        self.crashes.len() as u32 + u32::from(self.fault.is_some())
    }

    /// Orders counterexamples: fewest faults, crash-only first, then earliest.
    fn rank(&self) -> (u32, Option<Fault>, &[u64]) {
        (self.depth(), self.fault, &self.site_seqs)
    }

    /// The scenario that reproduces this run exactly (`base` is the explored scenario).
    pub fn scenario(&self, base: &Scenario) -> Scenario {
        let mut s = base.clone();
        s.crash_after_events.clear();
        s.crashes = self.crashes.clone();
        if let Some(f) = &self.fault {
            f.apply(&mut s);
        }
        s
    }
}

/// Where the explored scenario came from, for the reproducing command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A built-in preset.
    Preset(String),
    /// A scenario file (its path as given).
    File(String),
}

/// The smallest run found for one bad verdict, and how to reproduce it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counterexample {
    /// The run.
    #[serde(flatten)]
    pub outcome: Outcome,
    /// The full scenario of the run (crashes and fault included).
    pub scenario: Scenario,
}

/// The file name used by the reproducing command of a counterexample with a non-crash fault.
pub const COUNTEREXAMPLE_FILE: &str = "counterexample.json";

impl Counterexample {
    /// Arguments of `batchscope` that reproduce the run. Crash-only runs use the preset or file
    /// plus `--crash` flags; runs with an outage or split need the scenario written to
    /// [`COUNTEREXAMPLE_FILE`] (`batchscope run` has no flag for those faults).
    pub fn run_args(&self, origin: &Origin) -> Vec<String> {
        if self.outcome.fault.is_some() {
            return vec!["run".into(), COUNTEREXAMPLE_FILE.into()];
        }
        let mut args = vec!["run".to_string()];
        match origin {
            Origin::Preset(name) => args.extend(["--preset".to_string(), name.clone()]),
            Origin::File(path) => args.push(path.clone()),
        }
        args.extend([
            "--seed".to_string(),
            self.scenario.seed.to_string(),
            "--batches".to_string(),
            self.scenario.batches.to_string(),
        ]);
        for c in &self.outcome.crashes {
            args.extend(["--crash".to_string(), c.to_string()]);
        }
        args
    }

    /// The shell command line that reproduces the run.
    pub fn command(&self, origin: &Origin) -> String {
        let args: Vec<String> = self
            .run_args(origin)
            .iter()
            .map(|a| shell_quote(a))
            .collect();
        let run = format!("batchscope {}", args.join(" "));
        if self.outcome.fault.is_some() {
            let json = serde_json::to_string(&self.scenario).expect("scenario serializes");
            format!(
                "echo {} > {COUNTEREXAMPLE_FILE} && {run}",
                shell_quote(&json)
            )
        } else {
            run
        }
    }
}

/// Quotes a word for a POSIX shell when it needs it.
fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_@./=:".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

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
    /// Runs judged.
    pub runs: u64,
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

/// One scenario variant: the base, or the base plus one non-crash fault.
#[derive(Clone, Debug)]
struct Variant {
    fault: Option<Fault>,
    scenario: Scenario,
    expected: usize,
}

/// A run to do: a variant with crashes, forked from a parent world (or replayed from zero).
#[derive(Clone, Debug)]
struct Job {
    variant: usize,
    parent: Option<usize>,
    crashes: Vec<CrashPoint>,
    site_seqs: Vec<u64>,
}

/// A world from which child runs fork: a run's start, before its last crash's site.
#[derive(Debug)]
struct Parent {
    world: Option<World>,
    remaining: u64,
}

/// The result of one run, before it is merged into the explorer.
struct Done {
    outcome: Outcome,
    children: Vec<(u64, CrashPoint)>,
    start: Option<World>,
    inexact: bool,
}

/// Read-only context of the runs, shared by the worker threads.
struct Context<'a> {
    variants: &'a [Variant],
    expected: &'a [BTreeMap<String, u64>],
    depth: u32,
    forking: bool,
}

/// The crash-point explorer of one scenario (see the module docs).
pub struct Explorer {
    base: Scenario,
    depth: u32,
    variants: Vec<Variant>,
    expected: Vec<BTreeMap<String, u64>>,
    queue: VecDeque<Job>,
    parents: Vec<Parent>,
    done: u64,
    outcomes: BTreeMap<Verdict, u64>,
    runs_by_depth: BTreeMap<u32, u64>,
    best: BTreeMap<Verdict, Outcome>,
    matrix: BTreeMap<(CrashKind, u64), Verdict>,
    batches_seen: Vec<u64>,
    crash_points: u64,
    bad_runs: Vec<Outcome>,
    inexact_forks: u64,
    forking: bool,
    parallel: bool,
}

impl Explorer {
    /// An explorer of `scenario` with up to `depth` faults per run. The scenario's own crash
    /// list is ignored. Runs the base run at once (cheap), so that [`Explorer::total`] counts
    /// every depth-1 run from the start.
    pub fn new(scenario: Scenario, depth: u32) -> Explorer {
        let mut base = scenario;
        base.crashes.clear();
        base.crash_after_events.clear();
        let (clean, _) = failure_free(&base);
        let expected = visible_counts(&clean);
        let mut explorer = Explorer {
            depth,
            variants: vec![Variant {
                fault: None,
                scenario: base.clone(),
                expected: 0,
            }],
            expected: vec![expected],
            queue: VecDeque::new(),
            parents: vec![],
            done: 0,
            outcomes: Verdict::ALL.iter().map(|&v| (v, 0)).collect(),
            runs_by_depth: BTreeMap::new(),
            best: BTreeMap::new(),
            matrix: BTreeMap::new(),
            batches_seen: vec![],
            crash_points: 0,
            bad_runs: vec![],
            inexact_forks: 0,
            forking: true,
            parallel: cfg!(feature = "parallel"),
            base,
        };
        explorer.queue.push_back(Job {
            variant: 0,
            parent: None,
            crashes: vec![],
            site_seqs: vec![],
        });
        // The base run: its trace names the crash points and the outage windows.
        explorer.run_chunk(1);
        if depth >= 1 {
            explorer.add_fault_variants(&clean);
        }
        explorer
    }

    /// Replays every run from zero instead of forking (for the benchmark and the exactness test).
    pub fn set_forking(&mut self, forking: bool) {
        self.forking = forking;
    }

    /// Runs a chunk's runs on all cores (feature `parallel`) or one after another.
    pub fn set_parallel(&mut self, parallel: bool) {
        self.parallel = parallel && cfg!(feature = "parallel");
    }

    /// The explored scenario (crash list cleared).
    pub fn scenario(&self) -> &Scenario {
        &self.base
    }

    /// Runs known so far (see [`Progress::total`]).
    pub fn total(&self) -> u64 {
        self.done + self.queue.len() as u64
    }

    /// How far the exploration has got.
    pub fn progress(&self) -> Progress {
        Progress {
            done: self.done,
            total: self.total(),
            finished: self.queue.is_empty(),
        }
    }

    /// Judges up to `n` more runs (at least one while any is left).
    pub fn run_chunk(&mut self, n: u64) -> Progress {
        let take = (n.max(1) as usize).min(self.queue.len());
        let jobs: Vec<Job> = self.queue.drain(..take).collect();
        let starts = self.materialize(&jobs);
        let ctx = Context {
            variants: &self.variants,
            expected: &self.expected,
            depth: self.depth,
            forking: self.forking,
        };
        let work: Vec<(Job, World)> = jobs.into_iter().zip(starts).collect();
        let results = run_all(self.parallel, work, |(job, world)| {
            let done = run_job(&ctx, &job, world);
            (job, done)
        });
        for (job, done) in results {
            self.merge(job, done);
        }
        self.progress()
    }

    /// Runs everything that is left and returns the summary.
    pub fn run_to_completion(&mut self) -> Summary {
        while !self.queue.is_empty() {
            self.run_chunk(256);
        }
        self.summary()
    }

    /// The start worlds of the jobs: forked from their parents, or fresh.
    fn materialize(&mut self, jobs: &[Job]) -> Vec<World> {
        // Jobs of one parent are queued together with rising fork points: one cursor world per
        // group steps through the parent's run and is cloned at each fork point. Groups go in parallel.
        let mut groups: Vec<&[Job]> = vec![];
        let mut rest = jobs;
        while let Some(first) = rest.first() {
            let n = rest
                .iter()
                .take_while(|j| j.parent == first.parent && j.parent.is_some())
                .count()
                .max(1);
            groups.push(&rest[..n]);
            rest = &rest[n..];
        }
        let (variants, parents, forking) = (&self.variants, &self.parents, self.forking);
        let starts: Vec<World> = run_all(self.parallel, groups, |group| {
            fork_group(variants, parents, forking, group)
        })
        .into_iter()
        .flatten()
        .collect();
        for job in jobs {
            if let Some(p) = job.parent {
                let parent = &mut self.parents[p];
                parent.remaining -= 1;
                if parent.remaining == 0 {
                    parent.world = None;
                }
            }
        }
        starts
    }

    fn merge(&mut self, job: Job, done: Done) {
        self.done += 1;
        self.inexact_forks += u64::from(done.inexact);
        let o = done.outcome;
        *self.outcomes.entry(o.verdict).or_insert(0) += 1;
        *self.runs_by_depth.entry(o.depth()).or_insert(0) += 1;
        if o.fault.is_none() && o.crashes.len() == 1 {
            let c = o.crashes[0];
            self.matrix.insert((c.kind, c.batch_id), o.verdict);
            if !self.batches_seen.contains(&c.batch_id) {
                self.batches_seen.push(c.batch_id);
            }
        }
        if o.verdict != Verdict::ExactlyOnce {
            let better = self
                .best
                .get(&o.verdict)
                .is_none_or(|b| o.rank() < b.rank());
            if better {
                self.best.insert(o.verdict, o.clone());
            }
            if self.bad_runs.len() < MAX_BAD_RUNS_KEPT {
                self.bad_runs.push(o.clone());
            }
        }
        if done.children.is_empty() {
            return;
        }
        let parent = self.parents.len();
        if job.variant == 0 && job.crashes.is_empty() {
            self.crash_points = done.children.len() as u64;
        }
        self.parents.push(Parent {
            world: done.start,
            remaining: done.children.len() as u64,
        });
        for (seq, point) in done.children {
            let mut crashes = job.crashes.clone();
            crashes.push(point);
            let mut site_seqs = job.site_seqs.clone();
            site_seqs.push(seq);
            self.queue.push_back(Job {
                variant: job.variant,
                parent: Some(parent),
                crashes,
                site_seqs,
            });
        }
    }

    /// Outage and split variants, learned from the base run's trace (bounded; see module docs).
    fn add_fault_variants(&mut self, clean: &World) {
        let base = &self.base;
        let interval = base.trigger_interval_ms;
        let mut faults = vec![];
        let mut seen_batches = vec![];
        for e in clean.events() {
            let (batch_id, from_ms) = match &e.kind {
                EventKind::AddBatch {
                    batch_id,
                    skipped: false,
                } if !seen_batches.contains(batch_id) => {
                    seen_batches.push(*batch_id);
                    (*batch_id, e.at_ms)
                }
                EventKind::SinkCommitted { batch_id, .. } => (*batch_id, e.at_ms),
                _ => continue,
            };
            for (num, den) in OUTAGE_LENGTHS {
                faults.push(Fault::SinkOutage {
                    batch_id,
                    from_ms,
                    to_ms: from_ms + (interval * num / den).max(1),
                });
            }
        }
        let split_channel = (0..base.upstream.channels)
            .find(|c| !base.upstream.splits.iter().any(|s| s.channel == *c));
        if let (true, Some(channel)) = (base.source.kind.uses_tunnel(), split_channel) {
            for batch_id in 0..base.batches {
                faults.push(Fault::PartitionSplit {
                    batch_id,
                    channel,
                    at_ms: batch_id * interval + interval / 2,
                });
            }
        }
        for fault in faults {
            let mut scenario = self.base.clone();
            fault.apply(&mut scenario);
            let expected = match fault {
                // failure_free drops outages: the expected records are the base's.
                Fault::SinkOutage { .. } => 0,
                Fault::PartitionSplit { .. } => {
                    self.expected.push(expected_counts(&scenario));
                    self.expected.len() - 1
                }
            };
            self.variants.push(Variant {
                fault: Some(fault),
                scenario,
                expected,
            });
            self.queue.push_back(Job {
                variant: self.variants.len() - 1,
                parent: None,
                crashes: vec![],
                site_seqs: vec![],
            });
        }
    }

    /// What the exploration found so far.
    pub fn summary(&self) -> Summary {
        let mut batches = self.batches_seen.clone();
        batches.sort_unstable();
        let rows = CrashKind::ALL
            .iter()
            .map(|&kind| MatrixRow {
                point: kind.name().to_string(),
                verdicts: batches
                    .iter()
                    .map(|&b| self.matrix.get(&(kind, b)).copied())
                    .collect(),
            })
            .collect();
        let counterexamples = Verdict::ALL
            .iter()
            .filter_map(|v| self.best.get(v))
            .map(|o| Counterexample {
                scenario: o.scenario(&self.base),
                outcome: o.clone(),
            })
            .collect();
        Summary {
            scenario: self.base.name.clone(),
            seed: self.base.seed,
            batches: self.base.batches,
            depth: self.depth,
            runs: self.done,
            outcomes: self.outcomes.clone(),
            runs_by_depth: self.runs_by_depth.clone(),
            crash_points: self.crash_points,
            faults: self.variants.iter().filter_map(|v| v.fault).collect(),
            counterexamples,
            matrix: Matrix { batches, rows },
            bad_runs: self.bad_runs.clone(),
            inexact_forks: self.inexact_forks,
        }
    }
}

/// Adds crashes to a scenario (private helper trait to keep call sites short).
trait WithCrashes {
    fn with_crashes(self, crashes: &[CrashPoint]) -> Scenario;
}

impl WithCrashes for Scenario {
    fn with_crashes(mut self, crashes: &[CrashPoint]) -> Scenario {
        self.crashes = crashes.to_vec();
        self
    }
}

/// Maps the work items, in parallel when asked and compiled in; keeps the order.
fn run_all<T, R, F>(parallel: bool, items: Vec<T>, f: F) -> Vec<R>
where
    T: Send,
    R: Send,
    F: Fn(T) -> R + Sync + Send,
{
    #[cfg(feature = "parallel")]
    if parallel {
        use rayon::prelude::*;
        return items.into_par_iter().map(f).collect();
    }
    let _ = parallel;
    items.into_iter().map(f).collect()
}

/// The start worlds of a group of jobs (one parent, or a single job without one).
fn fork_group(
    variants: &[Variant],
    parents: &[Parent],
    forking: bool,
    group: &[Job],
) -> Vec<World> {
    let mut cursor: Option<World> = None;
    let mut starts = Vec::with_capacity(group.len());
    for job in group {
        let Some(p) = job.parent.filter(|_| forking) else {
            let s = variants[job.variant]
                .scenario
                .clone()
                .with_crashes(&job.crashes);
            starts.push(World::new(s));
            continue;
        };
        let at = *job.site_seqs.last().expect("a forked job has a crash");
        let w = cursor.get_or_insert_with(|| parents[p].world.clone().expect("parent kept"));
        while (w.events().len() as u64) < at {
            w.step();
        }
        let mut fork = w.clone();
        fork.arm_crash(*job.crashes.last().expect("a forked job has a crash"));
        starts.push(fork);
    }
    starts
}

/// Runs one job from its start world to the end and judges it.
fn run_job(ctx: &Context<'_>, job: &Job, start: World) -> Done {
    let variant = &ctx.variants[job.variant];
    let wants_children =
        (job.crashes.len() as u32 + u32::from(variant.fault.is_some())) < ctx.depth;
    let kept = (ctx.forking && wants_children && job.parent.is_some()).then(|| start.clone());
    let mut world = start;
    let mut converged = run_to_end(&mut world);
    let mut inexact = false;
    if let (Some(&point), Some(&at)) = (job.crashes.last(), job.site_seqs.last()) {
        if !fired_after(&world, point, at) {
            // Not where the enumeration expected it: fall back to an exact replay.
            inexact = true;
            world = World::new(variant.scenario.clone().with_crashes(&job.crashes));
            converged = run_to_end(&mut world);
        }
    }
    let report = judge(&world, converged, &ctx.expected[variant.expected], false);
    let children = if wants_children {
        child_sites(&world, &job.crashes, job.site_seqs.last().copied())
    } else {
        vec![]
    };
    // A run without a crash of its own starts from zero: its children fork from a fresh world.
    let start = if children.is_empty() || !ctx.forking {
        None
    } else {
        kept.or_else(|| Some(World::new(variant.scenario.clone())))
    };
    Done {
        outcome: Outcome {
            crashes: job.crashes.clone(),
            fault: variant.fault,
            verdict: report.verdict,
            duplicates: report.duplicates,
            lost: report.lost,
            site_seqs: job.site_seqs.clone(),
        },
        children,
        start,
        inexact,
    }
}

/// Whether `point` fired right after the event `at` and every armed crash fired.
fn fired_after(world: &World, point: CrashPoint, at: u64) -> bool {
    world.pending_crashes().is_empty()
        && world.events().iter().any(|e| {
            matches!(&e.kind, EventKind::Crashed { point: Some(p), after_seq, .. }
                if *p == point && *after_seq == at)
        })
}

/// The crash points that can be added to a finished run with `crashes` so that the new crash
/// fires after the last one (each list is enumerated once, in firing order): the occurrence a
/// replay of `crashes + [q]` fires `q` at is its (count of q in crashes + 1)-th site.
fn child_sites(
    world: &World,
    crashes: &[CrashPoint],
    after: Option<u64>,
) -> Vec<(u64, CrashPoint)> {
    let mut seen: BTreeMap<CrashPoint, usize> = BTreeMap::new();
    let mut children = vec![];
    for (seq, point) in crash_sites(world) {
        let k = seen.entry(point).or_insert(0);
        *k += 1;
        let fires_at = crashes.iter().filter(|c| **c == point).count() + 1;
        if *k == fires_at && after.is_none_or(|a| seq > a) {
            children.push((seq, point));
        }
    }
    children
}
