//! The scenario's types: what is simulated (upstream, source, sink, trigger, faults), as JSON.

use super::crash::CrashPoint;
use super::fault::{
    default_fail_on_data_loss, default_task_max_failures, is_default_fail_on_data_loss,
    is_default_task_max_failures, Fault, OnRestart, Restart, StartingOffsets,
};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Everything that defines a run, together with the seed: the same scenario and seed give the same events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// The JSON Schema the file names (`"$schema": "../schemas/scenario.schema.json"`), if
    /// any: ignored, and never written.
    #[serde(rename = "$schema", default, skip_serializing)]
    #[schemars(skip)]
    pub schema: crate::spec_json::NamedSchema,
    /// Short name (a preset's name, or the file's).
    #[serde(default)]
    pub name: String,
    /// One line saying what the scenario shows.
    #[serde(default)]
    pub description: String,
    /// Seed of the world's PRNG (record jitter, UUIDs, store choices).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Number of trigger intervals over which upstream records arrive.
    pub batches: u64,
    /// The simulated CDC table.
    pub upstream: UpstreamSpec,
    /// The streaming source reading it.
    pub source: SourceSpec,
    /// The sink the query writes to.
    pub sink: SinkSpec,
    /// Processing-time trigger interval (Spark `Trigger.ProcessingTime`).
    #[serde(default = "default_trigger_interval_ms")]
    pub trigger_interval_ms: u64,
    /// How long a crashed or failed driver stays down before it is restarted.
    #[serde(default = "default_restart_delay_ms")]
    pub restart_delay_ms: u64,
    /// Driver crashes to inject, as recorded inputs.
    #[serde(default)]
    pub crashes: Vec<CrashPoint>,
    /// Crashes "now": the driver dies right after the event with this sequence number (the
    /// dashboard's Crash button), recorded so that a replay gives the same trace.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub crash_after_events: Vec<u64>,
    /// Micro-batch (`MicroBatchExecution`, the default) or continuous processing (`Trigger.Continuous`).
    #[serde(default, skip_serializing_if = "Execution::is_micro_batch")]
    pub execution: Execution,
    /// Failures that are not a driver crash (`task-fail@3`, `foreach-fail@3`, `checkpoint-deleted@3`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<Fault>,
    /// `spark.task.maxFailures`: attempts of one task before its job (and the batch) fails.
    #[serde(
        default = "default_task_max_failures",
        skip_serializing_if = "is_default_task_max_failures"
    )]
    pub task_max_failures: u32,
    /// Who restarts a failed query: `"none"`, or `{"after_ms": N}`; absent, a job scheduler
    /// restarts it after `restart_delay_ms`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart: Option<Restart>,
    /// The Spark release the query runs on (`"3.5"`, `"4.3"`): the restart rules that changed
    /// between releases follow it (4.2+ refuses to start without `metadata`). Absent: 4.3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spark_version: Option<String>,
    /// The most records one task can hold (a per-task memory budget): an attempt whose range
    /// holds more runs out of memory, as an executor OOM, and is retried; absent: no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub task_memory_records: Option<u64>,
    /// A change made before a restart: `{"from": 2, "max_offsets_per_trigger": 6}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_restart: Option<OnRestart>,
    /// Asynchronous progress tracking, `{"checkpoint_interval_ms": 1000}`; absent: off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub async_progress: Option<super::AsyncProgress>,
}

/// How the query executes.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Execution {
    /// Micro-batches (SEMANTICS §1).
    #[schemars(description = "Micro-batches (Spark's MicroBatchExecution).")]
    #[default]
    MicroBatch,
    /// Continuous processing with epochs (SEMANTICS §2): `trigger_interval_ms` is the epoch length.
    #[schemars(
        description = "Continuous processing with epochs (Spark's ContinuousExecution, Trigger.Continuous): `trigger_interval_ms` is the epoch length."
    )]
    Continuous,
}

impl Execution {
    /// Whether this is the default micro-batch mode.
    pub fn is_micro_batch(&self) -> bool {
        *self == Execution::MicroBatch
    }
}

