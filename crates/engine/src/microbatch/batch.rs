//! Constructing and committing a micro-batch (SEMANTICS §1.3), source- and sink-agnostic:
//! trigger → `getOffset` → `offsets/N` → `source.commit(end_{N-1})` → `getBatch` → `addBatch`
//! → sink commit → `commits/N`. Everything a source kind decides goes through
//! [`crate::microbatch::source::Source`], everything a sink kind decides through
//! [`crate::microbatch::sink::Sink`].

use super::{cost, BatchRun, Phase, World, EPOCH_BASE_MS, MIN_BATCHES_TO_RETAIN};
use crate::checkpoint::{CommitMetadata, OffsetSeq, OffsetSeqMetadata};
use crate::microbatch::event::sink_outcome::{CommitTarget, SinkFailure};
use crate::microbatch::event::{ChannelToken, EventKind};
use crate::microbatch::scenario::Fault;
use crate::microbatch::sink::Sink as _;
use crate::microbatch::sink::SinkCommit;
use crate::microbatch::upstream::ChannelId;
use std::collections::{BTreeMap, BTreeSet};

impl World {
    pub(super) fn get_offset(&mut self, batch_id: u64) -> EventKind {
        assert!(
            self.driver.batch.is_none(),
            "no batch in flight when getOffset runs"
        );
        self.now_ms += cost::CALL;
        let contract = self.contract();
        // A new query's first batch starts at the source's initial offset (`startingOffsets`).
        let start = self
            .driver
            .committed
            .clone()
            .or_else(|| contract.first_start(&self.source));
        let (end, rows_read) =
            contract.latest_offset(&mut self.source_ctx(), batch_id, start.as_ref());
        // Reading ahead takes time (pull-ahead); the other sources read nothing here.
        self.now_ms += cost::rows(rows_read);
        let line = end.to_line(&self.upstream);
        if end.is_new_since(start.as_ref()) {
            self.driver.batch = Some(BatchRun::new(batch_id, start, end, self.now_ms, false));
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

    /// The SQL confs Spark freezes in `offsets/N` (their defaults).
    pub(super) fn relevant_conf() -> BTreeMap<String, String> {
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

    pub(super) fn write_offsets(&mut self, batch_id: u64) -> EventKind {
        if let Some(a) = self.scenario.async_progress_in_run(self.run) {
            // Async progress tracking commits sources only for entries on disk; Spark's Kafka
            // source keeps nothing to commit, so the step is left out.
            self.phase = Phase::GetBatch { batch_id };
            if !a.writes_offsets(self.driver.async_last_write_ms, self.now_ms) {
                self.now_ms += cost::CALL;
                return EventKind::LogKeptInMemory {
                    batch_id,
                    path: format!("offsets/{batch_id}"),
                };
            }
            self.driver.async_last_write_ms = Some(self.now_ms);
            self.driver.async_logged = Some(batch_id);
        }
        self.now_ms += cost::FILE_WRITE;
        let batch = self.batch_run(batch_id);
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
        self.phase = if batch_id > 0 && self.scenario.async_progress_in_run(self.run).is_none() {
            Phase::SourceCommit { batch_id }
        } else {
            Phase::GetBatch { batch_id }
        };
        EventKind::OffsetLogWritten {
            batch_id,
            contents: String::from_utf8_lossy(&seq.to_bytes()).into(),
        }
    }

    pub(super) fn source_commit(&mut self, batch_id: u64) -> EventKind {
        assert!(batch_id > 0, "batch 0 has no previous batch to commit");
        self.now_ms += cost::CALL;
        self.phase = Phase::GetBatch { batch_id };
        let (prev_end, _) = self
            .offset_line(batch_id - 1)
            .expect("offsets/N-1 exists when N is constructed");
        let contract = self.contract();
        let done = contract.commit(&mut self.source_ctx(), &prev_end);
        EventKind::SourceCommit {
            batch_id: batch_id - 1,
            end: prev_end.to_line(&self.upstream),
            checkpoints: done.checkpoints,
            deleted_rows: done.deleted_rows,
        }
    }

    pub(super) fn get_batch(&mut self, batch_id: u64) -> EventKind {
        self.now_ms += cost::CALL;
        let (start, end) = {
            let b = self.batch_run(batch_id);
            (b.start.clone(), b.end.clone())
        };
        let contract = self.contract();
        let plan = contract.plan_batch(&mut self.source_ctx(), batch_id, start.as_ref(), &end);
        let mut channels = BTreeSet::new();
        assert!(
            plan.iter().all(|p| channels.insert(p.channel)),
            "one task per channel"
        );
        let partitions = plan
            .iter()
            .map(|p| ChannelToken {
                channel: ChannelId(p.channel),
                token: p.start,
            })
            .collect();
        let b = self.batch_run_mut(batch_id);
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

    pub(super) fn add_batch(&mut self, batch_id: u64) -> EventKind {
        self.now_ms += cost::CALL;
        let sink = self.sink_contract();
        let skipped = sink.skips_batch(&self.sink, batch_id);
        sink.start_batch(&mut self.sink, &mut self.rng);
        let tasks = self.batch_run(batch_id).plan.len();
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
    pub(super) fn start_tasks(&mut self, batch_id: u64) -> Phase {
        if self.contract().runs_readers() {
            self.start_readers(batch_id)
        } else {
            Phase::TaskRead { batch_id, task: 0 }
        }
    }

    pub(super) fn sink_commit(&mut self, batch_id: u64) -> EventKind {
        self.now_ms += cost::FILE_WRITE;
        let sink = self.sink_contract();
        if sink.commit_fails_when_down() && self.sink.is_down(self.now_ms) {
            return self.fail_sink(batch_id, &format!("commit of batch {batch_id}"));
        }
        let SinkCommit {
            rows,
            target,
            skipped,
        } = sink.commit(&mut self.sink, batch_id);
        let fault = sink.commit_fault().map(|kind| Fault { kind, batch_id });
        if fault.is_some_and(|fault| self.take_fault(fault)) {
            // The function wrote its store, then threw: the batch and the query fail, and
            // the rows it wrote stay (a re-run writes them again, perhaps to another store).
            let reason = SinkFailure::FunctionThrew {
                rows,
                batch_id,
                target: CommitTarget::Visible(target),
            };
            self.phase = Phase::Failing {
                reason: reason.to_string(),
            };
            return EventKind::SinkWriteFailed { batch_id, reason };
        }
        self.phase = Phase::CommitLog { batch_id };
        EventKind::SinkCommitted {
            batch_id,
            rows,
            target: CommitTarget::Visible(target),
            skipped,
        }
    }

    pub(super) fn commit_log(&mut self, batch_id: u64) -> EventKind {
        if self.scenario.async_progress_in_run(self.run).is_some() {
            // `markMicroBatchEnd`: the entry is written for a batch whose offsets were written,
            // and for the run's first batch; the others are kept in memory.
            let first = !std::mem::replace(&mut self.driver.async_first_done, true);
            if !first && self.driver.async_logged != Some(batch_id) {
                self.now_ms += cost::CALL;
                self.batch_run(batch_id);
                let b = self.driver.batch.take().expect("checked by batch_run");
                self.driver.committed = Some(b.end);
                self.phase = Phase::Wait {
                    batch_id: batch_id + 1,
                };
                return EventKind::LogKeptInMemory {
                    batch_id,
                    path: format!("commits/{batch_id}"),
                };
            }
        }
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
        self.batch_run(batch_id);
        let b = self.driver.batch.take().expect("checked by batch_run");
        self.driver.committed = Some(b.end);
        self.wake_stalled_driver(batch_id);
        self.phase = Phase::Wait {
            batch_id: batch_id + 1,
        };
        EventKind::CommitLogWritten {
            batch_id,
            contents: String::from_utf8_lossy(&commit.to_bytes()).into(),
        }
    }
}
