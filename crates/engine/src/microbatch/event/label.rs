//! How an event reads: its lanes in the sequence diagram, the batch it belongs to, and its
//! short arrow label (its JSON type name is its tag's, in `tag.rs`).

use super::sink_outcome::CommitTarget;
use super::{short, Actor, EventKind, Recovery};
use crate::microbatch::scenario::SourceKind;

impl EventKind {
    /// From which lane to which lane the arrow goes.
    pub fn lanes(&self) -> (Actor, Actor) {
        self.lanes_of(None)
    }

    /// [`EventKind::lanes`] in a scenario whose source is `source`: Spark 3's Kafka source
    /// commits nothing to the broker (`KafkaMicroBatchStream.commit` is empty), so its
    /// `source.commit` stays on the source's own lane.
    pub fn lanes_for(&self, source: SourceKind) -> (Actor, Actor) {
        self.lanes_of(Some(source))
    }

    fn lanes_of(&self, source: Option<SourceKind>) -> (Actor, Actor) {
        use Actor::*;
        match self {
            EventKind::QueryStarted { .. } => (Driver, Checkpoint),
            EventKind::Recovered { .. } => (Checkpoint, Driver),
            EventKind::RecoveryGetBatch { .. } => (Driver, Source),
            EventKind::SourceInitialized { meta_rows, .. } => {
                if meta_rows.is_empty() {
                    (Source, Checkpoint)
                } else {
                    (Source, MetaTable)
                }
            }
            EventKind::TriggerFired { .. } => (Driver, Driver),
            EventKind::EpochAdvanced { .. } => (Driver, Tasks),
            EventKind::GetOffset { .. } => (Driver, Source),
            EventKind::NoNewData { .. } => (Source, Driver),
            EventKind::OffsetLogWritten { .. } => (Driver, Checkpoint),
            EventKind::SourceCommit { .. } if source == Some(SourceKind::ReplayableLog) => {
                (Source, Source)
            }
            EventKind::SourceCommit { .. } => (Source, Tunnel),
            EventKind::ChannelState { .. } => (Tunnel, Tunnel),
            EventKind::GetBatch { .. } => (Driver, Source),
            EventKind::AddBatch { .. } => (Driver, Sink),
            EventKind::TaskRead { error: Some(_), .. } => (Tasks, Driver),
            EventKind::TaskRead {
                from_cache: true, ..
            } => (Tasks, Source),
            EventKind::TaskRead { .. } => (Tasks, Tunnel),
            EventKind::MetaRowWritten { .. } => (Tasks, MetaTable),
            EventKind::ReaderPolled { .. } => (Tasks, Tunnel),
            EventKind::StateFile {
                renamed_from: None, ..
            } => (Tasks, Checkpoint),
            EventKind::StateFile { .. } => (Sink, Checkpoint),
            EventKind::TaskFinished { .. } => (Tasks, Sink),
            EventKind::SinkWriteFailed { .. } => (Sink, Driver),
            EventKind::TaskFailed { .. } => (Tasks, Driver),
            EventKind::CheckpointDeleted { .. } => (Driver, Checkpoint),
            EventKind::OffsetLogTorn { .. } | EventKind::MetadataLost => (Checkpoint, Driver),
            EventKind::DriverStalled { .. } => (Driver, Driver),
            EventKind::DriverLostLogRace { .. } => (Checkpoint, Driver),
            // SeaTunnel's prepareCommit runs in the task's sink writer.
            EventKind::SinkCommitted {
                target: CommitTarget::Prepared { .. } | CommitTarget::Record { .. },
                ..
            } => (Tasks, Sink),
            EventKind::SinkCommitted { .. } => (Driver, Sink),
            EventKind::CommitLogWritten { .. } => (Driver, Checkpoint),
            EventKind::CheckpointWriteRejected { .. } => (Checkpoint, Driver),
            EventKind::LogKeptInMemory { .. } => (Driver, Driver),
            EventKind::Idle { .. } => (Driver, Driver),
            EventKind::Crashed { .. } => (Driver, Driver),
            // Drawn from where the failure came: a task (read error, spark.task.maxFailures),
            // the checkpoint folder (a concurrent update), or the sink.
            EventKind::QueryFailed { reason } => (failed_from(reason), Driver),
        }
    }

