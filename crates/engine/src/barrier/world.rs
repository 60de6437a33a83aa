//! `TopologyWorld`: the ETL topology stepped one observable action at a time. This file holds
//! the world's state, its time-ordered action queue and the public API; what each action does
//! lives next door: reading inputs into a barrier in `cut.rs`, PROCESSED / WRITTEN / PRECOMMIT /
//! COMMIT in `commit.rs`, failover and revision in `faults.rs`.
//!
//! All randomness (generated CDC rows, commit users, manifest ids) comes from the project's one
//! PRNG, [`crate::rng::Prng`], seeded with the run's seed.

use std::collections::{BTreeMap, VecDeque};

use super::delay::{DelayLog, DelayReport};
use super::event::{BarrierEvent, BarrierEventKind, CdcRecord};
use super::job::Job;
use super::meta::MetaService;
use super::query::{evaluate, lineage, related_groups, Consistency, Query, QueryResult, ReadLevel};
use super::run::{check_fault, TopologyRun};
use super::spec::{TopologyError, TopologySpec};
use super::table::Table;
use crate::rng::Prng;

/// One scheduled action; each performs at most one observable step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Action {
    Cdc(usize),
    Issue(u64),
    Read {
        job: usize,
        input: usize,
        barrier: u64,
    },
    Trigger {
        job: usize,
    },
    Process {
        job: usize,
        barrier: u64,
    },
    Snapshot {
        job: usize,
        barrier: u64,
    },
    Precommit,
    Commit,
    Fail {
        job: usize,
    },
    Recover {
        job: usize,
    },
    Revise {
        table: String,
        barrier: u64,
    },
    TxnResolve {
        job: usize,
        barrier: u64,
    },
    Renotify {
        job: usize,
        barrier: u64,
    },
}

impl Action {
    /// The job the action belongs to (a failing job drops its pending actions).
    pub(super) fn job(&self) -> Option<usize> {
        match self {
            Action::Read { job, .. }
            | Action::Trigger { job }
            | Action::Process { job, .. }
            | Action::Snapshot { job, .. }
            | Action::Fail { job }
            | Action::Recover { job }
            | Action::TxnResolve { job, .. }
            | Action::Renotify { job, .. } => Some(*job),
            _ => None,
        }
    }
}

/// The ETL topology in simulation.
#[derive(Clone, Debug)]
pub struct TopologyWorld {
    pub(super) run: TopologyRun,
    pub(super) meta: MetaService,
    pub(super) cdc_plan: Vec<CdcRecord>,
    pub(super) cdc_arrived: usize,
    pub(super) tables: Vec<Table>,
    pub(super) jobs: Vec<Job>,
    pub(super) queue: BTreeMap<(u64, u64), Action>,
    pub(super) urgent: VecDeque<Action>,
    seq: u64,
    pub(super) now_ms: u64,
    pub(super) steps: u64,
    /// Per recorded fault: whether it has fired.
    pub(super) fired: Vec<bool>,
    pub(super) precommit_pending: bool,
    pub(super) commit_pending: bool,
    pub(super) drain_until_ms: u64,
    pub(super) delay_log: DelayLog,
    /// Revised (root table, barrier)s with their corrected rows merged in, used by every
    /// later replay.
    pub(super) corrections: BTreeMap<(String, u64), super::revise::RevisedBarrier>,
    /// Jobs a revision restarted, with what it revised: their next recovery says so.
    pub(super) revising: BTreeMap<usize, super::event::RevisionReplay>,
    /// Kafka tables' transactions.
    pub(super) txns: BTreeMap<(usize, u64), super::sinks::Txn>,
    trace: crate::history::History<BarrierEvent>,
}

