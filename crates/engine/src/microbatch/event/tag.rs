//! The kind of an event without its fields: [`EventTag`], one variant per [`EventKind`]
//! variant, for code that names a kind (a tour's stop, a coverage count) and must not spell
//! its JSON name by hand.

use super::EventKind;
use serde::{Deserialize, Serialize};

/// The field-less mirror of [`EventKind`]: what kind of event, not what it carries. Serialised
/// as the event JSON's `type` (`offset-log-written`), which [`EventTag::name`] also gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventTag {
    /// [`EventKind::QueryStarted`].
    QueryStarted,
    /// [`EventKind::Recovered`].
    Recovered,
    /// [`EventKind::RecoveryGetBatch`].
    RecoveryGetBatch,
    /// [`EventKind::SourceInitialized`].
    SourceInitialized,
    /// [`EventKind::EpochAdvanced`].
    EpochAdvanced,
    /// [`EventKind::TriggerFired`].
    TriggerFired,
    /// [`EventKind::GetOffset`].
    GetOffset,
    /// [`EventKind::NoNewData`].
    NoNewData,
    /// [`EventKind::OffsetLogWritten`].
    OffsetLogWritten,
    /// [`EventKind::SourceCommit`].
    SourceCommit,
    /// [`EventKind::ChannelState`].
    ChannelState,
    /// [`EventKind::GetBatch`].
    GetBatch,
    /// [`EventKind::AddBatch`].
    AddBatch,
    /// [`EventKind::TaskRead`].
    TaskRead,
    /// [`EventKind::ReaderPolled`].
    ReaderPolled,
    /// [`EventKind::StateFile`].
    StateFile,
    /// [`EventKind::MetaRowWritten`].
    MetaRowWritten,
    /// [`EventKind::TaskFinished`].
    TaskFinished,
    /// [`EventKind::TaskFailed`].
    TaskFailed,
    /// [`EventKind::CheckpointDeleted`].
    CheckpointDeleted,
    /// [`EventKind::OffsetLogTorn`].
    OffsetLogTorn,
    /// [`EventKind::MetadataLost`].
    MetadataLost,
    /// [`EventKind::DriverStalled`].
    DriverStalled,
    /// [`EventKind::DriverLostLogRace`].
    DriverLostLogRace,
    /// [`EventKind::SinkWriteFailed`].
    SinkWriteFailed,
    /// [`EventKind::SinkCommitted`].
    SinkCommitted,
    /// [`EventKind::CommitLogWritten`].
    CommitLogWritten,
    /// [`EventKind::LogKeptInMemory`].
    LogKeptInMemory,
    /// [`EventKind::CheckpointWriteRejected`].
    CheckpointWriteRejected,
    /// [`EventKind::Idle`].
    Idle,
    /// [`EventKind::Crashed`].
    Crashed,
    /// [`EventKind::QueryFailed`].
    QueryFailed,
}

impl EventTag {
    /// Every tag, in declaration order.
    pub const ALL: [EventTag; 32] = [
        EventTag::QueryStarted,
        EventTag::Recovered,
        EventTag::RecoveryGetBatch,
        EventTag::SourceInitialized,
        EventTag::EpochAdvanced,
        EventTag::TriggerFired,
        EventTag::GetOffset,
        EventTag::NoNewData,
        EventTag::OffsetLogWritten,
        EventTag::SourceCommit,
        EventTag::ChannelState,
        EventTag::GetBatch,
        EventTag::AddBatch,
        EventTag::TaskRead,
        EventTag::ReaderPolled,
        EventTag::StateFile,
        EventTag::MetaRowWritten,
        EventTag::TaskFinished,
        EventTag::TaskFailed,
        EventTag::CheckpointDeleted,
        EventTag::OffsetLogTorn,
        EventTag::MetadataLost,
        EventTag::DriverStalled,
        EventTag::DriverLostLogRace,
        EventTag::SinkWriteFailed,
        EventTag::SinkCommitted,
        EventTag::CommitLogWritten,
        EventTag::LogKeptInMemory,
        EventTag::CheckpointWriteRejected,
        EventTag::Idle,
        EventTag::Crashed,
        EventTag::QueryFailed,
    ];