pub(super) fn default_seed() -> u64 {
    7
}
pub(super) fn default_trigger_interval_ms() -> u64 {
    1000
}
pub(super) fn default_restart_delay_ms() -> u64 {
    1500
}

/// The simulated CDC table: channels (partitions), the arrival schedule and partition splits.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpstreamSpec {
    /// Number of channels (partitions) at the start.
    pub channels: u32,
    /// Records arriving on each channel per trigger interval.
    pub records_per_batch: u32,
    /// Stretches of time (ms) in which no record arrives.
    #[serde(default)]
    pub idle: Vec<Window>,
    /// Extra records arriving all at once.
    #[serde(default)]
    pub bursts: Vec<Burst>,
    /// Partition splits: the parent finishes and two children open.
    #[serde(default)]
    pub splits: Vec<SplitSpec>,
}

/// A half-open time window `[from_ms, to_ms)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Window {
    /// Start (inclusive).
    pub from_ms: u64,
    /// End (exclusive).
    pub to_ms: u64,
}

impl Window {
    /// Whether `t` lies in the window.
    pub fn contains(&self, t: u64) -> bool {
        self.from_ms <= t && t < self.to_ms
    }
}

/// A burst of records on one channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Burst {
    /// Channel index.
    pub channel: u32,
    /// When the burst arrives.
    pub at_ms: u64,
    /// How many records.
    pub records: u32,
}

/// A partition split: records of `channel` arriving at or after `at_ms` go to two new child channels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SplitSpec {
    /// The parent channel index.
    pub channel: u32,
    /// When the split happens.
    pub at_ms: u64,
}

/// Which source implementation reads the upstream.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum SourceKind {
    /// Kafka-like: next-offset-to-read per partition; the same range gives the same rows.
    ReplayableLog,
    /// Tablestore: a random UUID placeholder per batch, channel checkpoints in the Meta table.
    Tablestore,
    /// Reads the data in get_offset to learn the real end, and caches it (the design seed 000 rejects).
    #[schemars(
        description = "Reads the data in getOffset to learn the real end offset, and caches it: every row is read twice."
    )]
    PullAhead,
    /// Commits to the Tunnel server as it reads and restarts from the server's checkpoints.
    AutoCommit,
    /// SeaTunnel's source on Spark (SEMANTICS §4): `{"checkpointId":n}` offsets, one reader per
    /// subtask whose end is set by `reader`.
    #[schemars(
        description = "SeaTunnel's source on Spark (seatunnel-translation-spark): `{\"checkpointId\":n}` offsets, one reader per subtask whose end is set by `reader`."
    )]
    #[serde(rename = "seatunnel")]
    SeaTunnel,
}

impl SourceKind {
    /// Whether the source reads through the Tunnel server (and so supports partition splits).
    /// SeaTunnel's readers read their subtasks, not Tunnel channels.
    pub fn uses_tunnel(self) -> bool {
        matches!(
            self,
            SourceKind::Tablestore | SourceKind::PullAhead | SourceKind::AutoCommit
        )
    }

    /// Whether the source keeps channel checkpoints in a Meta table (Tablestore's UUID design
    /// and its auto-commit variant).
    pub fn uses_meta_table(self) -> bool {
        matches!(self, SourceKind::Tablestore | SourceKind::AutoCommit)
    }

    /// The Spark source API this kind implements when the scenario does not say: the
    /// Kafka-like log is Spark 3's V2 `KafkaMicroBatchStream`, the Tablestore-based sources
    /// are V1 `Source`s (the emr-tablestore connector), SeaTunnel's is a V2 `MicroBatchStream`.
    pub fn default_api(self) -> SourceApi {
        match self {
            SourceKind::ReplayableLog | SourceKind::SeaTunnel => SourceApi::V2,
            SourceKind::Tablestore | SourceKind::PullAhead | SourceKind::AutoCommit => {
                SourceApi::V1
            }
        }
    }
}

