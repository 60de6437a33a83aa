//! SeaTunnel micro-batch readers (PR #7476, apache/seatunnel 34c5d786
//! `ParallelMicroBatchPartitionReader`, `SeaTunnelSparkDataWriter`): one reader per subtask,
//! polled in turn. An in-band checkpoint record snapshots the reader's position to
//! `<id>.prepared`, the sink writer takes the rows before it and renames the file
//! `.committed`. As the PR wrote it, each reader's timer fires once per micro-batch (one
//! record at most), and a reader that closes writes no snapshot, so the next batch resumes from
//! that one mid-batch snapshot. The committed-only design takes a record every interval and a
//! last one when the reader closes. State files live in `sources/0/<folder>/<subtask>/`, the
//! folder being the batch's start checkpoint id; ids start at the folder's newest
//! `.committed` + 1 (0 in a new folder), as the PR's folder listing shows.

use super::{cost, Phase, ReaderStep, SeaTunnelReader, World};
use crate::microbatch::event::sink_outcome::CommitTarget;
use crate::microbatch::event::{EventKind, SinkEffect};
use crate::microbatch::scenario::{ReaderEnd, SeaTunnelDesign};
use crate::microbatch::sink::Sink as _;
use crate::microbatch::sink::TaskOutput;
use crate::microbatch::source::{read_range, seatunnel};
use crate::microbatch::tunnel::Token;
use crate::microbatch::upstream::Rows;

impl World {
    /// Opens one reader per planned subtask at its restored position; the first polls next.
    /// Each reader's checkpoint timer starts now (`prepare()` calls
    /// `startCheckpointConditionService`), its state goes to the folder of the batch's start
    /// offset, and its first snapshot id is that folder's newest `.committed` id + 1.
    pub(super) fn start_readers(&mut self, batch_id: u64) -> Phase {
        let now = self.now_ms;
        let interval = self.scenario.source.checkpoint_interval_ms;
        let folder = seatunnel::folder_of(self.batch_run(batch_id).start.as_ref());
        let ids: Vec<u64> = self
            .batch_run(batch_id)
            .plan
            .iter()
            .map(|p| seatunnel::next_checkpoint_id(&self.checkpoint, folder, p.channel))
            .collect();
        let b = self.batch_run_mut(batch_id);
        assert!(b.readers.is_empty(), "a batch opens its readers once");
        b.tasks_started_ms = now;
        b.readers = b
            .plan
            .iter()
            .zip(ids)
            .map(|(p, checkpoint_id)| SeaTunnelReader {
                position: p.start.offset_or_zero(),
                last_data_ms: now,
                next_checkpoint_ms: now + interval,
                checkpoint_id,
                folder,
                ..SeaTunnelReader::default()
            })
            .collect();
        Phase::Reader { batch_id, task: 0 }
    }

    /// Where subtask `c`'s reader resumes in a batch that starts at `{"checkpointId":folder}`,
    /// by the scenario's design ([`seatunnel::restore`]); 0 if no state file says.
    pub fn seatunnel_restore(&self, folder: u64, c: u32) -> u64 {
        seatunnel::restore(&self.checkpoint, folder, c, self.scenario.source.design)
    }

    /// One step of SeaTunnel reader `task` (SEMANTICS §4): poll, or snapshot, sink commit and
    /// rename around an in-band checkpoint record or the end of the reader.
    pub(super) fn reader_step(&mut self, batch_id: u64, task: u32) -> EventKind {
        let r = self.batch_run(batch_id).readers[task as usize].clone();
        let mut next = r.clone();
        let event = match r.step {
            ReaderStep::Poll => self.reader_poll(batch_id, task, &mut next),
            ReaderStep::Prepare => self.reader_prepare(batch_id, task, &mut next),
            ReaderStep::SinkCommit => {
                self.now_ms += cost::TASK;
                if self.sink.is_down(self.now_ms) {
                    return self
                        .fail_sink(batch_id, &format!("subtask {task} of batch {batch_id}"));
                }
                self.reader_sink_commit(batch_id, task, &mut next)
            }
            ReaderStep::Rename => self.reader_rename(batch_id, task, &mut next),
            ReaderStep::Done => unreachable!("done readers are skipped"),
        };
        let finished_now = next.step == ReaderStep::Done;
        let b = self.batch_run_mut(batch_id);
        b.readers[task as usize] = next;
        if finished_now {
            b.tasks_done += 1;
            self.last_task_done = true;
        }
        self.phase = self.next_reader(batch_id, task);
        event
    }

