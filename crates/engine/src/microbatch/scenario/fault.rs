//! Failures that are not a driver crash (a task attempt fails, a foreachBatch function throws,
//! the checkpoint folder is deleted, an offset-log entry is torn, `metadata` is lost), who
//! restarts a failed query, and where a new query starts reading (`startingOffsets`), the
//! Kafka-like log's retention with `failOnDataLoss`, and what an operator changes at a
//! restart (`on_restart`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A kind of failure inside (or around) a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultKind {
    /// One task attempt of batch N fails after handing its rows to the sink; Spark's
    /// `TaskSetManager` retries it up to `spark.task.maxFailures` times.
    TaskFail,
    /// The foreachBatch function throws after writing its store: the batch and the query fail.
    ForeachFail,
    /// The query is killed after `commits/N`, the checkpoint folder is deleted, and the restart
    /// is a new query reading from the source's `startingOffsets`.
    CheckpointDeleted,
    /// The driver's machine loses power after the sink wrote batch N, before `commits/N`; on a
    /// store that writes in place (no atomic rename) `offsets/N` had not reached the disk and is
    /// found empty: the restart cannot read it.
    TornOffsetLog,
    /// The driver is killed after the sink wrote batch N, before `commits/N`, and the
    /// checkpoint's `metadata` file is lost before the restart.
    MetadataLost,
    /// The driver stalls after the sink wrote batch N, before `commits/N` (a long GC pause, a
    /// network partition); a job scheduler that takes it for dead starts a second driver on the
    /// same checkpoint. When the first wakes, its write of `commits/N` finds the file there.
    SecondDriver,
}

impl FaultKind {
    /// Every fault kind.
    pub const ALL: [FaultKind; 6] = [
        FaultKind::TaskFail,
        FaultKind::ForeachFail,
        FaultKind::CheckpointDeleted,
        FaultKind::TornOffsetLog,
        FaultKind::MetadataLost,
        FaultKind::SecondDriver,
    ];

    /// The stable name used in the CLI, URLs and tests.
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::TaskFail => "task-fail",
            FaultKind::ForeachFail => "foreach-fail",
            FaultKind::CheckpointDeleted => "checkpoint-deleted",
            FaultKind::TornOffsetLog => "torn-offset-log",
            FaultKind::MetadataLost => "metadata-lost",
            FaultKind::SecondDriver => "second-driver",
        }
    }

    /// Parses a stable name.
    pub fn from_name(name: &str) -> Option<FaultKind> {
        FaultKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// A fault at batch `batch_id` (`task-fail@3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fault {
    /// What fails.
    pub kind: FaultKind,
    /// In which batch.
    pub batch_id: u64,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}", self.kind.name(), self.batch_id)
    }
}

/// Why a fault could not be parsed (one line, naming the kind).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultError(pub String);

impl fmt::Display for FaultError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FaultError {}

impl std::str::FromStr for Fault {
    type Err = FaultError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let names = FaultKind::ALL.map(|k| k.name()).join(", ");
        let (name, batch) = s.split_once('@').ok_or_else(|| {
            FaultError(format!(
                "fault `{}` must look like KIND@BATCH, e.g. task-fail@3 (kinds: {names})",
                crate::spec_json::printable(s)
            ))
        })?;
        let kind = FaultKind::from_name(name).ok_or_else(|| {
            FaultError(format!(
                "unknown fault kind `{}` (known: {names})",
                crate::spec_json::printable(name)
            ))
        })?;
        let batch_id = batch.parse().map_err(|_| {
            FaultError(format!(
                "fault `{}`: batch `{}` is not a batch id (a whole number ≥ 0)",
                crate::spec_json::printable(s),
                crate::spec_json::printable(batch)
            ))
        })?;
        Ok(Fault { kind, batch_id })
    }
}

impl Serialize for Fault {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Fault {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::spec_json::deserialize_parsed(d)
    }
}

/// Who restarts a query that failed or whose driver died. Spark itself never restarts a failed
/// query (`StreamingQuery.awaitTermination` throws); an operator or a job scheduler does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Restart {
    /// Nobody: the run ends with the query failed (`"restart": "none"`). Records it never
    /// delivered are still upstream for a later start: the oracle counts them as unread, not
    /// lost (verdict `stopped` when nothing else went wrong).
    None,
    /// A job scheduler restarts it after this long (`"restart": {"after_ms": 500}`).
    After {
        /// Delay before the restart.
        after_ms: u64,
    },
}