/// The CDC stream: every source's explicit records plus `generated_per_barrier` rows of each
/// source drawn from `rng` in every barrier interval, merged in time order (explicit records
/// first at equal times, then sources in file order). Offsets count the merged stream.
fn cdc_plan(spec: &TopologySpec, rng: &mut Prng) -> Vec<CdcRecord> {
    let mut plan: Vec<(u64, usize, [i64; 4])> = spec
        .cdc
        .iter()
        .enumerate()
        .flat_map(|(k, c)| {
            c.records
                .iter()
                .map(move |r| (r.at_ms, k, [r.user_id, r.item_id, r.amount, r.price]))
        })
        .collect();
    let mut draw = |n: u64| i64::try_from(rng.below(n)).expect("below a u32 fits an i64");
    for (k, c) in spec.cdc.iter().enumerate() {
        let per = u64::from(c.generated_per_barrier);
        for b in 0..spec.barriers {
            for j in 0..per {
                let at =
                    b * spec.barrier_interval_ms + (j + 1) * spec.barrier_interval_ms / (per + 1);
                let user = 2 + draw(u64::from(c.users));
                let item = 1 + draw(u64::from(c.items));
                let amount = 1 + draw(9);
                let price = amount * (10 + draw(20));
                plan.push((at, k, [user, item, amount, price]));
            }
        }
    }
    // Stable: explicit records stay before generated ones of the same time.
    plan.sort_by_key(|(at, _, _)| *at);
    plan.into_iter()
        .enumerate()
        .map(|(i, (at_ms, k, row))| CdcRecord {
            offset: i as u64,
            source: spec.cdc[k].name.clone(),
            at_ms,
            row,
        })
        .collect()
}

/// The tables of the topology, empty, each with its writer; commit users and manifest ids
/// are drawn from `rng`.
fn new_tables(spec: &TopologySpec, meta: &MetaService, rng: &mut Prng) -> Vec<Table> {
    spec.tables
        .iter()
        .map(|t| {
            let reg = meta
                .tables
                .iter()
                .find(|r| r.name == t.name)
                .expect("registered");
            Table {
                name: t.name.clone(),
                columns: t.columns.clone(),
                root: reg.root,
                writer: reg.writer.clone(),
                log: Vec::new(),
                barriers: Vec::new(),
                snapshots: Vec::new(),
                commit_user: rng.uuid().to_string(),
                manifest_id: rng.uuid().to_string(),
            }
        })
        .collect()
}

impl TopologyWorld {
    /// Builds the world: registers the topology with the MetaService and plans the CDC stream
    /// and the barriers.
    pub fn new(spec: TopologySpec, seed: u64) -> Result<Self, TopologyError> {
        let barriers = spec.barriers;
        Self::from_run(TopologyRun {
            spec,
            seed,
            barriers,
            faults: Vec::new(),
        })
    }

    /// Builds the world of a recorded run; its faults fire when their time comes.
    pub fn from_run(mut run: TopologyRun) -> Result<Self, TopologyError> {
        run.spec.barriers = run.barriers;
        // The topology's own failures become recorded ones, first.
        let mut faults = std::mem::take(&mut run.spec.faults);
        faults.append(&mut run.faults);
        run.faults = faults;
        let meta = MetaService::register(&run.spec)?;
        for f in &run.faults {
            check_fault(&run.spec, &meta, f)?;
        }
        let spec = &run.spec;
        let mut rng = Prng::new(run.seed);
        let cdc_plan = cdc_plan(spec, &mut rng);
        let tables = new_tables(spec, &meta, &mut rng);
        let jobs: Vec<Job> = spec.jobs.iter().map(|j| Job::new(spec, j)).collect();
        for t in &tables {
            let writers = jobs.iter().filter(|j| j.spec.sink == t.name).count();
            assert!(writers <= 1, "table `{}` has one writer", t.name);
        }
        let end_ms = spec.barriers * spec.barrier_interval_ms;
        let drain_ms: u64 = spec
            .jobs
            .iter()
            .map(|j| j.checkpoint_interval_ms + j.read_ms + j.process_ms + j.commit_ms)
            .sum();
        let mut w = TopologyWorld {
            fired: vec![false; run.faults.len()],
            meta,
            cdc_arrived: 0,
            delay_log: DelayLog::new(tables.len(), jobs.len()),
            tables,
            jobs,
            queue: BTreeMap::new(),
            urgent: VecDeque::new(),
            seq: 0,
            now_ms: 0,
            steps: 0,
            precommit_pending: false,
            commit_pending: false,
            drain_until_ms: end_ms + drain_ms,
            trace: crate::history::History::default(),
            corrections: BTreeMap::new(),
            revising: BTreeMap::new(),
            txns: BTreeMap::new(),
            cdc_plan,
            run,
        };
        w.schedule_start();
        Ok(w)
    }

