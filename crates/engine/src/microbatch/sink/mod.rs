//! Sinks and their contract: what Spark's `Sink.addBatch`, a foreachBatch function or a DSv2
//! `StreamingWrite` does with a batch, as the [`Sink`] trait, and the state every kind keeps
//! ([`SinkState`]: its stores, a file sink's files and manifest, the staged output of the
//! attempt in flight). Also what each sink should hold once every record arrived exactly once
//! ([`SinkState::expected`]), which the oracle judges keys and values against.
//!
//! One implementation per sink kind, each in its own file: [`append`], [`upsert`] (by key:
//! each record, or a running sum per user), [`file`](mod@file) (a batch-id manifest),
//! [`foreach_batch`] (to one of several stores), [`two_phase`], [`batch_id_in_memory`] and [`txn_app_id`] (Delta's idempotent writes). The
//! driver in `crate::microbatch` changes a sink only through the trait, on the implementation
//! its scenario's [`SinkKind`] names, and reads it through [`SinkState`].

pub mod append;
pub mod batch_id_in_memory;
pub mod file;
pub mod foreach_batch;
pub mod two_phase;
pub mod txn_app_id;
pub mod upsert;

use crate::chunked::Chunked;
use crate::microbatch::event::SinkEffect;
use crate::microbatch::scenario::{FaultKind, SinkKind, SinkSpec, SinkValue};
use crate::microbatch::upstream::{ByRecord, Record, RowKey, Rows, Upstream};
use crate::rng::Prng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A data file written by a file-sink task (`part-00000-<uuid>.json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SinkFile {
    /// File name.
    pub name: String,
    /// The batch whose attempt wrote it.
    pub batch_id: u64,
    /// Rows in it (their records stay in the staged output until the commit makes them
    /// visible; a file of a killed attempt keeps only its count).
    pub rows: u64,
    /// Whether a manifest entry lists it; an unlisted file is an orphan of a failed attempt, invisible to readers.
    pub committed: bool,
}

/// Rows per chunk of a store: a [`Row`] is 16 bytes copied as bytes, so a write to a shared
/// chunk copies at most 512 KiB, and a million rows are 31 allocations (in wasm each new block
/// is a `memory.grow`: with 1,024-row chunks the 1 M-record runs took about 1.5× as long in Node).
pub const ROW_CHUNK: usize = 32_768;

/// One visible row of a store, in 16 bytes: the batch whose attempt wrote it, and what it
/// holds — a record by its identity (channel and sequence number; the upstream makes the
/// record's fields again, [`crate::microbatch::upstream::UpstreamChannel::record`]), or for a running sum
/// the user and the sum. Which of the two the sink's value says ([`SinkState::row_key`],
/// [`SinkState::value_of`]). A row of a whole record was 48 bytes, and a 1 M-record run keeps a
/// million of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    /// A record's sequence number, or a running sum's sum.
    word: u64,
    /// A record's channel, or a running sum's user.
    id: u32,
    /// The batch whose attempt wrote the row.
    batch: u32,
}

// The size the text above promises, on every target (wasm32 too).
const _: () = assert!(std::mem::size_of::<Row>() == 16);

impl Row {
    /// The row of the record at (`channel`, `seq`), written by batch `batch_id`.
    pub fn record(batch_id: u64, channel: u32, seq: u64) -> Row {
        Row {
            word: seq,
            id: channel,
            batch: batch_index(batch_id),
        }
    }

    /// A running sum's row: `user`'s amounts add up to `sum`, last written by batch `batch_id`.
    pub fn sum(batch_id: u64, user: u32, sum: u64) -> Row {
        Row {
            word: sum,
            id: user,
            batch: batch_index(batch_id),
        }
    }

    /// The batch whose attempt wrote the row.
    pub fn batch_id(&self) -> u64 {
        u64::from(self.batch)
    }

    /// The rows of `rows`' records, in order, written by batch `batch_id`.
    fn records_of(batch_id: u64, rows: &Rows) -> impl Iterator<Item = Row> + '_ {
        rows.keys()
            .map(move |(channel, seq)| Row::record(batch_id, channel, seq))
    }
}

/// A batch id as a row keeps it: a run's batches start at 0 and each takes events, so its ids
/// stay below the event budget (`MAX_EVENTS`, 5 M), far below `u32::MAX`.
fn batch_index(batch_id: u64) -> u32 {
    u32::try_from(batch_id).expect("a run's batch ids stay below its event budget")
}

/// One named store of a foreachBatch sink (`store-0` …), or the single store of other sinks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Store {
    /// Store name.
    pub name: String,
    /// Visible rows, in write order, each with the batch that wrote it; in shared chunks, so a
    /// world's clone (every step on screen, every snapshot) does not copy them.
    pub rows: Chunked<Row, ROW_CHUNK>,
}

/// What a task hands the sink (the arguments of [`Sink::task_output`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskOutput {
    /// The batch (or epoch) whose attempt the task belongs to.
    pub batch_id: u64,
    /// The task's partition.
    pub partition: u32,
    /// Its rows, by identity.
    pub rows: Rows,
    /// The data file a file sink writes them to (`part-00000-<uuid>.json`); unused by the
    /// other sinks.
    pub file_name: String,
}

/// What the driver's commit of a batch (or epoch) did: the `sink-committed` event's fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SinkCommit {
    /// Rows the commit made visible (0 where the tasks already wrote them, or the commit was
    /// skipped).
    pub rows: u64,
    /// Where they went, as the trace shows it: `_spark_metadata/3`, `store-1`, `epoch 3`,
    /// `table (latestBatchId = 3)`.
    pub target: String,
    /// Whether the sink skipped the commit as a duplicate of one it already made (a two-phase
    /// sink's epoch already committed).
    pub skipped: bool,
}

impl SinkCommit {
    /// The commit of a sink whose tasks wrote every row visibly (append, upsert): the attempt's
    /// stage is emptied (it holds nothing) and nothing more becomes visible.
    fn written_by_tasks(state: &mut SinkState) -> SinkCommit {
        state.take_staged();
        SinkCommit {
            rows: 0,
            target: "rows already written by tasks".into(),
            skipped: false,
        }
    }
}

/// The micro-batch sink contract: what a sink does as the driver hands it a batch (`addBatch`,
/// its tasks' writes, the commit), and on a failed task, an aborted attempt or a new driver.
/// Implementations hold no state of their own: it is the world's [`SinkState`], so a world
/// stays a plain `Clone`.
pub trait Sink {
    /// The names of the stores a new sink holds: one `table` by default.
    fn store_names(&self, _spec: &SinkSpec) -> Vec<String> {
        vec!["table".into()]
    }

    /// `addBatch(batchId)` entry check: whether the sink skips a batch it already has, before
    /// any task runs. By default it skips nothing.
    fn skips_batch(&self, _state: &SinkState, _batch_id: u64) -> bool {
        false
    }

    /// `addBatch(batchId)` goes on (after [`Sink::skips_batch`]): the sink prepares for the
    /// batch's writes. By default there is nothing to prepare.
    fn start_batch(&self, _state: &mut SinkState, _rng: &mut Prng) {}

    /// A task hands over its rows and the sink says what it did with them; `upstream` makes a
    /// record's fields where a sink adds them up. By default the rows are staged for the
    /// driver's commit.
    fn task_output(
        &self,
        state: &mut SinkState,
        output: TaskOutput,
        _upstream: &Upstream,
    ) -> SinkEffect {
        state.stage(output.partition, output.rows);
        SinkEffect::Staged
    }

    /// A failed task attempt: what it staged never reaches the driver's commit (its commit
    /// message is not sent; a file sink's file stays an orphan). Rows it wrote visibly stay.
    fn drop_task_attempt(&self, state: &mut SinkState, partition: u32) {
        state.drop_task_staged(partition);
    }

    /// Whether the store being down at the driver's commit fails the batch there. By default
    /// it does not: an outage fails the tasks' writes.
    fn commit_fails_when_down(&self) -> bool {
        false
    }

    /// The driver finishes batch (or epoch) `batch_id`: the attempt's staged output leaves the
    /// stage. Returns what the commit made visible, and where.
    fn commit(&self, state: &mut SinkState, batch_id: u64) -> SinkCommit;

    /// The scenario fault that can strike right after the commit, once it wrote; `None` (the
    /// default) when none can.
    fn commit_fault(&self) -> Option<FaultKind> {
        None
    }

    /// A new driver (a restart): the sink object is created again and its in-memory fields
    /// start over; what it wrote stays. By default it keeps nothing in memory.
    fn new_driver(&self, _state: &mut SinkState) {}

    /// A crash or a failed batch: the staged output of the attempt is gone (orphan files stay
    /// on disk). Returns how many rows were staged.
    fn abort_attempt(&self, state: &mut SinkState) -> u64 {
        state.drop_staged()
    }
}

/// Each sink kind's implementation, called through a `match` rather than a vtable: the
/// world holds one by value, and the methods its kind leaves at their defaults are inlined
/// where they are called (behind `&dyn Sink`, each kind carried its own copy of every default,
/// which the dashboard's first load paid for).
#[derive(Clone, Copy, Debug)]
pub enum KindSink {
    /// [`append::AppendSink`].
    Append(append::AppendSink),
    /// [`upsert::UpsertSink`].
    Upsert(upsert::UpsertSink),
    /// [`file::FileSink`].
    File(file::FileSink),
    /// [`foreach_batch::ForeachBatchSink`].
    ForeachBatch(foreach_batch::ForeachBatchSink),
    /// [`two_phase::TwoPhaseSink`].
    TwoPhase(two_phase::TwoPhaseSink),
    /// [`batch_id_in_memory::BatchIdInMemorySink`].
    BatchIdInMemory(batch_id_in_memory::BatchIdInMemorySink),
    /// [`txn_app_id::TxnAppIdSink`].
    TxnAppId(txn_app_id::TxnAppIdSink),
}

/// Calls `$call` on the implementation a [`KindSink`] holds, bound to `$s`.
macro_rules! on_kind {
    ($kind:expr, $s:ident => $call:expr) => {
        match $kind {
            KindSink::Append($s) => $call,
            KindSink::Upsert($s) => $call,
            KindSink::File($s) => $call,
            KindSink::ForeachBatch($s) => $call,
            KindSink::TwoPhase($s) => $call,
            KindSink::BatchIdInMemory($s) => $call,
            KindSink::TxnAppId($s) => $call,
        }
    };
}

impl Sink for KindSink {
    fn store_names(&self, spec: &SinkSpec) -> Vec<String> {
        on_kind!(self, s => s.store_names(spec))
    }
    fn skips_batch(&self, state: &SinkState, batch_id: u64) -> bool {
        on_kind!(self, s => s.skips_batch(state, batch_id))
    }
    fn start_batch(&self, state: &mut SinkState, rng: &mut Prng) {
        on_kind!(self, s => s.start_batch(state, rng))
    }
    fn task_output(&self, state: &mut SinkState, output: TaskOutput, up: &Upstream) -> SinkEffect {
        on_kind!(self, s => s.task_output(state, output, up))
    }
    fn drop_task_attempt(&self, state: &mut SinkState, partition: u32) {
        on_kind!(self, s => s.drop_task_attempt(state, partition))
    }
    fn commit_fails_when_down(&self) -> bool {
        on_kind!(self, s => s.commit_fails_when_down())
    }
    fn commit(&self, state: &mut SinkState, batch_id: u64) -> SinkCommit {
        on_kind!(self, s => s.commit(state, batch_id))
    }
    fn commit_fault(&self) -> Option<FaultKind> {
        on_kind!(self, s => s.commit_fault())
    }
    fn new_driver(&self, state: &mut SinkState) {
        on_kind!(self, s => s.new_driver(state))
    }
    fn abort_attempt(&self, state: &mut SinkState) -> u64 {
        on_kind!(self, s => s.abort_attempt(state))
    }
}

/// The staged output of the attempt in flight, taken out of the sink by the driver's commit.
struct Staged {
    /// Each task's rows (task → rows), in the order they were staged.
    parts: Vec<(u32, Rows)>,
    /// Rows in them, all tasks together.
    rows: u64,
    /// File sink: the index of the first data file of the attempt
    /// ([`SinkState::attempt_files_from`], as it was while the rows were staged).
    files_from: usize,
}

impl Staged {
    /// The rows as a store keeps them, written by batch `batch_id`. Made as they move into the
    /// store, without gathering them first (a large batch is megabytes).
    fn rows_of(&self, batch_id: u64) -> impl Iterator<Item = Row> + '_ {
        self.parts
            .iter()
            .flat_map(move |(_, rows)| Row::records_of(batch_id, rows))
    }
}

/// The sink's durable state plus the staged output of the current attempt (volatile): one
/// struct for every kind, each kind using the fields named for it (the [`Sink`]
/// implementations hold no state).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SinkState {
    /// Implementation and faults.
    pub spec: SinkSpec,
    /// Visible contents: one store, or several for foreachBatch.
    pub stores: Vec<Store>,
    /// File sink: data files, committed or orphaned.
    pub files: Chunked<SinkFile>,
    /// File sink: `_spark_metadata/<batchId>` entries (batch → file names).
    pub manifest: BTreeMap<u64, Arc<[String]>>,
    /// Two-phase: the last epoch committed (durable in the sink).
    pub last_committed_epoch: Option<u64>,
    /// Staged rows of the current attempt (task → rows); lost on a crash.
    pub staged: Vec<(u32, Rows)>,
    /// foreachBatch: the store the current call writes to.
    pub current_store: u32,
    /// Batch-id-in-memory sink: `latestBatchId`, a field of the sink object on the driver
    /// (volatile: a driver restart creates a new sink with it at -1, `None` here).
    #[serde(default)]
    pub latest_batch_id: Option<u64>,
    /// Transactional-id sink: the query id the running driver passes as `txnAppId`.
    #[serde(default)]
    pub app_id: Option<String>,
    /// Transactional-id sink: the latest `txnVersion` the table recorded per `txnAppId`
    /// (durable, in the table's log).
    #[serde(default)]
    pub txn_versions: BTreeMap<String, u64>,
    /// Upsert: key → position of its row in the store and how often it was written.
    upsert_index: KeySlots,
    /// Calls that changed this sink so far ([`SinkState::version`]).
    #[serde(skip)]
    version: u64,
    /// Calls that may have changed its visible rows so far ([`SinkState::visible_version`]).
    #[serde(skip)]
    visible_version: u64,
}

impl SinkState {
    /// An empty sink of `spec`, with the stores `sink` (its kind's implementation) names.
    pub fn new(spec: &SinkSpec, sink: impl Sink) -> SinkState {
        let stores = sink
            .store_names(spec)
            .into_iter()
            .map(|name| Store {
                name,
                rows: Chunked::new(),
            })
            .collect();
        SinkState {
            spec: spec.clone(),
            stores,
            files: Chunked::new(),
            manifest: BTreeMap::new(),
            last_committed_epoch: None,
            staged: vec![],
            current_store: 0,
            latest_batch_id: None,
            app_id: None,
            txn_versions: BTreeMap::new(),
            upsert_index: KeySlots::default(),
            version: 0,
            visible_version: 0,
        }
    }

    /// The sink kind.
    pub fn kind(&self) -> SinkKind {
        self.spec.kind
    }

    /// Whether the store is down at `now_ms`.
    pub fn is_down(&self, now_ms: u64) -> bool {
        self.spec.outages.iter().any(|w| w.contains(now_ms))
    }

    /// How many calls have changed this sink since it was made. Along one run, two moments
    /// with the same version hold the same sink, so a view of the sink can be kept until the
    /// version moves (the dashboard recounts the sink only then).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// How many calls may have changed the visible rows (the stores) since the sink was made:
    /// a task's write to an append or upsert sink, a commit. Staging, a new driver or an
    /// aborted attempt leave the visible rows as they were. Along one run, two moments with
    /// the same visible version show the same rows, so a count of them (the dashboard's
    /// progress of the sink) is kept across the many steps that only stage.
    pub fn visible_version(&self) -> u64 {
        self.visible_version
    }

    /// A call changed the sink and left its visible rows as they were.
    /// The query id the running driver passes as `txnAppId` (a transactional-id sink's key).
    pub fn set_app_id(&mut self, id: &str) {
        if self.app_id.as_deref() != Some(id) {
            self.app_id = Some(id.to_string());
            self.changed();
        }
    }

    fn changed(&mut self) {
        self.version += 1;
    }

    /// A call may have changed the visible rows.
    fn changed_visibly(&mut self) {
        self.version += 1;
        self.visible_version += 1;
    }

    /// Stages a task's rows for the driver's commit.
    fn stage(&mut self, partition: u32, rows: Rows) {
        self.changed();
        self.staged.push((partition, rows));
    }

    /// foreachBatch: the store the next call writes to.
    fn choose_store(&mut self, store: u32) {
        self.changed();
        self.current_store = store;
    }

    /// Takes the attempt's staged output for the driver's commit, which may change the
    /// visible rows.
    fn take_staged(&mut self) -> Staged {
        self.changed_visibly();
        let files_from = self.attempt_files_from();
        let rows = self.staged_len();
        Staged {
            parts: std::mem::take(&mut self.staged),
            rows,
            files_from,
        }
    }

    /// Drops the staged output of the attempt; returns how many rows it held.
    fn drop_staged(&mut self) -> u64 {
        self.changed();
        let n = self.staged_len();
        self.staged.clear();
        n
    }

    /// Drops what one task attempt staged.
    fn drop_task_staged(&mut self, partition: u32) {
        self.changed();
        self.staged.retain(|(p, _)| *p != partition);
    }

    /// What this sink should show once every record of `upstream` arrived exactly once: key →
    /// the value of its row (a record's `amount`; for a running sum, the sum of the user's
    /// amounts). The oracle's expected keys and values.
    pub fn expected(&self, upstream: &Upstream) -> BTreeMap<RowKey, u64> {
        self.expected_of(upstream.records())
    }

    /// [`SinkState::expected`] of the given records only (a query started at `latest` never
    /// reads the records that arrived before it).
    pub fn expected_of(&self, records: impl Iterator<Item = Record>) -> BTreeMap<RowKey, u64> {
        match self.spec.value {
            // Upstream records come in key order: the map is built in one pass.
            SinkValue::Record => records.map(|r| (r.key(), r.amount)).collect(),
            SinkValue::RunningSum => {
                let mut out = BTreeMap::new();
                for r in records {
                    *out.entry(RowKey::User(r.user_id)).or_insert(0) += r.amount;
                }
                out
            }
        }
    }

    /// The key a visible row of this sink is stored under: the record's own, or for a
    /// running sum the user's.
    pub fn row_key(&self, row: &Row) -> RowKey {
        match self.spec.value {
            SinkValue::Record => RowKey::Record {
                channel: row.id,
                seq: row.word,
            },
            SinkValue::RunningSum => RowKey::User(row.id),
        }
    }

    /// Every visible row with the key it is stored under, across stores.
    pub fn visible_keyed(&self) -> impl Iterator<Item = (RowKey, &Row)> {
        self.visible().map(|r| (self.row_key(r), r))
    }

    /// The value a visible row holds, as [`SinkState::expected`] states it: a record's amount
    /// (made again by `upstream`, whose record the row names), or a running sum's sum.
    pub fn value_of(&self, row: &Row, upstream: &Upstream) -> u64 {
        match self.spec.value {
            SinkValue::Record => upstream.channel(row.id).record(row.word).amount,
            SinkValue::RunningSum => row.word,
        }
    }

    /// Rows staged by the attempt in flight, all tasks together.
    pub fn staged_len(&self) -> u64 {
        self.staged.iter().map(|(_, r)| r.len()).sum()
    }

    /// Every visible row with its multiplicity, across stores: what a reader of the sink sees.
    pub fn visible(&self) -> impl Iterator<Item = &Row> {
        self.stores.iter().flat_map(|s| s.rows.iter())
    }

    /// File sink: the index of the first data file of the attempt in flight. Every staged
    /// output of this attempt is one file, pushed last: files of a killed attempt before them
    /// stay orphans, unlisted by the manifest (ManifestFileCommitProtocol commits only the
    /// files its own tasks reported).
    pub fn attempt_files_from(&self) -> usize {
        self.files.len() - self.staged.len().min(self.files.len())
    }

    /// Number of visible rows.
    pub fn visible_len(&self) -> u64 {
        self.stores.iter().map(|s| s.rows.len() as u64).sum()
    }

    /// Upsert: rows written more than once (replays absorbed by the key).
    pub fn rewrites(&self) -> u64 {
        self.upsert_index.rewrites()
    }
}

/// An upsert sink's index: for each key, where its row is in the store and how many times it
/// was written. Dense by channel and sequence number for records (8 bytes a record, no tree
/// and no key text), a small map for the users of a running sum.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct KeySlots {
    /// Each record's slot.
    records: ByRecord<Slot>,
    /// Running sum: user → slot (written once: later adds are not rewrites).
    users: BTreeMap<u32, Slot>,
}

/// One key of an upsert sink: its row's position, valid once it was written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Slot {
    /// Position of the key's row in the store.
    row: u32,
    /// Writes of a record's key (more than 1 = rewritten by a replay, absorbed by the upsert);
    /// 0 = never written.
    writes: u32,
}

impl KeySlots {
    /// Writes of a record's key beyond its first, summed.
    fn rewrites(&self) -> u64 {
        self.records
            .iter()
            .map(|(_, _, s)| u64::from(s.writes.saturating_sub(1)))
            .sum()
    }
}

#[cfg(test)]
mod tests;