    /// Round robin over readers that are not done; a reader between a checkpoint record's
    /// snapshot and its rename keeps the turn; when all are done, the batch's sink commit follows.
    pub(super) fn next_reader(&self, batch_id: u64, task: u32) -> Phase {
        let readers = &self.batch_run(batch_id).readers;
        let open: Vec<u32> = (0..readers.len() as u32)
            .filter(|&t| readers[t as usize].step != ReaderStep::Done)
            .collect();
        let mid_sequence = !matches!(
            readers[task as usize].step,
            ReaderStep::Poll | ReaderStep::Done
        );
        if mid_sequence {
            Phase::Reader { batch_id, task }
        } else if let Some(&t) = open.iter().find(|&&t| t > task).or(open.first()) {
            Phase::Reader { batch_id, task: t }
        } else {
            Phase::SinkCommit { batch_id }
        }
    }

    /// `next()` polls the handover queue: every row arrived so far; the reader closes after
    /// `idle_timeout_ms` without data. When a checkpoint record is due depends on the design:
    /// PR #7476's timer fires once per reader and batch (`snapshotExecutor.schedule(...)` in
    /// `startCheckpointConditionService`, never rescheduled), and asks for a snapshot only if a
    /// row arrived before it (`checkpointCondition`); the committed-only design takes a record
    /// every interval.
    pub(super) fn reader_poll(
        &mut self,
        batch_id: u64,
        task: u32,
        next: &mut SeaTunnelReader,
    ) -> EventKind {
        let spec = &self.scenario.source;
        let readers = self.upstream.channels.len() as u64;
        self.now_ms += (1000 / readers).max(1);
        let plan = self.batch_run(batch_id).plan[task as usize].clone();
        let channel = self.upstream.channel(plan.channel);
        let arrived = channel.arrived(self.now_ms).max(next.position);
        let mut rows = read_range(
            &self.upstream,
            plan.channel,
            Token::At(next.position),
            Token::At(arrived),
        );
        let count = rows.len();
        self.counters.rows_read_by_tasks += count;
        next.position = arrived;
        next.pending.append(&mut rows);
        if count > 0 {
            next.last_data_ms = self.now_ms;
        }
        let idle_ms = self.now_ms - next.last_data_ms;
        let pr = spec.design == SeaTunnelDesign::Pr7476;
        let timer_on = match spec.reader {
            ReaderEnd::CheckpointRecords => true,
            // The PR's reader runs the timer whatever ends its batch.
            ReaderEnd::IdleTimeout => pr,
            ReaderEnd::Never | ReaderEnd::VirtualCheckpoint => false,
        };
        let timer_fired = timer_on && self.now_ms >= next.next_checkpoint_ms;
        let record_due = timer_fired
            && if pr {
                // A row collected between the reader's start and the timer.
                let start = plan.start.offset_or_zero();
                channel.arrived(next.next_checkpoint_ms) > start
            } else {
                !next.pending.is_empty()
            };
        if timer_fired && pr {
            next.next_checkpoint_ms = u64::MAX;
        }
        let closes = !record_due
            && match spec.reader {
                ReaderEnd::Never => false,
                // One virtual checkpoint after the interval, then `running = false`.
                ReaderEnd::VirtualCheckpoint => self.now_ms >= next.next_checkpoint_ms,
                _ => idle_ms >= spec.idle_timeout_ms,
            };
        if closes {
            next.closed = true;
        }
        // The dev reader's virtual checkpoint writes its state as it closes.
        let snapshot_on_close = !pr || spec.reader == ReaderEnd::VirtualCheckpoint;
        next.step = if record_due || (closes && snapshot_on_close) {
            ReaderStep::Prepare
        } else if closes {
            // PR #7476: `next()` returns false without a snapshot, and `close()` writes none.
            ReaderStep::SinkCommit
        } else {
            ReaderStep::Poll
        };
        EventKind::ReaderPolled {
            batch_id,
            partition: task,
            rows: count,
            idle_ms,
            closes,
        }
    }