    /// [`EventKind::label`] in a scenario whose source is `source`: a Kafka task fetches from
    /// its partition (Tablestore's tasks call ReadRecords on a channel).
    pub fn label_for(&self, source: SourceKind) -> String {
        let log = source == SourceKind::ReplayableLog;
        match self {
            EventKind::TaskRead {
                partition,
                channel,
                from,
                error: Some(_),
                ..
            } if log => format!(
                "task {partition} {channel}: offset {} aged out, throws",
                from.offset_or_zero()
            ),
            EventKind::TaskRead { aged_out, .. } if log && *aged_out > 0 => format!(
                "{} ({aged_out} aged out, skipped)",
                self.label().replacen("ReadRecords", "fetch", 1)
            ),
            EventKind::TaskRead { .. } if log => self.label().replacen("ReadRecords", "fetch", 1),
            _ => self.label(),
        }
    }

    /// The batch the event belongs to, if any.
    pub fn batch_id(&self) -> Option<u64> {
        match self {
            EventKind::EpochAdvanced { epoch: batch_id }
            | EventKind::RecoveryGetBatch { batch_id }
            | EventKind::TriggerFired { batch_id }
            | EventKind::GetOffset { batch_id, .. }
            | EventKind::NoNewData { batch_id }
            | EventKind::OffsetLogWritten { batch_id, .. }
            | EventKind::GetBatch { batch_id, .. }
            | EventKind::AddBatch { batch_id, .. }
            | EventKind::TaskRead { batch_id, .. }
            | EventKind::MetaRowWritten { batch_id, .. }
            | EventKind::ReaderPolled { batch_id, .. }
            | EventKind::StateFile { batch_id, .. }
            | EventKind::TaskFinished { batch_id, .. }
            | EventKind::SinkWriteFailed { batch_id, .. }
            | EventKind::TaskFailed { batch_id, .. }
            | EventKind::SinkCommitted { batch_id, .. }
            | EventKind::CommitLogWritten { batch_id, .. }
            | EventKind::LogKeptInMemory { batch_id, .. }
            | EventKind::DriverStalled { batch_id } => Some(*batch_id),
            EventKind::SourceCommit { batch_id, .. } => Some(batch_id + 1),
            EventKind::Crashed { point, .. } => point.map(|p| p.batch_id),
            _ => None,
        }
    }

    /// The batch whose offsets this event logs: `offsets/N` written, or kept in the driver's
    /// memory by async progress tracking (the batch is constructed either way).
    pub fn offsets_logged(&self) -> Option<u64> {
        match self {
            EventKind::OffsetLogWritten { batch_id, .. } => Some(*batch_id),
            EventKind::LogKeptInMemory { batch_id, path } if path.starts_with("offsets/") => {
                Some(*batch_id)
            }
            _ => None,
        }
    }

    /// The batch this event finishes: `commits/N` written, or kept in the driver's memory by
    /// async progress tracking.
    pub fn batch_done(&self) -> Option<u64> {
        match self {
            EventKind::CommitLogWritten { batch_id, .. } => Some(*batch_id),
            EventKind::LogKeptInMemory { batch_id, path } if path.starts_with("commits/") => {
                Some(*batch_id)
            }
            _ => None,
        }
    }

