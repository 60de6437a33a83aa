//! The tasks of a micro-batch: all read in parallel, then finish one by one (hand the rows to
//! the sink, and for the Tablestore source write their end to the Meta table). A task attempt
//! that fails (`task-fail@N`, or a write the down sink store refuses) is retried from its
//! planned start, up to `spark.task.maxFailures` attempts, as Spark's `TaskSetManager` does. A
//! task holding more records than `task_memory_records` runs out of memory on every attempt.

use super::{cost, Phase, World};
use crate::microbatch::event::sink_outcome::SinkFailure;
use crate::microbatch::event::{ChannelToken, EventKind};
use crate::microbatch::scenario::{Fault, FaultKind};
use crate::microbatch::sink::Sink as _;
use crate::microbatch::sink::TaskOutput;
use crate::microbatch::source::SourceOffset;
use crate::microbatch::upstream::ChannelId;

impl World {
    pub(super) fn task_read(&mut self, batch_id: u64, task: u32) -> EventKind {
        let plan = self.batch_run(batch_id).plan[task as usize].clone();
        let contract = self.contract();
        if let Some(error) = contract.read_error(&self.source_ctx(), &plan) {
            // The task throws before any ReadRecords call; the job fails with it (no task
            // retries: the same start row throws again on every attempt).
            self.now_ms += 1;
            self.phase = Phase::Failing {
                reason: format!("task {task} of batch {batch_id} failed: {error}"),
            };
            return EventKind::TaskRead {
                batch_id,
                partition: task,
                channel: ChannelId(plan.channel),
                from: plan.start,
                to: plan.start,
                rows: 0,
                committed: false,
                from_cache: false,
                error: Some(error),
                aged_out: 0,
            };
        }
        let read = contract.read(&mut self.source_ctx(), &plan);
        // Tasks start together and run in parallel: the read arrows are 1 ms apart; each task's
        // own duration decides when it can finish.
        let duration = cost::TASK + cost::rows(read.rows.len());
        self.now_ms += 1;
        let event = EventKind::TaskRead {
            batch_id,
            partition: task,
            channel: ChannelId(plan.channel),
            from: plan.start,
            to: read.end,
            rows: read.rows.len(),
            committed: read.committed,
            from_cache: read.from_cache,
            error: None,
            aged_out: read.aged_out,
        };
        let from = plan.start.offset_or_zero();
        self.aged_out
            .push_range(plan.channel, from, from + read.aged_out);
        let now = self.now_ms;
        let b = self.batch_run_mut(batch_id);
        if (task as usize) < b.reads.len() {
            // A retried attempt: it reads again from the planned start (a Tablestore task from
            // its start token, so it may read more rows than the failed attempt did).
            let elapsed = now.saturating_sub(b.tasks_started_ms);
            b.reads[task as usize] = read;
            b.task_durations_ms[task as usize] = elapsed + duration;
            self.phase = Phase::TaskFinish { batch_id, task };
            return event;
        }
        assert_eq!(
            b.reads.len(),
            task as usize,
            "tasks read in order, once each"
        );
        if task == 0 {
            b.tasks_started_ms = now;
        }
        b.reads.push(read);
        b.task_durations_ms.push(duration);
        let n = b.plan.len() as u32;
        self.phase = if task + 1 < n {
            Phase::TaskRead {
                batch_id,
                task: task + 1,
            }
        } else {
            Phase::TaskFinish { batch_id, task: 0 }
        };
        event
    }

    pub(super) fn task_finish(&mut self, batch_id: u64, task: u32) -> EventKind {
        let b = self.batch_run(batch_id);
        assert_eq!(
            b.reads.len(),
            b.plan.len(),
            "every task read before the first finishes"
        );
        let done_at = b.tasks_started_ms + b.task_durations_ms[task as usize] + cost::FILE_WRITE;
        self.now_ms = (self.now_ms + 1).max(done_at);
        let held = self.batch_run(batch_id).reads[task as usize].rows.len();
        if self
            .scenario
            .task_memory_records
            .is_some_and(|max| held > max)
        {
            // The executor runs out of memory before the task writes anything (an
            // `OutOfMemoryError` kills the executor; the lost task counts as a failure): the
            // retry reads the same range and fails the same way.
            return self.fail_task(batch_id, task, 0, None, held);
        }
        if self.sink.is_down(self.now_ms) {
            // The write fails the task attempt, not the query: Spark retries the task
            // (`TaskSetManager.handleFailedTask`), so an outage shorter than the attempts last
            // is ridden out. Nothing reached the store.
            let reason = SinkFailure::Unavailable {
                at_ms: self.now_ms,
                what: format!("task {task} of batch {batch_id}"),
            };
            return self.fail_task(batch_id, task, 0, Some(reason), 0);
        }
        let rows = self.batch_run(batch_id).reads[task as usize].rows.clone();
        let n = rows.len();
        let output = TaskOutput {
            batch_id,
            partition: task,
            rows,
            file_name: format!("part-{task:05}-{}.json", self.rng.uuid()),
        };
        let effect = self
            .sink_contract()
            .task_output(&mut self.sink, output, &self.upstream);
        let fault = Fault {
            kind: FaultKind::TaskFail,
            batch_id,
        };
        if task == 0 && self.take_fault(fault) {
            return self.fail_task(batch_id, task, n, None, 0);
        }
        if self.contract().writes_meta_rows() {
            self.phase = Phase::TaskMeta { batch_id, task };
        } else {
            self.complete_task(batch_id, task);
        }
        EventKind::TaskFinished {
            batch_id,
            partition: task,
            rows: n,
            effect,
        }
    }

