//! The World: everything that exists in the simulation, the logical clock, the PRNG, and `step()`.
//!
//! The driver is `MicroBatchExecution` as a state machine (SEMANTICS §1.3): trigger →
//! getOffset → `offsets/N` → `source.commit(end_{N-1})` → getBatch → addBatch (tasks) →
//! sink commit → `commits/N`, and on (re)start the recovery rules of §1.5. Each call to
//! `step()` performs exactly one observable action and returns its `Event`.
//!
//! Simplifications (said here and in the lessons): one source and one sink per query; tasks
//! of a batch are modelled as "all read, then finish one by one" (parallel tasks); no task
//! retries (a failed sink write fails the query, which a supervisor restarts after
//! `restart_delay_ms`); the watermark stays 0 (no event-time operators); log purging keeps
//! Spark's default of 100 batches.

use crate::checkpoint::{
    self, CheckpointFolder, CommitMetadata, OffsetSeq, OffsetSeqMetadata, QueryMetadata,
    RestartAction,
};
use crate::event::{ChannelToken, Event, EventKind, Recovery};
use crate::meta_table::MetaTable;
use crate::rng::Prng;
use crate::scenario::{
    CrashKind, CrashPoint, Execution, ReaderEnd, Scenario, SinkKind, SourceKind,
};
use crate::sink::{Sink, TaskEffect};
use crate::source::{
    self, PartitionPlan, SourceCounters, SourceOffset, SourceState, TaskRead, CHANNEL_CACHE_MS,
};
use crate::tunnel::{Token, Tunnel};
use crate::upstream::Upstream;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};

/// Simulated time 0 as epoch milliseconds, so `batchTimestampMs` looks like Spark's (2025-11-24).
pub const EPOCH_BASE_MS: u64 = 1_764_000_000_000;
/// `spark.sql.streaming.minBatchesToRetain` default.
pub const MIN_BATCHES_TO_RETAIN: u64 = 100;

/// Time each protocol action takes, in simulated ms.
mod cost {
    pub const START: u64 = 40;
    pub const RECOVER: u64 = 10;
    pub const CALL: u64 = 10;
    pub const FILE_WRITE: u64 = 15;
    /// Tasks run in parallel on executors: each task's step adds only a little to the batch's time.
    pub const TASK: u64 = 12;
    /// Rows are cheap: one ms per ten rows.
    pub fn rows(n: u64) -> u64 {
        n.div_ceil(10)
    }
}

/// Where the driver is in its loop.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "kebab-case")]
pub enum Phase {
    /// Crashed or failed; restarts at `until_ms`.
    Down {
        /// Restart time.
        until_ms: u64,
    },
    /// About to start the query (read or create `metadata`).
    Start,
    /// About to list the logs and decide.
    Recover,
    /// About to call getBatch on the last committed batch without running it.
    RecoveryGetBatch {
        /// Batch L.
        batch_id: u64,
    },
    /// Waiting for the trigger of a batch.
    Wait {
        /// The next batch.
        batch_id: u64,
    },
    /// The trigger fires.
    Trigger {
        /// The batch.
        batch_id: u64,
    },
    /// Asking the source for the end offset.
    GetOffset {
        /// The batch.
        batch_id: u64,
    },
    /// Nothing new: skip this trigger.
    NoNewData {
        /// The batch not constructed.
        batch_id: u64,
    },
    /// Writing the WAL entry.
    WriteOffsets {
        /// The batch.
        batch_id: u64,
    },
    /// Committing the previous batch to the source.
    SourceCommit {
        /// The batch being constructed.
        batch_id: u64,
    },
    /// Planning the batch.
    GetBatch {
        /// The batch.
        batch_id: u64,
    },
    /// Handing the batch to the sink.
    AddBatch {
        /// The batch.
        batch_id: u64,
    },
    /// Task `task` reads.
    TaskRead {
        /// The batch.
        batch_id: u64,
        /// Task index.
        task: u32,
    },
    /// Task `task` hands its rows to the sink.
    TaskFinish {
        /// The batch.
        batch_id: u64,
        /// Task index.
        task: u32,
    },
    /// Task `task` writes its end checkpoint to the Meta table.
    TaskMeta {
        /// The batch.
        batch_id: u64,
        /// Task index.
        task: u32,
    },
    /// The sink commits the batch.
    SinkCommit {
        /// The batch.
        batch_id: u64,
    },
    /// Writing `commits/N`.
    CommitLog {
        /// The batch.
        batch_id: u64,
    },
    /// Continuous: waiting for the end of an epoch.
    EpochWait {
        /// The running epoch.
        epoch: u64,
    },
    /// Continuous: the driver advances the epoch.
    EpochAdvance {
        /// The epoch that ends.
        epoch: u64,
    },
    /// Continuous: reader task `task` reaches its epoch marker and reports its offset.
    EpochRead {
        /// The epoch.
        epoch: u64,
        /// Task index.
        task: u32,
    },
    /// Continuous: the coordinator writes `offsets/e` from the reported offsets.
    EpochOffsets {
        /// The epoch.
        epoch: u64,
    },
    /// Continuous: writer `task` commits its epoch (`DataWriter.commit`).
    EpochWriterCommit {
        /// The epoch.
        epoch: u64,
        /// Task index.
        task: u32,
    },
    /// Continuous: `StreamingWrite.commit(e)`, then `commits/e`, then `source.commit`.
    EpochSinkCommit {
        /// The epoch.
        epoch: u64,
    },
    /// Continuous: writing `commits/e`.
    EpochCommitLog {
        /// The epoch.
        epoch: u64,
    },
    /// Continuous: `source.commit(offset_e)`.
    EpochSourceCommit {
        /// The epoch.
        epoch: u64,
    },
    /// SeaTunnel: reader `task` takes its next step (round robin over open readers).
    Reader {
        /// The batch.
        batch_id: u64,
        /// Subtask index.
        task: u32,
    },
    /// A sink write failed; the query fails next.
    Failing {
        /// Why.
        reason: String,
    },
}

/// The batch being executed (volatile).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchRun {
    /// Batch id.
    pub batch_id: u64,
    /// Start offset (`None` for the first batch).
    pub start: Option<SourceOffset>,
    /// End offset.
    pub end: SourceOffset,
    /// `batchTimestampMs` (frozen in `offsets/N`, reused by a re-run).
    pub timestamp_ms: u64,
    /// Whether this is a re-run decided on restart.
    pub rerun: bool,
    /// Tasks.
    pub plan: Vec<PartitionPlan>,
    /// What each task read so far.
    pub reads: Vec<TaskRead>,
    /// Tasks that finished.
    pub tasks_done: u32,
    /// When the tasks started (they run in parallel: a task ends at this time plus its own duration).
    pub tasks_started_ms: u64,
    /// Each task's duration so far.
    pub task_durations_ms: Vec<u64>,
    /// SeaTunnel: each subtask's reader.
    #[serde(default)]
    pub readers: Vec<SeaTunnelReader>,
}

/// A SeaTunnel micro-batch reader (volatile): its position, rows not yet handed to the sink,
/// and when it last saw data.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeaTunnelReader {
    /// Next record to read.
    pub position: u64,
    /// Rows read but not yet committed by the sink (before the next checkpoint record).
    pub pending: Vec<crate::upstream::Record>,
    /// When it last read a row (or started).
    pub last_data_ms: u64,
    /// When the next in-band checkpoint record is due.
    pub next_checkpoint_ms: u64,
    /// Checkpoint id of the next `.prepared` file.
    pub checkpoint_id: u64,
    /// Whether `next()` returned false.
    pub closed: bool,
    /// What the reader does next.
    pub step: ReaderStep,
}

/// The next action of a SeaTunnel reader.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReaderStep {
    /// Poll the handover queue.
    #[default]
    Poll,
    /// Snapshot its position to `<id>.prepared` (checkpoint record or end of the batch).
    Prepare,
    /// The sink commits the rows before the record.
    SinkCommit,
    /// The sink renames `<id>.prepared` to `<id>.committed`.
    Rename,
    /// Finished.
    Done,
}

