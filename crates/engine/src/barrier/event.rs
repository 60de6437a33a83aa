//! The topology world's events: one [`BarrierEvent`] per observable action, with a closed set
//! of kinds ([`BarrierEventKind`]) and their payload types.
//!
//! The envelope is `{ step, at_ms, kind }`: `step` is the number of events before this one (the
//! micro-batch `Event` calls the same number `seq`; the dashboard reads `step`). The serde
//! output is `{"step": N, "at_ms": T, "kind": {"event": "snake_case_name", ...}}`.

use serde::{Deserialize, Serialize};

/// A CDC record of the simulated upstream: one shopping row with its CDC time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CdcRecord {
    /// Position in the CDC stream, from 0 (with several CDC sources: in all of them together,
    /// in arrival order).
    pub offset: u64,
    /// The CDC source it comes from (left out of the JSON when it is the default `cdc`).
    #[serde(default = "default_source", skip_serializing_if = "is_default_source")]
    pub source: String,
    /// CDC time.
    pub at_ms: u64,
    /// `[userId, itemId, amount, price]`.
    pub row: [i64; 4],
}

impl CdcRecord {
    /// Its source's name, unless it is the default `cdc` (which one-source topologies leave
    /// unnamed in traces).
    pub fn named_source(&self) -> Option<&str> {
        (!is_default_source(&self.source)).then_some(self.source.as_str())
    }
}

fn default_source() -> String {
    super::spec::CDC_SOURCE.to_string()
}

fn is_default_source(source: &str) -> bool {
    source == super::spec::CDC_SOURCE
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

/// One corrected row of a revised barrier and the row it replaced (matched by the revision's
/// key columns), in the root table's columns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowCorrection {
    /// CDC offset of the record replaced; `None` when the corrected row matched no row of the
    /// barrier and is added.
    pub cdc_offset: Option<u64>,
    /// The row replaced (`None` when added).
    pub before: Option<Vec<i64>>,
    /// The corrected row.
    pub after: Vec<i64>,
}

/// Why a job recovers after a revision: the revised barrier, and (for the root table's job,
/// which replays it from CDC) the rows replaced in it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevisionReplay {
    /// Table revised.
    pub table: String,
    /// Barrier revised.
    pub barrier: u64,
    /// The rows the replay of that barrier replaces (the root table's job only).
    pub replaced: Vec<RowCorrection>,
}

/// When a job failed, relative to the transaction of the barrier in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailPhase {
    /// Its table had not PROCESSED the barrier yet.
    BeforeProcessed,
    /// PROCESSED in its table, but not in all tables: not yet PRECOMMIT.
    BeforePrecommit,
    /// PRECOMMIT (PROCESSED in all tables), not yet WRITTEN in its table.
    AfterPrecommit,
    /// Without timestamp barriers: its own checkpoint in flight was not WRITTEN yet (there is no
    /// PRECOMMIT across jobs).
    OwnCheckpoint,
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
        /// The upstream snapshot read had already expired (its id): a Paimon reader would find
        /// its files deleted and fail; the model keeps the data (expiry is bookkeeping). Expiry
        /// keeps what a job's checkpoint replays, so only a revision, rolling a job back past
        /// its checkpoint, can lead here.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expired_snapshot: Option<u64>,
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
        /// A Kafka table: no snapshot, the barrier's transaction was pre-committed into the
        /// job's checkpoint (its commit follows on COMMIT).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        precommitted_txn: bool,
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
        /// Where the barrier in flight (the first its table has not WRITTEN) stood.
        phase: FailPhase,
        /// That barrier.
        in_flight: u64,
        /// Checkpoint restored (`<checkpoint, barrier>`: it ends with `restored_barrier`).
        restored_checkpoint: u64,
        /// Last barrier of the restored checkpoint.
        restored_barrier: u64,
        /// Barriers after the checkpoint the job processes again, from the stored
        /// `<barrier, offset>` ranges (those its table already WRITTEN are recomputed and
        /// found identical, not written twice).
        replayed_barriers: Vec<u64>,
        /// PROCESSED barriers rolled back.
        lost_barriers: Vec<u64>,
        /// Set when this failure spent the job's restart attempts: the restart strategy gives
        /// up and the job stays FAILED (the attempts it had).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        gave_up_after: Option<u64>,
    },
    /// A recovering job recomputed a barrier its table had already WRITTEN before the failure:
    /// the same records (deterministic replay), so the commit is skipped as a duplicate.
    Replayed {
        /// Job.
        job: String,
        /// Its sink table.
        table: String,
        /// Barrier recomputed.
        barrier: u64,
        /// Records it produced, equal to those of the snapshot.
        records: u32,
    },
    /// A job restarted from its checkpoint and replays from the next barrier.
    JobRecovered {
        /// Job.
        job: String,
        /// Checkpoint restored.
        from_barrier: u64,
        /// CDC ranges it replays (jobs reading `cdc`, with barriers).
        replay: Vec<ReplayRange>,
        /// Set when a revision restarted the job: it recomputes the revised data, not the
        /// same data again.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        revision: Option<RevisionReplay>,
    },
    /// A table's barrier was revised: it and everything downstream rolled back to the
    /// checkpoint before that barrier, to recompute from there.
    Revised {
        /// Table revised.
        table: String,
        /// Barrier revised.
        barrier: u64,
        /// Barrier the tables rolled back to (the end of the checkpoint before `barrier`).
        rolled_back_to: u64,
        /// Corrected rows the topology ships for the barrier (0: the same data is replayed).
        corrected_rows: u32,
        /// Each corrected row with the row of the barrier it replaces (matched by key).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        replaced: Vec<RowCorrection>,
        /// Rows of the barrier no corrected row replaced: kept as they were (set when the
        /// barrier has corrected rows).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        kept_rows: Option<u32>,
        /// Tables rolled back.
        tables: Vec<String>,
        /// Jobs restarted.
        jobs: Vec<String>,
    },
    /// A Kafka table's transaction of a barrier was committed: its rows are visible to
    /// `read_committed` consumers.
    TransactionCommitted {
        /// Job.
        job: String,
        /// Kafka table.
        table: String,
        /// Barrier.
        barrier: u64,
        /// Rows in the transaction.
        records: u32,
    },
    /// The commit found the transaction aborted: the broker aborts a transaction still open
    /// `timeout_ms` after it began, and the checkpoint restored is past its rows, so they are
    /// lost (Flink's Kafka connector documentation, FLINK-23839).
    TransactionAborted {
        /// Job.
        job: String,
        /// Kafka table.
        table: String,
        /// Barrier.
        barrier: u64,
        /// Rows lost.
        records: u32,
        /// When the transaction began.
        opened_at_ms: u64,
        /// The producer's `transaction.timeout.ms`.
        timeout_ms: u64,
    },
    /// After a restore, the restored checkpoint was notified complete again
    /// (`notifyCheckpointComplete` is at least once).
    CommitRenotified {
        /// Job.
        job: String,
        /// Checkpoint notified.
        checkpoint: u64,
        /// Its last barrier.
        barrier: u64,
        /// Whether its commit had already happened (a repeat).
        repeat: bool,
        /// Whether the committer threw on it: the job fails again.
        threw: bool,
    },
    /// A job without a snapshot guard read a snapshot expiry had removed: Paimon's scan throws
    /// `OutOfRangeException` ("The snapshot with id N has expired"), and the job fails.
    ExpiredSnapshotRead {
        /// Job.
        job: String,
        /// Table read.
        table: String,
        /// Barrier it needed.
        barrier: u64,
        /// The expired snapshot's id.
        snapshot_id: u64,
    },
}