/// Which of Spark's micro-batch source APIs the source implements.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum SourceApi {
    /// The V1 `Source` (getOffset / getBatch). On a restart after a committed batch Spark calls
    /// getBatch of that batch once more without running it (`MicroBatchExecution.populateStartOffsets`).
    /// For the Kafka-like log: the V1 `KafkaSource`, which Spark 3+ uses only when
    /// `spark.sql.streaming.disabledV2MicroBatchReaders` names `KafkaSourceProvider` (Spark 2.x used it always).
    V1,
    /// The V2 `MicroBatchStream` (latestOffset / planInputPartitions): no extra call on restart.
    /// For the Kafka-like log: `KafkaMicroBatchStream`, Spark 3+'s default.
    V2,
}

/// The source and its options.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SourceSpec {
    /// Implementation.
    pub kind: SourceKind,
    /// Tablestore `maxOffsetsPerChannel` (rows one task may read from one channel per batch).
    #[serde(default = "default_max_offsets_per_channel")]
    pub max_offsets_per_channel: u32,
    /// Records per ReadRecords response of the Tunnel server.
    #[serde(default = "default_page_size")]
    pub page_size: u32,
    /// Kafka `maxOffsetsPerTrigger` (0 = unlimited).
    #[serde(default)]
    pub max_offsets_per_trigger: u64,
    /// SeaTunnel: when a micro-batch's reader ends.
    #[serde(default)]
    pub reader: ReaderEnd,
    /// SeaTunnel: the reader ends after this long without new rows (`idle-timeout`, `checkpoint-records`).
    #[serde(default = "default_idle_timeout_ms")]
    pub idle_timeout_ms: u64,
    /// SeaTunnel: the checkpoint timer (`checkpoint.interval`): PR #7476's fires once per batch,
    /// committed-only's every interval.
    #[serde(default = "default_checkpoint_interval_ms")]
    pub checkpoint_interval_ms: u64,
    /// SeaTunnel: which checkpoint-record design runs (PR #7476 as its code does it, or the safer
    /// committed-only variant).
    #[serde(default, skip_serializing_if = "SeaTunnelDesign::is_pr_7476")]
    pub design: SeaTunnelDesign,
    /// Kafka-like log: where a new query starts (`startingOffsets`, default `latest` as Spark).
    #[serde(default, skip_serializing_if = "StartingOffsets::is_latest")]
    pub starting_offsets: StartingOffsets,
    /// The Spark source API (`v1` or `v2`); absent: the kind's own (the Kafka-like log and
    /// SeaTunnel `v2`; tablestore, pull-ahead and auto-commit `v1`).
    /// Only the Kafka-like log has both: `v1` is the V1 `KafkaSource` (Spark 3+ with
    /// `spark.sql.streaming.disabledV2MicroBatchReaders` naming `KafkaSourceProvider`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<SourceApi>,
    /// Kafka-like log: a record is deleted from the log `retention_ms` after it arrived (the
    /// log-start offset moves past it; Kafka's `retention.ms`, simplified); absent: the log
    /// keeps everything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub retention_ms: Option<u64>,
    /// Kafka-like log: Spark's `failOnDataLoss` (default `true`): a task whose range retention
    /// removed fails the query; `false` skips what is gone.
    #[serde(
        default = "default_fail_on_data_loss",
        skip_serializing_if = "is_default_fail_on_data_loss"
    )]
    pub fail_on_data_loss: bool,
}

impl SourceSpec {
    /// The Spark source API this source runs as: the scenario's `api`, else the kind's own.
    pub fn api(&self) -> SourceApi {
        self.api.unwrap_or(self.kind.default_api())
    }
}

