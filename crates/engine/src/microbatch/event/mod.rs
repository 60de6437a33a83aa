//! The closed `Event` enum: the engine's only output. One event is one arrow in the sequence diagram.

use crate::microbatch::scenario::{CrashPoint, SourceKind};
use crate::microbatch::tunnel::{ChannelStatus, Token};
use crate::microbatch::upstream::ChannelId;
use serde::{Deserialize, Serialize};
use sink_outcome::{CommitTarget, SinkFailure};

/// The lanes of the sequence diagram: who sends and who receives an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Actor {
    /// `MicroBatchExecution` on the driver.
    Driver,
    /// The streaming `Source` (driver side).
    Source,
    /// `SourceRDD` partitions running as tasks on executors.
    Tasks,
    /// The Tablestore Tunnel server (or the Kafka-like broker).
    Tunnel,
    /// The Meta table (UUID → channel checkpoints).
    MetaTable,
    /// The Spark checkpoint folder.
    Checkpoint,
    /// The sink.
    Sink,
}

impl Actor {
    /// Every lane, left to right.
    pub const ALL: [Actor; 7] = [
        Actor::Driver,
        Actor::Source,
        Actor::Tasks,
        Actor::Tunnel,
        Actor::MetaTable,
        Actor::Checkpoint,
        Actor::Sink,
    ];

    /// The lanes a scenario whose source is `source` draws, left to right: the Meta table only
    /// for the sources that keep channel checkpoints in it (Tablestore's UUID design and its
    /// auto-commit variant); every other lane for all.
    pub fn lanes_for(source: SourceKind) -> &'static [Actor] {
        const NO_META_TABLE: [Actor; 6] = [
            Actor::Driver,
            Actor::Source,
            Actor::Tasks,
            Actor::Tunnel,
            Actor::Checkpoint,
            Actor::Sink,
        ];
        if source.uses_meta_table() {
            &Actor::ALL
        } else {
            &NO_META_TABLE
        }
    }

    /// The lane's label for a scenario whose source is `source`: the upstream lane is the
    /// Kafka broker of the Kafka-like log, the CDC source SeaTunnel's readers poll, and the
    /// Tunnel server of Tablestore's sources.
    pub fn label_for(self, source: SourceKind) -> &'static str {
        match (self, source) {
            (Actor::Tunnel, SourceKind::ReplayableLog) => "Kafka broker",
            (Actor::Tunnel, SourceKind::SeaTunnel) => "CDC source",
            _ => self.label(),
        }
    }

    /// Label of the lane (Tablestore's names: see [`Actor::label_for`]).
    pub fn label(self) -> &'static str {
        match self {
            Actor::Driver => "MicroBatchExecution",
            Actor::Source => "Source",
            Actor::Tasks => "SourceRDD tasks",
            Actor::Tunnel => "Tunnel server",
            Actor::MetaTable => "Meta table",
            Actor::Checkpoint => "Checkpoint folder",
            Actor::Sink => "Sink",
        }
    }
}

/// What the driver does on restart (SEMANTICS §1.5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "kebab-case")]
pub enum Recovery {
    /// No offsets: a fresh query, batch 0.
    Fresh,
    /// `commits/L` missing: re-run batch L with the offsets in `offsets/L`.
    Rerun {
        /// The batch re-run.
        batch_id: u64,
    },
    /// `commits/L` present: plan batch L+1.
    Next {
        /// The batch planned next.
        batch_id: u64,
    },
    /// The logs cannot be read (a torn entry): the query fails.
    Failed,
}

/// A channel position as the Tunnel server and Meta table hold it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ChannelToken {
    /// The channel (`ch0`, `ch2`… in the JSON).
    pub channel: ChannelId,
    /// `t:17` (next record 17) or `finished`.
    pub token: Token,
}

/// One observable action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// Position in the trace, from 0.
    pub seq: u64,
    /// Simulated time when it happened.
    pub at_ms: u64,
    /// Which run of the driver (1 for the first start, +1 per restart).
    pub run: u32,
    /// What happened.
    pub kind: EventKind,
}