/// The driver's volatile state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Driver {
    /// Query id read from `metadata`.
    pub query_id: Option<String>,
    /// End offset of the last committed batch: the start of the next (`committedOffsets`).
    pub committed: Option<SourceOffset>,
    /// The batch in flight.
    pub batch: Option<BatchRun>,
    /// When the trigger last fired.
    pub last_trigger_ms: Option<u64>,
}

/// A fired crash and the event after which it fired.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FiredCrash {
    /// The crash point (`None` for a crash after an arbitrary event).
    pub point: Option<CrashPoint>,
    /// Sequence number of the `Crashed` event.
    pub seq: u64,
}

/// Everything that exists in the simulation.
#[derive(Clone, Debug)]
pub struct World {
    scenario: Scenario,
    rng: Prng,
    now_ms: u64,
    run: u32,
    phase: Phase,
    /// The CDC table (durable).
    pub upstream: Upstream,
    /// The Tunnel server (durable).
    pub tunnel: Tunnel,
    /// The Meta table (durable).
    pub meta_table: MetaTable,
    /// The Spark checkpoint folder (durable).
    pub checkpoint: CheckpointFolder,
    /// The sink (durable, except staged output of an attempt).
    pub sink: Sink,
    /// Source costs (kept across crashes).
    pub counters: SourceCounters,
    /// The source's volatile state.
    pub source: SourceState,
    /// The driver's volatile state.
    pub driver: Driver,
    pending_crashes: Vec<CrashPoint>,
    fired: Vec<FiredCrash>,
    crash_next: Option<(Option<CrashPoint>, u64)>,
    follow_ups: VecDeque<EventKind>,
    events: Vec<Event>,
    last_task_done: bool,
    sites: Vec<(u64, CrashPoint)>,
}

impl World {
    /// A world for a validated scenario; the seed is the scenario's.
    pub fn new(scenario: Scenario) -> World {
        let mut rng = Prng::new(scenario.seed);
        let upstream = Upstream::generate(&scenario, &mut rng);
        let tunnel = Tunnel::new(&upstream, scenario.source.page_size);
        let sink = Sink::new(&scenario.sink);
        let pending_crashes = scenario.crashes.clone();
        World {
            scenario,
            rng,
            now_ms: 0,
            run: 0,
            phase: Phase::Start,
            upstream,
            tunnel,
            meta_table: MetaTable::default(),
            checkpoint: CheckpointFolder::new(),
            sink,
            counters: SourceCounters::default(),
            source: SourceState::default(),
            driver: Driver::default(),
            pending_crashes,
            fired: vec![],
            crash_next: None,
            follow_ups: VecDeque::new(),
            events: vec![],
            last_task_done: false,
            sites: vec![],
        }
    }