    pub(super) fn task_meta(&mut self, batch_id: u64, task: u32) -> EventKind {
        self.now_ms += cost::CALL;
        let b = self.batch_run(batch_id);
        let SourceOffset::Uuid(uuid) = b.end.clone() else {
            unreachable!("only UUID sources write Meta rows")
        };
        let index = b.plan[task as usize].channel;
        let channel = self.upstream.channel(index).id.clone();
        let token = b.reads[task as usize].end;
        let overwritten = self
            .meta_table
            .put(&uuid, &channel, token, self.events.len() as u64);
        self.complete_task(batch_id, task);
        EventKind::MetaRowWritten {
            batch_id,
            uuid,
            row: ChannelToken {
                channel: ChannelId(index),
                token,
            },
            overwritten,
        }
    }

    pub(super) fn complete_task(&mut self, batch_id: u64, task: u32) {
        self.advance_task(
            task,
            |task| Phase::TaskFinish { batch_id, task },
            Phase::SinkCommit { batch_id },
        );
    }

    /// Counts a finished task (or epoch writer) and moves on to the next one's phase, or to
    /// `done` after the last.
    pub(super) fn advance_task(&mut self, task: u32, next: impl FnOnce(u32) -> Phase, done: Phase) {
        let b = self
            .driver
            .batch
            .as_mut()
            .expect("a batch or an epoch in flight");
        assert_eq!(b.tasks_done, task, "tasks finish in order, once each");
        b.tasks_done += 1;
        self.last_task_done = true;
        let n = b.plan.len() as u32;
        self.phase = if task + 1 < n { next(task + 1) } else { done };
    }

    /// A task attempt fails after handing `rows` to the sink (or, `sink_down`, its write was
    /// refused): what it staged never reaches the driver, what it appended stays. Retried from
    /// its planned start, unless this was the `spark.task.maxFailures`-th attempt: then the
    /// job, the batch and the query fail.
    fn fail_task(
        &mut self,
        batch_id: u64,
        task: u32,
        rows: u64,
        sink_down: Option<SinkFailure>,
        oom_records: u64,
    ) -> EventKind {
        self.sink_contract().drop_task_attempt(&mut self.sink, task);
        let max = self.scenario.task_max_failures;
        let b = self.batch_run_mut(batch_id);
        b.failed_attempts.resize(b.plan.len(), 0);
        b.failed_attempts[task as usize] += 1;
        let attempt = b.failed_attempts[task as usize];
        let retried = attempt < max;
        self.phase = if retried {
            Phase::TaskRead { batch_id, task }
        } else {
            let cause = match &sink_down {
                Some(r) => format!(" (most recent failure: {r})"),
                None if oom_records > 0 => format!(
                    " (most recent failure: java.lang.OutOfMemoryError: Java heap space, {oom_records} records)"
                ),
                None => String::new(),
            };
            Phase::Failing {
                reason: format!(
                    "Task {task} in stage of batch {batch_id} failed {attempt} times; aborting job{cause}"
                ),
            }
        };
        EventKind::TaskFailed {
            batch_id,
            partition: task,
            attempt,
            rows,
            retried,
            sink_down,
            oom_records,
        }
    }

    /// A write to a down sink store that no task retry covers (the driver's commit, a
    /// continuous epoch's writer — continuous mode does not retry tasks — or a SeaTunnel
    /// reader's write): the batch (or epoch) fails and the query stops.
    pub(super) fn fail_sink(&mut self, batch_id: u64, what: &str) -> EventKind {
        let reason = SinkFailure::Unavailable {
            at_ms: self.now_ms,
            what: what.to_string(),
        };
        self.phase = Phase::Failing {
            reason: reason.to_string(),
        };
        EventKind::SinkWriteFailed { batch_id, reason }
    }
}
