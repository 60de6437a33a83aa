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
//! **Crashes after every event** ([`Options::every_event`]). Instead of the named points, the
//! driver crashes after every event of the run at which the query is running (not down between
//! a crash and its restart, not stopped): the failure-free run is stepped event by event, cloned
//! after each event, and the clone crashed there as the dashboard's *Crash now* does
//! ([`World::crash_now`], recorded as the scenario's `crash_after_events`, so a replay gives the
//! same trace). A named point `NAME@N` fires right after its site event, so the named crashes
//! are among these (the tests check that each has the same verdict; the matrix holds those
//! after each point's first site, the runs `NAME@N` names). At depth 2 the second crash goes
//! after every event of the first crash's run after it, and so on at depth 3, some hundred
//! thousand runs for a six-batch preset (a case for shards, below).
//!
//! **State de-duplication** ([`Options::prune`]). A forked run is stepped past its crash and
//! keyed by its durable state, what survives the crash of its volatile state, the clock and the
//! PRNG's position, and the history liveness reads. A run whose key an earlier run had is not
//! run: it shares that run's future, so its verdict and its children's are that run's; the
//! counts per verdict stay those of a full exploration, and [`Summary::pruned`] says how many
//! runs were judged that way (the `dedup` module says why it is exact). The CLI keys crashes
//! after every event, where consecutive events often take no simulated time and so leave the
//! same state; named points lie apart in time and almost never meet.
//!
//! **Coverage** ([`Summary::coverage`]). A crash window is the gap between two consecutive
//! protocol steps, named by the kinds of the events on either side (`offset-log-written →
//! source-commit`). The report lists the windows crashes went into, the windows the runs passed
//! without one (the driver was down, or the depth ran out), and each named crash point, with
//! those never reached (`state-prepared` outside SeaTunnel readers).
//!
//! **Claims** ([`Property`]): a lesson's claim, held, violated or never reached in a [`Summary`].
//!
//! **The danger map** ([`map`]): one crash after each event of the run without crashes, the
//! verdicts merged into windows of consecutive events named by their protocol steps.
//!
//! **Shards** ([`Options::shard`], the [`shard`] module). Shard K of N runs a deterministic
//! share of the run space: every shard runs the runs with children (they are few: one per
//! crash site of the level above), and of the runs of the last level, the ones without
//! children that are nearly all of an exploration, only those it owns: by their state's key
//! when de-duplicating (so every run with one key is in one shard, and de-duplication decides
//! there exactly as in one process), else by their place in the order. [`shard::merge`]
//! combines the N reports into exactly the single-process summary.
//!
//! **Order.** Counterexamples are the smallest runs by (faults, fault, crash sites, crashes),
//! and a matrix cell holds its latest crash site's verdict: an order that does not depend on
//! which process ran a run, or when. Bad runs are kept as found (the first 10 000), or all of
//! them ([`Options::every_bad_run`]) for [`shard::ordered`] to keep the smallest.
//!
//! **Chunks.** [`Explorer::run_chunk`] does a bounded slice of runs, so a browser can explore
//! between animation frames; natively the runs of a chunk go in parallel (rayon, feature
//! `parallel`). Results do not depend on the chunk size or on parallelism.

mod claim;
mod coverage;
mod dedup;
mod fault;
mod job;
pub mod map;
mod property;
pub mod shard;
mod summary;

pub use coverage::{Coverage, CrashWindow, PointCoverage, RawTally};
pub use dedup::Counts;
use fault::MAX_BAD_RUNS_KEPT;
pub use fault::{
    run_scenario, Counterexample, Fault, Origin, Outcome, Reproduce, COUNTEREXAMPLE_FILE,
};
pub use job::crash_sites;
pub use property::{Cell, Check, Evidence, Property, Status, Witness};
pub use shard::{Shard, ShardReport};
pub use summary::{Matrix, MatrixRow, Progress, Summary};

use crate::oracle::{expected_counts, failure_free, Liveness, Verdict};
use batchscope_engine::microbatch::event::EventKind;
use batchscope_engine::microbatch::scenario::{CrashKind, CrashPoint, Scenario};
use batchscope_engine::microbatch::scenario::{Fault as BatchFault, FaultKind};
use batchscope_engine::microbatch::upstream::RowKey;
use batchscope_engine::microbatch::World;
use coverage::Tally;
use dedup::{Ends, Graph, Place};
pub(crate) use job::run_all;
use job::{first_sites, fork_group, run_job, Context, Done, Job, Parent, Start, Variant};
use std::collections::{BTreeMap, VecDeque};

/// How an exploration places its crashes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Crash the driver after every event (not only at the named crash points).
    pub every_event: bool,
    /// Run each distinct state after a crash once (see the module docs, *State
    /// de-duplication*).
    pub prune: bool,
    /// Run only this share of the runs without children (see the module docs, *Shards*).
    pub shard: Option<Shard>,
    /// Keep every bad run, not only the first 10 000 found: for a command that orders them
    /// ([`shard::ordered`]: the smallest first, whichever process found them).
    pub every_bad_run: bool,
}

