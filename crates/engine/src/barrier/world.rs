//! `TopologyWorld`: the ETL topology stepped one observable action at a time — CDC records,
//! global barriers, sources emitting, stateful operators aligning, sinks processing and writing
//! snapshots, PRECOMMIT/COMMIT, failover, revision, and the no-barrier contrast.

use std::collections::{BTreeMap, VecDeque};

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde::{Deserialize, Serialize};

use super::meta::MetaService;
use super::operator::{OperatorState, Pipeline, Record};
use super::query::{evaluate, Consistency, Query, QueryResult, ReadLevel};
use super::spec::{JobSpec, TopologyError, TopologySpec, CDC_SOURCE};
use super::table::Table;

/// A CDC record of the simulated upstream: one shopping row with its CDC time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CdcRecord {
    /// Position in the CDC stream, from 0.
    pub offset: u64,
    /// CDC time.
    pub at_ms: u64,
    /// `[userId, itemId, amount, price]`.
    pub row: [i64; 4],
}

/// A recorded input; the same spec, seed and faults replay the same events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "fault", rename_all = "snake_case")]
pub enum Fault {
    /// The job fails after `barrier` is PRECOMMIT and before its sink table has WRITTEN it (the
    /// seed's roll-back case). If its snapshot is due earlier, the fault holds it until PRECOMMIT.
    /// A job whose table other jobs read (PRECOMMIT waits for its snapshot), and any job without
    /// barriers, fails after PROCESSED and before WRITTEN instead.
    FailBeforeWritten {
        /// Job.
        job: String,
        /// Barrier.
        barrier: u64,
    },
    /// The job fails right after event number `step` (the dashboard's "fail now").
    FailAtStep {
        /// Job.
        job: String,
        /// Events emitted before the failure.
        step: u64,
    },
    /// Revise `table` back to `barrier` as soon as the table has WRITTEN barrier `written`.
    ReviseAfterWritten {
        /// Table.
        table: String,
        /// Barrier kept.
        barrier: u64,
        /// Barrier whose snapshot triggers the revision.
        written: u64,
    },
    /// Revise `table` back to `barrier` right after event number `step`.
    ReviseAtStep {
        /// Table.
        table: String,
        /// Barrier kept.
        barrier: u64,
        /// Events emitted before the revision.
        step: u64,
    },
}

/// Everything that defines a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopologyRun {
    /// The topology.
    pub spec: TopologySpec,
    /// PRNG seed (generated CDC rows, commit users).
    pub seed: u64,
    /// Barriers issued (overrides `spec.barriers`).
    pub barriers: u64,
    /// Recorded faults.
    pub faults: Vec<Fault>,
}

/// A table and the barrier a write went to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableBarrierRef {
    /// Table.
    pub table: String,
    /// Barrier (own checkpoint without barriers).
    pub barrier: u64,
}

/// CDC offsets a recovering job replays for one barrier (`<barrier, offset>` kept by MetaService).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayRange {
    /// Barrier.
    pub barrier: u64,
    /// First CDC offset.
    pub cdc_offset_start: u64,
    /// One past the last CDC offset.
    pub cdc_offset_end: u64,
}

/// One observable action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BarrierEvent {
    /// Events before this one.
    pub step: u64,
    /// Simulated time.
    pub at_ms: u64,
    /// What happened.
    pub kind: BarrierEventKind,
}

/// The closed set of things that happen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum BarrierEventKind {
    /// A CDC record arrived; stateless jobs reading `cdc` wrote it at once (not yet PROCESSED).
    CdcRecord {
        /// The record.
        record: CdcRecord,
        /// Root tables written, with the open barrier the record belongs to.
        written: Vec<TableBarrierRef>,
    },
    /// MetaService issued a global timestamp barrier covering these CDC offsets.
    BarrierIssued {
        /// Barrier.
        barrier: u64,
        /// First CDC offset.
        cdc_offset_start: u64,
        /// One past the last CDC offset.
        cdc_offset_end: u64,
    },
    /// A job's source emitted a barrier's records and then the barrier. Non-empty
    /// `waiting_for`: the stateful operator buffers this input until the others catch up.
    SourceEmit {
        /// Job.
        job: String,
        /// Table read, or `cdc`.
        input: String,
        /// Barrier.
        barrier: u64,
        /// Records emitted.
        records: u32,
        /// Inputs whose barrier has not arrived yet (alignment).
        waiting_for: Vec<String>,
    },
    /// Without barriers: a job took its own checkpoint and read all input available now.
    CheckpointTriggered {
        /// Job.
        job: String,
        /// The job's own checkpoint id.
        checkpoint: u64,
        /// Records read.
        records: u32,
    },
    /// The sink aligned and wrote the barrier's records: PROCESSED in the table.
    Processed {
        /// Job.
        job: String,
        /// Table.
        table: String,
        /// Barrier.
        barrier: u64,
        /// Records of the barrier in the table (streamed earlier or written now).
        records: u32,
    },
    /// A fault holds the snapshot until the barrier is PRECOMMIT.
    SnapshotHeld {
        /// Job.
        job: String,
        /// Barrier.
        barrier: u64,
    },
    /// A snapshot holding the barrier was created: WRITTEN in the table.
    SnapshotWritten {
        /// Job.
        job: String,
        /// Table.
        table: String,
        /// Barrier (`commitIdentifier`).
        barrier: u64,
        /// Snapshot id.
        snapshot_id: u64,
        /// Rows in the table.
        total_record_count: i64,
        /// Records of this barrier.
        delta_record_count: i64,
    },
    /// The barrier is PROCESSED in all tables.
    Precommit {
        /// Barrier.
        barrier: u64,
    },
    /// The barrier is WRITTEN in all tables.
    Commit {
        /// Barrier.
        barrier: u64,
    },
    /// A job failed; its sink table lost what was not WRITTEN.
    JobFailed {
        /// Job.
        job: String,
        /// Its sink table.
        table: String,
        /// Checkpoint (last WRITTEN barrier) it will restart from.
        restored_barrier: u64,
        /// PROCESSED barriers rolled back.
        lost_barriers: Vec<u64>,
    },
    /// A job restarted from its checkpoint and replays from the next barrier.
    JobRecovered {
        /// Job.
        job: String,
        /// Checkpoint restored.
        from_barrier: u64,
        /// CDC ranges it replays (jobs reading `cdc`, with barriers).
        replay: Vec<ReplayRange>,
    },
    /// A table and everything downstream were rolled back to a barrier for replay.
    Revised {
        /// Table revised.
        table: String,
        /// Barrier kept.
        barrier: u64,
        /// Tables rolled back.
        tables: Vec<String>,
        /// Jobs restarted.
        jobs: Vec<String>,
    },
}