    /// Snapshots the reader's position to `<id>.prepared`.
    pub(super) fn reader_prepare(
        &mut self,
        batch_id: u64,
        task: u32,
        next: &mut SeaTunnelReader,
    ) -> EventKind {
        self.now_ms += cost::FILE_WRITE;
        let path = if self.scenario.source.reader == ReaderEnd::VirtualCheckpoint {
            // Dev appends the snapshot to `<checkpointLocation>/<subtaskId>/1` and restores
            // from `/0`, which nothing writes (modelled as one write of the file).
            format!("sources/0/{task}/1")
        } else {
            format!(
                "sources/0/{}/{task}/{}.prepared",
                next.folder, next.checkpoint_id
            )
        };
        let mut contents = Token::At(next.position).to_string();
        if self.scenario.source.design == SeaTunnelDesign::Pr7476 {
            // `saveState` appends to a file that exists (a re-run reusing the id); a restore
            // reads the first object. The committed-only design replaces the file.
            if let Some(old) = self.checkpoint.read(&path) {
                contents = format!("{}\n{contents}", String::from_utf8_lossy(old));
            }
        }
        self.checkpoint.delete(&path);
        self.checkpoint
            .create_atomic(&path, contents.clone().into_bytes())
            .expect("a state file path is valid and was just deleted");
        next.step = ReaderStep::SinkCommit;
        EventKind::StateFile {
            batch_id,
            path,
            renamed_from: None,
            contents,
        }
    }

    /// Subtask `task`'s rows handed to the sink (SeaTunnel's sink writer names no data file).
    fn reader_output(&mut self, batch_id: u64, task: u32, rows: Rows) -> SinkEffect {
        let output = TaskOutput {
            batch_id,
            partition: task,
            rows,
            file_name: String::new(),
        };
        self.sink_contract()
            .task_output(&mut self.sink, output, &self.upstream)
    }

    /// The sink writer takes the rows before the checkpoint record, or at the end of the reader
    /// the task's last rows. PR #7476's `SeaTunnelSparkDataWriter` calls `prepareCommit` at a
    /// record and drops what it returns, and commits only `latestCommitInfoT` at Spark task
    /// commit: for a sink without a committer (the kinds modelled: append, upsert) the rows are
    /// written as the writer flushes them, so they are visible at the record; the committed-only
    /// design makes them visible there too, before the rename.
    pub(super) fn reader_sink_commit(
        &mut self,
        batch_id: u64,
        task: u32,
        next: &mut SeaTunnelReader,
    ) -> EventKind {
        let rows = std::mem::take(&mut next.pending);
        let count = rows.len();
        let pr = self.scenario.source.design == SeaTunnelDesign::Pr7476;
        next.step = if self.scenario.source.reader == ReaderEnd::VirtualCheckpoint {
            // No rename in dev: `notifyCheckpointComplete`, and the reader is done.
            ReaderStep::Done
        } else if pr && next.closed {
            // Spark task commit (`DataWriter.commit()`): no state file to rename.
            ReaderStep::Done
        } else {
            ReaderStep::Rename
        };
        let effect = self.reader_output(batch_id, task, rows);
        if next.closed {
            EventKind::TaskFinished {
                batch_id,
                partition: task,
                rows: count,
                effect,
            }
        } else if pr {
            EventKind::SinkCommitted {
                batch_id,
                rows: count,
                target: CommitTarget::Prepared {
                    checkpoint_id: next.checkpoint_id,
                    subtask: task,
                },
                skipped: false,
            }
        } else {
            EventKind::SinkCommitted {
                batch_id,
                rows: count,
                target: CommitTarget::Record {
                    checkpoint_id: next.checkpoint_id,
                    subtask: task,
                },
                skipped: false,
            }
        }
    }

    /// The sink renames `<id>.prepared` to `<id>.committed`; the reader polls again, or is done.
    pub(super) fn reader_rename(
        &mut self,
        batch_id: u64,
        task: u32,
        next: &mut SeaTunnelReader,
    ) -> EventKind {
        self.now_ms += cost::CALL;
        let dir = format!("sources/0/{}/{task}", next.folder);
        let from = format!("{dir}/{}.prepared", next.checkpoint_id);
        let path = format!("{dir}/{}.committed", next.checkpoint_id);
        let contents = self
            .checkpoint
            .read(&from)
            .map(|b| String::from_utf8_lossy(b).to_string())
            .unwrap_or_default();
        self.checkpoint.delete(&from);
        self.checkpoint.delete(&path);
        self.checkpoint
            .create_atomic(&path, contents.clone().into_bytes())
            .expect("a state file path is valid and was just deleted");
        next.checkpoint_id += 1;
        if self.scenario.source.design == SeaTunnelDesign::CommittedOnly {
            // Committed-only takes a record every interval; PR #7476's timer fired once.
            next.next_checkpoint_ms = self.now_ms + self.scenario.source.checkpoint_interval_ms;
        }
        next.step = if next.closed {
            ReaderStep::Done
        } else {
            ReaderStep::Poll
        };
        EventKind::StateFile {
            batch_id,
            path,
            renamed_from: Some(from),
            contents,
        }
    }
}
