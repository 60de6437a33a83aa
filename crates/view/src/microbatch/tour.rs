//! The guided tour of each preset: the moments of a run where playback pauses, and what to look
//! at there. A tour arms its lesson's crash, plays, and stops at each [`Stop`] in turn.
//!
//! A stop names a [`Moment`] (an event of the trace), not a sequence number, so the same tour
//! works for any seed: each stop is the first matching event after the previous stop. A stop
//! that a run never reaches (another seed, another crash) is reported as `None`, never guessed.

use super::tab::Tab;
use crate::microbatch::lessons::lesson;
use crate::tour_runner::resolve_in_order;
use batchscope_engine::microbatch::event::tag::EventTag;
use batchscope_engine::microbatch::event::{Event, EventKind};
use batchscope_engine::microbatch::tunnel::{ChannelStatus, Token};

/// Where a stop pauses: the first event after the previous stop that matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moment {
    /// The next event of this kind (e.g. [`EventTag::Crashed`]).
    Next(EventTag),
    /// The next event of this kind that belongs to batch (or epoch) N; `source-commit` belongs
    /// to the batch being constructed, as in [`EventKind::batch_id`].
    Batch(EventTag, u64),
    /// The sink skips a batch it already holds (`add-batch` or `sink-committed`, skipped).
    SinkSkipped,
    /// A re-run overwrites an end row of the Meta table.
    MetaOverwritten,
    /// A task reads a channel to its end (`finished`); not a task that throws there.
    ChannelFinished,
    /// The Tunnel server opens a channel.
    ChannelOpened,
    /// A task throws before it reads (a Tablestore start row already `finished`).
    TaskThrows,
    /// A reader polls an empty queue long after the data stopped, and does not close.
    ReaderWaits,
    /// A reader ends its micro-batch (`next()` returns false).
    ReaderCloses,
    /// A reader writes a `.prepared` state file.
    StatePrepared,
    /// The sink renames `.prepared` to `.committed`.
    StateCommitted,
    /// The end of the run (the verdict is final).
    End,
}

impl Moment {
    /// Whether this event is the moment (never true for [`Moment::End`]).
    pub fn matches(&self, event: &Event) -> bool {
        let kind = &event.kind;
        match *self {
            Moment::Next(tag) => kind.tag() == tag,
            Moment::Batch(tag, batch) => kind.tag() == tag && kind.batch_id() == Some(batch),
            Moment::SinkSkipped => matches!(
                kind,
                EventKind::AddBatch { skipped: true, .. }
                    | EventKind::SinkCommitted { skipped: true, .. }
            ),
            Moment::MetaOverwritten => matches!(
                kind,
                EventKind::MetaRowWritten {
                    overwritten: true,
                    ..
                }
            ),
            Moment::ChannelFinished => {
                matches!(
                    kind,
                    EventKind::TaskRead {
                        to: Token::Finished,
                        error: None,
                        ..
                    }
                )
            }
            Moment::ChannelOpened => {
                matches!(
                    kind,
                    EventKind::ChannelState {
                        state: ChannelStatus::Open,
                        ..
                    }
                )
            }
            Moment::TaskThrows => {
                matches!(kind, EventKind::TaskRead { error: Some(_), .. })
            }
            Moment::ReaderWaits => matches!(
                kind,
                EventKind::ReaderPolled { rows: 0, idle_ms, closes: false, .. } if *idle_ms >= 2000
            ),
            Moment::ReaderCloses => matches!(kind, EventKind::ReaderPolled { closes: true, .. }),
            Moment::StatePrepared => matches!(
                kind,
                EventKind::StateFile {
                    renamed_from: None,
                    ..
                }
            ),
            Moment::StateCommitted => matches!(
                kind,
                EventKind::StateFile {
                    renamed_from: Some(_),
                    ..
                }
            ),
            Moment::End => false,
        }
    }
}

/// One pause of a tour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stop {
    /// Where playback pauses.
    pub at: Moment,
    /// The tab that shows what the text talks about.
    pub panel: Option<Tab>,
    /// A few words (the stop's heading).
    pub title: &'static str,
    /// What to look at, and why it matters.
    pub text: &'static str,
}

/// A preset's guided tour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tour {
    /// The crash the tour arms before it starts (the lesson's `try_crash`).
    pub crash: Option<&'static str>,
    /// The pauses, in the order they happen.
    pub stops: Vec<Stop>,
}