    /// The kind's name as in the JSON trace's `type` field (`offset-log-written`).
    pub fn name(self) -> &'static str {
        match self {
            EventTag::QueryStarted => "query-started",
            EventTag::Recovered => "recovered",
            EventTag::RecoveryGetBatch => "recovery-get-batch",
            EventTag::SourceInitialized => "source-initialized",
            EventTag::EpochAdvanced => "epoch-advanced",
            EventTag::TriggerFired => "trigger-fired",
            EventTag::GetOffset => "get-offset",
            EventTag::NoNewData => "no-new-data",
            EventTag::OffsetLogWritten => "offset-log-written",
            EventTag::SourceCommit => "source-commit",
            EventTag::ChannelState => "channel-state",
            EventTag::GetBatch => "get-batch",
            EventTag::AddBatch => "add-batch",
            EventTag::TaskRead => "task-read",
            EventTag::ReaderPolled => "reader-polled",
            EventTag::StateFile => "state-file",
            EventTag::MetaRowWritten => "meta-row-written",
            EventTag::TaskFinished => "task-finished",
            EventTag::TaskFailed => "task-failed",
            EventTag::CheckpointDeleted => "checkpoint-deleted",
            EventTag::OffsetLogTorn => "offset-log-torn",
            EventTag::MetadataLost => "metadata-lost",
            EventTag::DriverStalled => "driver-stalled",
            EventTag::DriverLostLogRace => "driver-lost-log-race",
            EventTag::SinkWriteFailed => "sink-write-failed",
            EventTag::SinkCommitted => "sink-committed",
            EventTag::CommitLogWritten => "commit-log-written",
            EventTag::LogKeptInMemory => "log-kept-in-memory",
            EventTag::CheckpointWriteRejected => "checkpoint-write-rejected",
            EventTag::Idle => "idle",
            EventTag::Crashed => "crashed",
            EventTag::QueryFailed => "query-failed",
        }
    }
}

impl std::fmt::Display for EventTag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl EventKind {
    /// The kind of this event, without its fields.
    pub fn tag(&self) -> EventTag {
        match self {
            EventKind::QueryStarted { .. } => EventTag::QueryStarted,
            EventKind::Recovered { .. } => EventTag::Recovered,
            EventKind::RecoveryGetBatch { .. } => EventTag::RecoveryGetBatch,
            EventKind::SourceInitialized { .. } => EventTag::SourceInitialized,
            EventKind::EpochAdvanced { .. } => EventTag::EpochAdvanced,
            EventKind::TriggerFired { .. } => EventTag::TriggerFired,
            EventKind::GetOffset { .. } => EventTag::GetOffset,
            EventKind::NoNewData { .. } => EventTag::NoNewData,
            EventKind::OffsetLogWritten { .. } => EventTag::OffsetLogWritten,
            EventKind::SourceCommit { .. } => EventTag::SourceCommit,
            EventKind::ChannelState { .. } => EventTag::ChannelState,
            EventKind::GetBatch { .. } => EventTag::GetBatch,
            EventKind::AddBatch { .. } => EventTag::AddBatch,
            EventKind::TaskRead { .. } => EventTag::TaskRead,
            EventKind::ReaderPolled { .. } => EventTag::ReaderPolled,
            EventKind::StateFile { .. } => EventTag::StateFile,
            EventKind::MetaRowWritten { .. } => EventTag::MetaRowWritten,
            EventKind::TaskFinished { .. } => EventTag::TaskFinished,
            EventKind::TaskFailed { .. } => EventTag::TaskFailed,
            EventKind::CheckpointDeleted { .. } => EventTag::CheckpointDeleted,
            EventKind::OffsetLogTorn { .. } => EventTag::OffsetLogTorn,
            EventKind::MetadataLost => EventTag::MetadataLost,
            EventKind::DriverStalled { .. } => EventTag::DriverStalled,
            EventKind::DriverLostLogRace { .. } => EventTag::DriverLostLogRace,
            EventKind::SinkWriteFailed { .. } => EventTag::SinkWriteFailed,
            EventKind::SinkCommitted { .. } => EventTag::SinkCommitted,
            EventKind::CommitLogWritten { .. } => EventTag::CommitLogWritten,
            EventKind::LogKeptInMemory { .. } => EventTag::LogKeptInMemory,
            EventKind::CheckpointWriteRejected { .. } => EventTag::CheckpointWriteRejected,
            EventKind::Idle { .. } => EventTag::Idle,
            EventKind::Crashed { .. } => EventTag::Crashed,
            EventKind::QueryFailed { .. } => EventTag::QueryFailed,
        }
    }