/// How a SeaTunnel reader restores and when its sink writer makes rows visible.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum SeaTunnelDesign {
    /// PR #7476 as its code does it (apache/seatunnel 34c5d786): each reader's checkpoint timer
    /// fires once per micro-batch and a reader that closes writes no snapshot; a reader restores
    /// from its folder's next `.prepared` (newest `.committed` id + 1), then its newest
    /// `.committed`, walking back over older folders and preferring a newer `.prepared`; the sink
    /// writer flushes the rows at a checkpoint record (a sink without a committer) and drops the
    /// commit info `prepareCommit` returns.
    #[default]
    #[serde(rename = "pr-7476")]
    Pr7476,
    /// A safer design the PR does not have: restore only from `.committed`; a checkpoint record
    /// every interval and a last snapshot as the reader closes; a re-run's snapshot replaces a
    /// stale `.prepared`. The rows before a record are visible before the rename.
    CommittedOnly,
}

impl SeaTunnelDesign {
    /// Whether this is PR #7476 as its code does it (the default, left out of the JSON).
    pub fn is_pr_7476(&self) -> bool {
        *self == SeaTunnelDesign::Pr7476
    }
}

/// When a SeaTunnel micro-batch reader's `next()` returns false.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum ReaderEnd {
    /// Never in streaming mode: `while (running && handover.isEmpty()) sleep` (seed 001) — the batch never ends.
    #[schemars(
        description = "Never in streaming mode: `while (running && handover.isEmpty()) sleep` in SeaTunnel's micro-batch reader — the batch never ends."
    )]
    #[default]
    Never,
    /// After `idle_timeout_ms` without new rows (the fix discussed in seed 001 / PR #7476).
    /// Under `pr-7476` the PR's one checkpoint timer runs too (its reader always has it); under
    /// `committed-only` the reader snapshots only as it closes.
    #[schemars(
        description = "After `idle_timeout_ms` without new rows (the fix in SeaTunnel PR #7476). Under `pr-7476` the PR's one checkpoint timer per batch runs too; under `committed-only` the reader snapshots only as it closes."
    )]
    IdleTimeout,
    /// As `IdleTimeout`, with in-band checkpoint records: once per reader and batch under
    /// `pr-7476` (the PR's timer is scheduled once), every `checkpoint_interval_ms` under
    /// `committed-only`. The reader writes `<id>.prepared`, the sink takes the rows before the
    /// record and renames it `<id>.committed`.
    CheckpointRecords,
    /// The merged dev reader: after `checkpoint_interval_ms` one virtual checkpoint appends its
    /// state to `sources/0/<subtask>/1` and `next()` returns false (the batch ends on a timer);
    /// `latestOffset` stays at the in-memory `currentOffset` until `commit`.
    VirtualCheckpoint,
}

pub(super) fn default_idle_timeout_ms() -> u64 {
    2_000
}
pub(super) fn default_checkpoint_interval_ms() -> u64 {
    1_000
}

pub(super) fn default_max_offsets_per_channel() -> u32 {
    10_000
}
pub(super) fn default_page_size() -> u32 {
    4
}

/// Which sink the query writes to.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum SinkKind {
    /// FileStreamSink: skips a batch id already in its `_spark_metadata` manifest, before any task runs.
    File,
    /// Writes each row by primary key as tasks finish (Cassandra, HBase, Tablestore tables).
    Upsert,
    /// Tasks append rows as they go; a replayed batch appends them again.
    Append,
    /// foreachBatch writing the whole batch to one of several stores, chosen at random per call (seed 004).
    #[schemars(
        description = "foreachBatch writing the whole batch to one of several stores, chosen at random per call."
    )]
    ForeachBatch,
    /// DSv2 StreamingWrite: tasks stage rows, the driver's commit(epoch) publishes them and skips an epoch already committed.
    TwoPhase,
    /// A V1 sink whose `addBatch` skips `batchId <= latestBatchId`, with `latestBatchId` kept in a
    /// driver-side field initialised to -1: de-duplicates within a run, forgets on a restart.
    BatchIdInMemory,
    /// foreachBatch writing each batch as one Delta transaction with `txnAppId` = the query id
    /// and `txnVersion` = the batch id: the table skips a version it already has for that id.
    TxnAppId,
}