impl Tour {
    /// The crash the tour arms, parsed (`None`: the tour arms none).
    pub fn crash_point(&self) -> Option<batchscope_engine::microbatch::scenario::CrashPoint> {
        self.crash.and_then(|c| c.parse().ok())
    }
}

/// For each stop, the cursor (events shown) at which playback pauses: just after the matching
/// event, or the end of the run for [`Moment::End`]. A stop the run never reaches is `None` and
/// the next stop is searched from the last one reached.
pub fn stop_cursors(stops: &[Stop], events: &[Event]) -> Vec<Option<usize>> {
    resolve_in_order(
        stops.len(),
        events,
        |i| stops[i].at == Moment::End,
        |i, e| stops[i].at.matches(e),
    )
}

const fn stop(at: Moment, panel: Option<Tab>, title: &'static str, text: &'static str) -> Stop {
    Stop {
        at,
        panel,
        title,
        text,
    }
}

use EventTag as E;
use Moment::*;
use Tab::*;

/// The tour of a preset (an unknown name gets a general one).
pub fn tour(preset: &str) -> Tour {
    let crash = lesson(preset).try_crash;
    if let Some(stops) = seatunnel_stops(preset) {
        return Tour { crash, stops };
    }
    let stops = match preset {
        "kafka-idempotent" => vec![
            stop(Batch(E::OffsetLogWritten, 0), Some(Checkpoint), "The write-ahead log",
                "offsets/0 is on disk before any task of batch 0 runs. Open it in the Checkpoint folder: the Kafka offsets of the batch's end, per partition."),
            stop(Batch(E::CommitLogWritten, 0), Some(Checkpoint), "Done for good",
                "commits/0 is written only after the sink finished. A batch with both offsets/N and commits/N is never run again."),
            stop(Batch(E::SinkCommitted, 3), Some(Sink), "Batch 3 is in the sink",
                "The file sink wrote batch 3's files and listed them in _spark_metadata/3. commits/3 comes next — but the crash comes first."),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed before commits/3",
                "The folder now holds offsets/3 without commits/3: from Spark's point of view batch 3 never finished."),
            stop(Next(E::Recovered), Some(Checkpoint), "The restart reads the logs",
                "Latest offsets/3, latest commits/2: batch 3 is re-run with exactly the offsets in offsets/3 — the same Kafka range, the same rows."),
            stop(SinkSkipped, Some(Sink), "The sink skips what it has",
                "addBatch(3) finds batch 3 in the sink's own manifest and returns before any task runs. Nothing is written twice."),
            stop(End, Some(Sink), "Exactly-once",
                "Replayable source + idempotent sink: every record is in the sink once. (Arm task@3 instead to see orphan files: written by a killed attempt, never listed in the manifest, invisible to readers.)"),
        ],
        "kafka-append" => vec![
            stop(Batch(E::OffsetLogWritten, 0), Some(Checkpoint), "The write-ahead log",
                "offsets/0 is written before batch 0 runs: a restart will re-run batch 0 with these offsets until commits/0 exists."),
            stop(Batch(E::TaskFinished, 0), Some(Sink), "Rows are visible early",
                "A task appends its rows as it finishes — before commits/0. A crash from here to commits/0 leaves rows in the sink for a batch Spark will run again."),
            stop(Batch(E::SinkCommitted, 3), Some(Sink), "Batch 3 is in the sink",
                "Every row of batch 3 is appended. Only commits/3 is missing."),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed before commits/3",
                "offsets/3 without commits/3."),
            stop(Next(E::Recovered), Some(Checkpoint), "Re-run batch 3",
                "Same offsets, same rows: the Kafka range is replayed exactly."),
            stop(Batch(E::TaskFinished, 3), Some(Sink), "Appended again",
                "The plain append sink has no memory of batch 3: the re-run's task appends the same rows a second time. Their keys turn red in the Sink tab."),
            stop(End, Some(Sink), "Duplicates",
                "At-least-once for the last, uncommitted batch: exact replay needs an idempotent sink to become exactly-once."),
        ],
        "tablestore" => vec![
            stop(Next(E::SourceInitialized), Some(Meta), "The Meta table",
                "The source stores where each channel starts in the Meta table, one row per (UUID, channel). Nothing in Spark's checkpoint knows these positions."),
            stop(Batch(E::OffsetLogWritten, 0), Some(Checkpoint), "A UUID as the offset",
                "getOffset cannot know where the batch ends without reading it, so it returns a random UUID. Open offsets/0: the UUID is all it holds."),
            stop(Batch(E::MetaRowWritten, 1), Some(Meta), "Tasks write the end",
                "Each task writes where it stopped under the end UUID of batch 1 — the highlighted row. The next batch starts from these rows."),
            stop(Batch(E::SourceCommit, 2), Some(Channels), "Checkpoints one batch late",
                "source.commit(end of batch 1) runs while batch 2 is being constructed: only now does the Tunnel server learn batch 1's checkpoints. The server column trails the Meta table by one batch."),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed before commits/2",
                "Batch 2's rows are in the sink, commits/2 is missing."),
            stop(MetaOverwritten, Some(Meta), "The re-run reads more",
                "Batch 2 re-runs from the same start rows, but the data kept arriving: the tasks read further and overwrite the end rows (marked). getBatch is not deterministic here."),
            stop(End, Some(Sink), "Exactly-once with upserts",
                "The upsert sink absorbs the re-read rows (counted as rewrites). With an append sink the same crash duplicates — see tablestore-append."),
        ],
        "tablestore-append" => vec![
            stop(Batch(E::TaskFinished, 2), Some(Sink), "Batch 2 appends",
                "Rows of batch 2 are appended as each task finishes."),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed before commits/2",
                "The sink holds batch 2's rows; the checkpoint says batch 2 never finished."),
            stop(Next(E::Recovered), Some(Checkpoint), "Re-run batch 2",
                "From the same start UUID — the Meta rows of batch 1's end."),
            stop(Batch(E::TaskFinished, 2), Some(Sink), "Appended again, and more",
                "The re-run reads the same rows again plus everything that arrived meanwhile, and appends all of it."),
            stop(MetaOverwritten, Some(Meta), "The end moved",
                "The end UUID's rows are overwritten with the later positions: the first attempt's end is forgotten."),
            stop(End, Some(Sink), "Duplicates",
                "The UUID design is at-least-once on its own; only a sink idempotent by key makes it exactly-once."),
        ],
        "tablestore-split" => vec![
            stop(ChannelFinished, Some(Meta), "The parent ends",
                "ch0 split at 2.5 s. A task of batch 3 reads it to its end and writes `finished` as its end row in the Meta table. Its children ch2 and ch3 wait on the Tunnel server: they open only once the server has the parent's final checkpoint."),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed before the commit",
                "offsets/4 is on disk; source.commit(end of batch 3) has not run. The Tunnel server never got ch0's `finished`, and ch0's finished row is still in the Meta table."),
            stop(Next(E::Recovered), Some(Checkpoint), "Re-run batch 4",
                "commits/4 is missing, so batch 4 re-runs from batch 3's end rows. The re-run path never calls the skipped commit."),
            stop(TaskThrows, Some(Meta), "A finished start row",
                "ch0's task starts at `finished`: readRecords returns null and the task dereferences it — a NullPointerException (inferred from the connector's code, TableStoreSourceRDD; not observed on a cluster). No ReadRecords call is made. The batch fails, and the query with it."),
            stop(Next(E::Recovered), Some(Checkpoint), "Again",
                "The restart finds the same logs and re-runs batch 4 from the same rows: it will throw the same way on every attempt. A crash loop."),
            stop(End, Some(Channels), "Stuck",
                "Batch 4 never commits, so ch0 never terminates and ch2/ch3 never open; nothing after batch 3 reaches the sink. (A crash after source.commit, source-commit@4, loses nothing: the commit already reached the server.)"),
        ],
        "tablestore-two-phase" => vec![
            stop(Batch(E::SinkCommitted, 2), Some(Sink), "Batch 2 committed",
                "The sink published the rows it staged for epoch 2 in the driver's commit."),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed before commits/2", "Batch 2 will re-run."),
            stop(MetaOverwritten, Some(Meta), "The re-run reads more",
                "More data arrived: the tasks read past the first attempt's end and move the end rows past it."),
            stop(SinkSkipped, Some(Sink), "…and the sink skips it",
                "Epoch 2 is already committed, so the sink drops this attempt's staged rows — including the extra ones."),
            stop(Batch(E::GetBatch, 3), Some(Meta), "Batch 3 starts after them",
                "Batch 3 starts from the moved end rows. The extra rows of batch 2 are never read again."),
            stop(End, Some(Sink), "Data loss",
                "The missing keys are listed in the Sink tab. The V1 Source contract demands the same rows for the same offsets for this reason."),
        ],
        "pull-ahead" => vec![
            stop(Batch(E::GetOffset, 1), Some(Channels), "Reading ahead",
                "getOffset reads every new row to find the batch's end, and caches them. The counters show the rows read ahead and the cache size."),
            stop(Batch(E::OffsetLogWritten, 1), Some(Checkpoint), "Real positions",
                "offsets/1 holds real channel positions, like Kafka offsets: replay is deterministic."),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed before commits/2", "The cache dies with the driver."),
            stop(Batch(E::TaskRead, 2), Some(Channels), "Read again",
                "The first attempt's tasks took their rows from the cache (\"cached\" arrows). The re-run has no cache: it reads the same range from the Tunnel server again — the same rows."),
            stop(End, Some(Channels), "Exactly-once, at a price",
                "Every row was read twice (once ahead, once by a task) and held in memory in between."),
        ],
        "auto-commit" => vec![
            stop(Batch(E::TaskRead, 2), Some(Channels), "Commit on read",
                "The task pushes its checkpoint to the Tunnel server as soon as it reads the page (committed = true) — before the rows reach the sink."),
            stop(Batch(E::TaskFinished, 2), Some(Sink), "One task done", "One task wrote its rows. The other has read and committed its rows to the server, but not written them."),
            stop(Next(E::Crashed), Some(Channels), "Killed mid-batch", "The unwritten task's rows were committed to the server and are in no sink."),
            stop(Batch(E::TaskRead, 2), Some(Channels), "The re-run starts past them",
                "The re-run plans from the server's checkpoints, which are already past those rows."),
            stop(End, Some(Sink), "Data loss",
                "Nobody reads those rows again. A source may commit only after the batch is done — compare the tablestore preset."),
        ],
        "foreach-batch-multi" => vec![
            stop(Batch(E::SinkCommitted, 2), Some(Sink), "One store of three",
                "foreachBatch wrote batch 2 to one of three stores, chosen at random."),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed before commits/2", "The function returned; commits/2 is missing."),
            stop(Batch(E::SinkCommitted, 2), Some(Sink), "Written again",
                "The re-run calls the function with the same batch id and data — it ignores the id and writes the batch again, maybe into another store."),
            stop(End, Some(Sink), "Duplicates",
                "The same keys sit in two stores (or twice in one). De-duplicate by batch id to be exactly-once."),
        ],
        "sink-outage" => sink_outage_stops(),
        "continuous-epochs" => vec![
            stop(Batch(E::EpochAdvanced, 1), None, "An epoch ends",
                "No batches: tasks read all the time, and the driver ends an epoch each interval. Each reader reports its offset at the epoch marker."),
            stop(Batch(E::CommitLogWritten, 1), Some(Checkpoint), "Writers first, then commits/1",
                "Each writer committed epoch 1's rows to the sink; only then the driver wrote commits/1."),
            stop(Batch(E::SinkCommitted, 3), Some(Sink), "Epoch 3 is in the sink", "Its rows are visible; commits/3 is next."),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed before commits/3", "The commit log ends at 2."),
            stop(Next(E::Recovered), Some(Checkpoint), "Restart from commits/2",
                "Spark looks only at the commit log: epoch 3 starts again from offsets/2."),
            stop(Batch(E::TaskFinished, 3), Some(Sink), "Written again",
                "The replayed epoch writes the rows the first attempt had already committed."),
            stop(End, Some(Sink), "Duplicates, never loss", "Continuous processing is at-least-once."),
        ],
        "checkpoint-deleted-latest" => vec![
            stop(Batch(E::CommitLogWritten, 2), Some(Checkpoint), "Batch 2 is done", "commits/2 is written: everything up to batch 2 is in the sink."),
            stop(Next(E::Crashed), Some(Checkpoint), "The query stops", "The query is stopped; the data keeps arriving."),
            stop(Next(E::CheckpointDeleted), Some(Checkpoint), "The folder is deleted",
                "An operator deletes the checkpoint folder: offsets, commits, metadata and sources/0/0 are gone. The Kafka offsets were nowhere else."),
            stop(Next(E::SourceInitialized), Some(Checkpoint), "startingOffsets=latest",
                "The restart is a new query. sources/0/0 records the end of each partition now: the rows that arrived while the query was down lie before it."),
            stop(End, Some(Sink), "Data loss", "Those rows are never read. The lost keys are listed in the Sink tab."),
        ],
        "checkpoint-deleted-earliest" => vec![
            stop(Batch(E::CommitLogWritten, 2), Some(Checkpoint), "Batch 2 is done", "commits/2 is written: everything up to batch 2 is in the sink."),
            stop(Next(E::CheckpointDeleted), Some(Checkpoint), "The folder is deleted",
                "An operator deletes the checkpoint folder while the query is down. The restart is a new query."),
            stop(Next(E::SourceInitialized), Some(Checkpoint), "startingOffsets=earliest",
                "sources/0/0 records offset 0 for every partition: the new query starts at the beginning of the topic."),
            stop(Batch(E::TaskFinished, 0), Some(Sink), "Appended again",
                "The new query's batch 0 holds everything the old query already wrote; the append sink appends it again."),
            stop(End, Some(Sink), "Duplicates", "Every row the old query wrote is in the sink twice."),
        ],
        "batch-id-in-memory" => vec![
            stop(Batch(E::SinkCommitted, 3), Some(Sink), "latestBatchId = 3",
                "The sink wrote batch 3 and set its driver-side field latestBatchId to 3. commits/3 is next — the crash comes first."),
            stop(Next(E::Crashed), Some(Checkpoint), "The field dies with the driver", "offsets/3 without commits/3; the sink object is gone."),
            stop(Next(E::Recovered), Some(Checkpoint), "Re-run batch 3", "Same offsets, same rows, same batch id."),
            stop(Batch(E::AddBatch, 3), Some(Sink), "A new sink object",
                "The new driver's sink starts with latestBatchId = -1: batch 3 is not skipped."),
            stop(End, Some(Sink), "Duplicates",
                "Batch 3 is in the sink twice. A batch id de-duplicates only if it is kept where the restart can read it (FileStreamSink's _spark_metadata)."),
        ],
        "kafka-v1-source" => vec![
            stop(Batch(E::CommitLogWritten, 3), Some(Checkpoint), "Batch 3 is done",
                "commits/3 is on disk: batch 3 will never run again. The crash comes right after it."),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed after commits/3", "offsets/3 and commits/3 are both there."),
            stop(Next(E::Recovered), Some(Checkpoint), "Batch 4 is next", "The latest batch in offsets/ is committed: the driver moves on to batch 4."),
            stop(Next(E::RecoveryGetBatch), None, "getBatch(3), not run",
                "First Spark calls getBatch of batch 3 on the V1 KafkaSource and discards the result: the V1 KafkaSource expects the last batch to run before getOffset is called again. A V2 KafkaMicroBatchStream (kafka-append) is not asked."),
            stop(End, Some(Sink), "Nothing changes in the sink", "The extra call writes nothing: every record once."),
        ],
        _ => vec![
            stop(Batch(E::OffsetLogWritten, 0), Some(Checkpoint), "The write-ahead log",
                "offsets/0 is written before anything of batch 0 runs."),
            stop(Batch(E::CommitLogWritten, 0), Some(Checkpoint), "Batch 0 done", "commits/0 only after the sink finished."),
            stop(End, Some(Sink), "The verdict", "The badge compares the sink with every record the upstream produced."),
        ],
    };
    Tour { crash, stops }
}