/// What happened, with the arguments the real call carries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum EventKind {
    /// The driver started (or restarted) the query and read `metadata`.
    QueryStarted {
        /// The query id from `metadata` (new on a fresh start).
        query_id: String,
        /// Whether `metadata` was created now.
        created: bool,
        /// A change made before this restart is in force (`on_restart`): the Kafka-like log's
        /// `maxOffsetsPerTrigger` from now on (0 = no limit). Left out of the JSON when none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_offsets_per_trigger: Option<u64>,
    },
    /// The driver listed `offsets/` and `commits/` and chose what to do.
    Recovered {
        /// Latest offset-log id.
        latest_offset: Option<u64>,
        /// Latest commit-log id.
        latest_commit: Option<u64>,
        /// The decision.
        recovery: Recovery,
    },
    /// On restart after a committed batch, Spark calls `getBatch(start_L, end_L)` on V1 sources once more without running it.
    RecoveryGetBatch {
        /// Batch L.
        batch_id: u64,
    },
    /// The source initialised its private state (`sources/0/0`; Tablestore also UUID₀'s Meta rows).
    SourceInitialized {
        /// File written.
        path: String,
        /// Its contents as text (after the leading 0x00 byte).
        contents: String,
        /// Meta rows written under the initial UUID (Tablestore).
        meta_rows: Vec<ChannelToken>,
    },
    /// Continuous processing: the driver's epoch thread advanced the epoch (`IncrementAndGetEpoch`);
    /// every reader task enqueues an epoch marker.
    EpochAdvanced {
        /// The epoch that ends now.
        epoch: u64,
    },
    /// The trigger fired for a new batch.
    TriggerFired {
        /// The batch to construct.
        batch_id: u64,
    },
    /// `getOffset` / `latestOffset` returned the end offset of batch N.
    GetOffset {
        /// Batch N.
        batch_id: u64,
        /// The end offset as it goes into `offsets/N`.
        end: String,
        /// Rows the source read to answer (pull-ahead only).
        rows_read: u64,
    },
    /// No source has new data: no batch is constructed this trigger.
    NoNewData {
        /// The batch that was not constructed.
        batch_id: u64,
    },
    /// `offsets/N` was written (the WAL) before anything of batch N ran.
    OffsetLogWritten {
        /// Batch N.
        batch_id: u64,
        /// Exact file contents.
        contents: String,
    },
    /// `source.commit(end_{N-1})` during construction of batch N.
    SourceCommit {
        /// Batch N-1 whose end is committed.
        batch_id: u64,
        /// The end offset committed.
        end: String,
        /// Checkpoints pushed to the Tunnel server (Tablestore, pull-ahead).
        checkpoints: Vec<ChannelToken>,
        /// Meta rows deleted because the channel finished: their channels.
        deleted_rows: Vec<ChannelId>,
    },
    /// The Tunnel server changed a channel's state (a child opens when its parent's final checkpoint arrives).
    ChannelState {
        /// The channel.
        channel: ChannelId,
        /// New state (`OPEN`, `TERMINATED` in the JSON).
        state: ChannelStatus,
    },
    /// `getBatch(start, end)`: the plan of the batch's tasks.
    GetBatch {
        /// Batch N.
        batch_id: u64,
        /// Start offset (`None` on the first batch).
        start: Option<String>,
        /// End offset.
        end: String,
        /// One task per channel/partition with its start position.
        partitions: Vec<ChannelToken>,
    },
    /// The sink was asked to add batch N (`Sink.addBatch`); a file sink may skip it.
    AddBatch {
        /// Batch N.
        batch_id: u64,
        /// Whether the sink skipped the batch because it already holds it.
        skipped: bool,
    },
    /// A task read its channel.
    TaskRead {
        /// Batch N.
        batch_id: u64,
        /// Partition (task) index.
        partition: u32,
        /// Channel read.
        channel: ChannelId,
        /// Position before.
        from: Token,
        /// Position after.
        to: Token,
        /// Rows read.
        rows: u64,
        /// Tunnel checkpoints committed while reading (auto-commit only).
        committed: bool,
        /// The rows came from the pull-ahead cache (no ReadRecords call). Left out of the JSON
        /// when false, so the traces of every other source read as before.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        from_cache: bool,
        /// The task threw before it read anything (no ReadRecords call was made): why. Left
        /// out of the JSON when `None`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// Records at the start of the range that retention had deleted from the Kafka-like
        /// log, skipped (`failOnDataLoss` false): `[from, from + aged_out)`. Left out of the
        /// JSON when 0.
        #[serde(default, skip_serializing_if = "is_zero")]
        aged_out: u64,
    },
    /// A SeaTunnel reader polled its handover queue (`next()`): rows read, and how long it has been idle.
    ReaderPolled {
        /// Batch N.
        batch_id: u64,
        /// Partition (subtask) index.
        partition: u32,
        /// Rows that arrived since the last poll.
        rows: u64,
        /// Time since the last row.
        idle_ms: u64,
        /// Whether `next()` now returns false (the reader closes).
        closes: bool,
    },
    /// A SeaTunnel reader or sink wrote or renamed a state file under `sources/0/<batch>/<subtask>/`.
    StateFile {
        /// Batch N.
        batch_id: u64,
        /// The file now present (`sources/0/3/1/2.committed`).
        path: String,
        /// The file it was renamed from, if a rename (`….prepared` → `….committed`).
        renamed_from: Option<String>,
        /// Its contents (the reader's position).
        contents: String,
    },
    /// A task wrote the end checkpoint of its channel into the Meta table under the end UUID.
    MetaRowWritten {
        /// Batch N.
        batch_id: u64,
        /// The end UUID.
        uuid: String,
        /// The row.
        row: ChannelToken,
        /// Whether a row for this (uuid, channel) was overwritten (a re-run).
        overwritten: bool,
    },
    /// A task finished and handed its rows to the sink.
    TaskFinished {
        /// Batch N.
        batch_id: u64,
        /// Partition index.
        partition: u32,
        /// Rows handed to the sink.
        rows: u64,
        /// What the sink did with them.
        effect: SinkEffect,
    },
    /// A task attempt failed: it threw after handing its rows to the sink (`task-fail@N`), its
    /// write was refused by a down sink store, or it ran out of memory. Spark's `TaskSetManager` retries it, or,
    /// after `spark.task.maxFailures` attempts, aborts the job.
    TaskFailed {
        /// Batch N.
        batch_id: u64,
        /// Partition (task) index.
        partition: u32,
        /// Which attempt failed (1 = the first).
        attempt: u32,
        /// Rows the attempt had handed to the sink before failing.
        rows: u64,
        /// Whether it is retried (false: the job, the batch and the query fail).
        retried: bool,
        /// The sink store refused the attempt's write (an outage window); `None`: the task
        /// threw after its write (`task-fail@N`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sink_down: Option<SinkFailure>,
        /// The attempt ran out of memory holding this many records, more than
        /// `task_memory_records` (as an executor's `OutOfMemoryError`); 0: it did not.
        #[serde(default, skip_serializing_if = "is_zero")]
        oom_records: u64,
    },
    /// While the query was down, its checkpoint folder was deleted: the next start is a new query.
    CheckpointDeleted {
        /// Files removed.
        files: u64,
    },
    /// While the query was down after a `torn-offset-log` fault, `offsets/N` turned out empty:
    /// its bytes never reached the disk.
    OffsetLogTorn {
        /// Batch N.
        batch_id: u64,
        /// The entry's length before the power loss (now 0).
        bytes: u64,
    },
    /// While the query was down after a `metadata-lost` fault, the `metadata` file was lost.
    MetadataLost,
    /// The driver stalls holding batch N's `commits/N` (`second-driver@N`): it is not dead,
    /// but a job scheduler takes it for dead and starts a second driver on the same checkpoint.
    DriverStalled {
        /// Batch N.
        batch_id: u64,
    },
    /// The stalled first driver wakes and writes `commits/N`; the second driver wrote it first,
    /// so `HDFSMetadataLog.add` refuses and the first driver's query fails
    /// (CONCURRENT_STREAM_LOG_UPDATE). The second driver runs on.
    DriverLostLogRace {
        /// Batch N.
        batch_id: u64,
        /// Spark's error, as the first driver's query reports it.
        error: String,
    },
    /// A sink write failed (the store is down): the batch fails.
    SinkWriteFailed {
        /// Batch N.
        batch_id: u64,
        /// Why (the store is down, or the foreachBatch function threw).
        reason: SinkFailure,
    },
    /// The sink finished batch N (manifest `_spark_metadata/N`, foreachBatch returned, epoch committed).
    SinkCommitted {
        /// Batch N.
        batch_id: u64,
        /// Rows made visible by this commit.
        rows: u64,
        /// Where (file name, store name, `epoch N`), or SeaTunnel's prepareCommit at a record.
        target: CommitTarget,
        /// Whether the commit was skipped as a duplicate of an earlier one.
        skipped: bool,
    },
    /// `commits/N` was written: batch N is done.
    CommitLogWritten {
        /// Batch N.
        batch_id: u64,
        /// Exact file contents.
        contents: String,
    },
    /// Async progress tracking: `offsets/N` or `commits/N` stays in the driver's memory, not
    /// written to the checkpoint (at most one offset-log write per interval; a commit-log entry
    /// only for a batch whose offsets were written, or a run's first batch).
    LogKeptInMemory {
        /// Batch N.
        batch_id: u64,
        /// The entry not written (`offsets/N`, `commits/N`).
        path: String,
    },
    /// A second write of an immutable checkpoint file was refused ("concurrent update").
    CheckpointWriteRejected {
        /// The file.
        path: String,
    },
    /// The query waits for the next trigger.
    Idle {
        /// Until when.
        until_ms: u64,
    },
    /// The driver was killed: volatile state is gone.
    Crashed {
        /// The named crash point, or `None` for a crash after an arbitrary event (`crash_after_events`).
        point: Option<CrashPoint>,
        /// The event after which the driver died.
        after_seq: u64,
        /// What was lost (in-memory positions, caches, task output).
        lost: Vec<String>,
    },
    /// The query failed with an error (e.g. the sink is down) and stopped.
    QueryFailed {
        /// Why.
        reason: String,
    },
}