/// One job of a chunk, placed: it runs, or an earlier run with the same state judges it.
enum Placed {
    Run(Job, usize, Box<World>),
    Seen(Job, usize, u64, u64),
}

/// One job of a chunk, done.
enum Finished {
    Ran(Job, usize, Box<Done>),
    Seen(Job, usize, u64, u64),
}

/// Outage lengths, in trigger intervals as (numerator, denominator): half an interval, two intervals.
const OUTAGE_LENGTHS: [(u64, u64); 2] = [(1, 2), (2, 1)];

/// The crash-point explorer of one scenario (see the module docs).
pub struct Explorer {
    base: Scenario,
    depth: u32,
    variants: Vec<Variant>,
    expected: Vec<BTreeMap<RowKey, u64>>,
    queue: VecDeque<Job>,
    parents: Vec<Parent>,
    done: u64,
    best: BTreeMap<Verdict, Outcome>,
    /// Single-crash verdicts of the base scenario, with the crash site that set each.
    matrix: BTreeMap<(CrashKind, u64), (u64, Verdict)>,
    batches_seen: Vec<u64>,
    crash_points: u64,
    bad_runs: Vec<Outcome>,
    inexact_forks: u64,
    /// Of [`Explorer::inexact_forks`], those of runs with children (every shard has them).
    inexact_shared: u64,
    /// Runs of the last level dequeued so far, in every shard alike: the order that shares
    /// runs without a key out.
    last_ordinal: u64,
    forking: bool,
    parallel: bool,
    options: Options,
    graph: Graph,
    tally: Tally,
    /// The first site of each named point of the base run, by event: where `NAME@N` fires.
    base_sites: BTreeMap<u64, CrashPoint>,
}

impl Explorer {
    /// An explorer of `scenario` with up to `depth` faults per run. The scenario's own crash
    /// list is ignored. Runs the base run at once (cheap), so that [`Explorer::total`] counts
    /// every depth-1 run from the start.
    pub fn new(scenario: Scenario, depth: u32) -> Explorer {
        Explorer::with_options(scenario, depth, Options::default())
    }