/// The sink-outage tour: a long outage that outlasts the task retries, then a short one they
/// ride out.
fn sink_outage_stops() -> Vec<Stop> {
    vec![
        stop(Next(E::TaskFailed), Some(Sink), "The store is down",
            "From 2.135 s the store refuses writes: a task's write fails. The task fails, not the query — Spark runs it again (spark.task.maxFailures)."),
        stop(Next(E::QueryFailed), Some(Checkpoint), "Out of attempts: the query fails",
            "Every attempt failed: the job, the batch and the query fail. The Kafka offsets of the batch are in offsets/N, but Spark marks nothing processed: commits/N is not written."),
        stop(Next(E::Recovered), Some(Checkpoint), "A scheduler restarts it",
            "Spark does not restart a failed query; a job scheduler does. The failed batch re-runs with the same offsets."),
        stop(Next(E::QueryFailed), Some(Sink), "Still down", "The re-run's attempts fail too; another restart follows."),
        stop(Next(E::CommitLogWritten), Some(Checkpoint), "The store is back",
            "The failed batch finally commits. Rows written before each failure were written again — the upsert sink absorbs them."),
        stop(Next(E::TaskFailed), Some(Sink), "A short outage",
            "At 5.61 s the store is down again, for 50 ms: a task attempt fails and is retried."),
        stop(Next(E::TaskFinished), Some(Sink), "Ridden out",
            "A retry writes once the store is back: the batch goes on to commit with no query failure and no restart."),
        stop(End, Some(Sink), "Nothing lost", "Exactly-once: the offsets were never marked processed while writes failed."),
    ]
}

