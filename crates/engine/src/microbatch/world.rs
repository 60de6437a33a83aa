//! The micro-batch `World`: its fields, `step()`, the phase dispatch and convergence.

use super::phase::{BatchRun, Phase};
use crate::checkpoint::CheckpointFolder;
use crate::history::History;
use crate::microbatch::event::{Event, EventKind};
use crate::microbatch::meta_table::MetaTable;
use crate::microbatch::scenario::{CrashPoint, Fault, Scenario, SinkKind, SourceKind};
use crate::microbatch::sink::{self, KindSink, SinkState};
use crate::microbatch::source::{
    self, Source, SourceCounters, SourceCtx, SourceOffset, SourceState, SourceView,
};
use crate::microbatch::tunnel::{Token, Tunnel};
use crate::microbatch::upstream::{Rows, Upstream};
use crate::rng::Prng;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};

/// Simulated time 0 as epoch milliseconds, so `batchTimestampMs` looks like Spark's (2025-11-24).
pub const EPOCH_BASE_MS: u64 = 1_764_000_000_000;
/// `spark.sql.streaming.minBatchesToRetain` default.
pub const MIN_BATCHES_TO_RETAIN: u64 = 100;

/// Time each protocol action takes, in simulated ms.
pub(super) mod cost {
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
    /// Async progress tracking: when this run last wrote an `offsets/N` (`AsyncOffsetSeqLog`'s
    /// `lastCommitIssuedTimestampMs`).
    pub async_last_write_ms: Option<u64>,
    /// Async progress tracking: the batch whose `offsets/N` this run wrote last (its
    /// `commits/N` is written too).
    pub async_logged: Option<u64>,
    /// Async progress tracking: a batch has finished in this run (the first one's `commits/N`
    /// is always written: `isFirstBatch`).
    pub async_first_done: bool,
}

/// A fired crash and the event after which it fired.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FiredCrash {
    /// The crash point (`None` for a crash after an arbitrary event).
    pub point: Option<CrashPoint>,
    /// Sequence number of the `Crashed` event.
    pub seq: u64,
}

/// What a fault does to the checkpoint folder while the query is down.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Damage {
    /// `torn-offset-log@N`: `offsets/N` is found empty.
    TornOffsets(u64),
    /// `metadata-lost@N`: the `metadata` file is gone.
    MetadataLost,
}

/// A first driver stalled by `second-driver@N`, holding batch N's `commits/N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stalled {
    /// The fault fired at this event; its stop is the next event.
    Stopping(u64),
    /// Asleep until the second driver has written `commits/N`.
    Asleep(u64),
}

/// Everything that exists in the simulation.
#[derive(Clone, Debug)]
pub struct World {
    pub(super) scenario: Scenario,
    pub(super) rng: Prng,
    pub(super) now_ms: u64,
    pub(super) run: u32,
    pub(super) phase: Phase,
    /// The CDC table (durable).
    pub upstream: std::sync::Arc<Upstream>,
    /// The Tunnel server (durable).
    pub tunnel: Tunnel,
    /// The Meta table (durable).
    pub meta_table: MetaTable,
    /// The Spark checkpoint folder (durable).
    pub checkpoint: CheckpointFolder,
    /// The sink (durable, except staged output of an attempt).
    pub sink: SinkState,
    /// Source costs (kept across crashes).
    pub counters: SourceCounters,
    /// The source's volatile state.
    pub source: SourceState,
    /// The driver's volatile state.
    pub driver: Driver,
    /// The initial offsets the query's very first start chose (Kafka-like log: `sources/0/0`
    /// of run 1), kept across crashes and a deleted checkpoint: what `startingOffsets = latest`
    /// left out for good. `None` before the first start writes them, or for other sources.
    pub first_start: Option<BTreeMap<u32, u64>>,
    /// Records a task skipped because retention had deleted them from the Kafka-like log
    /// (`failOnDataLoss` false): gone for good, kept across crashes.
    pub aged_out: Rows,
    pub(super) pending_crashes: Vec<CrashPoint>,
    pub(super) pending_faults: Vec<Fault>,
    /// A `checkpoint-deleted` fault fired: the folder goes before the next start.
    pub(super) delete_checkpoint: bool,
    /// A fault fired that damages the folder before the next start (`offsets/N` found empty,
    /// `metadata` lost).
    pub(super) damage: Option<Damage>,
    /// A first driver stalled by a `second-driver` fault, still to wake.
    pub(super) stalled: Option<Stalled>,
    pub(super) fired: Vec<FiredCrash>,
    pub(super) crash_next: Option<(Option<CrashPoint>, u64)>,
    pub(super) follow_ups: VecDeque<EventKind>,
    pub(super) events: History<Event>,
    pub(super) last_task_done: bool,
    pub(super) sites: Vec<(u64, CrashPoint)>,
}