/// A sample of end-to-end delay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DelaySample {
    /// When the snapshot was written.
    pub at_ms: u64,
    /// Its barrier.
    pub barrier: u64,
    /// The delay.
    pub delay_ms: u64,
}

/// Delay samples of one table or job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DelaySeries {
    /// Table or job.
    pub name: String,
    /// Samples, in time order.
    pub samples: Vec<DelaySample>,
}

impl DelaySeries {
    /// Largest delay.
    pub fn max_ms(&self) -> u64 {
        self.samples.iter().map(|s| s.delay_ms).max().unwrap_or(0)
    }
    /// Latest delay.
    pub fn last_ms(&self) -> u64 {
        self.samples.last().map_or(0, |s| s.delay_ms)
    }
    fn mean_ms(&self) -> u64 {
        let n = self.samples.len() as u64;
        self.samples.iter().map(|s| s.delay_ms).sum::<u64>() / n.max(1)
    }
}

/// End-to-end delay over time, per table and per job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DelayReport {
    /// Per table: snapshot time minus CDC time of the newest record it covers.
    pub tables: Vec<DelaySeries>,
    /// Per job: snapshot of barrier N written minus all inputs of N available.
    pub jobs: Vec<DelaySeries>,
    /// The job with the largest mean contribution.
    pub job_to_optimise: Option<String>,
}

/// Per-table transaction state of one barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum TableTxnState {
    /// Not processed in this table yet (maybe partly written).
    Pending,
    /// PROCESSED.
    Processed,
    /// WRITTEN.
    Written,
}

/// Global transaction state of one barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum TransactionState {
    /// Issued, processed nowhere or only in some tables.
    Open,
    /// PROCESSED in all tables.
    Precommit,
    /// WRITTEN in all tables.
    Commit,
}

/// One barrier for the dashboard.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BarrierView {
    /// Barrier.
    pub barrier: u64,
    /// Global state.
    pub state: TransactionState,
    /// State in each table.
    pub tables: Vec<(String, TableTxnState)>,
}

#[derive(Clone, Debug, Serialize)]
struct Arrival {
    deltas: Vec<Option<Vec<Record>>>,
    coverage: Vec<u64>,
    available_at_ms: Vec<u64>,
    /// Without barriers: input positions and CDC records streamed when the checkpoint was cut.
    consumed: Vec<u64>,
    cdc_written: u64,
}

/// What a job restores on restart: state at a WRITTEN barrier and its input positions.
#[derive(Clone, Debug, Default, Serialize)]
pub struct JobCheckpoint {
    /// Stateful operator's state.
    pub state: OperatorState,
    /// Per input: last barrier consumed (without barriers: upstream checkpoint / CDC offset).
    pub consumed: Vec<u64>,
    /// CDC records already streamed into the sink.
    pub cdc_written: u64,
    /// When all inputs of the barrier were available.
    pub ready_at_ms: u64,
}

/// One input of a job.
#[derive(Clone, Debug, Serialize)]
pub struct JobInput {
    /// Table read, or `cdc`.
    pub source: String,
    /// Last barrier read (without barriers: upstream checkpoint, or CDC offset for `cdc`).
    pub consumed: u64,
    #[serde(skip)]
    read_scheduled: bool,
}

/// A running ETL job.
#[derive(Clone, Debug, Serialize)]
pub struct Job {
    /// Its spec.
    pub spec: JobSpec,
    /// Running (false between a failure and the restart).
    pub up: bool,
    /// Inputs.
    pub inputs: Vec<JobInput>,
    /// Latest barrier its sink PROCESSED.
    pub processed: u64,
    /// Latest barrier WRITTEN (its checkpoint).
    pub written: u64,
    /// Snapshot held by a fault.
    pub held: Option<u64>,
    /// Barriers with input arrived but not processed (buffered by alignment).
    pub buffered: Vec<u64>,
    /// Stateful operator's state as of `processed`.
    pub state: OperatorState,
    #[serde(skip)]
    pipeline: Pipeline,
    #[serde(skip)]
    arrived: BTreeMap<u64, Arrival>,
    #[serde(skip)]
    staged: BTreeMap<u64, JobCheckpoint>,
    #[serde(skip)]
    checkpoints: BTreeMap<u64, JobCheckpoint>,
    #[serde(skip)]
    cdc_written: u64,
    #[serde(skip)]
    process_scheduled: bool,
    #[serde(skip)]
    snapshot_scheduled: bool,
}

