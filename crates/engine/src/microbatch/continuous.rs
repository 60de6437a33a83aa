//! Continuous processing (SEMANTICS §2): epochs instead of batches. Readers report offsets at
//! their epoch markers, the coordinator writes `offsets/e`, writers commit, then
//! `StreamingWrite.commit(e)`, `commits/e` and `source.commit`.

use super::{cost, BatchRun, Phase, World};
use crate::checkpoint::OffsetSeq;
use crate::microbatch::event::sink_outcome::CommitTarget;
use crate::microbatch::event::EventKind;
use crate::microbatch::sink::Sink as _;
use crate::microbatch::sink::TaskOutput;
use crate::microbatch::source::{read_range, PartitionPlan, SourceOffset, TaskRead};
use crate::microbatch::tunnel::Token;
use crate::microbatch::upstream::ChannelId;
use std::collections::BTreeMap;

impl World {
    pub(super) fn epoch_advance(&mut self, epoch: u64) -> EventKind {
        self.driver.last_trigger_ms = Some(self.now_ms);
        self.now_ms += cost::CALL;
        let start = self.driver.committed.clone();
        let plan: Vec<PartitionPlan> = self
            .upstream
            .channels
            .iter()
            .map(|c| PartitionPlan {
                channel: c.index,
                start: SourceOffset::position(start.as_ref(), c.index),
                end: None,
            })
            .collect();
        // The epoch's end is known only when its readers report: until then it is its start.
        let end = start.clone().unwrap_or(SourceOffset::Log(BTreeMap::new()));
        let mut epoch_run = BatchRun::new(epoch, start, end, self.now_ms, false);
        epoch_run.plan = plan;
        epoch_run.tasks_started_ms = self.now_ms;
        self.driver.batch = Some(epoch_run);
        self.phase = Phase::EpochRead { epoch, task: 0 };
        EventKind::EpochAdvanced { epoch }
    }

    pub(super) fn epoch_read(&mut self, epoch: u64, task: u32) -> EventKind {
        self.now_ms += 1;
        let plan = self.batch_run(epoch).plan[task as usize].clone();
        let ch = self.upstream.channel(plan.channel);
        let end = Token::At(ch.arrived(self.now_ms).max(plan.start.offset_or_zero()));
        let rows = read_range(&self.upstream, plan.channel, plan.start, end);
        self.counters.rows_read_by_tasks += rows.len();
        let event = EventKind::TaskRead {
            batch_id: epoch,
            partition: task,
            channel: ChannelId(plan.channel),
            from: plan.start,
            to: end,
            rows: rows.len(),
            committed: false,
            from_cache: false,
            error: None,
            aged_out: 0,
        };
        let b = self.batch_run_mut(epoch);
        assert_eq!(
            b.reads.len(),
            task as usize,
            "epoch readers report in task order"
        );
        b.reads.push(TaskRead {
            rows,
            end,
            committed: false,
            from_cache: false,
            aged_out: 0,
        });
        b.task_durations_ms.push(cost::TASK);
        let n = b.plan.len() as u32;
        self.phase = if task + 1 < n {
            Phase::EpochRead {
                epoch,
                task: task + 1,
            }
        } else {
            Phase::EpochOffsets { epoch }
        };
        event
    }

    /// The coordinator merges the partition offsets into `offsets/e`. Continuous mode writes
    /// only the source offset (`OffsetSeq.fill`): the metadata line is empty. `add` returns
    /// false when the entry exists (a replayed epoch) and the result is ignored.
    pub(super) fn epoch_offsets(&mut self, epoch: u64) -> EventKind {
        self.now_ms += cost::FILE_WRITE;
        let b = self.batch_run_mut(epoch);
        assert_eq!(
            b.reads.len(),
            b.plan.len(),
            "every reader reported before offsets/e"
        );
        let end = SourceOffset::Log(
            b.plan
                .iter()
                .zip(&b.reads)
                .map(|(p, r)| (p.channel, r.end.offset_or_zero()))
                .collect(),
        );
        b.end = end.clone();
        self.phase = Phase::EpochWriterCommit { epoch, task: 0 };
        let seq = OffsetSeq {
            version: 1,
            metadata: None,
            offsets: vec![Some(end.to_line(&self.upstream))],
        };
        if self.checkpoint.write_offsets(epoch, &seq).is_err() {
            return EventKind::CheckpointWriteRejected {
                path: format!("offsets/{epoch}"),
            };
        }
        EventKind::OffsetLogWritten {
            batch_id: epoch,
            contents: String::from_utf8_lossy(&seq.to_bytes()).into(),
        }
    }

    pub(super) fn epoch_writer_commit(&mut self, epoch: u64, task: u32) -> EventKind {
        self.now_ms += cost::TASK;
        if self.sink.is_down(self.now_ms) {
            // No task retries in continuous mode: any task failure stops the query (SEMANTICS §2).
            return self.fail_sink(epoch, &format!("writer {task} of epoch {epoch}"));
        }
        let rows = self.batch_run(epoch).reads[task as usize].rows.clone();
        let n = rows.len();
        let output = TaskOutput {
            batch_id: epoch,
            partition: task,
            rows,
            file_name: String::new(),
        };
        let effect = self
            .sink_contract()
            .task_output(&mut self.sink, output, &self.upstream);
        self.advance_task(
            task,
            |task| Phase::EpochWriterCommit { epoch, task },
            Phase::EpochSinkCommit { epoch },
        );
        EventKind::TaskFinished {
            batch_id: epoch,
            partition: task,
            rows: n,
            effect,
        }
    }

    /// `StreamingWrite.commit(e)`: the writers' rows become visible.
    pub(super) fn epoch_sink_commit(&mut self, epoch: u64) -> EventKind {
        self.now_ms += cost::CALL;
        self.phase = Phase::EpochCommitLog { epoch };
        let done = self.sink_contract().commit(&mut self.sink, epoch);
        EventKind::SinkCommitted {
            batch_id: epoch,
            rows: done.rows,
            target: CommitTarget::Visible(format!(
                "StreamingWrite.commit({epoch}): {}",
                done.target
            )),
            skipped: done.skipped,
        }
    }

    /// `commits/e`, then on to `source.commit`.
    pub(super) fn epoch_commit_log(&mut self, epoch: u64) -> EventKind {
        let event = self.commit_log(epoch);
        if matches!(event, EventKind::CommitLogWritten { .. }) {
            self.phase = Phase::EpochSourceCommit { epoch };
        }
        event
    }

    /// `source.commit(offset_e)`: Kafka never receives commits from Spark (SEMANTICS §6), so
    /// the call is a no-op.
    pub(super) fn epoch_source_commit(&mut self, epoch: u64) -> EventKind {
        self.now_ms += cost::CALL;
        self.phase = Phase::EpochWait { epoch: epoch + 1 };
        let end = self
            .driver
            .committed
            .as_ref()
            .map(|o| o.to_line(&self.upstream))
            .unwrap_or_default();
        EventKind::SourceCommit {
            batch_id: epoch,
            end,
            checkpoints: vec![],
            deleted_rows: vec![],
        }
    }
}