impl SinkKind {
    /// Every sink kind.
    pub const ALL: [SinkKind; 7] = [
        SinkKind::File,
        SinkKind::Upsert,
        SinkKind::Append,
        SinkKind::ForeachBatch,
        SinkKind::TwoPhase,
        SinkKind::BatchIdInMemory,
        SinkKind::TxnAppId,
    ];

    /// The stable name used in scenario files, the CLI (`inspect --sink-kind`) and URLs: its
    /// serde name (`file`, `upsert`, `append`, `foreach-batch`, `two-phase`,
    /// `batch-id-in-memory`).
    pub fn name(self) -> &'static str {
        match self {
            SinkKind::File => "file",
            SinkKind::Upsert => "upsert",
            SinkKind::Append => "append",
            SinkKind::ForeachBatch => "foreach-batch",
            SinkKind::TwoPhase => "two-phase",
            SinkKind::BatchIdInMemory => "batch-id-in-memory",
            SinkKind::TxnAppId => "txn-app-id",
        }
    }

    /// Reads a stable name ([`SinkKind::name`]).
    pub fn parse(text: &str) -> Option<SinkKind> {
        SinkKind::ALL.into_iter().find(|k| k.name() == text)
    }
}

impl fmt::Display for SinkKind {
    /// Its stable name ([`SinkKind::name`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The sink and its faults.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SinkSpec {
    /// Implementation.
    pub kind: SinkKind,
    /// Number of stores a foreachBatch function chooses from.
    #[serde(default = "default_stores")]
    pub stores: u32,
    /// Windows in which every sink write fails (the store is down).
    #[serde(default)]
    pub outages: Vec<Window>,
    /// What an upsert sink keeps per key: each record (the default), or a running sum.
    #[serde(default, skip_serializing_if = "SinkValue::is_record")]
    pub value: SinkValue,
}

/// What an upsert sink keeps under each key.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum SinkValue {
    /// Each record under its own key: a replayed record overwrites itself.
    #[default]
    Record,
    /// A running sum of `amount` per user (`user-<id>`), written read-add-write by the tasks
    /// (a counter column, an aggregation table): a replayed batch is added a second time.
    RunningSum,
}

impl SinkValue {
    /// Whether this is the default (each record under its key).
    pub fn is_record(&self) -> bool {
        *self == SinkValue::Record
    }
}

pub(super) fn default_stores() -> u32 {
    3
}

/// A scenario that is not valid, naming the field and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Dotted path of the offending field (`upstream.channels`), or `scenario` for the whole file.
    pub field: String,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for ScenarioError {
    /// One line: control characters a reason quotes from the input (a newline in a string
    /// value) are escaped, so a rejection never spans lines nor moves a terminal's cursor.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}",
            crate::spec_json::printable(&self.field),
            crate::spec_json::printable(&self.reason)
        )
    }
}

impl std::error::Error for ScenarioError {}

pub(super) fn invalid(field: &str, reason: impl Into<String>) -> ScenarioError {
    ScenarioError {
        field: field.to_string(),
        reason: reason.into(),
    }
}

/// Upper bounds that keep a run within memory and time.
pub const MAX_CHANNELS: u32 = 4096;
/// Upper bound on `batches`.
pub const MAX_BATCHES: u64 = 100_000;

impl Scenario {
    /// Parses and validates a scenario from JSON text.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        // serde_json names the line and column; the path names the field a type error is in.
        let scenario: Scenario = crate::spec_json::parse_naming_field(text)
            .map_err(|(field, e)| invalid(field.as_deref().unwrap_or("scenario"), e))?;
        scenario.validate()?;
        Ok(scenario)
    }

    /// Serializes the scenario as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("scenario serializes")
    }

    /// When the last record arrives (an upper bound): the end of the data.
    pub fn data_end_ms(&self) -> u64 {
        let bursts = self
            .upstream
            .bursts
            .iter()
            .map(|b| b.at_ms + 1)
            .max()
            .unwrap_or(0);
        (self.batches * self.trigger_interval_ms).max(bursts)
    }
}