    /// Schedules the CDC records, and the barriers (with barriers) or every job's first own
    /// checkpoint (without).
    fn schedule_start(&mut self) {
        for i in 0..self.cdc_plan.len() {
            self.schedule(self.cdc_plan[i].at_ms, Action::Cdc(i));
        }
        if self.run.spec.no_barriers {
            for j in 0..self.jobs.len() {
                self.schedule(
                    self.jobs[j].spec.checkpoint_interval_ms,
                    Action::Trigger { job: j },
                );
            }
        } else {
            for b in 1..=self.run.spec.barriers {
                self.schedule(b * self.run.spec.barrier_interval_ms, Action::Issue(b));
            }
        }
    }

    /// Schedules `action` at `at_ms` (never in the past), after the actions already due then.
    pub(super) fn schedule(&mut self, at_ms: u64, action: Action) {
        assert!(at_ms >= self.now_ms, "{action:?} scheduled in the past");
        self.seq += 1;
        self.queue.insert((at_ms, self.seq), action);
    }

    /// Performs the next observable action; `None` once the run has drained.
    pub fn step(&mut self) -> Option<BarrierEvent> {
        loop {
            self.fire_step_faults();
            let action = match self.urgent.pop_front() {
                Some(a) => a,
                None => {
                    let ((at, _), a) = self.queue.pop_first()?;
                    self.now_ms = self.now_ms.max(at);
                    a
                }
            };
            if let Some(kind) = self.exec(action) {
                let ev = BarrierEvent {
                    step: self.steps,
                    at_ms: self.now_ms,
                    kind,
                };
                self.steps += 1;
                self.trace.push(ev.clone());
                assert_eq!(self.trace.len() as u64, self.steps, "one event per step");
                return Some(ev);
            }
        }
    }

    /// Whether nothing is left to do: no scheduled or urgent action remains.
    pub fn is_drained(&self) -> bool {
        self.queue.is_empty() && self.urgent.is_empty()
    }

    /// Steps until the run has drained; returns the events of those steps.
    pub fn run_to_end(&mut self) -> Vec<BarrierEvent> {
        std::iter::from_fn(|| self.step()).collect()
    }

    fn exec(&mut self, action: Action) -> Option<BarrierEventKind> {
        match action {
            Action::Cdc(i) => Some(self.on_cdc(i)),
            Action::Issue(b) => Some(self.on_issue(b)),
            Action::Read {
                job,
                input,
                barrier,
            } => self.on_read(job, input, barrier),
            Action::Trigger { job } => self.on_trigger(job),
            Action::Process { job, barrier } => self.on_process(job, barrier),
            Action::Snapshot { job, barrier } => self.on_snapshot(job, barrier),
            Action::Precommit => self.on_precommit(),
            Action::Commit => self.on_commit(),
            Action::Fail { job } => self.on_fail(job),
            Action::Recover { job } => Some(self.on_recover(job)),
            Action::Revise { table, barrier } => Some(self.on_revise(&table, barrier)),
            Action::TxnResolve { job, barrier } => self.on_txn_resolve(job, barrier),
            Action::Renotify { job, barrier } => self.on_renotify(job, barrier),
        }
    }

    /// The MetaService issues barrier `b`, covering the CDC records arrived so far.
    fn on_issue(&mut self, b: u64) -> BarrierEventKind {
        let issued = self
            .meta
            .issue_barrier(self.now_ms, self.cdc_arrived as u64);
        assert_eq!(issued, b, "barriers are issued in order");
        for j in 0..self.jobs.len() {
            self.schedule_reads(j);
        }
        let rec = self.meta.barrier(b).expect("issued");
        BarrierEventKind::BarrierIssued {
            barrier: b,
            cdc_offset_start: rec.cdc_offset_start,
            cdc_offset_end: rec.cdc_offset_end,
        }
    }