impl Serialize for Restart {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Restart::None => s.serialize_str("none"),
            Restart::After { after_ms } => {
                use serde::ser::SerializeMap;
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("after_ms", after_ms)?;
                m.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Restart {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const SHAPE: &str = r#"restart must be "none" or {"after_ms": N}"#;
        let value = serde_json::Value::deserialize(d)?;
        match &value {
            serde_json::Value::String(s) if s == "none" => Ok(Restart::None),
            serde_json::Value::Object(map) if map.len() == 1 => map
                .get("after_ms")
                .and_then(serde_json::Value::as_u64)
                .map(|after_ms| Restart::After { after_ms })
                .ok_or_else(|| serde::de::Error::custom(SHAPE)),
            _ => Err(serde::de::Error::custom(SHAPE)),
        }
    }
}

/// Where a new query starts reading a Kafka-like log (`startingOffsets`). Only used when a
/// query starts without a checkpoint; a restart always continues from the checkpoint.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum StartingOffsets {
    /// The end of every partition when the query starts: what arrived before is skipped
    /// (Spark's default for streaming queries, `KafkaSourceProvider`).
    #[default]
    Latest,
    /// The beginning of every partition.
    Earliest,
}

impl StartingOffsets {
    /// Whether this is Spark's default (`latest`).
    pub fn is_latest(&self) -> bool {
        *self == StartingOffsets::Latest
    }
}

/// `spark.task.maxFailures` default on a cluster (in `local[N]` it is 1).
pub fn default_task_max_failures() -> u32 {
    4
}

/// Whether `n` is the default of `spark.task.maxFailures` (left out of the JSON).
pub fn is_default_task_max_failures(n: &u32) -> bool {
    *n == default_task_max_failures()
}

/// The Kafka-like log's log-start offset at `now_ms` under `retention_ms` (Kafka's
/// `retention.ms`, simplified: each record is deleted exactly `retention_ms` after it arrived;
/// Kafka deletes whole segments, later), for a partition whose records `arrived` counts (how
/// many arrived at or before a moment): the first record that arrived less than
/// `retention_ms` before `now_ms`.
pub fn log_start(retention_ms: u64, now_ms: u64, arrived: impl Fn(u64) -> u64) -> u64 {
    match now_ms.checked_sub(retention_ms.saturating_add(1)) {
        Some(cutoff) => arrived(cutoff),
        None => 0,
    }
}

/// Spark's `failOnDataLoss` default (`true`).
pub fn default_fail_on_data_loss() -> bool {
    true
}

/// Whether `failOnDataLoss` is its default (left out of the JSON).
pub fn is_default_fail_on_data_loss(b: &bool) -> bool {
    *b
}

/// A change of the query an operator makes before a restart (`"on_restart": {"from": 2,
/// "max_offsets_per_trigger": 6}`), in force from the `from`-th restart on: the Kafka-like
/// log's `maxOffsetsPerTrigger` (a batch already in `offsets/` keeps its logged range: Spark
/// re-runs it as logged; the limit applies from the next batch constructed), or the number of
/// (unnamed) sources the query reads (Spark matches the offset log's lines to the query's
/// sources by position and refuses a different count: `OffsetSeq.toStreamProgress`), or async
/// progress tracking turned off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OnRestart {
    /// The restart the change is made before (1 = the first restart); it stays for later ones.
    #[serde(default = "first_restart")]
    #[schemars(range(min = 1))]
    pub from: u32,
    /// The new `maxOffsetsPerTrigger` (0 = no limit); absent: unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_offsets_per_trigger: Option<u64>,
    /// How many sources the restarted query reads (the scenario's one, plus sources added, or
    /// fewer); absent: unchanged. The added sources are never read: Spark refuses the restart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub sources: Option<u32>,
    /// `false`: the restarted query runs without async progress tracking (`true` is not
    /// modelled: give `async_progress` from the start); absent: unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub async_progress: Option<bool>,
}

fn first_restart() -> u32 {
    1
}