impl Job {
    fn reads_cdc(&self) -> bool {
        self.spec.sources.iter().any(|s| s == CDC_SOURCE)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Action {
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
}

impl Action {
    fn job(&self) -> Option<usize> {
        match self {
            Action::Read { job, .. }
            | Action::Trigger { job }
            | Action::Process { job, .. }
            | Action::Snapshot { job, .. }
            | Action::Fail { job }
            | Action::Recover { job } => Some(*job),
            _ => None,
        }
    }
}

/// The ETL topology in simulation.
#[derive(Clone, Debug)]
pub struct TopologyWorld {
    run: TopologyRun,
    meta: MetaService,
    cdc_plan: Vec<CdcRecord>,
    cdc_arrived: usize,
    tables: Vec<Table>,
    jobs: Vec<Job>,
    queue: BTreeMap<(u64, u64), Action>,
    urgent: VecDeque<Action>,
    seq: u64,
    now_ms: u64,
    steps: u64,
    fired: Vec<bool>,
    precommit_pending: bool,
    commit_pending: bool,
    drain_until_ms: u64,
    table_delays: Vec<Vec<DelaySample>>,
    job_delays: Vec<Vec<DelaySample>>,
    trace: Vec<BarrierEvent>,
}

fn uuid_from(rng: &mut ChaCha8Rng) -> String {
    let mut bytes = [0u8; 16];
    rng.fill_bytes(&mut bytes);
    uuid::Builder::from_random_bytes(bytes)
        .into_uuid()
        .to_string()
}

fn cdc_plan(spec: &TopologySpec, rng: &mut ChaCha8Rng) -> Vec<CdcRecord> {
    let mut plan: Vec<(u64, [i64; 4])> = spec
        .cdc
        .records
        .iter()
        .map(|r| (r.at_ms, [r.user_id, r.item_id, r.amount, r.price]))
        .collect();
    let per = u64::from(spec.cdc.generated_per_barrier);
    for b in 0..spec.barriers {
        for j in 0..per {
            let at = b * spec.barrier_interval_ms + (j + 1) * spec.barrier_interval_ms / (per + 1);
            let user = 2 + i64::from(rng.next_u32() % spec.cdc.users);
            let item = 1 + i64::from(rng.next_u32() % spec.cdc.items);
            let amount = 1 + i64::from(rng.next_u32() % 9);
            let price = amount * (10 + i64::from(rng.next_u32() % 20));
            plan.push((at, [user, item, amount, price]));
        }
    }
    // Stable: explicit records stay before generated ones of the same time.
    plan.sort_by_key(|(at, _)| *at);
    plan.into_iter()
        .enumerate()
        .map(|(i, (at_ms, row))| CdcRecord {
            offset: i as u64,
            at_ms,
            row,
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
        let meta = MetaService::register(&run.spec)?;
        for f in &run.faults {
            check_fault(&run.spec, &meta, f)?;
        }
        let spec = &run.spec;
        let mut rng = ChaCha8Rng::seed_from_u64(run.seed);
        let cdc_plan = cdc_plan(spec, &mut rng);
        let tables = spec
            .tables
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
                    commit_user: uuid_from(&mut rng),
                    manifest_id: uuid_from(&mut rng),
                }
            })
            .collect();
        let jobs = spec
            .jobs
            .iter()
            .map(|j| Job {
                pipeline: Pipeline::new(spec, j),
                spec: j.clone(),
                up: true,
                inputs: j
                    .sources
                    .iter()
                    .map(|s| JobInput {
                        source: s.clone(),
                        consumed: 0,
                        read_scheduled: false,
                    })
                    .collect(),
                processed: 0,
                written: 0,
                held: None,
                buffered: Vec::new(),
                state: OperatorState::default(),
                arrived: BTreeMap::new(),
                staged: BTreeMap::new(),
                checkpoints: BTreeMap::new(),
                cdc_written: 0,
                process_scheduled: false,
                snapshot_scheduled: false,
            })
            .collect::<Vec<_>>();
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
            tables,
            table_delays: vec![Vec::new(); spec.tables.len()],
            job_delays: vec![Vec::new(); jobs.len()],
            jobs,
            queue: BTreeMap::new(),
            urgent: VecDeque::new(),
            seq: 0,
            now_ms: 0,
            steps: 0,
            precommit_pending: false,
            commit_pending: false,
            drain_until_ms: end_ms + drain_ms,
            trace: Vec::new(),
            cdc_plan,
            run,
        };
        for i in 0..w.cdc_plan.len() {
            w.schedule(w.cdc_plan[i].at_ms, Action::Cdc(i));
        }
        if w.run.spec.no_barriers {
            for j in 0..w.jobs.len() {
                w.schedule(
                    w.jobs[j].spec.checkpoint_interval_ms,
                    Action::Trigger { job: j },
                );
            }
        } else {
            for b in 1..=w.run.spec.barriers {
                w.schedule(b * w.run.spec.barrier_interval_ms, Action::Issue(b));
            }
        }
        Ok(w)
    }

    fn schedule(&mut self, at_ms: u64, action: Action) {
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

    fn fire_step_faults(&mut self) {
        for i in 0..self.run.faults.len() {
            if self.fired[i] {
                continue;
            }
            match self.run.faults[i].clone() {
                Fault::FailAtStep { job, step } if step == self.steps => {
                    self.fired[i] = true;
                    let j = self.job_index(&job).expect("checked");
                    self.urgent.push_back(Action::Fail { job: j });
                }
                Fault::ReviseAtStep {
                    table,
                    barrier,
                    step,
                } if step == self.steps => {
                    self.fired[i] = true;
                    self.urgent.push_back(Action::Revise { table, barrier });
                }
                _ => {}
            }
        }
    }

    fn exec(&mut self, action: Action) -> Option<BarrierEventKind> {
        match action {
            Action::Cdc(i) => Some(self.on_cdc(i)),
            Action::Issue(_) => Some(self.on_issue()),
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
        }
    }

    fn job_index(&self, name: &str) -> Option<usize> {
        self.jobs.iter().position(|j| j.spec.name == name)
    }

    fn table_index(&self, name: &str) -> Option<usize> {
        self.tables.iter().position(|t| t.name == name)
    }

    fn sink_of(&self, j: usize) -> usize {
        self.table_index(&self.jobs[j].spec.sink)
            .expect("validated")
    }

    /// The barrier that records streamed now belong to: the one not yet closed at this input.
    fn open_barrier(&self, j: usize) -> u64 {
        let job = &self.jobs[j];
        if self.run.spec.no_barriers {
            job.arrived.keys().last().copied().unwrap_or(job.processed) + 1
        } else {
            self.meta.last_issued() + 1
        }
    }

    /// A stateless job reading `cdc` streams records straight to its sink once it has read
    /// every closed barrier; returns the records written.
    fn cdc_catch_up(&mut self, j: usize) -> u32 {
        let job = &self.jobs[j];
        if !job.up || !job.reads_cdc() || job.pipeline.is_stateful() {
            return 0;
        }
        if !self.run.spec.no_barriers && job.inputs[0].consumed < self.meta.last_issued() {
            return 0;
        }
        let from = job.cdc_written as usize;
        let recs: Vec<Record> = self.cdc_plan[from.min(self.cdc_arrived)..self.cdc_arrived]
            .iter()
            .map(cdc_to_record)
            .collect();
        let recs = job.pipeline.apply_pre(recs);
        let barrier = self.open_barrier(j);
        self.jobs[j].cdc_written = self.cdc_arrived as u64;
        let sink = self.sink_of(j);
        self.tables[sink].write(barrier, recs)
    }

    fn on_cdc(&mut self, i: usize) -> BarrierEventKind {
        self.cdc_arrived = i + 1;
        let mut written = Vec::new();
        for j in 0..self.jobs.len() {
            if self.jobs[j].reads_cdc() && self.jobs[j].cdc_written == i as u64 {
                let barrier = self.open_barrier(j);
                if self.cdc_catch_up(j) > 0 {
                    written.push(TableBarrierRef {
                        table: self.jobs[j].spec.sink.clone(),
                        barrier,
                    });
                }
            }
        }
        BarrierEventKind::CdcRecord {
            record: self.cdc_plan[i].clone(),
            written,
        }
    }

    fn on_issue(&mut self) -> BarrierEventKind {
        let b = self
            .meta
            .issue_barrier(self.now_ms, self.cdc_arrived as u64);
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

    /// Availability time of barrier `n` at a source, if available.
    fn available(&self, source: &str, n: u64) -> Option<u64> {
        if source == CDC_SOURCE {
            self.meta.barrier(n).map(|b| b.issued_at_ms)
        } else {
            let t = &self.tables[self.table_index(source)?];
            t.barrier(n).and_then(|b| b.written_at_ms)
        }
    }

    fn schedule_reads(&mut self, j: usize) {
        if self.run.spec.no_barriers || !self.jobs[j].up {
            return;
        }
        for i in 0..self.jobs[j].inputs.len() {
            let input = &self.jobs[j].inputs[i];
            let next = input.consumed + 1;
            if !input.read_scheduled && self.available(&input.source, next).is_some() {
                self.jobs[j].inputs[i].read_scheduled = true;
                let at = self.now_ms + self.jobs[j].spec.read_ms;
                self.schedule(
                    at,
                    Action::Read {
                        job: j,
                        input: i,
                        barrier: next,
                    },
                );
            }
        }
    }

    fn on_read(&mut self, j: usize, i: usize, n: u64) -> Option<BarrierEventKind> {
        self.jobs[j].inputs[i].read_scheduled = false;
        let source = self.jobs[j].inputs[i].source.clone();
        let available_at = self.available(&source, n)?;
        let (recs, coverage) = if source == CDC_SOURCE {
            let b = self.meta.barrier(n).expect("available").clone();
            let from = if self.jobs[j].pipeline.is_stateful() {
                b.cdc_offset_start
            } else {
                b.cdc_offset_start.max(self.jobs[j].cdc_written)
            };
            let recs = self.cdc_plan[from as usize..b.cdc_offset_end as usize]
                .iter()
                .map(cdc_to_record)
                .collect::<Vec<_>>();
            (recs, b.cdc_offset_end)
        } else {
            let t = &self.tables[self.table_index(&source).expect("validated")];
            let recs = t
                .log
                .iter()
                .filter(|r| r.barrier == n)
                .map(|r| Record {
                    key: r.key.clone(),
                    values: r.values.clone(),
                })
                .collect();
            (recs, t.cdc_offset_at(n))
        };
        let recs = self.jobs[j].pipeline.apply_pre(recs);
        let count = recs.len() as u32;
        let delta = if self.jobs[j].pipeline.is_stateful() {
            recs
        } else {
            // Stateless: records go straight to the sink (visible to read-uncommitted).
            let sink = self.sink_of(j);
            self.tables[sink].write(n, recs);
            Vec::new()
        };
        let ninputs = self.jobs[j].inputs.len();
        let job = &mut self.jobs[j];
        if source == CDC_SOURCE {
            job.cdc_written = job.cdc_written.max(coverage);
        }
        job.inputs[i].consumed = n;
        let arrival = job.arrived.entry(n).or_insert_with(|| Arrival {
            deltas: vec![None; ninputs],
            coverage: vec![0; ninputs],
            available_at_ms: vec![0; ninputs],
            consumed: Vec::new(),
            cdc_written: 0,
        });
        arrival.deltas[i] = Some(delta);
        arrival.coverage[i] = coverage;
        arrival.available_at_ms[i] = available_at;
        let waiting_for = job
            .inputs
            .iter()
            .zip(&arrival.deltas)
            .filter(|(_, d)| d.is_none())
            .map(|(inp, _)| inp.source.clone())
            .collect();
        job.buffered = job.arrived.keys().copied().collect();
        if source == CDC_SOURCE {
            self.cdc_catch_up(j);
        }
        self.schedule_reads(j);
        self.schedule_process(j);
        Some(BarrierEventKind::SourceEmit {
            job: self.jobs[j].spec.name.clone(),
            input: source,
            barrier: n,
            records: count,
            waiting_for,
        })
    }

    fn on_trigger(&mut self, j: usize) -> Option<BarrierEventKind> {
        if !self.jobs[j].up {
            return None;
        }
        let k = self.jobs[j]
            .arrived
            .keys()
            .last()
            .copied()
            .unwrap_or(self.jobs[j].processed)
            + 1;
        let mut deltas = Vec::new();
        let mut coverage = Vec::new();
        let mut consumed = Vec::new();
        let mut count = 0u32;
        for i in 0..self.jobs[j].inputs.len() {
            let input = &self.jobs[j].inputs[i];
            let (recs, cov, pos) = if input.source == CDC_SOURCE {
                let from = if self.jobs[j].pipeline.is_stateful() {
                    input.consumed
                } else {
                    self.jobs[j].cdc_written
                };
                let recs: Vec<Record> = self.cdc_plan[from as usize..self.cdc_arrived]
                    .iter()
                    .map(cdc_to_record)
                    .collect();
                let pos = self.cdc_arrived as u64;
                (recs, pos, pos)
            } else {
                let t = &self.tables[self.table_index(&input.source).expect("validated")];
                let upto = t.written();
                let recs = t
                    .log
                    .iter()
                    .filter(|r| r.barrier > input.consumed && r.barrier <= upto)
                    .map(|r| Record {
                        key: r.key.clone(),
                        values: r.values.clone(),
                    })
                    .collect();
                (recs, t.cdc_offset_at(upto), upto)
            };
            let recs = self.jobs[j].pipeline.apply_pre(recs);
            count += recs.len() as u32;
            deltas.push(recs);
            coverage.push(cov);
            consumed.push(pos);
        }
        let sink = self.sink_of(j);
        let stateful = self.jobs[j].pipeline.is_stateful();
        let job = &mut self.jobs[j];
        for (inp, pos) in job.inputs.iter_mut().zip(&consumed) {
            inp.consumed = *pos;
        }
        if job.reads_cdc() {
            job.cdc_written = self.cdc_arrived as u64;
        }
        let deltas = if stateful {
            deltas
        } else {
            let recs: Vec<Record> = deltas.into_iter().flatten().collect();
            self.tables[sink].write(k, recs);
            vec![Vec::new(); consumed.len()]
        };
        let n = deltas.len();
        let consumed = self.jobs[j].inputs.iter().map(|i| i.consumed).collect();
        let cdc_written = self.jobs[j].cdc_written;
        self.jobs[j].arrived.insert(
            k,
            Arrival {
                deltas: deltas.into_iter().map(Some).collect(),
                coverage,
                available_at_ms: vec![self.now_ms; n],
                consumed,
                cdc_written,
            },
        );
        self.jobs[j].buffered = self.jobs[j].arrived.keys().copied().collect();
        let next = self.now_ms + self.jobs[j].spec.checkpoint_interval_ms;
        if next <= self.drain_until_ms {
            self.schedule(next, Action::Trigger { job: j });
        }
        self.schedule_process(j);
        Some(BarrierEventKind::CheckpointTriggered {
            job: self.jobs[j].spec.name.clone(),
            checkpoint: k,
            records: count,
        })
    }

    fn schedule_process(&mut self, j: usize) {
        let job = &self.jobs[j];
        let next = job.processed + 1;
        let ready = job
            .arrived
            .get(&next)
            .is_some_and(|a| a.deltas.iter().all(Option::is_some));
        if job.up && ready && !job.process_scheduled {
            self.jobs[j].process_scheduled = true;
            let at = self.now_ms + self.jobs[j].spec.process_ms;
            self.schedule(
                at,
                Action::Process {
                    job: j,
                    barrier: next,
                },
            );
        }
    }

    fn on_process(&mut self, j: usize, n: u64) -> Option<BarrierEventKind> {
        self.jobs[j].process_scheduled = false;
        let arrival = self.jobs[j].arrived.remove(&n)?;
        let deltas: Vec<Vec<Record>> = arrival
            .deltas
            .into_iter()
            .map(Option::unwrap_or_default)
            .collect();
        let job = &mut self.jobs[j];
        // Barrier N is computed from the state of N-1 plus N's aligned inputs.
        let out = if job.pipeline.is_stateful() {
            job.pipeline.compute(&mut job.state, &deltas)
        } else {
            Vec::new()
        };
        job.processed = n;
        job.buffered = job.arrived.keys().copied().collect();
        let (consumed, cdc_written) = if self.run.spec.no_barriers {
            (arrival.consumed, arrival.cdc_written)
        } else {
            // With barriers an input position is the barrier itself (`<barrier, offset>`).
            let end = self.meta.barrier(n).map_or(0, |b| b.cdc_offset_end);
            (
                vec![n; job.inputs.len()],
                if job.reads_cdc() { end } else { 0 },
            )
        };
        job.staged.insert(
            n,
            JobCheckpoint {
                state: job.state.clone(),
                consumed,
                cdc_written,
                ready_at_ms: arrival.available_at_ms.iter().copied().max().unwrap_or(0),
            },
        );
        let name = job.spec.name.clone();
        let sink = self.sink_of(j);
        let coverage = arrival.coverage.iter().copied().min().unwrap_or(0);
        self.tables[sink].write(n, out);
        let records = self.tables[sink].mark_processed(n, coverage, self.now_ms);
        self.meta.on_processed(&name, n);
        if self.jobs[j].written + 1 == n && !self.jobs[j].snapshot_scheduled {
            self.schedule_snapshot(j, n);
        }
        self.schedule_process(j);
        self.check_transactions();
        Some(BarrierEventKind::Processed {
            job: name,
            table: self.tables[sink].name.clone(),
            barrier: n,
            records,
        })
    }

    fn schedule_snapshot(&mut self, j: usize, n: u64) {
        self.jobs[j].snapshot_scheduled = true;
        let at = self.now_ms + self.jobs[j].spec.commit_ms;
        self.schedule(at, Action::Snapshot { job: j, barrier: n });
    }

    fn on_snapshot(&mut self, j: usize, n: u64) -> Option<BarrierEventKind> {
        let name = self.jobs[j].spec.name.clone();
        let fault = self.run.faults.iter().enumerate().position(|(i, f)| {
            !self.fired[i]
                && matches!(f, Fault::FailBeforeWritten { job, barrier } if *job == name && *barrier == n)
        });
        if let Some(i) = fault {
            // A table other jobs read cannot reach PRECOMMIT before its snapshot (they read
            // WRITTEN barriers only), so its writer fails after PROCESSED instead of waiting.
            let read_downstream = !self.meta.readers_of(&self.jobs[j].spec.sink).is_empty();
            if self.run.spec.no_barriers || self.meta.precommitted >= n || read_downstream {
                self.fired[i] = true;
                return self.on_fail(j);
            }
            self.jobs[j].held = Some(n);
            return Some(BarrierEventKind::SnapshotHeld {
                job: name,
                barrier: n,
            });
        }
        self.jobs[j].snapshot_scheduled = false;
        let sink = self.sink_of(j);
        let snap = self.tables[sink].write_snapshot(n, self.now_ms);
        let (id, total, delta) = (
            snap.snapshot.id,
            snap.snapshot.total_record_count,
            snap.snapshot.delta_record_count,
        );
        let checkpoint = self.jobs[j].staged.remove(&n).unwrap_or_default();
        let ready = checkpoint.ready_at_ms;
        self.jobs[j].checkpoints.insert(n, checkpoint);
        self.jobs[j].written = n;
        let table = self.tables[sink].name.clone();
        self.meta.on_written(&name, &table, id, n);
        self.job_delays[j].push(DelaySample {
            at_ms: self.now_ms,
            barrier: n,
            delay_ms: self.now_ms.saturating_sub(ready),
        });
        let cov = self.tables[sink].cdc_offset_at(n);
        if cov > 0 {
            let t = self.cdc_plan[cov as usize - 1].at_ms;
            self.table_delays[sink].push(DelaySample {
                at_ms: self.now_ms,
                barrier: n,
                delay_ms: self.now_ms.saturating_sub(t),
            });
        }
        if self.jobs[j].processed > n {
            self.schedule_snapshot(j, n + 1);
        }
        for r in 0..self.jobs.len() {
            self.schedule_reads(r);
        }
        self.check_transactions();
        self.fire_written_faults(&table, n);
        Some(BarrierEventKind::SnapshotWritten {
            job: name,
            table,
            barrier: n,
            snapshot_id: id,
            total_record_count: total,
            delta_record_count: delta,
        })
    }

    fn fire_written_faults(&mut self, table: &str, n: u64) {
        for i in 0..self.run.faults.len() {
            if let Fault::ReviseAfterWritten {
                table: t,
                barrier,
                written,
            } = &self.run.faults[i]
            {
                if !self.fired[i] && t == table && *written == n {
                    self.fired[i] = true;
                    self.urgent.push_back(Action::Revise {
                        table: t.clone(),
                        barrier: *barrier,
                    });
                }
            }
        }
    }

    fn min_processed(&self) -> u64 {
        self.tables.iter().map(Table::processed).min().unwrap_or(0)
    }

    fn min_written(&self) -> u64 {
        self.tables.iter().map(Table::written).min().unwrap_or(0)
    }

    /// PRECOMMIT / COMMIT are MetaService announcements: each its own step, right after the
    /// step that completed the barrier; a roll-back lowers them again.
    fn check_transactions(&mut self) {
        if self.run.spec.no_barriers {
            return;
        }
        let p = self.min_processed();
        self.meta.precommitted = self.meta.precommitted.min(p);
        if p > self.meta.precommitted && !self.precommit_pending {
            self.precommit_pending = true;
            self.schedule(self.now_ms, Action::Precommit);
        }
        let c = self.min_written();
        self.meta.committed = self.meta.committed.min(c);
        if c > self.meta.committed && !self.commit_pending {
            self.commit_pending = true;
            self.schedule(self.now_ms, Action::Commit);
        }
    }

    fn on_precommit(&mut self) -> Option<BarrierEventKind> {
        self.precommit_pending = false;
        let b = self.meta.precommitted + 1;
        if self.min_processed() < b {
            return None;
        }
        self.meta.precommitted = b;
        self.meta.barriers[b as usize - 1].precommit_at_ms = Some(self.now_ms);
        for j in 0..self.jobs.len() {
            if self.jobs[j].held.is_some_and(|h| h <= b) {
                let name = self.jobs[j].spec.name.clone();
                if let Some(i) = self.run.faults.iter().position(
                    |f| matches!(f, Fault::FailBeforeWritten { job, barrier } if *job == name && Some(*barrier) == self.jobs[j].held),
                ) {
                    self.fired[i] = true;
                }
                self.urgent.push_back(Action::Fail { job: j });
            }
        }
        self.check_transactions();
        Some(BarrierEventKind::Precommit { barrier: b })
    }

    fn on_commit(&mut self) -> Option<BarrierEventKind> {
        self.commit_pending = false;
        let b = self.meta.committed + 1;
        if self.min_written() < b {
            return None;
        }
        self.meta.committed = b;
        self.meta.barriers[b as usize - 1].commit_at_ms = Some(self.now_ms);
        self.check_transactions();
        Some(BarrierEventKind::Commit { barrier: b })
    }

    /// Drops everything of job `j` beyond its checkpoint `b` (state, input positions, pending
    /// actions) and rolls its sink table back to `b`; returns the barriers lost.
    fn restore(&mut self, j: usize, b: u64) -> Vec<u64> {
        self.queue.retain(|_, a| a.job() != Some(j));
        self.urgent.retain(|a| a.job() != Some(j));
        let job = &mut self.jobs[j];
        let cp = job
            .checkpoints
            .get(&b)
            .cloned()
            .unwrap_or_else(|| JobCheckpoint {
                consumed: vec![0; job.inputs.len()],
                ..JobCheckpoint::default()
            });
        job.checkpoints.retain(|k, _| *k <= b);
        job.state = cp.state;
        for (inp, c) in job.inputs.iter_mut().zip(&cp.consumed) {
            inp.consumed = *c;
            inp.read_scheduled = false;
        }
        job.cdc_written = cp.cdc_written;
        job.processed = b;
        job.written = b;
        job.held = None;
        job.buffered.clear();
        job.arrived.clear();
        job.staged.clear();
        job.process_scheduled = false;
        job.snapshot_scheduled = false;
        job.up = false;
        let name = job.spec.name.clone();
        let sink = self.sink_of(j);
        let table = self.tables[sink].name.clone();
        self.meta.on_rollback(&name, &table, b);
        self.tables[sink].truncate(b)
    }

    fn on_fail(&mut self, j: usize) -> Option<BarrierEventKind> {
        if !self.jobs[j].up {
            return None;
        }
        let b = self.jobs[j].written;
        let lost = self.restore(j, b);
        let at = self.now_ms + self.jobs[j].spec.restart_ms;
        self.schedule(at, Action::Recover { job: j });
        self.check_transactions();
        Some(BarrierEventKind::JobFailed {
            job: self.jobs[j].spec.name.clone(),
            table: self.jobs[j].spec.sink.clone(),
            restored_barrier: b,
            lost_barriers: lost,
        })
    }

    fn on_recover(&mut self, j: usize) -> BarrierEventKind {
        self.jobs[j].up = true;
        let from = self.jobs[j].written;
        let replay = if self.jobs[j].reads_cdc() && !self.run.spec.no_barriers {
            self.meta
                .barriers
                .iter()
                .filter(|b| b.barrier > from)
                .map(|b| ReplayRange {
                    barrier: b.barrier,
                    cdc_offset_start: b.cdc_offset_start,
                    cdc_offset_end: b.cdc_offset_end,
                })
                .collect()
        } else {
            Vec::new()
        };
        if self.run.spec.no_barriers {
            self.cdc_catch_up(j);
            let at = self.now_ms + self.jobs[j].spec.checkpoint_interval_ms;
            self.schedule(at, Action::Trigger { job: j });
        } else {
            self.cdc_catch_up(j);
            self.schedule_reads(j);
        }
        BarrierEventKind::JobRecovered {
            job: self.jobs[j].spec.name.clone(),
            from_barrier: from,
            replay,
        }
    }

    fn on_revise(&mut self, table: &str, barrier: u64) -> BarrierEventKind {
        let mut tables = vec![table.to_string()];
        tables.extend(self.meta.downstream_tables(table));
        let mut jobs = Vec::new();
        for j in 0..self.jobs.len() {
            if tables.contains(&self.jobs[j].spec.sink) {
                let b = barrier.min(self.jobs[j].written);
                self.restore(j, b);
                let at = self.now_ms + self.jobs[j].spec.restart_ms;
                self.schedule(at, Action::Recover { job: j });
                jobs.push(self.jobs[j].spec.name.clone());
            }
        }
        self.check_transactions();
        BarrierEventKind::Revised {
            table: table.to_string(),
            barrier,
            tables,
            jobs,
        }
    }

    /// Fails a job now (recorded as a fault at the current step, so a replay repeats it): it
    /// loses what its sink table has not WRITTEN and restarts from its last checkpoint.
    pub fn fail_job(&mut self, job: &str) -> Result<(), TopologyError> {
        let fault = Fault::FailAtStep {
            job: job.to_string(),
            step: self.steps,
        };
        check_fault(&self.run.spec, &self.meta, &fault)?;
        self.run.faults.push(fault);
        self.fired.push(false);
        Ok(())
    }

    /// Rolls `table` and everything downstream back to `barrier` now and replays from there
    /// (recorded as a fault). Needs timestamp barriers and a WRITTEN `barrier`.
    pub fn revise(&mut self, table: &str, barrier: u64) -> Result<(), TopologyError> {
        let fault = Fault::ReviseAtStep {
            table: table.to_string(),
            barrier,
            step: self.steps,
        };
        check_fault(&self.run.spec, &self.meta, &fault)?;
        let t = &self.tables[self.table_index(table).expect("checked")];
        if barrier > t.written() {
            return Err(TopologyError::Invalid {
                field: "revise".into(),
                reason: format!(
                    "table `{table}` has not WRITTEN barrier {barrier} (latest: {})",
                    t.written()
                ),
            });
        }
        self.run.faults.push(fault);
        self.fired.push(false);
        Ok(())
    }

    /// Answers a query over the current tables.
    pub fn query(&self, q: &Query) -> QueryResult {
        evaluate(&self.tables, &self.meta, q)
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
        &self.trace
    }

    /// Transaction state of every issued barrier (own checkpoints are not global: empty
    /// without barriers).
    pub fn barriers(&self) -> Vec<BarrierView> {
        self.meta
            .barriers
            .iter()
            .map(|b| {
                let n = b.barrier;
                let tables: Vec<(String, TableTxnState)> = self
                    .tables
                    .iter()
                    .map(|t| {
                        let s = if t.written() >= n {
                            TableTxnState::Written
                        } else if t.processed() >= n {
                            TableTxnState::Processed
                        } else {
                            TableTxnState::Pending
                        };
                        (t.name.clone(), s)
                    })
                    .collect();
                let state = if tables.iter().all(|(_, s)| *s == TableTxnState::Written) {
                    TransactionState::Commit
                } else if tables.iter().all(|(_, s)| *s != TableTxnState::Pending) {
                    TransactionState::Precommit
                } else {
                    TransactionState::Open
                };
                BarrierView {
                    barrier: n,
                    state,
                    tables,
                }
            })
            .collect()
    }

    /// End-to-end delay series and the job to optimise.
    pub fn delays(&self) -> DelayReport {
        let tables = self
            .tables
            .iter()
            .zip(&self.table_delays)
            .map(|(t, s)| DelaySeries {
                name: t.name.clone(),
                samples: s.clone(),
            })
            .collect();
        let jobs: Vec<DelaySeries> = self
            .jobs
            .iter()
            .zip(&self.job_delays)
            .map(|(j, s)| DelaySeries {
                name: j.spec.name.clone(),
                samples: s.clone(),
            })
            .collect();
        let job_to_optimise = jobs
            .iter()
            .filter(|s| !s.samples.is_empty())
            .max_by_key(|s| s.mean_ms())
            .map(|s| s.name.clone());
        DelayReport {
            tables,
            jobs,
            job_to_optimise,
        }
    }
}

fn cdc_to_record(r: &CdcRecord) -> Record {
    Record {
        key: vec![r.offset as i64],
        values: r.row.to_vec(),
    }
}

fn check_fault(spec: &TopologySpec, meta: &MetaService, f: &Fault) -> Result<(), TopologyError> {
    let bad = |field: &str, reason: String| {
        Err(TopologyError::Invalid {
            field: field.into(),
            reason,
        })
    };
    match f {
        Fault::FailBeforeWritten { job, .. } | Fault::FailAtStep { job, .. } => {
            if meta.job(job).is_none() {
                return bad("fail", format!("unknown job `{job}`"));
            }
        }
        Fault::ReviseAfterWritten { table, .. } | Fault::ReviseAtStep { table, .. } => {
            if meta.writer_of(table).is_none() {
                return bad("revise", format!("unknown table `{table}`"));
            }
            if spec.no_barriers {
                return bad(
                    "revise",
                    "revision needs timestamp barriers: without them barrier N of one table \
                     means nothing in the tables downstream"
                        .into(),
                );
            }
        }
    }
    if let Fault::ReviseAfterWritten {
        barrier, written, ..
    } = f
    {
        if barrier > written || *written > spec.barriers {
            return bad(
                "revise",
                format!(
                    "barrier {barrier} must not be above {written} ≤ {}",
                    spec.barriers
                ),
            );
        }
    }
    Ok(())
}

impl crate::sim::Sim for TopologyWorld {
    type Event = BarrierEvent;

    fn next_event(&mut self) -> Option<BarrierEvent> {
        self.step()
    }

    fn events(&self) -> &[BarrierEvent] {
        self.trace()
    }

    fn settled(&self) -> bool {
        self.is_drained()
    }

    fn clock_ms(&self) -> u64 {
        self.now_ms()
    }
}