    pub(super) fn job_index(&self, name: &str) -> Option<usize> {
        self.jobs.iter().position(|j| j.spec.name == name)
    }

    pub(super) fn table_index(&self, name: &str) -> Option<usize> {
        self.tables.iter().position(|t| t.name == name)
    }

    /// The table job `j` writes (its one writer).
    pub(super) fn sink_of(&self, j: usize) -> usize {
        let t = self
            .table_index(&self.jobs[j].spec.sink)
            .expect("validated");
        assert_eq!(
            self.tables[t].writer, self.jobs[j].spec.name,
            "a table is written by its registered writer only"
        );
        t
    }

    /// Answers a query over the current tables.
    pub fn query(&self, q: &Query) -> QueryResult {
        evaluate(&self.tables, &self.meta, q, &self.strong_scope())
    }

    /// The tables every named query depends on together: what Strong consistency pins.
    pub fn strong_scope(&self) -> Vec<String> {
        let mut all = std::collections::BTreeSet::new();
        for q in self.run.spec.all_queries() {
            all.extend(lineage(&self.meta, q));
        }
        all.into_iter().collect()
    }

    /// The tables every named query depends on, in groups of related tables: under Strong each
    /// group is read at its own minimum version ([`related_groups`]).
    pub fn strong_groups(&self) -> Vec<Vec<String>> {
        related_groups(&self.meta, &self.strong_scope())
    }

    /// Every named query (the declared one first) at a level and consistency.
    pub fn named_queries(&self, level: ReadLevel, consistency: Consistency) -> Vec<Query> {
        self.run
            .spec
            .all_queries()
            .into_iter()
            .map(|spec| Query {
                spec: spec.clone(),
                level,
                consistency,
            })
            .collect()
    }

    /// The topology's declared query at a level and consistency.
    pub fn declared_query(&self, level: ReadLevel, consistency: Consistency) -> Query {
        Query {
            spec: self.run.spec.query.clone(),
            level,
            consistency,
        }
    }

    /// The recorded inputs of this run (spec, seed, barriers, faults so far).
    pub fn run(&self) -> &TopologyRun {
        &self.run
    }

    /// The topology.
    pub fn spec(&self) -> &TopologySpec {
        &self.run.spec
    }

    /// The MetaService view: registrations, barriers, progress, snapshots.
    pub fn meta(&self) -> &MetaService {
        &self.meta
    }

    /// Tables with their records, barriers and snapshots.
    pub fn tables(&self) -> &[Table] {
        &self.tables
    }

    /// A table by name.
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.name == name)
    }

    /// Jobs with their barrier progress.
    pub fn jobs(&self) -> &[Job] {
        &self.jobs
    }

    /// The CDC records that have arrived so far.
    pub fn cdc(&self) -> &[CdcRecord] {
        &self.cdc_plan[..self.cdc_arrived]
    }

    /// Simulated time of the latest step.
    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }

    /// Events emitted so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Every event so far.
    pub fn trace(&self) -> &[BarrierEvent] {
        self.trace.as_slice()
    }

    /// End-to-end delay series and, per table, the job to optimise on its path.
    pub fn delays(&self) -> DelayReport {
        let tables: Vec<&str> = self.tables.iter().map(|t| t.name.as_str()).collect();
        let jobs: Vec<&str> = self.jobs.iter().map(|j| j.spec.name.as_str()).collect();
        let path = |t: &str| -> Vec<String> {
            std::iter::once(t.to_string())
                .chain(self.meta.upstream_tables(t))
                .filter_map(|u| self.meta.writer_of(&u).map(str::to_string))
                .collect()
        };
        self.delay_log.report(&tables, &jobs, path)
    }
}

impl crate::sim::Sim for TopologyWorld {
    type Event = BarrierEvent;

    fn next_event(&mut self) -> Option<BarrierEvent> {
        self.step()
    }

    fn events(&self) -> &[BarrierEvent] {
        self.trace()
    }

    fn share_history(&mut self, later: &TopologyWorld) {
        self.trace.share(&later.trace);
    }

    fn settled(&self) -> bool {
        self.is_drained()
    }

    fn clock_ms(&self) -> u64 {
        self.now_ms()
    }
}