impl World {
    /// A world for a validated scenario; the seed is the scenario's.
    pub fn new(scenario: Scenario) -> World {
        crate::heap::reserve_for(&scenario);
        let mut rng = Prng::new(scenario.seed);
        let upstream = std::sync::Arc::new(Upstream::generate(&scenario, &mut rng));
        let tunnel = Tunnel::new(&upstream, scenario.source.page_size);
        let sink = SinkState::new(&scenario.sink, sink_contract(scenario.sink.kind));
        let pending_crashes = scenario.crashes.clone();
        let pending_faults = scenario.faults.clone();
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
            first_start: None,
            aged_out: Rows::new(),
            pending_crashes,
            pending_faults,
            delete_checkpoint: false,
            damage: None,
            stalled: None,
            fired: vec![],
            crash_next: None,
            follow_ups: VecDeque::new(),
            events: History::default(),
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
        self.events.as_slice()
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
    /// Faults still armed (never reached so far).
    pub fn pending_faults(&self) -> &[Fault] {
        &self.pending_faults
    }
    /// Number of batches committed (`commits/` entries ever written, from the latest id).
    pub fn batches_committed(&self) -> u64 {
        self.checkpoint.latest_commit_id().map_or(0, |c| c + 1)
    }

    /// Performs exactly one observable action and returns its event.
    pub fn step(&mut self) -> Event {
        self.record_step().clone()
    }

    /// [`World::step`], the event left in the history alone (no copy of it).
    pub(super) fn record_step(&mut self) -> &Event {
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
        // The stop of a `checkpoint-deleted` fault is the fault's, not one of the scenario's
        // crashes (unless a crash was armed at the same point).
        let faults_stop = self.delete_checkpoint || self.damage.is_some();
        if let EventKind::Crashed { point, .. } = &event.kind {
            if point.is_some() || !faults_stop {
                self.fired.push(FiredCrash {
                    point: *point,
                    seq: event.seq,
                });
            }
        }
        self.arm_if_crash_site(&event.kind);
        self.events.push(event);
        self.events().last().expect("the event just recorded")
    }

    /// Whether the run has settled: data has ended, faults healed, every arrived record is
    /// covered by the last committed batch, and the driver is waiting for its next trigger.
    pub fn is_converged(&self) -> bool {
        if self.phase == Phase::Stopped {
            // Nobody restarts the failed query (`restart: none`): the run is over as it is.
            return self.follow_ups.is_empty();
        }
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
        // The cheap conditions first: the logs are compared (a scan of the checkpoint folder's
        // file names, which grows with the run) only once the data is over and the query idle,
        // not at every step of the run.
        idle && data_over
            && healed
            && self.follow_ups.is_empty()
            && self.checkpoint.latest_offset_id() == self.checkpoint.latest_commit_id()
            && self.source_caught_up()
    }

    /// Where each channel stands once `committed` (the end of the last committed batch) is
    /// behind the driver, as the source tells it; `None` when nothing is committed and the
    /// source cannot tell from elsewhere.
    pub fn position_after(&self, committed: Option<&SourceOffset>) -> Option<BTreeMap<u32, Token>> {
        self.contract()
            .position_after(self.source_view(), committed)
    }

    pub(super) fn source_caught_up(&self) -> bool {
        // A new query that has not committed a batch yet stands at its initial offsets.
        let committed = self
            .driver
            .committed
            .clone()
            .or_else(|| self.contract().first_start(&self.source));
        match self.position_after(committed.as_ref()) {
            Some(positions) => source::caught_up(self.source_view(), &positions),
            None => self.upstream.total() == 0,
        }
    }

    /// The implementation of the source contract for the scenario's source kind.
    pub(super) fn contract(&self) -> &'static dyn Source {
        match self.scenario.source.kind {
            SourceKind::ReplayableLog => &source::kafka::ReplayableLog,
            SourceKind::Tablestore => &source::tablestore::TablestoreSource,
            SourceKind::PullAhead => &source::pull_ahead::PullAhead,
            SourceKind::AutoCommit => &source::auto_commit::AutoCommit,
            SourceKind::SeaTunnel => &source::seatunnel::SeaTunnelSource,
        }
    }

    /// The implementation of the sink contract for the scenario's sink kind.
    pub(super) fn sink_contract(&self) -> KindSink {
        sink_contract(self.scenario.sink.kind)
    }