    /// The kind's name as in the JSON trace's `type` field (`offset-log-written`).
    pub fn name(&self) -> &'static str {
        self.tag().name()
    }
}

#[cfg(test)]
mod tests {
    use super::EventTag;
    use crate::microbatch::event::sink_outcome::{CommitTarget, SinkFailure};
    use crate::microbatch::event::{ChannelToken, EventKind, Recovery, SinkEffect};
    use crate::microbatch::tunnel::{ChannelStatus, Token};
    use crate::microbatch::upstream::ChannelId;
    use std::collections::BTreeSet;

    /// A down store's refusal, for the examples.
    fn unavailable() -> SinkFailure {
        SinkFailure::Unavailable {
            at_ms: 3,
            what: "w".into(),
        }
    }

    /// The `QueryStarted` of [`example`], its optional field set.
    fn started_example() -> EventKind {
        EventKind::QueryStarted {
            query_id: "q".into(),
            created: false,
            max_offsets_per_trigger: Some(6),
        }
    }

    /// The `TaskRead` of [`example`], every optional field set.
    fn task_read_example() -> EventKind {
        EventKind::TaskRead {
            batch_id: 1,
            partition: 0,
            channel: ChannelId(0),
            from: Token::At(0),
            to: Token::Finished,
            rows: 3,
            committed: false,
            from_cache: true,
            error: Some("e".into()),
            aged_out: 1,
        }
    }

    /// An example of an event that stops the driver or damages the folder from outside the batch.
    fn folder_example(tag: EventTag) -> EventKind {
        match tag {
            EventTag::CheckpointDeleted => EventKind::CheckpointDeleted { files: 3 },
            EventTag::OffsetLogTorn => EventKind::OffsetLogTorn {
                batch_id: 1,
                bytes: 120,
            },
            EventTag::MetadataLost => EventKind::MetadataLost,
            EventTag::DriverStalled => EventKind::DriverStalled { batch_id: 2 },
            EventTag::DriverLostLogRace => EventKind::DriverLostLogRace {
                batch_id: 2,
                error: "[CONCURRENT_STREAM_LOG_UPDATE] Concurrent update to the log.".into(),
            },
            EventTag::Crashed => EventKind::Crashed {
                point: None,
                after_seq: 3,
                lost: vec![],
            },
            EventTag::LogKeptInMemory => EventKind::LogKeptInMemory {
                batch_id: 1,
                path: "offsets/1".into(),
            },
            _ => EventKind::CheckpointWriteRejected {
                path: "commits/1".into(),
            },
        }
    }

    /// An example of a sink's commit (SeaTunnel's prepareCommit).
    fn sink_committed_example() -> EventKind {
        EventKind::SinkCommitted {
            batch_id: 1,
            rows: 1,
            target: CommitTarget::Prepared {
                checkpoint_id: 1,
                subtask: 0,
            },
            skipped: false,
        }
    }

    /// An example of a failed task attempt.
    fn task_failed_example() -> EventKind {
        EventKind::TaskFailed {
            batch_id: 1,
            partition: 0,
            attempt: 1,
            rows: 0,
            retried: true,
            sink_down: Some(unavailable()),
            oom_records: 0,
        }
    }