    /// [`Explorer::new`] with crashes after every event and/or state de-duplication.
    pub fn with_options(scenario: Scenario, depth: u32, options: Options) -> Explorer {
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
            best: BTreeMap::new(),
            matrix: BTreeMap::new(),
            batches_seen: vec![],
            crash_points: 0,
            bad_runs: vec![],
            inexact_forks: 0,
            inexact_shared: 0,
            last_ordinal: 0,
            forking: true,
            parallel: cfg!(feature = "parallel"),
            options,
            graph: Graph::default(),
            tally: Tally::default(),
            base_sites: first_sites(&base, options.every_event),
            base,
        };
        explorer.queue.push_back(explorer.fresh_job(0));
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
        let mut work = Vec::with_capacity(jobs.len());
        for (job, start) in jobs.into_iter().zip(starts) {
            let key = start.key.filter(|_| self.options.prune);
            let last = self.is_last(&job);
            let Some(job) = self.claim(job, key.as_ref()) else {
                // Another shard's run.
                self.done += 1;
                continue;
            };
            work.push(
                match self
                    .graph
                    .place(key, job.crash_count(), last, job.parent_node)
                {
                    Place::New(node) => Placed::Run(job, node, Box::new(start.world)),
                    Place::Seen(node) => {
                        let len = start.world.events().len() as u64;
                        let bound = start.world.step_bound().unwrap_or(u64::MAX);
                        Placed::Seen(job, node, len, bound)
                    }
                },
            );
        }
        let ctx = Context {
            variants: &self.variants,
            expected: &self.expected,
            depth: self.depth,
            forking: self.forking,
        };
        let results = run_all(self.parallel, work, |placed| match placed {
            Placed::Run(job, node, world) => {
                let done = run_job(&ctx, &job, *world);
                Finished::Ran(job, node, Box::new(done))
            }
            Placed::Seen(job, node, len, bound) => Finished::Seen(job, node, len, bound),
        });
        for finished in results {
            match finished {
                Finished::Ran(job, node, done) => self.merge(job, node, *done),
                Finished::Seen(job, node, len, bound) => self.merge_seen(job, node, len, bound),
            }
        }
        self.progress()
    }

    /// A job without crashes of a variant (replayed from zero).
    fn fresh_job(&self, variant: usize) -> Job {
        Job {
            variant,
            parent: None,
            crashes: vec![],
            site_seqs: vec![],
            every_event: self.options.every_event,
            parent_node: None,
            owned: false,
        }
    }

    /// A job whose state after its crash an earlier run reached: judged by that run when it
    /// ends the same way (see the `dedup` module), else queued to run after all (replayed from zero).
    fn merge_seen(&mut self, job: Job, node: usize, len: u64, bound: u64) {
        let judged = self.graph.judged(node);
        let Some((verdict, duplicates, lost, _)) =
            judged.filter(|_| self.graph.accepts(node, len, bound))
        else {
            self.queue.push_back(Job {
                parent: None,
                ..job
            });
            return;
        };
        self.graph.link(node, job.parent_node);
        self.done += 1;
        let fault = self.variants[job.variant].fault;
        self.record(job.outcome(fault, verdict, duplicates, lost));
    }

    /// Runs everything that is left and returns the summary.
    pub fn run_to_completion(&mut self) -> Summary {
        while !self.queue.is_empty() {
            self.run_chunk(256);
        }
        self.summary()
    }

    /// The start worlds of the jobs: forked from their parents, or fresh.
    fn materialize(&mut self, jobs: &[Job]) -> Vec<Start> {
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
        let keyed = self.options.prune.then_some(self.depth);
        let starts: Vec<Start> = run_all(self.parallel, groups, |group| {
            fork_group(variants, parents, forking, keyed, group)
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

    fn merge(&mut self, job: Job, node: usize, done: Done) {
        self.done += 1;
        self.inexact_forks += u64::from(done.inexact);
        if !self.is_last(&job) {
            self.inexact_shared += u64::from(done.inexact);
        }
        let o = done.outcome;
        let judged = (o.verdict, o.duplicates, o.lost, o.depth());
        let ends = Ends {
            converged: done.converged,
            start_len: done.start_len,
            end_len: done.end_len,
        };
        self.graph.finish(node, judged, ends);
        self.tally.add(
            &done.gaps,
            &done.named,
            done.children.iter().map(|c| c.window),
        );
        self.record(o);
        if done.children.is_empty() {
            return;
        }
        let parent = self.parents.len();
        if job.variant == 0 && job.site_seqs.is_empty() {
            self.crash_points = done.children.len() as u64;
        }
        self.parents.push(Parent {
            world: done.start,
            remaining: done.children.len() as u64,
        });
        for child in done.children {
            let mut crashes = job.crashes.clone();
            crashes.extend(child.point);
            let mut site_seqs = job.site_seqs.clone();
            site_seqs.push(child.seq);
            self.queue.push_back(Job {
                variant: job.variant,
                parent: Some(parent),
                crashes,
                site_seqs,
                every_event: job.every_event,
                parent_node: Some(node),
                owned: false,
            });
        }
    }

    /// Adds a judged run (ran, or judged by an equal one) to the matrix and the bad runs.
    fn record(&mut self, o: Outcome) {
        let single = match (
            o.fault,
            o.crashes.as_slice(),
            o.crash_after_events.as_slice(),
        ) {
            (None, [c], []) => Some(*c),
            (None, [], [seq]) => self.base_sites.get(seq).copied(),
            _ => None,
        };
        if let Some(c) = single {
            let site = o.site_seqs[0];
            let cell = self
                .matrix
                .entry((c.kind, c.batch_id))
                .or_insert((site, o.verdict));
            if site >= cell.0 {
                *cell = (site, o.verdict);
            }
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
            if self.options.every_bad_run || self.bad_runs.len() < MAX_BAD_RUNS_KEPT {
                self.bad_runs.push(o);
            }
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
            self.queue
                .push_back(self.fresh_job(self.variants.len() - 1));
        }
    }

    /// What the exploration found so far.
    pub fn summary(&self) -> Summary {
        let counts = self.graph.counts();
        let mut batches = self.batches_seen.clone();
        batches.sort_unstable();
        // A SeaTunnel reader's snapshot is the only state file: other sources have no such row.
        let seatunnel =
            self.base.source.kind == batchscope_engine::microbatch::scenario::SourceKind::SeaTunnel;
        let rows = CrashKind::ALL
            .iter()
            .filter(|&&kind| seatunnel || kind != CrashKind::StatePrepared)
            .map(|&kind| MatrixRow {
                point: kind.name().to_string(),
                verdicts: batches
                    .iter()
                    .map(|&b| self.matrix.get(&(kind, b)).map(|c| c.1))
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
            runs: counts.runs,
            pruned: counts.runs - counts.executed,
            every_event: self.options.every_event,
            outcomes: counts.outcomes,
            runs_by_depth: counts.runs_by_depth,
            coverage: self.tally.coverage(),
            crash_points: self.crash_points,
            faults: self.variants.iter().filter_map(|v| v.fault).collect(),
            counterexamples,
            matrix: Matrix { batches, rows },
            bad_runs: self.bad_runs.clone(),
            inexact_forks: self.inexact_forks,
        }
    }
}