/// The stops of the SeaTunnel presets' tours.
fn seatunnel_stops(preset: &str) -> Option<Vec<Stop>> {
    Some(match preset {
        "reader-never-closes" => vec![
            stop(Batch(E::AddBatch, 0), Some(Sink), "Batch 0 starts",
                "The sink waits for the tasks; a task ends when its reader's next() returns false."),
            stop(Next(E::ReaderPolled), Some(Channels), "The reader polls",
                "SeaTunnel's reader loops while its queue is empty: `while (running && handover.isEmpty()) sleep`."),
            stop(ReaderWaits, Some(Channels), "The data has stopped",
                "The queue has been empty for seconds, and the reader still waits: in streaming mode it is always running."),
            stop(End, Some(Sink), "Stuck",
                "No task finished, nothing was committed, commits/0 was never written: the delay grows without bound."),
        ],
        "reader-idle-timeout" => vec![
            stop(StatePrepared, Some(Checkpoint), "One snapshot, mid-batch",
                "The reader's timer fired once, 1 s after it started: it writes its position to sources/0/0/<subtask>/<id>.prepared and emits a checkpoint row."),
            stop(StateCommitted, Some(Checkpoint), "Renamed .committed",
                "The sink writer flushed the rows before the record, then renamed the state file. The timer is not rescheduled: no other snapshot in this batch."),
            stop(ReaderCloses, Some(Channels), "The idle timeout",
                "The reader saw no row for 800 ms and returns next() = false — without a snapshot. Its rows after the record are flushed at the task commit."),
            stop(Batch(E::CommitLogWritten, 0), Some(Checkpoint), "Batch 0 commits", "commits/0: the fix works, batches end."),
            stop(Batch(E::ReaderPolled, 1), Some(Sink), "Read again",
                "Batch 1 starts at {\"checkpointId\":0}, folder 0: each reader restores from its mid-batch snapshot and reads the rows after it a second time."),
            stop(End, Some(Sink), "Duplicates without a failure",
                "The append sink holds the re-read rows twice (inferred from PR #7476's code)."),
        ],
        "seatunnel-checkpoint-records" => vec![
            stop(StatePrepared, Some(Checkpoint), "A checkpoint record is due",
                "The reader's one timer fired: it writes <id>.prepared with its position; the checkpoint record goes behind the rows it read. The sink has not seen it yet."),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed before the sink saw the record",
                "The rows before the record die with the task; <id>.prepared stays on disk."),
            stop(Next(E::Recovered), Some(Checkpoint), "Re-run the batch", "commits/0 is missing: batch 0 runs again."),
            stop(Next(E::GetBatch), Some(Channels), "Restore from .prepared",
                "As PR #7476 wrote it, the reader restores from the folder's next .prepared first: it starts past the rows the sink never received."),
            stop(End, Some(Sink), "Loss, and duplicates",
                "The missing keys are the crash's; the duplicates are every batch re-reading what followed its one snapshot. Compare seatunnel-committed-only."),
        ],
        "seatunnel-committed-only" => vec![
            stop(StatePrepared, Some(Checkpoint), "A checkpoint record",
                "The reader writes <id>.prepared and emits a checkpoint record behind the rows it read."),
            stop(Batch(E::SinkCommitted, 0), Some(Sink), "Visible before the rename",
                "In this design the sink makes the rows before the record visible first; the rename to .committed is next."),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed before the rename", "The rows are in the sink; their checkpoint is only .prepared."),
            stop(Next(E::Recovered), Some(Checkpoint), "Resume from .committed",
                "A .prepared file is never trusted: the reader resumes from the newest .committed file, before those rows."),
            stop(StateCommitted, Some(Sink), "Written twice",
                "The re-run's sink wrote the first record's rows again before this rename."),
            stop(End, Some(Sink), "At-least-once", "Duplicates, never loss: rows reach the sink before their checkpoint is committed."),
        ],
        "seatunnel-idempotent-sink" => vec![
            stop(Batch(E::SinkCommitted, 0), Some(Sink), "Rows before the record",
                "The sink upserts the rows before the first checkpoint record; the rename to .committed is next."),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed before the rename", "The rows are in the sink; their checkpoint is only .prepared."),
            stop(Next(E::Recovered), Some(Checkpoint), "Resume from .committed",
                "The reader resumes from the newest .committed file and reads those rows again."),
            stop(StateCommitted, Some(Sink), "Overwritten, not duplicated",
                "The re-run wrote the same keys again; the upsert kept one row per key (counted as rewrites)."),
            stop(End, Some(Sink), "Exactly-once", "At-least-once delivery into an idempotent sink: every key once."),
        ],
        "seatunnel-dev-timer" => vec![
            stop(ReaderCloses, Some(Channels), "A timer, not the data",
                "The checkpoint interval is over: one virtual checkpoint, then next() returns false."),
            stop(StatePrepared, Some(Checkpoint), "sources/0/<subtask>/1",
                "The reader appends its state to /1; the next reader would restore from /0, which nothing writes."),
            stop(Batch(E::CommitLogWritten, 0), Some(Checkpoint), "Batch 0 commits", "commits/0: the first micro-batch is done."),
            stop(Batch(E::NoNewData, 1), None, "latestOffset did not move",
                "{\"checkpointId\":0} again: commit(end of batch 0) would move it, but Spark calls it only while constructing batch 1."),
            stop(End, Some(Sink), "Stuck", "Rows keep arriving and no batch reads them."),
        ],
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tour_runner::{current_stop, next_stop};
    use batchscope_check::oracle::{self, Limit};
    use batchscope_engine::microbatch::scenario::{presets, CrashPoint};
    use batchscope_engine::microbatch::World;

    fn run(preset: &str, seed: u64, crash: Option<&str>) -> Vec<Event> {
        let mut scenario = batchscope_engine::microbatch::scenario::preset(preset).expect("preset");
        scenario.seed = seed;
        if let Some(c) = crash {
            scenario
                .crashes
                .push(c.parse::<CrashPoint>().expect("crash point"));
        }
        let mut world = World::new(scenario);
        oracle::run(&mut world, Limit::SCREEN);
        world.events().to_vec()
    }

    #[test]
    fn every_stop_of_every_tour_is_reached_in_order() {
        let mut problems = vec![];
        for p in presets() {
            let t = tour(p.name);
            assert!((3..=8).contains(&t.stops.len()), "{}: 3–8 stops", p.name);
            assert_eq!(
                t.stops.last().map(|s| s.at),
                Some(End),
                "{} ends at the verdict",
                p.name
            );
            for seed in [p.scenario.seed, 1, 2, 3] {
                let events = run(p.name, seed, t.crash);
                let cursors = stop_cursors(&t.stops, &events);
                for (stop, c) in t.stops.iter().zip(&cursors) {
                    if c.is_none() {
                        problems.push(format!(
                            "{} seed {seed}: stop `{}` is never reached",
                            p.name, stop.title
                        ));
                    }
                }
                let reached: Vec<usize> = cursors.iter().flatten().copied().collect();
                if !reached.windows(2).all(|w| w[0] < w[1]) {
                    problems.push(format!(
                        "{} seed {seed}: stops out of order {reached:?}",
                        p.name
                    ));
                }
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn a_stop_is_just_after_its_event_and_missing_stops_are_none() {
        let events = run("kafka-append", 7, Some("sink-commit@3"));
        let t = tour("kafka-append");
        let cursors = stop_cursors(&t.stops, &events);
        let crash = cursors[3].expect("the crash stop");
        assert!(matches!(events[crash - 1].kind, EventKind::Crashed { .. }));
        // The re-run's task, not batch 3's first attempt.
        let rerun = cursors[5].expect("the re-run stop");
        assert!(events[rerun - 1].run > 1);
        assert_eq!(cursors[6], Some(events.len()));
        // Without the crash, the crash and the re-run never happen; the end still does.
        let calm = stop_cursors(&t.stops, &run("kafka-append", 7, None));
        assert_eq!(calm[3], None);
        assert_eq!(calm[4], None);
        assert!(calm[6].is_some());
        assert_eq!(current_stop(&cursors, 0), None);
        assert_eq!(current_stop(&cursors, crash), Some(3));
        assert_eq!(next_stop(&cursors, crash), Some(4));
        assert_eq!(next_stop(&cursors, events.len()), None);
    }
}