    /// One event of each kind; the match is exhaustive, so a new tag needs an example here.
    fn example(tag: EventTag) -> EventKind {
        let row = ChannelToken {
            channel: ChannelId(1),
            token: Token::At(4),
        };
        match tag {
            EventTag::QueryStarted => started_example(),
            EventTag::Recovered => EventKind::Recovered {
                latest_offset: Some(2),
                latest_commit: Some(1),
                recovery: Recovery::Rerun { batch_id: 2 },
            },
            EventTag::RecoveryGetBatch => EventKind::RecoveryGetBatch { batch_id: 1 },
            EventTag::SourceInitialized => EventKind::SourceInitialized {
                path: "sources/0/0".into(),
                contents: "v1".into(),
                meta_rows: vec![row.clone()],
            },
            EventTag::EpochAdvanced => EventKind::EpochAdvanced { epoch: 1 },
            EventTag::TriggerFired => EventKind::TriggerFired { batch_id: 1 },
            EventTag::GetOffset => EventKind::GetOffset {
                batch_id: 1,
                end: "e".into(),
                rows_read: 0,
            },
            EventTag::NoNewData => EventKind::NoNewData { batch_id: 1 },
            EventTag::OffsetLogWritten => EventKind::OffsetLogWritten {
                batch_id: 1,
                contents: "v1".into(),
            },
            EventTag::SourceCommit => EventKind::SourceCommit {
                batch_id: 0,
                end: "e".into(),
                checkpoints: vec![row.clone()],
                deleted_rows: vec![ChannelId(0)],
            },
            EventTag::ChannelState => EventKind::ChannelState {
                channel: ChannelId(2),
                state: ChannelStatus::Open,
            },
            EventTag::GetBatch => EventKind::GetBatch {
                batch_id: 1,
                start: None,
                end: "e".into(),
                partitions: vec![row.clone()],
            },
            EventTag::AddBatch => EventKind::AddBatch {
                batch_id: 1,
                skipped: false,
            },
            EventTag::TaskRead => task_read_example(),
            EventTag::ReaderPolled => EventKind::ReaderPolled {
                batch_id: 1,
                partition: 0,
                rows: 1,
                idle_ms: 0,
                closes: false,
            },
            EventTag::StateFile => EventKind::StateFile {
                batch_id: 1,
                path: "p".into(),
                renamed_from: Some("q".into()),
                contents: "c".into(),
            },
            EventTag::MetaRowWritten => EventKind::MetaRowWritten {
                batch_id: 1,
                uuid: "u".into(),
                row,
                overwritten: false,
            },
            EventTag::TaskFinished => EventKind::TaskFinished {
                batch_id: 1,
                partition: 0,
                rows: 1,
                effect: SinkEffect::Staged,
            },
            EventTag::TaskFailed => task_failed_example(),
            EventTag::CheckpointDeleted
            | EventTag::OffsetLogTorn
            | EventTag::MetadataLost
            | EventTag::DriverStalled
            | EventTag::DriverLostLogRace
            | EventTag::LogKeptInMemory
            | EventTag::Crashed
            | EventTag::CheckpointWriteRejected => folder_example(tag),
            EventTag::SinkWriteFailed => EventKind::SinkWriteFailed {
                batch_id: 1,
                reason: unavailable(),
            },
            EventTag::SinkCommitted => sink_committed_example(),
            EventTag::CommitLogWritten => EventKind::CommitLogWritten {
                batch_id: 1,
                contents: "v1".into(),
            },
            EventTag::Idle => EventKind::Idle { until_ms: 5 },
            EventTag::QueryFailed => EventKind::QueryFailed { reason: "r".into() },
        }
    }

    #[test]
    fn every_kind_has_its_own_tag_named_as_its_json_type() {
        let mut names = BTreeSet::new();
        for (i, tag) in EventTag::ALL.into_iter().enumerate() {
            assert_eq!(tag as usize, i, "ALL lists {tag:?} in declaration order");
            let kind = example(tag);
            assert_eq!(kind.tag(), tag);
            let json = serde_json::to_value(&kind).expect("an event serializes");
            assert_eq!(json["type"], tag.name(), "{kind:?}");
            assert_eq!(
                serde_json::to_value(tag).expect("a tag serializes"),
                tag.name()
            );
            let back: EventKind = serde_json::from_value(json).expect("an event parses");
            assert_eq!(back, kind);
            assert!(names.insert(tag.name()), "{} named twice", tag.name());
        }
        assert_eq!(names.len(), EventTag::ALL.len());
    }
}