pub mod label;
pub mod sink_outcome;
pub mod tag;

/// Shortens a UUID (`7f3a1c2e-…` → `7f3a1c2e`) for labels; other offsets stay as they are.
pub fn short(offset: &str) -> String {
    if offset.len() == 36 && offset.as_bytes().get(8) == Some(&b'-') {
        offset[..8].to_string()
    } else {
        offset.to_string()
    }
}

/// Whether a count is 0 (left out of an event's JSON).
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What a task's rows did to the sink, as `TaskFinished` reports it (`appended`, `upserted`,
/// `staged` in the event JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SinkEffect {
    /// Appended as they came; visible now.
    Appended,
    /// Upserted by key; visible now.
    Upserted,
    /// Staged (a file, a DSv2 commit message, a foreachBatch write job); visible on commit.
    Staged,
}

impl SinkEffect {
    /// The name the event JSON and the labels use.
    pub fn as_str(self) -> &'static str {
        match self {
            SinkEffect::Appended => "appended",
            SinkEffect::Upserted => "upserted",
            SinkEffect::Staged => "staged",
        }
    }
}

impl std::fmt::Display for SinkEffect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use crate::microbatch::scenario::presets;
    use crate::microbatch::World;

    #[test]
    fn every_kind_name_is_its_json_type() {
        let mut seen = std::collections::BTreeSet::new();
        for p in presets() {
            let mut scenario = p.scenario.clone();
            scenario
                .crashes
                .push("sink-commit@1".parse().expect("crash point"));
            let mut world = World::new(scenario);
            for _ in 0..400 {
                if world.is_converged() {
                    break;
                }
                let e = world.step();
                let json = serde_json::to_value(&e.kind).expect("an event serializes");
                assert_eq!(json["type"], e.kind.name(), "{:?}", e.kind);
                assert!(super::tag::EventTag::ALL.contains(&e.kind.tag()));
                seen.insert(e.kind.name());
            }
        }
        // Most kinds occur in the presets; the match above is exhaustive for the rest.
        assert!(seen.len() >= 20, "only {} kinds seen: {seen:?}", seen.len());
    }

    #[test]
    fn pull_ahead_tasks_read_the_cache_and_a_rerun_reads_the_tunnel_again() {
        use crate::microbatch::event::{Actor, EventKind};
        use crate::microbatch::tunnel::Token;
        use crate::microbatch::upstream::ChannelId;
        let mut scenario = crate::microbatch::scenario::preset("pull-ahead").expect("preset");
        scenario
            .crashes
            .push("sink-commit@2".parse().expect("crash point"));
        let mut world = World::new(scenario);
        while !world.is_converged() && world.events().len() < 10_000 {
            world.step();
        }
        let reads: Vec<(u32, bool, (Actor, Actor))> = world
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::TaskRead {
                    batch_id: 2,
                    from_cache,
                    ..
                } => Some((e.run, *from_cache, e.kind.lanes())),
                _ => None,
            })
            .collect();
        assert!(!reads.is_empty());
        for (run, cached, (_, to)) in reads {
            assert_eq!(
                cached,
                run == 1,
                "run {run}: the cache dies with the driver"
            );
            assert_eq!(to, if cached { Actor::Source } else { Actor::Tunnel });
        }
        // Other sources never say `from_cache` in their JSON.
        let plain = serde_json::to_string(&EventKind::TaskRead {
            batch_id: 0,
            partition: 0,
            channel: ChannelId(0),
            from: Token::At(0),
            to: Token::At(3),
            rows: 3,
            committed: false,
            from_cache: false,
            error: None,
            aged_out: 0,
        })
        .expect("serializes");
        assert!(!plain.contains("from_cache"), "{plain}");
        assert!(!plain.contains("error"), "{plain}");
        assert!(!plain.contains("aged_out"), "{plain}");
        assert!(
            plain.contains(r#""channel":"ch0","from":"t:0","to":"t:3""#),
            "{plain}"
        );
    }
}