    /// A short label for the arrow (`GetOffset`, `offsets/3`, `Commit(uuid-7f3a)`).
    pub fn label(&self) -> String {
        match self {
            EventKind::QueryStarted {
                created,
                max_offsets_per_trigger: m,
                ..
            } => started(*created, *m),
            EventKind::Recovered { recovery, .. } => recovery_label(recovery),
            EventKind::RecoveryGetBatch { batch_id } => format!("GetBatch({batch_id}) not run"),
            EventKind::SourceInitialized { path, .. } => format!("init {path}"),
            EventKind::TriggerFired { batch_id } => format!("trigger batch {batch_id}"),
            EventKind::EpochAdvanced { epoch } => format!("epoch {epoch} marker"),
            EventKind::GetOffset { end, .. } => format!("GetOffset → {}", short(end)),
            EventKind::NoNewData { .. } => "no new data".into(),
            EventKind::OffsetLogWritten { batch_id, .. } => format!("write offsets/{batch_id}"),
            EventKind::SourceCommit { end, .. } => format!("Commit({})", short(end)),
            EventKind::ChannelState { channel, state } => format!("{channel} → {state}"),
            EventKind::GetBatch { start, end, .. } => format!(
                "GetBatch({}, {})",
                start.as_deref().map(short).unwrap_or_else(|| "None".into()),
                short(end)
            ),
            EventKind::AddBatch { batch_id, skipped } => {
                if *skipped {
                    format!("addBatch({batch_id}): skip")
                } else {
                    format!("addBatch({batch_id})")
                }
            }
            EventKind::TaskRead { .. } => task_read_label(self),
            EventKind::ReaderPolled {
                partition,
                rows,
                idle_ms,
                closes,
                ..
            } => {
                if *closes {
                    format!("reader {partition}: idle {idle_ms} ms, next() = false")
                } else {
                    format!(
                        "reader {partition}: next() +{} (idle {idle_ms} ms)",
                        rows_text(*rows)
                    )
                }
            }
            EventKind::StateFile {
                path,
                renamed_from: None,
                ..
            } => format!("write {path}"),
            EventKind::StateFile { path, .. } => format!("rename → {path}"),
            EventKind::MetaRowWritten { uuid, row, .. } => {
                format!("putRow {} {} = {}", short(uuid), row.channel, row.token)
            }
            EventKind::TaskFinished {
                partition,
                rows,
                effect,
                ..
            } => format!("task {partition}: {} {effect}", rows_text(*rows)),
            EventKind::SinkWriteFailed { .. } => "write failed".into(),
            EventKind::TaskFailed { .. } => task_failed(self),
            EventKind::CheckpointDeleted { .. }
            | EventKind::OffsetLogTorn { .. }
            | EventKind::MetadataLost => folder_label(self),
            EventKind::SinkCommitted {
                batch_id,
                skipped,
                target,
                ..
            } => commit_label(*batch_id, *skipped, target),
            EventKind::CommitLogWritten { batch_id, .. } => format!("write commits/{batch_id}"),
            EventKind::Idle { until_ms } => format!("wait until {until_ms} ms"),
            EventKind::LogKeptInMemory { path, .. } => format!("{path} in memory only"),
            EventKind::CheckpointWriteRejected { .. }
            | EventKind::DriverStalled { .. }
            | EventKind::DriverLostLogRace { .. }
            | EventKind::Crashed { .. }
            | EventKind::QueryFailed { .. } => stop_label(self),
        }
    }
}

/// The arrow of a task's read: a start row that throws, a cached read, a ReadRecords call.
fn task_read_label(kind: &EventKind) -> String {
    match kind {
        EventKind::TaskRead {
            partition,
            channel,
            error: Some(_),
            ..
        } => format!("task {partition} {channel}: start row `finished`, throws"),
        EventKind::TaskRead {
            channel,
            rows,
            from_cache: true,
            ..
        } => format!("cached {channel}: {}", rows_text(*rows)),
        EventKind::TaskRead { channel, rows, .. } => {
            format!("ReadRecords {channel}: {}", rows_text(*rows))
        }
        _ => String::new(),
    }
}

