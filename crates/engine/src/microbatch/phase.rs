//! Where the driver is in its loop ([`Phase`]) and the batch in flight ([`BatchRun`], with
//! its SeaTunnel readers): plain data, read by every driver module.

use crate::microbatch::source::{PartitionPlan, SourceOffset, TaskRead};
use serde::{Deserialize, Serialize};

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
    /// The query failed (or its driver died) and nobody restarts it (`restart: none`).
    Stopped,
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
    /// Failed attempts of each task so far (`spark.task.maxFailures` bounds them).
    #[serde(default)]
    pub failed_attempts: Vec<u32>,
}

impl BatchRun {
    /// A batch constructed from `start` to `end` at `timestamp_ms`, before planning: no tasks yet.
    pub fn new(
        batch_id: u64,
        start: Option<SourceOffset>,
        end: SourceOffset,
        timestamp_ms: u64,
        rerun: bool,
    ) -> BatchRun {
        BatchRun {
            batch_id,
            start,
            end,
            timestamp_ms,
            rerun,
            plan: vec![],
            reads: vec![],
            tasks_done: 0,
            tasks_started_ms: 0,
            task_durations_ms: vec![],
            readers: vec![],
            failed_attempts: vec![],
        }
    }
}

/// A SeaTunnel micro-batch reader (volatile): its position, rows not yet handed to the sink,
/// and when it last saw data.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeaTunnelReader {
    /// Next record to read.
    pub position: u64,
    /// Rows read but not yet committed by the sink (before the next checkpoint record).
    pub pending: crate::microbatch::upstream::Rows,
    /// When it last read a row (or started).
    pub last_data_ms: u64,
    /// When the next in-band checkpoint record is due.
    pub next_checkpoint_ms: u64,
    /// Checkpoint id of the next `.prepared` file.
    pub checkpoint_id: u64,
    /// The state folder, `sources/0/<folder>/`: the batch's start checkpoint id.
    #[serde(default)]
    pub folder: u64,
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
    /// Snapshot its position to `<id>.prepared` (a checkpoint record; in committed-only also
    /// the end of the reader).
    Prepare,
    /// The sink commits the rows before the record.
    SinkCommit,
    /// The sink renames `<id>.prepared` to `<id>.committed`.
    Rename,
    /// Finished.
    Done,
}
