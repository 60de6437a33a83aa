//! The crash-point explorer: "is there ANY moment where a crash loses or duplicates my data?"
//!
//! For one scenario it enumerates every fault schedule up to a depth, runs each to convergence
//! and judges it with the oracle against every record the upstream produced.
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
//! - *failures inside a batch* (bounded: 2 per batch): `task-fail@N` for every batch whose tasks
//!   read (not SeaTunnel readers, not continuous mode), `foreach-fail@N` for every batch a
//!   foreachBatch sink commits. (`checkpoint-deleted` is an operator's act, not a failure the
//!   system must survive: it is explored only when given, with `--fault`.)
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

mod fault;
mod job;
mod summary;

pub use fault::{Counterexample, Fault, Origin, Outcome, Reproduce, COUNTEREXAMPLE_FILE};
pub use job::crash_sites;
pub use summary::{Matrix, MatrixRow, Progress, Summary};

use crate::oracle::{expected_counts, failure_free, Verdict};
use batchscope_engine::scenario::{Fault as BatchFault, FaultKind};
use batchscope_engine::{CrashKind, EventKind, Scenario, World};
use job::{fork_group, run_all, run_job, Context, Done, Job, Parent, Variant};
use std::collections::{BTreeMap, VecDeque};

/// Outage lengths, in trigger intervals as (numerator, denominator): half an interval, two intervals.
const OUTAGE_LENGTHS: [(u64, u64); 2] = [(1, 2), (2, 1)];
/// Bad outcomes kept in [`Summary::bad_runs`] (counts are always complete).
const MAX_BAD_RUNS_KEPT: usize = 10_000;

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
        let expected = expected_counts(&base);
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
        // Failures inside a batch, where the scenario allows them: a task attempt of each batch
        // that runs tasks fails (Spark retries it), a foreachBatch function throws.
        let mut in_batch = vec![];
        for e in clean.events() {
            let kind = match &e.kind {
                EventKind::TaskRead { batch_id, .. } => (FaultKind::TaskFail, *batch_id),
                EventKind::SinkCommitted { batch_id, .. } => (FaultKind::ForeachFail, *batch_id),
                _ => continue,
            };
            let fault = BatchFault {
                kind: kind.0,
                batch_id: kind.1,
            };
            let mut scenario = base.clone();
            scenario.faults.push(fault);
            if !in_batch.contains(&fault)
                && !base.faults.contains(&fault)
                && scenario.validate().is_ok()
            {
                in_batch.push(fault);
            }
        }
        in_batch.sort();
        faults.extend(in_batch.into_iter().map(|fault| Fault::InBatch { fault }));
        for fault in faults {
            let mut scenario = self.base.clone();
            fault.apply(&mut scenario);
            let expected = match fault {
                // failure_free drops outages and faults: the expected records are the base's.
                Fault::SinkOutage { .. } | Fault::InBatch { .. } => 0,
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
                reproduce: None,
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