/// The arrow of a driver that stops or stalls, or of a refused log write.
fn stop_label(kind: &EventKind) -> String {
    match kind {
        EventKind::CheckpointWriteRejected { path } => format!("{path} exists: rejected"),
        EventKind::DriverStalled { batch_id } => {
            format!("driver stalls before commits/{batch_id}; a second driver starts")
        }
        EventKind::DriverLostLogRace { batch_id, .. } => {
            format!("first driver wakes: commits/{batch_id} exists, it fails")
        }
        EventKind::Crashed {
            point: Some(point), ..
        } => format!("CRASH at {point}"),
        EventKind::Crashed { after_seq, .. } => format!("CRASH after #{after_seq}"),
        _ => "query failed".into(),
    }
}

/// Where a query's failure came from, by its reason: a task (read error,
/// spark.task.maxFailures), the checkpoint folder (a concurrent update, an unreadable log, a
/// refused restart), or the sink.
fn failed_from(reason: &str) -> Actor {
    if reason.to_ascii_lowercase().starts_with("task ") {
        Actor::Tasks
    } else if reason.starts_with("Concurrent update")
        || reason.starts_with("Failed to read")
        || reason.starts_with("[STREAMING_CHECKPOINT")
        || reason.starts_with("assertion failed: There are")
        || reason.starts_with("requirement failed: Previous batch")
        || reason.starts_with("batch ")
    {
        Actor::Checkpoint
    } else {
        Actor::Sink
    }
}

/// What happened to the folder while the query was down (`offsets/2 empty`).
fn folder_label(kind: &EventKind) -> String {
    match kind {
        EventKind::CheckpointDeleted { files } => {
            format!("checkpoint folder deleted ({files} files)")
        }
        EventKind::OffsetLogTorn { batch_id, .. } => format!("offsets/{batch_id} empty"),
        _ => "metadata lost".into(),
    }
}

/// The restart's decision (`commits/2 missing: re-run 2`).
fn recovery_label(recovery: &Recovery) -> String {
    match recovery {
        Recovery::Fresh => "no offsets: fresh query".into(),
        Recovery::Rerun { batch_id } => format!("commits/{batch_id} missing: re-run {batch_id}"),
        Recovery::Next { batch_id } => format!("committed: next batch {batch_id}"),
        Recovery::Failed => "cannot restart: fail".into(),
    }
}

/// The arrow of a start: a new query, a restart, a restart with a new limit (`on_restart`).
fn started(created: bool, max_offsets_per_trigger: Option<u64>) -> String {
    match (created, max_offsets_per_trigger) {
        (true, _) => "start: write metadata".into(),
        (false, Some(n)) => format!("restart (maxOffsetsPerTrigger {n}): read metadata"),
        (false, None) => "restart: read metadata".into(),
    }
}

/// `task 1 attempt 2 failed (sink down): retry`, of a [`EventKind::TaskFailed`].
fn task_failed(kind: &EventKind) -> String {
    let EventKind::TaskFailed {
        partition,
        attempt,
        retried,
        sink_down,
        oom_records,
        ..
    } = kind
    else {
        unreachable!("the label of a failed task")
    };
    let why = match (sink_down, oom_records) {
        (Some(_), _) => " (sink down)",
        (None, 0) => "",
        _ => " (out of memory)",
    };
    let then = if *retried { "retry" } else { "abort job" };
    format!("task {partition} attempt {attempt} failed{why}: {then}")
}

/// `1 row`, `3 rows`.
pub fn rows_text(n: u64) -> String {
    if n == 1 {
        "1 row".into()
    } else {
        format!("{n} rows")
    }
}

/// The arrow of a sink commit: SeaTunnel's records in the task's writer, else the batch's commit.
fn commit_label(batch_id: u64, skipped: bool, target: &CommitTarget) -> String {
    match target {
        CommitTarget::Prepared { .. } => "prepareCommit: rows flushed".into(),
        CommitTarget::Record { checkpoint_id, .. } => {
            format!("record {checkpoint_id}: rows visible")
        }
        CommitTarget::Visible(_) if skipped => format!("commit {batch_id}: duplicate, skipped"),
        CommitTarget::Visible(_) => format!("commit batch {batch_id}"),
    }
}