    /// The scenario being run.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }
    /// Simulated time now.
    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }
    /// Driver phase.
    pub fn phase(&self) -> &Phase {
        &self.phase
    }
    /// Which run of the driver (1 = first start).
    pub fn run(&self) -> u32 {
        self.run
    }
    /// Every event so far.
    pub fn events(&self) -> &[Event] {
        &self.events
    }
    /// Every crash site reached so far: (sequence number of the event, the named point that a
    /// crash armed for it fires after). The one mapping from events to crash points.
    pub fn crash_sites(&self) -> &[(u64, CrashPoint)] {
        &self.sites
    }

    /// Crashes that fired.
    pub fn fired_crashes(&self) -> &[FiredCrash] {
        &self.fired
    }
    /// Crashes still armed (never reached so far).
    pub fn pending_crashes(&self) -> &[CrashPoint] {
        &self.pending_crashes
    }
    /// Number of batches committed (`commits/` entries ever written, from the latest id).
    pub fn batches_committed(&self) -> u64 {
        self.checkpoint.latest_commit_id().map_or(0, |c| c + 1)
    }

    /// Arms one more crash (a recorded input: replaying the scenario with it gives the same trace).
    pub fn arm_crash(&mut self, point: CrashPoint) {
        self.scenario.crashes.push(point);
        self.pending_crashes.push(point);
    }

    /// Crashes the driver right after the last event (the dashboard's Crash button). Recorded
    /// in the scenario as `crash_after_events`, so a replay gives the same trace.
    pub fn crash_now(&mut self) {
        if let Some(last) = self.events.last().map(|e| e.seq) {
            if !matches!(self.phase, Phase::Down { .. }) && self.crash_next.is_none() {
                self.scenario.crash_after_events.push(last);
                self.crash_next = Some((None, last));
            }
        }
    }

    /// Performs exactly one observable action and returns its event.
    pub fn step(&mut self) -> Event {
        self.tunnel.discover(&self.upstream, self.now_ms);
        let kind = if let Some(k) = self.follow_ups.pop_front() {
            k
        } else if let Some((point, after_seq)) = self.crash_next.take() {
            self.crash(point, after_seq)
        } else {
            self.advance()
        };
        let event = Event {
            seq: self.events.len() as u64,
            at_ms: self.now_ms,
            run: self.run,
            kind,
        };
        if let EventKind::Crashed { point, .. } = &event.kind {
            self.fired.push(FiredCrash {
                point: *point,
                seq: event.seq,
            });
        }
        self.arm_if_crash_site(&event.kind);
        self.events.push(event.clone());
        event
    }

    /// Whether the run has settled: data has ended, faults healed, every arrived record is
    /// covered by the last committed batch, and the driver is waiting for its next trigger.
    pub fn is_converged(&self) -> bool {
        let idle = matches!(
            self.phase,
            Phase::Wait { .. }
                | Phase::Trigger { .. }
                | Phase::NoNewData { .. }
                | Phase::EpochWait { .. }
                | Phase::EpochAdvance { .. }
        );
        let data_over = self.now_ms >= self.scenario.data_end_ms();
        let healed = self
            .sink
            .spec
            .outages
            .iter()
            .all(|w| w.to_ms <= self.now_ms)
            && self.crash_next.is_none();
        let logs_even = self.checkpoint.latest_offset_id() == self.checkpoint.latest_commit_id();
        idle && data_over
            && healed
            && logs_even
            && self.follow_ups.is_empty()
            && self.source_caught_up()
    }

    fn source_caught_up(&self) -> bool {
        let covered = |index: u32, token: Option<Token>| {
            let ch = self.upstream.channel(index);
            let server = self.tunnel.get(index);
            if server.is_some_and(|s| s.checkpoint == Token::Finished) {
                return true;
            }
            match token {
                Some(Token::Finished) => true,
                Some(Token::At(p)) => p >= ch.len(),
                None => ch.is_empty(),
            }
        };
        let all = |f: &dyn Fn(u32) -> Option<Token>| {
            self.upstream
                .channels
                .iter()
                .all(|c| covered(c.index, f(c.index)))
        };
        match (&self.driver.committed, self.scenario.source.kind) {
            (_, SourceKind::SeaTunnel) => {
                let n = self.upstream.channels.len() as u32;
                let batch = self.checkpoint.latest_commit_id().map_or(0, |c| c + 1);
                all(&|i| {
                    if i < n {
                        Some(Token::At(self.seatunnel_restore(batch, i)))
                    } else {
                        None
                    }
                })
            }
            (_, SourceKind::AutoCommit) => all(&|i| self.tunnel.get(i).map(|c| c.checkpoint)),
            (None, _) => self.upstream.total() == 0,
            (Some(SourceOffset::Log(map)), _) => all(&|i| map.get(&i).map(|&o| Token::At(o))),
            (Some(SourceOffset::Positions(map)), _) => all(&|i| map.get(&i).copied()),
            (Some(SourceOffset::Checkpoint(_)), _) => false,
            (Some(SourceOffset::Uuid(u)), _) => {
                let rows = source::meta_positions(&self.meta_table, &self.upstream, u);
                all(&|i| rows.get(&i).copied())
            }
        }
    }

    fn arm_if_crash_site(&mut self, kind: &EventKind) {
        let tasks_done = self.driver.batch.as_ref().map_or(0, |b| b.tasks_done);
        let site = match kind {
            EventKind::GetOffset { batch_id, .. } => Some((CrashKind::GetOffset, *batch_id)),
            EventKind::OffsetLogWritten { batch_id, .. } => Some((CrashKind::OffsetLog, *batch_id)),
            EventKind::SourceCommit { batch_id, .. } => {
                Some((CrashKind::SourceCommit, batch_id + 1))
            }
            EventKind::GetBatch { batch_id, .. } => Some((CrashKind::GetBatch, *batch_id)),
            EventKind::TaskFinished { batch_id, .. }
            | EventKind::MetaRowWritten { batch_id, .. }
            | EventKind::StateFile { batch_id, .. }
                if tasks_done == 1 && self.task_just_done() =>
            {
                Some((CrashKind::Task, *batch_id))
            }
            EventKind::SinkCommitted { batch_id, .. } => Some((CrashKind::SinkCommit, *batch_id)),
            EventKind::AddBatch {
                batch_id,
                skipped: true,
            } => Some((CrashKind::SinkCommit, *batch_id)),
            EventKind::CommitLogWritten { batch_id, .. } => Some((CrashKind::CommitLog, *batch_id)),
            _ => None,
        };
        let seq = self.events.len() as u64;
        if let Some((kind, batch_id)) = site {
            let point = CrashPoint { kind, batch_id };
            self.sites.push((seq, point));
            if let Some(i) = self.pending_crashes.iter().position(|p| *p == point) {
                self.pending_crashes.remove(i);
                self.crash_next = Some((Some(point), seq));
                return;
            }
        }
        if self.crash_next.is_none()
            && self.scenario.crash_after_events.contains(&seq)
            && !matches!(self.phase, Phase::Down { .. })
        {
            self.crash_next = Some((None, seq));
        }
    }

    /// Whether the last event completed a task (so `task@N` fires after the first complete task).
    fn task_just_done(&self) -> bool {
        self.last_task_done
    }

    fn crash(&mut self, point: Option<CrashPoint>, after_seq: u64) -> EventKind {
        let mut lost = vec![];
        if let Some(b) = &self.driver.batch {
            lost.push(format!(
                "batch {} in flight ({} of {} tasks finished)",
                b.batch_id,
                b.tasks_done,
                b.plan.len()
            ));
        }
        let staged = self.sink.abort_attempt();
        if staged > 0 {
            lost.push(format!("{staged} staged sink rows"));
        }
        if self.source.channel_cache.is_some() {
            lost.push("the source's cached channel list".into());
        }
        if !self.source.cache.is_empty() {
            let rows: usize = self.source.cache.values().map(|(_, r)| r.len()).sum();
            lost.push(format!("{rows} rows cached by pull-ahead"));
            self.counters.rows_cached = 0;
        }
        if self.driver.committed.is_some() {
            lost.push("in-memory committed offsets".into());
        }
        self.drop_volatile();
        self.phase = Phase::Down {
            until_ms: self.now_ms + self.scenario.restart_delay_ms,
        };
        EventKind::Crashed {
            point,
            after_seq,
            lost,
        }
    }

    fn drop_volatile(&mut self) {
        self.source = SourceState::default();
        self.driver = Driver::default();
        self.last_task_done = false;
    }

    fn advance(&mut self) -> EventKind {
        loop {
            if let Some(kind) = self.advance_once() {
                return kind;
            }
        }
    }

    /// One phase transition; `None` when the transition was silent (no arrow), e.g. reading `sources/0/0`.
    fn advance_once(&mut self) -> Option<EventKind> {
        self.last_task_done = false;
        let phase = self.phase.clone();
        match phase {
            Phase::Down { until_ms } => {
                self.now_ms = self.now_ms.max(until_ms);
                self.phase = Phase::Start;
                None
            }
            Phase::Start => Some(self.start_query()),
            Phase::Recover => Some(self.recover()),
            Phase::RecoveryGetBatch { batch_id } => {
                self.now_ms += cost::CALL;
                self.phase = Phase::Wait {
                    batch_id: batch_id + 1,
                };
                Some(EventKind::RecoveryGetBatch { batch_id })
            }
            Phase::Wait { batch_id } => self.wait_for_trigger(Phase::Trigger { batch_id }),
            Phase::Trigger { batch_id } => {
                self.driver.last_trigger_ms = Some(self.now_ms);
                self.phase = Phase::GetOffset { batch_id };
                Some(EventKind::TriggerFired { batch_id })
            }
            Phase::GetOffset { batch_id } => {
                if !self.source.initialized {
                    return self.init_source();
                }
                Some(self.get_offset(batch_id))
            }
            Phase::NoNewData { batch_id } => {
                self.phase = Phase::Wait { batch_id };
                Some(EventKind::NoNewData { batch_id })
            }
            Phase::WriteOffsets { batch_id } => Some(self.write_offsets(batch_id)),
            Phase::SourceCommit { batch_id } => Some(self.source_commit(batch_id)),
            Phase::GetBatch { batch_id } => {
                if !self.source.initialized {
                    return self.init_source();
                }
                Some(self.get_batch(batch_id))
            }
            Phase::AddBatch { batch_id } => Some(self.add_batch(batch_id)),
            Phase::TaskRead { batch_id, task } => Some(self.task_read(batch_id, task)),
            Phase::TaskFinish { batch_id, task } => Some(self.task_finish(batch_id, task)),
            Phase::TaskMeta { batch_id, task } => Some(self.task_meta(batch_id, task)),
            Phase::SinkCommit { batch_id } => Some(self.sink_commit(batch_id)),
            Phase::CommitLog { batch_id } => Some(self.commit_log(batch_id)),
            Phase::Reader { batch_id, task } => Some(self.reader_step(batch_id, task)),
            Phase::EpochWait { epoch } => self.wait_for_trigger(Phase::EpochAdvance { epoch }),
            Phase::EpochAdvance { epoch } => Some(self.epoch_advance(epoch)),
            Phase::EpochRead { epoch, task } => Some(self.epoch_read(epoch, task)),
            Phase::EpochOffsets { epoch } => Some(self.epoch_offsets(epoch)),
            Phase::EpochWriterCommit { epoch, task } => Some(self.epoch_writer_commit(epoch, task)),
            Phase::EpochSinkCommit { epoch } => {
                self.now_ms += cost::CALL;
                self.phase = Phase::EpochCommitLog { epoch };
                let (rows, target, skipped) = self.sink.commit(epoch);
                Some(EventKind::SinkCommitted {
                    batch_id: epoch,
                    rows,
                    target: format!("StreamingWrite.commit({epoch}): {target}"),
                    skipped,
                })
            }
            Phase::EpochCommitLog { epoch } => {
                let event = self.commit_log(epoch);
                if matches!(event, EventKind::CommitLogWritten { .. }) {
                    self.phase = Phase::EpochSourceCommit { epoch };
                }
                Some(event)
            }
            Phase::EpochSourceCommit { epoch } => {
                self.now_ms += cost::CALL;
                self.phase = Phase::EpochWait { epoch: epoch + 1 };
                let end = self
                    .driver
                    .committed
                    .as_ref()
                    .map(|o| o.to_line(&self.upstream))
                    .unwrap_or_default();
                // Kafka never receives commits from Spark (SEMANTICS §6): the call is a no-op.
                Some(EventKind::SourceCommit {
                    batch_id: epoch,
                    end,
                    checkpoints: vec![],
                    deleted_rows: vec![],
                })
            }
            Phase::Failing { reason } => {
                self.sink.abort_attempt();
                self.drop_volatile();
                self.phase = Phase::Down {
                    until_ms: self.now_ms + self.scenario.restart_delay_ms,
                };
                Some(EventKind::QueryFailed { reason })
            }
        }
    }

    /// Waits for the next processing-time trigger (or epoch end) and then moves to `then`;
    /// emits an `Idle` arrow only when there is time to wait.
    fn wait_for_trigger(&mut self, then: Phase) -> Option<EventKind> {
        let next = self
            .driver
            .last_trigger_ms
            .map_or(self.now_ms, |t| t + self.scenario.trigger_interval_ms);
        self.phase = then;
        if next > self.now_ms {
            self.now_ms = next;
            Some(EventKind::Idle { until_ms: next })
        } else {
            None
        }
    }

    fn start_query(&mut self) -> EventKind {
        self.run += 1;
        self.now_ms += cost::START;
        self.phase = Phase::Recover;
        match self.checkpoint.query_metadata() {
            Ok(Some(meta)) => {
                self.driver.query_id = Some(meta.id.clone());
                EventKind::QueryStarted {
                    query_id: meta.id,
                    created: false,
                }
            }
            _ => {
                let id = self.rng.uuid().to_string();
                let _ = self
                    .checkpoint
                    .write_metadata(&QueryMetadata { id: id.clone() });
                self.driver.query_id = Some(id.clone());
                EventKind::QueryStarted {
                    query_id: id,
                    created: true,
                }
            }
        }
    }

    fn offset_line(&self, batch_id: u64) -> Option<(SourceOffset, u64)> {
        let seq = self.checkpoint.offsets(batch_id).ok()??;
        let line = seq.offsets.first()?.clone()?;
        let ts = seq.metadata.map_or(0, |m| {
            (m.batch_timestamp_ms as u64).saturating_sub(EPOCH_BASE_MS)
        });
        SourceOffset::parse(self.scenario.source.kind, &line, &self.upstream)
            .ok()
            .map(|o| (o, ts))
    }

    fn recover(&mut self) -> EventKind {
        self.now_ms += cost::RECOVER;
        if self.scenario.execution == Execution::Continuous {
            return self.recover_continuous();
        }
        let latest_offset = self.checkpoint.latest_offset_id();
        let latest_commit = self.checkpoint.latest_commit_id();
        let plan = checkpoint::restart_plan(&self.checkpoint);
        let action = plan
            .map(|p| p.action)
            .unwrap_or_else(|e| RestartAction::Fail {
                reason: e.to_string(),
            });
        let recovery = match action {
            RestartAction::Fresh => {
                self.phase = Phase::Trigger { batch_id: 0 };
                Recovery::Fresh
            }
            RestartAction::Next { batch_id } => {
                self.driver.committed = self.offset_line(batch_id - 1).map(|(o, _)| o);
                self.phase = Phase::RecoveryGetBatch {
                    batch_id: batch_id - 1,
                };
                Recovery::Next { batch_id }
            }
            RestartAction::Rerun { batch_id } => {
                let start = batch_id
                    .checked_sub(1)
                    .and_then(|p| self.offset_line(p))
                    .map(|(o, _)| o);
                let (end, timestamp_ms) = self
                    .offset_line(batch_id)
                    .expect("offsets/L written by this engine parses");
                self.driver.committed = start.clone();
                self.driver.batch = Some(BatchRun {
                    batch_id,
                    start,
                    end,
                    timestamp_ms,
                    rerun: true,
                    plan: vec![],
                    reads: vec![],
                    tasks_done: 0,
                    tasks_started_ms: 0,
                    task_durations_ms: vec![],
                    readers: vec![],
                });
                self.phase = Phase::GetBatch { batch_id };
                Recovery::Rerun { batch_id }
            }
            RestartAction::Fail { reason } => {
                self.phase = Phase::Failing { reason };
                Recovery::Fresh
            }
        };
        EventKind::Recovered {
            latest_offset,
            latest_commit,
            recovery,
        }
    }

    /// Continuous `getStartOffsets` (SEMANTICS §2): only the commit log counts. With a latest
    /// committed epoch E the start offsets are `offsets/E` and the next epoch is E+1; offsets
    /// reported for later epochs are ignored ("risk duplicates").
    fn recover_continuous(&mut self) -> EventKind {
        let latest_offset = self.checkpoint.latest_offset_id();
        let latest_commit = self.checkpoint.latest_commit_id();
        let recovery = match latest_commit {
            Some(e) => {
                self.driver.committed = self.offset_line(e).map(|(o, _)| o);
                self.phase = Phase::EpochWait { epoch: e + 1 };
                Recovery::Next { batch_id: e + 1 }
            }
            None => {
                self.phase = Phase::EpochWait { epoch: 0 };
                Recovery::Fresh
            }
        };
        EventKind::Recovered {
            latest_offset,
            latest_commit,
            recovery,
        }
    }

    fn epoch_advance(&mut self, epoch: u64) -> EventKind {
        self.driver.last_trigger_ms = Some(self.now_ms);
        self.now_ms += cost::CALL;
        let start = self.driver.committed.clone();
        let from = |p: u32| match &start {
            Some(SourceOffset::Log(m)) => m.get(&p).copied().unwrap_or(0),
            _ => 0,
        };
        let plan: Vec<PartitionPlan> = self
            .upstream
            .channels
            .iter()
            .map(|c| PartitionPlan {
                channel: c.index,
                start: Token::At(from(c.index)),
                end: None,
            })
            .collect();
        self.driver.batch = Some(BatchRun {
            batch_id: epoch,
            end: start.clone().unwrap_or(SourceOffset::Log(BTreeMap::new())),
            start,
            timestamp_ms: self.now_ms,
            rerun: false,
            plan,
            reads: vec![],
            tasks_done: 0,
            tasks_started_ms: self.now_ms,
            task_durations_ms: vec![],
            readers: vec![],
        });
        self.phase = Phase::EpochRead { epoch, task: 0 };
        EventKind::EpochAdvanced { epoch }
    }

    fn epoch_read(&mut self, epoch: u64, task: u32) -> EventKind {
        self.now_ms += 1;
        let plan = self.driver.batch.as_ref().expect("epoch").plan[task as usize].clone();
        let ch = self.upstream.channel(plan.channel);
        let end = Token::At(ch.arrived(self.now_ms).max(match plan.start {
            Token::At(p) => p,
            Token::Finished => 0,
        }));
        let rows = source::read_range(&self.upstream, plan.channel, plan.start, end);
        self.counters.rows_read_by_tasks += rows.len() as u64;
        let event = EventKind::TaskRead {
            batch_id: epoch,
            partition: task,
            channel: ch.id.clone(),
            from: plan.start.to_string(),
            to: end.to_string(),
            rows: rows.len() as u64,
            committed: false,
            from_cache: false,
        };
        let b = self.driver.batch.as_mut().expect("epoch");
        b.reads.push(TaskRead {
            rows,
            end,
            committed: false,
            from_cache: false,
        });
        b.task_durations_ms.push(cost::TASK);
        let n = b.plan.len() as u32;
        self.phase = if task + 1 < n {
            Phase::EpochRead {
                epoch,
                task: task + 1,
            }
        } else {
            Phase::EpochOffsets { epoch }
        };
        event
    }

    /// The coordinator merges the partition offsets into `offsets/e`. Continuous mode writes
    /// only the source offset (`OffsetSeq.fill`): the metadata line is empty. `add` returns
    /// false when the entry exists (a replayed epoch) and the result is ignored.
    fn epoch_offsets(&mut self, epoch: u64) -> EventKind {
        self.now_ms += cost::FILE_WRITE;
        let b = self.driver.batch.as_mut().expect("epoch");
        let end = SourceOffset::Log(
            b.plan
                .iter()
                .zip(&b.reads)
                .map(|(p, r)| {
                    (
                        p.channel,
                        match r.end {
                            Token::At(o) => o,
                            Token::Finished => 0,
                        },
                    )
                })
                .collect(),
        );
        b.end = end.clone();
        self.phase = Phase::EpochWriterCommit { epoch, task: 0 };
        let seq = OffsetSeq {
            version: 1,
            metadata: None,
            offsets: vec![Some(end.to_line(&self.upstream))],
        };
        if self.checkpoint.write_offsets(epoch, &seq).is_err() {
            return EventKind::CheckpointWriteRejected {
                path: format!("offsets/{epoch}"),
            };
        }
        EventKind::OffsetLogWritten {
            batch_id: epoch,
            contents: String::from_utf8_lossy(&seq.to_bytes()).into(),
        }
    }

    fn epoch_writer_commit(&mut self, epoch: u64, task: u32) -> EventKind {
        self.now_ms += cost::TASK;
        if self.sink.is_down(self.now_ms) {
            // No task retries in continuous mode: any task failure stops the query (SEMANTICS §2).
            return self.fail_sink(epoch, &format!("writer {task} of epoch {epoch}"));
        }
        let rows = self.driver.batch.as_ref().expect("epoch").reads[task as usize]
            .rows
            .clone();
        let n = rows.len() as u64;
        let effect = match self.sink.task_output(epoch, task, rows, String::new()) {
            TaskEffect::Written => {
                if self.sink.kind() == SinkKind::Upsert {
                    "upserted"
                } else {
                    "appended"
                }
            }
            TaskEffect::Staged => "staged",
        };
        self.advance_task(
            task,
            |task| Phase::EpochWriterCommit { epoch, task },
            Phase::EpochSinkCommit { epoch },
        );
        EventKind::TaskFinished {
            batch_id: epoch,
            partition: task,
            rows: n,
            effect: effect.into(),
        }
    }

    /// Lazily initialises the source on first use in a run; emits an event only when it writes `sources/0/0`.
    fn init_source(&mut self) -> Option<EventKind> {
        self.source.initialized = true;
        let path = "sources/0/0";
        let kind = self.scenario.source.kind;
        if let Some(bytes) = self.checkpoint.read(path) {
            let text = String::from_utf8_lossy(bytes.get(1..).unwrap_or_default()).to_string();
            if matches!(kind, SourceKind::Tablestore | SourceKind::AutoCommit) {
                self.source.initial_uuid = text.split_once('\n').map(|(_, u)| u.to_string());
            }
            return None;
        }
        self.now_ms += cost::FILE_WRITE;
        if kind == SourceKind::SeaTunnel {
            // SeaTunnel keeps no initial offset file; its readers' state lives in
            // sources/0/<batch>/<subtask>/<checkpointId>.{prepared,committed}.
            return None;
        }
        let (version, body, meta_rows) = match kind {
            SourceKind::SeaTunnel => unreachable!("handled above"),
            SourceKind::ReplayableLog => {
                let start = SourceOffset::Log(
                    self.upstream
                        .channels
                        .iter()
                        .map(|c| (c.index, 0))
                        .collect(),
                );
                (1, start.to_line(&self.upstream), vec![])
            }
            SourceKind::PullAhead => {
                let start =
                    SourceOffset::Positions(self.tunnel.open_channels().into_iter().collect());
                (1, start.to_line(&self.upstream), vec![])
            }
            SourceKind::Tablestore | SourceKind::AutoCommit => {
                let uuid = self.rng.uuid().to_string();
                let seq = self.events.len() as u64;
                let mut rows = vec![];
                for (index, token) in self.tunnel.open_channels() {
                    let id = self.upstream.channel(index).id.clone();
                    self.meta_table.put(&uuid, &id, token, seq);
                    rows.push(ChannelToken {
                        channel: id,
                        token: token.to_string(),
                    });
                }
                self.source.initial_uuid = Some(uuid.clone());
                (2, uuid, rows)
            }
        };
        let _ = self
            .checkpoint
            .create_atomic(path, checkpoint::initial_offset_bytes(version, &body));
        Some(EventKind::SourceInitialized {
            path: path.into(),
            contents: format!("v{version}\n{body}"),
            meta_rows,
        })
    }

    fn get_offset(&mut self, batch_id: u64) -> EventKind {
        self.now_ms += cost::CALL;
        let start = self.driver.committed.clone();
        let mut rows_read = 0;
        let end = match self.scenario.source.kind {
            // PR #7476: latestOffset = (largest committed batch id) + 1, so every trigger has "new data".
            SourceKind::SeaTunnel => SourceOffset::Checkpoint(batch_id),
            SourceKind::ReplayableLog => {
                let budget = self.scenario.source.max_offsets_per_trigger;
                let per_partition = if budget == 0 {
                    u64::MAX
                } else {
                    budget.div_ceil(self.upstream.channels.len() as u64)
                };
                let from = |p: u32| match &start {
                    Some(SourceOffset::Log(m)) => m.get(&p).copied().unwrap_or(0),
                    _ => 0,
                };
                SourceOffset::Log(
                    self.upstream
                        .channels
                        .iter()
                        .map(|c| {
                            (
                                c.index,
                                c.arrived(self.now_ms)
                                    .min(from(c.index).saturating_add(per_partition)),
                            )
                        })
                        .collect(),
                )
            }
            SourceKind::Tablestore | SourceKind::AutoCommit => {
                SourceOffset::Uuid(self.rng.uuid().to_string())
            }
            SourceKind::PullAhead => {
                let from = match &start {
                    Some(SourceOffset::Positions(m)) => m.clone(),
                    _ => BTreeMap::new(),
                };
                let mut channels: BTreeMap<u32, Token> =
                    self.tunnel.open_channels().into_iter().collect();
                channels.extend(from);
                let cap = u64::from(self.scenario.source.max_offsets_per_channel);
                let mut end = BTreeMap::new();
                for (ch, tok) in channels {
                    let read = source::read_channel(
                        &self.upstream,
                        &mut self.tunnel,
                        &mut self.counters,
                        ch,
                        tok,
                        cap,
                        self.now_ms,
                        false,
                    );
                    self.counters.rows_read_by_tasks -= read.rows.len() as u64;
                    rows_read += read.rows.len() as u64;
                    self.counters.rows_cached += read.rows.len() as u64;
                    end.insert(ch, read.end);
                    self.source.cache.insert((ch, tok), (read.end, read.rows));
                }
                self.counters.rows_read_ahead += rows_read;
                self.counters.rows_cached_peak = self
                    .counters
                    .rows_cached_peak
                    .max(self.counters.rows_cached);
                self.now_ms += cost::rows(rows_read);
                SourceOffset::Positions(end)
            }
        };
        let has_new = match (&start, &end) {
            (Some(s), e) => s != e,
            (None, SourceOffset::Log(m)) => m.values().any(|&o| o > 0),
            (None, SourceOffset::Positions(m)) => m.values().any(|&t| t != Token::At(0)),
            (None, SourceOffset::Uuid(_)) | (None, SourceOffset::Checkpoint(_)) => true,
        };
        let line = end.to_line(&self.upstream);
        if has_new {
            self.driver.batch = Some(BatchRun {
                batch_id,
                start,
                end,
                timestamp_ms: self.now_ms,
                rerun: false,
                plan: vec![],
                reads: vec![],
                tasks_done: 0,
                tasks_started_ms: 0,
                task_durations_ms: vec![],
                readers: vec![],
            });
            self.phase = Phase::WriteOffsets { batch_id };
        } else {
            self.phase = Phase::NoNewData { batch_id };
        }
        EventKind::GetOffset {
            batch_id,
            end: line,
            rows_read,
        }
    }

    fn relevant_conf() -> BTreeMap<String, String> {
        [
            ("spark.sql.shuffle.partitions", "200"),
            ("spark.sql.streaming.aggregation.stateFormatVersion", "2"),
            (
                "spark.sql.streaming.flatMapGroupsWithState.stateFormatVersion",
                "2",
            ),
            ("spark.sql.streaming.join.stateFormatVersion", "2"),
            ("spark.sql.streaming.multipleWatermarkPolicy", "min"),
            ("spark.sql.streaming.stateStore.compression.codec", "lz4"),
            (
                "spark.sql.streaming.stateStore.providerClass",
                "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider",
            ),
            ("spark.sql.streaming.stateStore.rocksdb.formatVersion", "5"),
            (
                "spark.sql.streaming.statefulOperator.useStrictDistribution",
                "true",
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
    }

    fn write_offsets(&mut self, batch_id: u64) -> EventKind {
        self.now_ms += cost::FILE_WRITE;
        let batch = self.driver.batch.as_ref().expect("batch constructed");
        let seq = OffsetSeq {
            version: 1,
            metadata: Some(OffsetSeqMetadata {
                batch_watermark_ms: 0,
                batch_timestamp_ms: (EPOCH_BASE_MS + batch.timestamp_ms) as i64,
                conf: Some(Self::relevant_conf()),
            }),
            offsets: vec![Some(batch.end.to_line(&self.upstream))],
        };
        if self.checkpoint.write_offsets(batch_id, &seq).is_err() {
            self.phase = Phase::Failing {
                reason: format!("Concurrent update to the log: offsets/{batch_id} exists"),
            };
            return EventKind::CheckpointWriteRejected {
                path: format!("offsets/{batch_id}"),
            };
        }
        if let Some(threshold) = batch_id.checked_sub(MIN_BATCHES_TO_RETAIN) {
            self.checkpoint.purge(threshold);
        }
        self.phase = if batch_id > 0 {
            Phase::SourceCommit { batch_id }
        } else {
            Phase::GetBatch { batch_id }
        };
        EventKind::OffsetLogWritten {
            batch_id,
            contents: String::from_utf8_lossy(&seq.to_bytes()).into(),
        }
    }

    fn source_commit(&mut self, batch_id: u64) -> EventKind {
        self.now_ms += cost::CALL;
        self.phase = Phase::GetBatch { batch_id };
        let (prev_end, _) = self
            .offset_line(batch_id - 1)
            .expect("offsets/N-1 exists when N is constructed");
        let end = prev_end.to_line(&self.upstream);
        let mut checkpoints = vec![];
        let mut deleted_rows = vec![];
        let mut push = |world: &mut World, index: u32, token: Token| {
            let changes = world.tunnel.checkpoint(index, token);
            checkpoints.push(ChannelToken {
                channel: world.upstream.channel(index).id.clone(),
                token: token.to_string(),
            });
            for (channel, status) in changes {
                world.follow_ups.push_back(EventKind::ChannelState {
                    channel,
                    state: status.name().into(),
                });
            }
        };
        match (&prev_end, self.scenario.source.kind) {
            (SourceOffset::Uuid(uuid), SourceKind::Tablestore) => {
                for (index, token) in source::meta_positions(&self.meta_table, &self.upstream, uuid)
                {
                    push(self, index, token);
                    if token == Token::Finished {
                        let id = self.upstream.channel(index).id.clone();
                        self.meta_table.delete(uuid, &id);
                        deleted_rows.push(id);
                    }
                }
            }
            (SourceOffset::Positions(map), SourceKind::PullAhead) => {
                for (&index, &token) in map {
                    push(self, index, token);
                }
                let before = self.source.cache.len();
                self.source
                    .cache
                    .retain(|(ch, start), _| map.get(ch).is_none_or(|t| start >= t));
                if before != self.source.cache.len() {
                    self.counters.rows_cached = self
                        .source
                        .cache
                        .values()
                        .map(|(_, r)| r.len() as u64)
                        .sum();
                }
            }
            // Kafka never receives commits from Spark (SEMANTICS §6); auto-commit already committed on read.
            _ => {}
        }
        EventKind::SourceCommit {
            batch_id: batch_id - 1,
            end,
            checkpoints,
            deleted_rows,
        }
    }

    fn channel_list(&mut self) -> Vec<(u32, Token)> {
        let fresh = self
            .source
            .channel_cache
            .as_ref()
            .is_some_and(|(t, _)| self.now_ms < t + CHANNEL_CACHE_MS);
        if !fresh {
            self.source.channel_cache = Some((self.now_ms, self.tunnel.open_channels()));
        }
        self.source
            .channel_cache
            .as_ref()
            .map(|(_, l)| l.clone())
            .unwrap_or_default()
    }

    fn get_batch(&mut self, batch_id: u64) -> EventKind {
        self.now_ms += cost::CALL;
        let kind = self.scenario.source.kind;
        let (start, end) = {
            let b = self.driver.batch.as_ref().expect("batch");
            (b.start.clone(), b.end.clone())
        };
        let plan: Vec<PartitionPlan> = match (kind, &end) {
            (SourceKind::ReplayableLog, SourceOffset::Log(to)) => to
                .iter()
                .map(|(&p, &o)| {
                    let from = match &start {
                        Some(SourceOffset::Log(m)) => m.get(&p).copied().unwrap_or(0),
                        _ => 0,
                    };
                    PartitionPlan {
                        channel: p,
                        start: Token::At(from),
                        end: Some(Token::At(o)),
                    }
                })
                .filter(|p| p.start != p.end.unwrap())
                .collect(),
            (SourceKind::PullAhead, SourceOffset::Positions(to)) => to
                .iter()
                .map(|(&c, &t)| {
                    let from = match &start {
                        Some(SourceOffset::Positions(m)) => {
                            m.get(&c).copied().unwrap_or(Token::At(0))
                        }
                        _ => Token::At(0),
                    };
                    PartitionPlan {
                        channel: c,
                        start: from,
                        end: Some(t),
                    }
                })
                .filter(|p| Some(p.start) != p.end)
                .collect(),
            (SourceKind::Tablestore, _) => {
                // Service channels (OPEN, not finished) overridden by the start UUID's Meta rows (SEMANTICS §3.3).
                let start_uuid = match &start {
                    Some(SourceOffset::Uuid(u)) => u.clone(),
                    _ => self.source.initial_uuid.clone().unwrap_or_default(),
                };
                let mut channels: BTreeMap<u32, Token> = self.channel_list().into_iter().collect();
                channels.extend(source::meta_positions(
                    &self.meta_table,
                    &self.upstream,
                    &start_uuid,
                ));
                channels
                    .into_iter()
                    .map(|(c, t)| PartitionPlan {
                        channel: c,
                        start: t,
                        end: None,
                    })
                    .collect()
            }
            // One reader per subtask (channel); each restores its position from the newest
            // `.committed` state file (SEMANTICS §4.2), not from the offset.
            (SourceKind::SeaTunnel, _) => (0..self.upstream.channels.len() as u32)
                .map(|c| PartitionPlan {
                    channel: c,
                    start: Token::At(self.seatunnel_restore(batch_id, c)),
                    end: None,
                })
                .collect(),
            (SourceKind::AutoCommit, _) => self
                .tunnel
                .open_channels()
                .into_iter()
                .map(|(c, t)| PartitionPlan {
                    channel: c,
                    start: t,
                    end: None,
                })
                .collect(),
            _ => vec![],
        };
        let partitions = plan
            .iter()
            .map(|p| ChannelToken {
                channel: self.upstream.channel(p.channel).id.clone(),
                token: p.start.to_string(),
            })
            .collect();
        let b = self.driver.batch.as_mut().expect("batch");
        b.plan = plan;
        b.reads.clear();
        b.task_durations_ms.clear();
        b.tasks_done = 0;
        self.phase = Phase::AddBatch { batch_id };
        EventKind::GetBatch {
            batch_id,
            start: start.map(|s| s.to_line(&self.upstream)),
            end: end.to_line(&self.upstream),
            partitions,
        }
    }

    fn add_batch(&mut self, batch_id: u64) -> EventKind {
        self.now_ms += cost::CALL;
        let skipped = self.sink.skips_batch(batch_id);
        if self.sink.kind() == SinkKind::ForeachBatch {
            // The user function picks a store at random on every call (seed 004: `storagePaths(r.nextInt(3))`).
            self.sink.current_store = self.rng.below(u64::from(self.sink.spec.stores)) as u32;
        }
        let tasks = self.driver.batch.as_ref().map_or(0, |b| b.plan.len());
        self.phase = if skipped {
            Phase::CommitLog { batch_id }
        } else if tasks == 0 {
            Phase::SinkCommit { batch_id }
        } else {
            self.start_tasks(batch_id)
        };
        EventKind::AddBatch { batch_id, skipped }
    }

    /// The first task phase of a batch: SeaTunnel readers, or the read-then-finish tasks.
    fn start_tasks(&mut self, batch_id: u64) -> Phase {
        if self.scenario.source.kind != SourceKind::SeaTunnel {
            return Phase::TaskRead { batch_id, task: 0 };
        }
        let now = self.now_ms;
        let interval = self.scenario.source.checkpoint_interval_ms;
        let b = self.driver.batch.as_mut().expect("batch");
        b.tasks_started_ms = now;
        b.readers = b
            .plan
            .iter()
            .map(|p| SeaTunnelReader {
                position: match p.start {
                    Token::At(x) => x,
                    Token::Finished => 0,
                },
                last_data_ms: now,
                next_checkpoint_ms: now + interval,
                checkpoint_id: 1,
                ..SeaTunnelReader::default()
            })
            .collect();
        Phase::Reader { batch_id, task: 0 }
    }

    /// Where subtask `c`'s reader resumes in batch `batch_id`: the position in the newest
    /// `sources/0/<b>/<c>/<id>.committed` with `b <= batch_id` (walking back over batches);
    /// 0 if there is none. Simplified: PR #7476 would prefer a newer `.prepared` of this batch.
    pub fn seatunnel_restore(&self, batch_id: u64, c: u32) -> u64 {
        let mut best: Option<((u64, u64), u64)> = None;
        for (path, bytes) in self.checkpoint.files() {
            let Some(rest) = path.strip_prefix("sources/0/") else {
                continue;
            };
            let parts: Vec<&str> = rest.split('/').collect();
            let [b, sub, file] = parts[..] else { continue };
            let (Ok(b), Ok(sub)) = (b.parse::<u64>(), sub.parse::<u32>()) else {
                continue;
            };
            let Some(id) = file
                .strip_suffix(".committed")
                .and_then(|i| i.parse::<u64>().ok())
            else {
                continue;
            };
            if sub != c || b > batch_id {
                continue;
            }
            let pos = String::from_utf8_lossy(bytes)
                .trim()
                .strip_prefix("t:")
                .and_then(|p| p.parse().ok())
                .unwrap_or(0);
            if best.is_none_or(|(k, _)| (b, id) > k) {
                best = Some(((b, id), pos));
            }
        }
        best.map_or(0, |(_, pos)| pos)
    }

    /// One step of SeaTunnel reader `task` (SEMANTICS §4): poll, or snapshot, sink commit and
    /// rename around an in-band checkpoint record or the end of the reader.
    fn reader_step(&mut self, batch_id: u64, task: u32) -> EventKind {
        let spec = self.scenario.source.clone();
        let n = self.upstream.channels.len() as u32;
        let poll_ms = (1000 / u64::from(n)).max(1);
        let dir = format!("sources/0/{batch_id}/{task}");
        let channel = self.driver.batch.as_ref().expect("batch").plan[task as usize].channel;
        let now = self.now_ms;
        let r = self.driver.batch.as_ref().expect("batch").readers[task as usize].clone();
        let mut next = r.clone();
        let event = match r.step {
            ReaderStep::Poll => {
                self.now_ms += poll_ms;
                let ch = self.upstream.channel(channel);
                let arrived = ch.arrived(self.now_ms).max(r.position);
                let rows = source::read_range(
                    &self.upstream,
                    channel,
                    Token::At(r.position),
                    Token::At(arrived),
                );
                self.counters.rows_read_by_tasks += rows.len() as u64;
                let count = rows.len() as u64;
                next.position = arrived;
                next.pending.extend(rows);
                if count > 0 {
                    next.last_data_ms = self.now_ms;
                }
                let idle_ms = self.now_ms - next.last_data_ms;
                let closes = spec.reader != ReaderEnd::Never && idle_ms >= spec.idle_timeout_ms;
                let record_due = spec.reader == ReaderEnd::CheckpointRecords
                    && self.now_ms >= r.next_checkpoint_ms
                    && !next.pending.is_empty();
                if closes {
                    next.closed = true;
                }
                if closes || record_due {
                    next.step = ReaderStep::Prepare;
                }
                EventKind::ReaderPolled {
                    batch_id,
                    partition: task,
                    rows: count,
                    idle_ms,
                    closes,
                }
            }
            ReaderStep::Prepare => {
                self.now_ms += cost::FILE_WRITE;
                let path = format!("{dir}/{}.prepared", r.checkpoint_id);
                let contents = Token::At(r.position).to_string();
                // A re-run writes the same checkpoint id again: the state file is replaced.
                self.checkpoint.delete(&path);
                let _ = self
                    .checkpoint
                    .create_atomic(&path, contents.clone().into_bytes());
                next.step = ReaderStep::SinkCommit;
                EventKind::StateFile {
                    batch_id,
                    path,
                    renamed_from: None,
                    contents,
                }
            }
            ReaderStep::SinkCommit => {
                self.now_ms += cost::TASK;
                if self.sink.is_down(self.now_ms) {
                    return self
                        .fail_sink(batch_id, &format!("subtask {task} of batch {batch_id}"));
                }
                let rows = std::mem::take(&mut next.pending);
                let count = rows.len() as u64;
                self.sink.task_output(batch_id, task, rows, String::new());
                next.step = ReaderStep::Rename;
                if r.closed {
                    EventKind::TaskFinished {
                        batch_id,
                        partition: task,
                        rows: count,
                        effect: "appended".into(),
                    }
                } else {
                    EventKind::SinkCommitted {
                        batch_id,
                        rows: count,
                        target: format!("checkpoint record {} of subtask {task}", r.checkpoint_id),
                        skipped: false,
                    }
                }
            }
            ReaderStep::Rename => {
                self.now_ms += cost::CALL;
                let from = format!("{dir}/{}.prepared", r.checkpoint_id);
                let path = format!("{dir}/{}.committed", r.checkpoint_id);
                let contents = self
                    .checkpoint
                    .read(&from)
                    .map(|b| String::from_utf8_lossy(b).to_string())
                    .unwrap_or_default();
                self.checkpoint.delete(&from);
                self.checkpoint.delete(&path);
                let _ = self
                    .checkpoint
                    .create_atomic(&path, contents.clone().into_bytes());
                next.checkpoint_id += 1;
                next.next_checkpoint_ms = self.now_ms + spec.checkpoint_interval_ms;
                next.step = if r.closed {
                    ReaderStep::Done
                } else {
                    ReaderStep::Poll
                };
                EventKind::StateFile {
                    batch_id,
                    path,
                    renamed_from: Some(from),
                    contents,
                }
            }
            ReaderStep::Done => unreachable!("done readers are skipped"),
        };
        let finished_now = next.step == ReaderStep::Done;
        let b = self.driver.batch.as_mut().expect("batch");
        b.readers[task as usize] = next;
        if finished_now {
            b.tasks_done += 1;
            self.last_task_done = true;
        }
        // Round robin over readers that are not done; when all are, the batch's sink commit follows.
        let open: Vec<u32> = (0..n)
            .filter(|&t| b.readers[t as usize].step != ReaderStep::Done)
            .collect();
        let mid_sequence = !matches!(
            b.readers[task as usize].step,
            ReaderStep::Poll | ReaderStep::Done
        );
        self.phase = if mid_sequence {
            Phase::Reader { batch_id, task }
        } else if let Some(&t) = open.iter().find(|&&t| t > task).or(open.first()) {
            Phase::Reader { batch_id, task: t }
        } else {
            Phase::SinkCommit { batch_id }
        };
        let _ = now;
        event
    }

    fn task_read(&mut self, batch_id: u64, task: u32) -> EventKind {
        let kind = self.scenario.source.kind;
        let cap = u64::from(self.scenario.source.max_offsets_per_channel);
        let plan = self.driver.batch.as_ref().expect("batch").plan[task as usize].clone();
        let read = match kind {
            SourceKind::SeaTunnel => unreachable!("SeaTunnel readers run in Phase::Reader"),
            SourceKind::ReplayableLog => {
                let rows = source::read_range(
                    &self.upstream,
                    plan.channel,
                    plan.start,
                    plan.end.expect("range"),
                );
                self.counters.rows_read_by_tasks += rows.len() as u64;
                TaskRead {
                    rows,
                    end: plan.end.expect("range"),
                    committed: false,
                    from_cache: false,
                }
            }
            SourceKind::PullAhead => match self.source.cache.remove(&(plan.channel, plan.start)) {
                Some((end, rows)) if Some(end) == plan.end => {
                    self.counters.rows_cached -= rows.len() as u64;
                    TaskRead {
                        rows,
                        end,
                        committed: false,
                        from_cache: true,
                    }
                }
                _ => {
                    // Not cached (e.g. after a restart): read the same range again from the Tunnel server.
                    let end = plan.end.expect("range");
                    let rows = source::read_range(&self.upstream, plan.channel, plan.start, end);
                    self.counters.rows_read_by_tasks += rows.len() as u64;
                    TaskRead {
                        rows,
                        end,
                        committed: false,
                        from_cache: false,
                    }
                }
            },
            SourceKind::Tablestore | SourceKind::AutoCommit => {
                let commit = kind == SourceKind::AutoCommit;
                let read = source::read_channel(
                    &self.upstream,
                    &mut self.tunnel,
                    &mut self.counters,
                    plan.channel,
                    plan.start,
                    cap,
                    self.now_ms,
                    commit,
                );
                if commit && read.end == Token::Finished {
                    let changes = self.tunnel.checkpoint(plan.channel, Token::Finished);
                    for (channel, status) in changes {
                        self.follow_ups.push_back(EventKind::ChannelState {
                            channel,
                            state: status.name().into(),
                        });
                    }
                }
                read
            }
        };
        // Tasks start together and run in parallel: the read arrows are 1 ms apart; each task's
        // own duration decides when it can finish.
        let duration = cost::TASK + cost::rows(read.rows.len() as u64);
        self.now_ms += 1;
        let event = EventKind::TaskRead {
            batch_id,
            partition: task,
            channel: self.upstream.channel(plan.channel).id.clone(),
            from: plan.start.to_string(),
            to: read.end.to_string(),
            rows: read.rows.len() as u64,
            committed: read.committed,
            from_cache: read.from_cache,
        };
        let now = self.now_ms;
        let b = self.driver.batch.as_mut().expect("batch");
        if task == 0 {
            b.tasks_started_ms = now;
        }
        b.reads.push(read);
        b.task_durations_ms.push(duration);
        let n = b.plan.len() as u32;
        self.phase = if task + 1 < n {
            Phase::TaskRead {
                batch_id,
                task: task + 1,
            }
        } else {
            Phase::TaskFinish { batch_id, task: 0 }
        };
        event
    }

    fn task_finish(&mut self, batch_id: u64, task: u32) -> EventKind {
        let b = self.driver.batch.as_ref().expect("batch");
        let done_at = b.tasks_started_ms + b.task_durations_ms[task as usize] + cost::FILE_WRITE;
        self.now_ms = (self.now_ms + 1).max(done_at);
        if self.sink.is_down(self.now_ms) {
            return self.fail_sink(batch_id, &format!("task {task} of batch {batch_id}"));
        }
        let rows = self.driver.batch.as_ref().expect("batch").reads[task as usize]
            .rows
            .clone();
        let n = rows.len() as u64;
        let file = format!("part-{task:05}-{}.json", self.rng.uuid());
        let effect = match self.sink.task_output(batch_id, task, rows, file) {
            TaskEffect::Written => match self.sink.kind() {
                SinkKind::Upsert => "upserted",
                _ => "appended",
            },
            TaskEffect::Staged => "staged",
        };
        if self.scenario.source.kind == SourceKind::Tablestore {
            self.phase = Phase::TaskMeta { batch_id, task };
        } else {
            self.complete_task(batch_id, task);
        }
        EventKind::TaskFinished {
            batch_id,
            partition: task,
            rows: n,
            effect: effect.into(),
        }
    }

    fn task_meta(&mut self, batch_id: u64, task: u32) -> EventKind {
        self.now_ms += cost::CALL;
        let b = self.driver.batch.as_ref().expect("batch");
        let SourceOffset::Uuid(uuid) = b.end.clone() else {
            unreachable!("Tablestore offsets are UUIDs")
        };
        let channel = self
            .upstream
            .channel(b.plan[task as usize].channel)
            .id
            .clone();
        let token = b.reads[task as usize].end;
        let overwritten = self
            .meta_table
            .put(&uuid, &channel, token, self.events.len() as u64);
        self.complete_task(batch_id, task);
        EventKind::MetaRowWritten {
            batch_id,
            uuid,
            row: ChannelToken {
                channel,
                token: token.to_string(),
            },
            overwritten,
        }
    }

    fn complete_task(&mut self, batch_id: u64, task: u32) {
        self.advance_task(
            task,
            |task| Phase::TaskFinish { batch_id, task },
            Phase::SinkCommit { batch_id },
        );
    }

    /// Counts a finished task (or epoch writer) and moves on to the next one's phase, or to
    /// `done` after the last.
    fn advance_task(&mut self, task: u32, next: impl FnOnce(u32) -> Phase, done: Phase) {
        let b = self.driver.batch.as_mut().expect("a batch or an epoch");
        b.tasks_done += 1;
        self.last_task_done = true;
        let n = b.plan.len() as u32;
        self.phase = if task + 1 < n { next(task + 1) } else { done };
    }

    /// A write to a down sink store: the batch (or epoch) fails and the query stops — no task
    /// retries (SEMANTICS §1.3 simplification, §2 for continuous mode).
    fn fail_sink(&mut self, batch_id: u64, what: &str) -> EventKind {
        let reason = format!(
            "sink store unavailable at {} ms: {what} failed",
            self.now_ms
        );
        self.phase = Phase::Failing {
            reason: reason.clone(),
        };
        EventKind::SinkWriteFailed { batch_id, reason }
    }

    fn sink_commit(&mut self, batch_id: u64) -> EventKind {
        self.now_ms += cost::FILE_WRITE;
        if self.sink.is_down(self.now_ms)
            && matches!(
                self.sink.kind(),
                SinkKind::File | SinkKind::ForeachBatch | SinkKind::TwoPhase
            )
        {
            return self.fail_sink(batch_id, &format!("commit of batch {batch_id}"));
        }
        let (rows, target, skipped) = self.sink.commit(batch_id);
        self.phase = Phase::CommitLog { batch_id };
        EventKind::SinkCommitted {
            batch_id,
            rows,
            target,
            skipped,
        }
    }

    fn commit_log(&mut self, batch_id: u64) -> EventKind {
        self.now_ms += cost::FILE_WRITE;
        let commit = CommitMetadata {
            version: 1,
            next_batch_watermark_ms: Some(0),
            state_unique_ids: None,
        };
        if self.checkpoint.write_commit(batch_id, &commit).is_err() {
            self.phase = Phase::Failing {
                reason: format!("Concurrent update to the log: commits/{batch_id} exists"),
            };
            return EventKind::CheckpointWriteRejected {
                path: format!("commits/{batch_id}"),
            };
        }
        let b = self.driver.batch.take().expect("batch");
        self.driver.committed = Some(b.end);
        self.phase = Phase::Wait {
            batch_id: batch_id + 1,
        };
        EventKind::CommitLogWritten {
            batch_id,
            contents: String::from_utf8_lossy(&commit.to_bytes()).into(),
        }
    }
}

impl crate::sim::Sim for World {
    type Event = Event;

    fn next_event(&mut self) -> Option<Event> {
        Some(self.step())
    }

    fn events(&self) -> &[Event] {
        World::events(self)
    }

    fn settled(&self) -> bool {
        self.is_converged()
    }

    fn clock_ms(&self) -> u64 {
        self.now_ms()
    }
}
