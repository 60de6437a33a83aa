//! SeaTunnel micro-batch readers (PR #7476): one reader per subtask, polled in turn; an
//! in-band checkpoint record (or the end of the reader) snapshots its position to
//! `<id>.prepared`, the sink writer takes the rows before it, and renames the file `.committed`.
//! As the PR wrote it, the sink writer only prepares its commit at a checkpoint record and
//! commits at Spark task commit (the end of the reader); in the committed-only design the rows
//! before a record are visible before the rename. Checkpoint ids start at 0, as the PR's
//! folder listing shows (`sources/0/<batch>/<subtask>/0.committed`).

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
    pub(super) fn start_readers(&mut self, batch_id: u64) -> Phase {
        let now = self.now_ms;
        let interval = self.scenario.source.checkpoint_interval_ms;
        let b = self.batch_run_mut(batch_id);
        assert!(b.readers.is_empty(), "a batch opens its readers once");
        b.tasks_started_ms = now;
        b.readers = b
            .plan
            .iter()
            .map(|p| SeaTunnelReader {
                position: p.start.offset_or_zero(),
                last_data_ms: now,
                next_checkpoint_ms: now + interval,
                checkpoint_id: 0,
                ..SeaTunnelReader::default()
            })
            .collect();
        Phase::Reader { batch_id, task: 0 }
    }

    /// Where subtask `c`'s reader resumes in batch `batch_id`, by the scenario's design
    /// ([`seatunnel::restore`]); 0 if no state file says.
    pub fn seatunnel_restore(&self, batch_id: u64, c: u32) -> u64 {
        seatunnel::restore(&self.checkpoint, batch_id, c, self.scenario.source.design)
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
    /// `idle_timeout_ms` without data, and a checkpoint record is due every interval.
    pub(super) fn reader_poll(
        &mut self,
        batch_id: u64,
        task: u32,
        next: &mut SeaTunnelReader,
    ) -> EventKind {
        let spec = &self.scenario.source;
        let readers = self.upstream.channels.len() as u64;
        self.now_ms += (1000 / readers).max(1);
        let channel = self.batch_run(batch_id).plan[task as usize].channel;
        let arrived = self
            .upstream
            .channel(channel)
            .arrived(self.now_ms)
            .max(next.position);
        let mut rows = read_range(
            &self.upstream,
            channel,
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
        let closes = match spec.reader {
            ReaderEnd::Never => false,
            // One virtual checkpoint after the interval, then `running = false`.
            ReaderEnd::VirtualCheckpoint => self.now_ms >= next.next_checkpoint_ms,
            _ => idle_ms >= spec.idle_timeout_ms,
        };
        let record_due = spec.reader == ReaderEnd::CheckpointRecords
            && self.now_ms >= next.next_checkpoint_ms
            && !next.pending.is_empty();
        if closes {
            next.closed = true;
        }
        if closes || record_due {
            next.step = ReaderStep::Prepare;
        }
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
                "sources/0/{batch_id}/{task}/{}.prepared",
                next.checkpoint_id
            )
        };
        let contents = Token::At(next.position).to_string();
        // A re-run writes the same checkpoint id again: the state file is replaced.
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

    /// The sink commits the rows read before the checkpoint record (or, at the end of the
    /// reader, the task's last rows). SeaTunnel's sink writer appends.
    pub(super) fn reader_sink_commit(
        &mut self,
        batch_id: u64,
        task: u32,
        next: &mut SeaTunnelReader,
    ) -> EventKind {
        let mut rows = std::mem::take(&mut next.pending);
        let count = rows.len();
        next.step = if self.scenario.source.reader == ReaderEnd::VirtualCheckpoint {
            // No rename in dev: `notifyCheckpointComplete`, and the reader is done.
            ReaderStep::Done
        } else {
            ReaderStep::Rename
        };
        if self.scenario.source.design == SeaTunnelDesign::Pr7476 {
            if !next.closed {
                // `prepareCommit` at the checkpoint record: the rows wait for the task commit.
                next.prepared.append(&mut rows);
                return EventKind::SinkCommitted {
                    batch_id,
                    rows: count,
                    target: CommitTarget::Prepared {
                        checkpoint_id: next.checkpoint_id,
                        subtask: task,
                    },
                    skipped: false,
                };
            }
            // Spark task commit: the SeaTunnel committer commits everything prepared.
            let mut all = std::mem::take(&mut next.prepared);
            all.append(&mut rows);
            let n = all.len();
            let effect = self.reader_output(batch_id, task, all);
            return EventKind::TaskFinished {
                batch_id,
                partition: task,
                rows: n,
                effect,
            };
        }
        let effect = self.reader_output(batch_id, task, rows);
        if next.closed {
            EventKind::TaskFinished {
                batch_id,
                partition: task,
                rows: count,
                effect,
            }
        } else {
            EventKind::SinkCommitted {
                batch_id,
                rows: count,
                target: CommitTarget::Visible(format!(
                    "checkpoint record {} of subtask {task}",
                    next.checkpoint_id
                )),
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
        let dir = format!("sources/0/{batch_id}/{task}");
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
        next.next_checkpoint_ms = self.now_ms + self.scenario.source.checkpoint_interval_ms;
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