    /// What a source call may touch, built for one call.
    pub(super) fn source_ctx(&mut self) -> SourceCtx<'_> {
        SourceCtx {
            spec: &self.scenario.source,
            upstream: &self.upstream,
            checkpoint: &self.checkpoint,
            tunnel: &mut self.tunnel,
            meta_table: &mut self.meta_table,
            counters: &mut self.counters,
            state: &mut self.source,
            rng: &mut self.rng,
            follow_ups: &mut self.follow_ups,
            now_ms: self.now_ms,
            seq: self.events.len() as u64,
            max_offsets_per_trigger: self.scenario.max_offsets_in_run(self.run),
        }
    }

    pub(super) fn source_view(&self) -> SourceView<'_> {
        SourceView {
            spec: &self.scenario.source,
            upstream: &self.upstream,
            tunnel: &self.tunnel,
            meta_table: &self.meta_table,
            checkpoint: &self.checkpoint,
        }
    }

    /// The batch (or epoch) in flight, which the current phase names: every phase after
    /// `getOffset` (or the epoch's advance) and before `commits/N` relies on it.
    pub(super) fn batch_run(&self, batch_id: u64) -> &BatchRun {
        let batch = self.driver.batch.as_ref();
        let batch = batch.unwrap_or_else(|| panic!("batch {batch_id} is in flight"));
        assert_eq!(
            batch.batch_id, batch_id,
            "the phase names the batch in flight"
        );
        batch
    }

    /// [`World::batch_run`], to change it.
    pub(super) fn batch_run_mut(&mut self, batch_id: u64) -> &mut BatchRun {
        let batch = self.driver.batch.as_mut();
        let batch = batch.unwrap_or_else(|| panic!("batch {batch_id} is in flight"));
        assert_eq!(
            batch.batch_id, batch_id,
            "the phase names the batch in flight"
        );
        batch
    }
}

/// The dispatch: one phase transition per call, to the module that performs it.
impl World {
    pub(super) fn advance(&mut self) -> EventKind {
        loop {
            if let Some(kind) = self.advance_once() {
                return kind;
            }
        }
    }

    /// One phase transition; `None` when the transition was silent (no arrow), e.g. reading `sources/0/0`.
    pub(super) fn advance_once(&mut self) -> Option<EventKind> {
        self.last_task_done = false;
        let phase = self.phase.clone();
        match phase {
            Phase::Down { until_ms } => {
                self.now_ms = self.now_ms.max(until_ms);
                self.phase = Phase::Start;
                if std::mem::take(&mut self.delete_checkpoint) {
                    return Some(self.delete_checkpoint_folder());
                }
                self.damage.take().map(|d| self.damage_folder(d))
            }
            Phase::Stopped => {
                // The query stays failed; time passes.
                self.now_ms += self.scenario.trigger_interval_ms;
                Some(EventKind::Idle {
                    until_ms: self.now_ms,
                })
            }
            Phase::Start => Some(self.start_query()),
            Phase::Recover => Some(self.recover()),
            Phase::RecoveryGetBatch { batch_id } => Some(self.recovery_get_batch(batch_id)),
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
            Phase::EpochSinkCommit { epoch } => Some(self.epoch_sink_commit(epoch)),
            Phase::EpochCommitLog { epoch } => Some(self.epoch_commit_log(epoch)),
            Phase::EpochSourceCommit { epoch } => Some(self.epoch_source_commit(epoch)),
            Phase::Failing { reason } => Some(self.fail_query(reason)),
        }
    }

    /// Waits for the next processing-time trigger (or epoch end) and then moves to `then`;
    /// emits an `Idle` arrow only when there is time to wait.
    pub(super) fn wait_for_trigger(&mut self, then: Phase) -> Option<EventKind> {
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
}

impl crate::sim::Sim for World {
    type Event = Event;

    fn next_event(&mut self) -> Option<Event> {
        Some(self.step())
    }

    fn advance_event(&mut self) -> bool {
        self.record_step();
        true
    }

    fn events(&self) -> &[Event] {
        World::events(self)
    }

    fn share_history(&mut self, later: &World) {
        self.events.share(&later.events);
    }

    fn settled(&self) -> bool {
        self.is_converged()
    }

    fn clock_ms(&self) -> u64 {
        self.now_ms()
    }
}

/// The implementation of the sink contract for `kind`: one per kind, each in its own file
/// under `sink/`, all stateless (the state is the world's [`SinkState`]).
pub(crate) fn sink_contract(kind: SinkKind) -> KindSink {
    match kind {
        SinkKind::Append => KindSink::Append(sink::append::AppendSink),
        SinkKind::Upsert => KindSink::Upsert(sink::upsert::UpsertSink),
        SinkKind::File => KindSink::File(sink::file::FileSink),
        SinkKind::ForeachBatch => KindSink::ForeachBatch(sink::foreach_batch::ForeachBatchSink),
        SinkKind::TwoPhase => KindSink::TwoPhase(sink::two_phase::TwoPhaseSink),
        SinkKind::TxnAppId => KindSink::TxnAppId(sink::txn_app_id::TxnAppIdSink),
        SinkKind::BatchIdInMemory => {
            KindSink::BatchIdInMemory(sink::batch_id_in_memory::BatchIdInMemorySink)
        }
    }
}
