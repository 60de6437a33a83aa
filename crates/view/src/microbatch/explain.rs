//! "What just happened": one or two sentences for the event on screen, in the terms of the
//! source and sink of the scenario. Recovery steps say which restart rule applied
//! (`MicroBatchExecution.populateStartOffsets`). Notes cite public sources only.

use crate::microbatch::labels::{compact_offset, shorten_uuids};
use crate::microbatch::question_notes::question_note;
use batchscope_engine::microbatch::event::label::rows_text;
use batchscope_engine::microbatch::event::sink_outcome::{CommitTarget, SinkFailure};
use batchscope_engine::microbatch::event::Recovery;
use batchscope_engine::microbatch::event::{ChannelToken, Event, EventKind, SinkEffect};
use batchscope_engine::microbatch::scenario::{
    Execution, FaultKind, Scenario, SeaTunnelDesign, SinkKind, SourceApi, SourceKind,
};

/// The note for one event.
pub fn explain(event: &Event, scenario: &Scenario) -> String {
    let source = scenario.source.kind;
    let sink = scenario.sink.kind;
    if let Some(note) = crate::microbatch::backlog_notes::note(event, scenario) {
        return note;
    }
    let text = match &event.kind {
        EventKind::QueryStarted { created: true, .. } => "The driver starts the query for the first time and writes `metadata` with a new query id. Only the checkpoint folder, the Meta table, the Tunnel server and the sink survive a crash of the driver.".to_string(),
        EventKind::QueryStarted { created: false, .. } => format!(
            "The driver was restarted ({} ms after it went down) and reads `metadata`: same query id. Everything it held in memory — offsets, caches, the batch in flight — is gone.",
            scenario.restart_delay()
        ),
        EventKind::Recovered { recovery, latest_offset, latest_commit } => {
            recovered(scenario, event.run, recovery, (*latest_offset, *latest_commit))
        }
        EventKind::RecoveryGetBatch { batch_id } => format!(
            "On restart after a committed batch Spark calls getBatch({batch_id}) once more and does not run it: this source is a V1 Source{}, and \"certain sources (e.g., KafkaSource) assume on restart the last batch will be executed before getOffset is called again\" (MicroBatchExecution.populateStartOffsets). V2 streams are not asked.",
            if source == SourceKind::ReplayableLog { " (the V1 KafkaSource: spark.sql.streaming.disabledV2MicroBatchReaders names KafkaSourceProvider)" } else { "" }
        ),
        EventKind::SourceInitialized { meta_rows, .. } => {
            if meta_rows.is_empty() {
                "First use of the source: it writes its initial offsets to sources/0/0 (a 0x00 byte, `v1`, the offsets), reused on every later run.".to_string()
            } else {
                format!(
                    "First use of the source: it asks the Tunnel server for its {} channels and their checkpoints, writes them to the Meta table under a new UUID₀, and writes UUID₀ to sources/0/0 (a 0x00 byte, `v2`, the UUID).",
                    meta_rows.len()
                )
            }
        }
        EventKind::EpochAdvanced { epoch } => format!(
            "Continuous processing: the driver's epoch thread ends epoch {epoch} ({} ms epochs). Every reader task puts an epoch marker in its queue; when a task reaches it, it reports its offset, and its writer commits the epoch's rows — before the driver writes commits/{epoch}. That order is why continuous mode is at-least-once (ContinuousExecution; the Structured Streaming guide promises only at-least-once for Trigger.Continuous).",
            scenario.trigger_interval_ms
        ),
        EventKind::TriggerFired { batch_id } => format!(
            "The processing-time trigger fires ({} ms interval): the driver constructs batch {batch_id}.",
            scenario.trigger_interval_ms
        ),
        EventKind::GetOffset { batch_id, end, rows_read } => match source {
            SourceKind::Tablestore | SourceKind::AutoCommit => format!(
                "getOffset reads no data: it returns a fresh random UUID ({}) as the end offset of batch {batch_id} — a placeholder. Where the batch really ends is decided later, by its tasks (Tablestore's documentation, \"Stream computing implementation details\").",
                compact_offset(end)
            ),
            SourceKind::PullAhead => format!(
                "getOffset reads ahead: {n_read} read and cached now just to learn that batch {batch_id} ends at {}. This is the extra, cached RDD computation that Tablestore's documentation (\"Stream computing implementation details\") rejects.",
                compact_offset(end),
                n_read = rows_text(*rows_read),
            ),
            SourceKind::SeaTunnel => format!(
                "latestOffset returns {} — the largest batch id in commits/ plus one (PR #7476), so every trigger plans batch {batch_id}. It says nothing about where the readers are: they restore from their state files under sources/0/<the batch's start id>/ ({}).",
                compact_offset(end),
                seatunnel_restore_rule(scenario),
            ),
            SourceKind::ReplayableLog => format!(
                "{} returns the latest offset of every partition, {}: batch {batch_id} will read exactly up to there, on every attempt.",
                if scenario.source.api() == SourceApi::V2 { "latestOffset (KafkaMicroBatchStream, Spark 3's V2 Kafka reader)" } else { "getOffset (the V1 KafkaSource)" },
                compact_offset(end)
            ),
        },
        EventKind::NoNewData { batch_id } => format!(
            "No new data: batch {batch_id} is not constructed this trigger; the driver waits for the next one."
        ),
        EventKind::OffsetLogWritten { batch_id, .. } => format!(
            "The write-ahead log: offsets/{batch_id} is written before anything of batch {batch_id} runs. From now on a restart re-runs batch {batch_id} with these offsets until commits/{batch_id} exists."
        ),
        EventKind::SourceCommit { batch_id, end, checkpoints, deleted_rows } => match source {
            SourceKind::Tablestore => {
                let mut s = format!(
                    "source.commit(end of batch {batch_id}): the source reads the Meta rows of {} and sends them to the Tunnel server as checkpoints ({}). The server is now one batch behind the Meta table.",
                    compact_offset(end),
                    checkpoints.iter().map(|c| format!("{} {}", c.channel, c.token)).collect::<Vec<_>>().join(", ")
                );
                if !deleted_rows.is_empty() {
                    s.push_str(&format!(" Finished channels' rows are deleted: {}.", deleted_rows.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")));
                }
                s
            }
            SourceKind::PullAhead => format!(
                "source.commit(end of batch {batch_id}): real positions go to the Tunnel server and the cache is dropped up to them."
            ),
            SourceKind::AutoCommit => format!(
                "source.commit(end of batch {batch_id}): nothing to do — this source already committed every page to the Tunnel server while reading."
            ),
            SourceKind::SeaTunnel => format!(
                "source.commit(end of batch {batch_id}): the SeaTunnel source keeps its readers' positions in state files under sources/0/<the batch's start checkpoint id>/<subtask>/, so the offset {{\"checkpointId\":{batch_id}}} carries no position."
            ),
            SourceKind::ReplayableLog => format!(
                "source.commit(end of batch {batch_id}): a Kafka source does nothing here — Spark keeps the offsets in its own checkpoint folder, not in Kafka (Spark's Kafka integration guide: \"Kafka source doesn't commit any offset\")."
            ),
        },
        EventKind::ChannelState { channel, state } => format!(
            "The Tunnel server sets {channel} to {state}. A child channel opens only after its parent's final `finished` checkpoint arrived: parent before child."
        ),
        EventKind::GetBatch { batch_id, partitions, .. } => get_batch(scenario, *batch_id, partitions),
        EventKind::AddBatch { batch_id, skipped: true } => format!(
            "The file sink finds batch {batch_id} in its _spark_metadata manifest and skips it before any task runs: the re-run writes nothing."
        ),
        EventKind::AddBatch { batch_id, .. } => format!(
            "Sink.addBatch({batch_id}): the batch's tasks run now."
        ),
        EventKind::TaskRead { error: Some(_), .. } | EventKind::TaskRead { aged_out: 1.., .. } => task_read_trouble(&event.kind, source),
        EventKind::TaskRead { partition, channel, from, to, rows, from_cache: true, .. } => format!(
            "Task {partition} takes {channel}'s rows {from} → {to} ({n_rows}) from the cache getOffset filled when it read ahead: no ReadRecords call now, because the rows were already pulled once to learn the end offset. A crash empties the cache; a re-run reads the Tunnel server again.",
                n_rows = rows_text(*rows),
            ),
        EventKind::TaskRead { partition, channel, from, to, rows, committed, .. } => {
            let mut s = match source {
                SourceKind::Tablestore | SourceKind::AutoCommit => format!(
                    "Task {partition} reads {channel} from {from} to {to} ({n_rows}). It stops at maxOffsetsPerChannel or when caught up, so the batch's size is decided now, not in offsets/N.",
                n_rows = rows_text(*rows),
            ),
                _ => format!("Task {partition} reads {channel} from {from} to {to} ({n_rows}).",
                n_rows = rows_text(*rows),
            ),
            };
            if *committed {
                s.push_str(" It also commits every page to the Tunnel server as it reads: the server now counts these rows as consumed.");
            }
            if *rows == 0 && matches!(source, SourceKind::Tablestore | SourceKind::PullAhead | SourceKind::AutoCommit) {
                s.push_str(" After an empty page the connector sleeps 1–2 s before its next call (TableStoreSourceRDD: Thread.sleep(1000 + nextInt(1000))); that back-off is not modelled here.");
            }
            s
        }
        EventKind::ReaderPolled { partition, rows, idle_ms, closes, .. } => {
            if *closes && scenario.source.reader == batchscope_engine::microbatch::scenario::ReaderEnd::VirtualCheckpoint {
                format!("Reader {partition}'s checkpoint interval is over: one virtual checkpoint snapshots its state, then running = false and next() returns false — the micro-batch ends on a timer, whatever the data does.")
            } else if *closes {
                format!("Reader {partition} has seen no row for {idle_ms} ms: next() returns false and its part of the micro-batch ends. Without this idle timeout (reader-never-closes) next() would keep waiting and the batch would never end.")
            } else if scenario.source.reader == batchscope_engine::microbatch::scenario::ReaderEnd::Never {
                format!("Reader {partition} polls its handover queue: {rows} new rows. In streaming mode next() only returns false when the reader stops, so this task — and the micro-batch — never ends; nothing is committed and the delay grows.")
            } else {
                format!("Reader {partition} polls its handover queue: {rows} new rows, idle for {idle_ms} ms.")
            }
        }
        EventKind::StateFile { path, renamed_from, contents, .. } => state_file(scenario, path, renamed_from.is_some(), contents),
        EventKind::MetaRowWritten { uuid, row, overwritten, .. } => {
            let mut s = format!(
                "The task writes where it stopped ({}) into the Meta table under the end UUID {}: the start of the next batch.",
                row.token,
                shorten_uuids(uuid)
            );
            if *overwritten {
                s.push_str(" It overwrites the row of the killed attempt: the re-run moved the end.");
            }
            s
        }
        EventKind::TaskFinished { partition, rows, effect, .. } => match effect {
            SinkEffect::Appended => format!(
                "Task {partition} appends {n_rows} to the sink — visible now, before commits/N. A re-run will append them again.",
                n_rows = rows_text(*rows),
            ),
            SinkEffect::Upserted if scenario.sink.value == batchscope_engine::microbatch::scenario::SinkValue::RunningSum => format!(
                "Task {partition} adds the amounts of its {n_rows} into each user's running sum (read, add, write back). Not idempotent: a re-run adds them again, and the sum is wrong although no row is duplicated.",
                n_rows = rows_text(*rows),
            ),
            SinkEffect::Upserted => format!(
                "Task {partition} writes {n_rows} by key: a row written again by a re-run overwrites itself.",
                n_rows = rows_text(*rows),
            ),
            SinkEffect::Staged => format!(
                "Task {partition} stages {n_rows}; they become visible only when the {} commits the batch.",
                if sink == SinkKind::File { "manifest" } else { "driver" },
                n_rows = rows_text(*rows),
            ),
        },
        EventKind::SinkWriteFailed { batch_id, reason: reason @ SinkFailure::FunctionThrew { .. } } => format!(
            "The foreachBatch function throws ({reason}). What it already wrote stays; batch {batch_id} fails and so does the query. commits/{batch_id} is not written, so the re-run calls the function again with the same batch id and data."
        ),
        EventKind::SinkWriteFailed { reason, .. } => format!(
            "The sink store is down ({reason}). The batch fails: commits/N is not written, so its offsets are not recorded as processed (MicroBatchExecution writes commits/N only after the sink's addBatch returned)."
        ),
        EventKind::SinkCommitted { batch_id, skipped: true, .. } => format!(
            "The sink already committed epoch {batch_id}, so this commit is skipped as a duplicate — and the rows this attempt staged are dropped. If the re-run read more than the first attempt, those rows are never written."
        ),
        EventKind::SinkCommitted { rows, target: target @ (CommitTarget::Prepared { .. } | CommitTarget::Record { .. }), .. } => seatunnel_record(scenario, *rows, target),
        EventKind::SinkCommitted { batch_id, rows, target, .. } => match sink {
            SinkKind::Append | SinkKind::Upsert => format!(
                "The sink finished batch {batch_id} (its rows were already written by the tasks). commits/{batch_id} is not written yet — a crash now re-runs the batch."
            ),
            _ => format!(
                "The sink commits batch {batch_id}: {n_rows} become visible in {target}. commits/{batch_id} is not written yet — a crash now re-runs the batch.",
                n_rows = rows_text(*rows),
            ),
        },
        EventKind::CommitLogWritten { batch_id, .. } => format!(
            "commits/{batch_id}: batch {batch_id} is done. A crash from now on plans batch {} instead of re-running {batch_id}.",
            batch_id + 1
        ),
        EventKind::Idle { until_ms } => format!("Nothing to do until the next trigger at {until_ms} ms."),
        EventKind::Crashed { .. } | EventKind::QueryFailed { .. } => stop_note(&event.kind, scenario),
        EventKind::TaskFailed { batch_id, partition, attempt, rows, retried, sink_down, .. } => {
            task_failed(sink, (*batch_id, *partition, *attempt, *rows, *retried), sink_down.as_ref())
        }
        EventKind::OffsetLogTorn { .. } | EventKind::CheckpointDeleted { .. } | EventKind::MetadataLost => folder_note(&event.kind, source),
        EventKind::CheckpointWriteRejected { .. }
        | EventKind::DriverStalled { .. }
        | EventKind::DriverLostLogRace { .. }
        | EventKind::LogKeptInMemory { .. } => question_note(&event.kind, scenario),
    };
    shorten_uuids(&text)
}

/// The note of a crash or a failed query.
fn stop_note(kind: &EventKind, scenario: &Scenario) -> String {
    match kind {
        EventKind::Crashed { point, lost, .. } => format!(
            "The driver is killed{}. Lost: {}. The checkpoint folder, Meta table, Tunnel checkpoints and the sink stay. {}",
            point.map_or(String::new(), |p| format!(" at {p}")),
            if lost.is_empty() { "nothing in flight".into() } else { lost.join("; ") },
            restarter(scenario)
        ),
        EventKind::QueryFailed { reason } => format!(
            "The query fails ({reason}) and stops. {}",
            restarter(scenario)
        ),
        _ => String::new(),
    }
}

/// The note of what happened to the checkpoint folder while the query was down.
fn folder_note(kind: &EventKind, source: SourceKind) -> String {
    match kind {
        EventKind::OffsetLogTorn { batch_id, bytes } => format!(
            "The machine is back, and offsets/{batch_id} is there but empty: its {bytes} bytes were written in place and never synced (HDFSMetadataLog writes through CheckpointFileManager.createAtomic, a temporary file renamed into place; a store without an atomic rename can leave a torn file, apache/spark PR #21048). The restart must read the latest entry to re-run batch {batch_id}."
        ),
        EventKind::CheckpointDeleted { files } => format!(
            "While the query is down, its checkpoint folder ({n_files}) is deleted. The next start is a new query: no offsets, no commits, {} The sink keeps what it holds.",
            match source {
                SourceKind::Tablestore | SourceKind::PullAhead | SourceKind::AutoCommit => "and the source has no startingOffsets: it re-initialises from the channel checkpoints on the Tunnel server, which lag one batch behind (they are pushed when the next batch commits).",
                SourceKind::SeaTunnel => "and the readers find no state files: they start from the source's beginning.",
                _ => "and the source starts from its startingOffsets.",
            },
                n_files = count(*files, "file"),
            ),
        EventKind::MetadataLost => "While the query is down, the checkpoint's metadata file is lost (deleted with a cleanup, or never copied with the folder); offsets/ and commits/ are still there. metadata holds the query's id — the id Spark hands a foreachBatch function and its progress events.".into(),
        _ => String::new(),
    }
}

/// The note of a task read that throws, or that skipped records retention had deleted.
fn task_read_trouble(kind: &EventKind, source: SourceKind) -> String {
    let EventKind::TaskRead {
        partition,
        channel,
        batch_id,
        from,
        to,
        rows,
        error,
        aged_out,
        ..
    } = kind
    else {
        return String::new();
    };
    match error {
        Some(error) if source == SourceKind::ReplayableLog => format!(
            "Retention has deleted offset {} of {channel}; failOnDataLoss is true, so task {partition} of batch {batch_id} throws: {error}",
            from.offset_or_zero()
        ),
        Some(_) => format!(
            "Task {partition} of batch {batch_id} starts {channel} at a Meta row that says `finished` and throws before any ReadRecords call: readRecords returns null for a finished channel and TableStoreSourceRDD dereferences it (a NullPointerException — inferred from the connector's code, not observed). The row is there because the driver died after offsets/{batch_id} and before source.commit could delete it. The batch fails, and every re-run reads the same row and fails the same way: a crash loop. If the Tunnel server has not yet learned that this split parent finished, its children never open either."
        ),
        None => format!(
            "Task {partition} reads {channel} from {from} to {to} ({}); retention deleted the first {} of the range and failOnDataLoss=false skips them: aged out.",
            rows_text(*rows),
            count(*aged_out, "record")
        ),
    }
}

/// The note of the restart's decision (`MicroBatchExecution.populateStartOffsets`).
fn recovered(
    scenario: &Scenario,
    run: u32,
    recovery: &Recovery,
    (latest_offset, latest_commit): (Option<u64>, Option<u64>),
) -> String {
    match recovery {
            Recovery::Fresh => "No offsets/ entries: a fresh query, starting at batch 0 from the source's initial offsets.".to_string(),
            Recovery::Failed if latest_offset.is_some_and(|l| Some(l) != latest_commit) && scenario.faults.iter().any(|f| f.kind == FaultKind::TornOffsetLog) => format!(
                "The driver lists the logs: latest offsets/{0}, latest commits/{1}. To know whether batch {0} ran, it reads offsets/{0} (HDFSMetadataLog.get), and that entry is empty: the read throws, and the query fails before any batch. Every restart reads the same file and fails the same way, until someone deletes the torn entry: then commits/{1} is the latest, batch {0} is planned anew, and what the lost attempt wrote to the sink is written again (read from populateStartOffsets; not run here).",
                latest_offset.map_or("—".into(), |v| v.to_string()),
                latest_commit.map_or("none".into(), |v| v.to_string()),
            ),
            Recovery::Failed => "The checkpoint has offsets and commits but no metadata file: Spark 4.2+ refuses to start with STREAMING_CHECKPOINT_MISSING_METADATA_FILE rather than give the query a new id (apache/spark PR #53844). Every restart refuses the same way until the metadata file is restored.".to_string(),
            Recovery::Rerun { batch_id } => format!(
                "The driver lists the logs: latest offsets/{} but latest commits/{}. commits/{batch_id} is missing, so batch {batch_id} is re-run with exactly the offsets in offsets/{batch_id} (MicroBatchExecution.populateStartOffsets). source.commit of the batch before it is not called again. What the killed attempt already wrote to the sink decides the verdict.",
                latest_offset.map_or("—".into(), |v| v.to_string()),
                latest_commit.map_or("none".into(), |v| v.to_string()),
            ) + &crate::microbatch::backlog_notes::rerun_ignores_limit(scenario, run, *batch_id),
            Recovery::Next { batch_id } if scenario.execution == Execution::Continuous => format!(
                "commits/{e} is the last committed epoch. Continuous mode looks only at the commit log: every reader starts again from offsets/{e}, so epoch {batch_id} is replayed from there — rows its writers had already committed are written again (ContinuousExecution: at-least-once).",
                e = batch_id.saturating_sub(1),
            ),
            Recovery::Next { batch_id } => format!(
                "commits/{} exists: that batch is done, so the driver plans batch {batch_id} next. Nothing is re-run.{}",
                batch_id.saturating_sub(1),
                if scenario.source.api() == SourceApi::V1 { " A V1 source is first asked for getBatch of that batch once more (MicroBatchExecution.populateStartOffsets)." } else { " The source is a V2 stream: Spark asks it nothing more about that batch (MicroBatchExecution.populateStartOffsets calls getBatch again only on V1 sources)." }
            ),
        }
}

/// The note of a failed task attempt: its write refused by a down store (`sink_down`), or the
/// task threw after handing `rows` to the sink.
fn task_failed(
    sink: SinkKind,
    (batch_id, partition, attempt, rows, retried): (u64, u32, u32, u64, bool),
    sink_down: Option<&SinkFailure>,
) -> String {
    match sink_down {
        Some(reason) => format!(
            "Attempt {attempt} of task {partition} in batch {batch_id} fails: its write is refused ({reason}), so nothing reached the store. A failed write fails the task, not the query: {}",
            if retried {
                "Spark's TaskSetManager runs the task again from its planned start (spark.task.maxFailures, default 4 attempts). If the store is back by then, the batch goes on as if nothing happened."
            } else {
                "that was the last attempt spark.task.maxFailures allows, so the job, the batch and the query fail."
            },
        ),
        None => format!(
            "Attempt {attempt} of task {partition} in batch {batch_id} fails after handing {n_rows} to the sink. {} {}",
            match sink {
                SinkKind::Append | SinkKind::Upsert => "The sink wrote them as they came: they stay, and a retry writes them again.",
                SinkKind::File => "The sink only staged them: the attempt's commit message never reaches the driver, so they are dropped; its data file stays behind as an orphan, outside the manifest.",
                _ => "The sink only staged them: the attempt's commit message never reaches the driver, so they are dropped.",
            },
            if retried {
                "Spark's TaskSetManager runs the task again from its planned start (spark.task.maxFailures): a Tablestore task re-reads from its start token and may read more rows."
            } else {
                "That was the last attempt spark.task.maxFailures allows: the job, the batch and the query fail."
            },
            n_rows = rows_text(rows),
        ),
    }
}

/// The note of a SeaTunnel state file: a reader's snapshot, or the sink's rename.
fn state_file(scenario: &Scenario, path: &str, renamed: bool, contents: &str) -> String {
    if !renamed {
        return state_written(scenario, path, contents);
    }
    match scenario.source.design {
        SeaTunnelDesign::Pr7476 => format!(
            "The sink writer has flushed the rows before the record (prepareCommit) and renames the state file to {path} ({contents}). The reader takes no other snapshot in this micro-batch, and closes without one: the next batch's reader restores from here and reads every row after it again (PR #7476's code; inferred, the PR was closed unmerged)."
        ),
        SeaTunnelDesign::CommittedOnly => format!(
            "The sink has made the rows before the checkpoint visible and renames the state file to {path} ({contents}). A restart resumes this reader from here. A crash between the sink's write and this rename replays those rows: at-least-once."
        ),
    }
}

/// The note of a SeaTunnel sink writer at a checkpoint record, by the design.
fn seatunnel_record(scenario: &Scenario, rows: u64, target: &CommitTarget) -> String {
    match scenario.source.design {
        SeaTunnelDesign::Pr7476 => format!(
            "The task's sink writer meets the checkpoint record ({target}): ackCheckpoint calls prepareCommit, which for a sink without a committer flushes the {n_rows} before it — visible now — and drops the commit info it returns; commit() at the end of the task commits only the latest one (SeaTunnelSparkDataWriter in PR #7476). With a committer, the rows before a record would never be committed (inferred).",
            n_rows = rows_text(rows),
        ),
        SeaTunnelDesign::CommittedOnly => format!(
            "The sink makes the {n_rows} before the checkpoint record visible ({target}) before it renames the state file: a crash from here to the rename replays them, never loses them.",
            n_rows = rows_text(rows),
        ),
    }
}

/// The note of a batch's planning (getBatch / planInputPartitions), by the source.
fn get_batch(scenario: &Scenario, batch_id: u64, partitions: &[ChannelToken]) -> String {
    let source = scenario.source.kind;
    let tasks = partitions
        .iter()
        .map(|p| format!("{} from {}", p.channel, p.token))
        .collect::<Vec<_>>()
        .join(", ");
    match source {
        SourceKind::Tablestore => format!(
            "getBatch plans batch {batch_id}: one task per channel, starting at the start UUID's Meta rows (merged over the server's channel list): {tasks}. How far each reads is not fixed yet."
        ),
        SourceKind::AutoCommit => format!(
            "getBatch plans batch {batch_id} from the Tunnel server's checkpoints: {tasks}."
        ),
        SourceKind::SeaTunnel => format!(
            "planInputPartitions plans batch {batch_id}: one reader per subtask, with no end. Each reader restores its start from its state files ({}), not from the offset, and reads until it stops — so a re-run may read a different range: {tasks}.",
            seatunnel_restore_rule(scenario)
        ),
        _ => format!(
            "{} plans batch {batch_id} with fixed ranges: {tasks}. Same offsets, same rows — on every attempt.",
            if scenario.source.api() == SourceApi::V2 { "planInputPartitions" } else { "getBatch" }
        ),
    }
}

/// Where a SeaTunnel reader restores from, by the scenario's design.
fn seatunnel_restore_rule(scenario: &Scenario) -> &'static str {
    match scenario.source.design {
        SeaTunnelDesign::Pr7476 => "PR #7476: the folder's next .prepared (its newest .committed id + 1), else its newest .committed, else walking back over older folders",
        SeaTunnelDesign::CommittedOnly => "committed-only: the newest .committed, never a .prepared",
    }
}

/// The note of a SeaTunnel reader's snapshot, by the reader and the design.
fn state_written(scenario: &Scenario, path: &str, contents: &str) -> String {
    use batchscope_engine::microbatch::scenario::ReaderEnd;
    match (scenario.source.reader, scenario.source.design) {
        (ReaderEnd::VirtualCheckpoint, _) => format!(
            "The dev reader's one virtual checkpoint appends its state ({contents}) to {path}. The next reader restores from the subtask's file 0, which nothing writes."
        ),
        (_, SeaTunnelDesign::Pr7476) => format!(
            "The reader's checkpoint timer fired once, checkpoint.interval after it started, with rows collected (checkpointCondition): its next next() snapshots its position ({contents}) to {path} and emits a checkpoint row behind the rows it read. The timer is not rescheduled: this is the reader's only snapshot in this micro-batch. PR #7476's restore reads this file first, even before the sink has taken those rows."
        ),
        (_, SeaTunnelDesign::CommittedOnly) => format!(
            "The reader snapshots its position ({contents}) to {path} and sends an in-band checkpoint row behind the rows it read (a record every interval, and one as it closes). Nothing is trusted until the sink renames it."
        ),
    }
}

/// `1 file`, `2 files`: a count with its noun.
fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Who restarts a stopped query, as the scenario says: Spark itself never does.
fn restarter(scenario: &batchscope_engine::microbatch::scenario::Scenario) -> String {
    match scenario.restart {
        Some(batchscope_engine::microbatch::scenario::Restart::None) => {
            "Nobody restarts it (restart: none): the run ends here and the sink is judged as it is.".into()
        }
        _ => format!(
            "Spark does not restart it; an operator or a job scheduler starts it again after {} ms.",
            scenario.restart_delay()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use batchscope_engine::microbatch::scenario::preset;
    use batchscope_engine::microbatch::World;

    #[test]
    fn every_event_of_a_crashing_run_is_explained() {
        for name in [
            "kafka-append",
            "tablestore-two-phase",
            "pull-ahead",
            "sink-outage",
        ] {
            let mut s = preset(name).unwrap();
            s.crashes.push("sink-commit@2".parse().unwrap());
            let mut w = World::new(s.clone());
            for _ in 0..300 {
                let e = w.step();
                let text = explain(&e, &s);
                assert!(text.len() > 20, "{name}: {:?}", e.kind);
                assert!(!text.contains("-4"), "UUIDs are shortened: {text}");
            }
        }
    }

    /// No note says `1 rows` or `1 files`: every count is written with its noun at source.
    #[test]
    fn one_is_singular_in_every_note() {
        let mut ones = 0;
        for p in batchscope_engine::microbatch::scenario::presets() {
            let mut s = preset(p.name).unwrap();
            s.crashes.push("sink-commit@2".parse().unwrap());
            let mut w = World::new(s.clone());
            for _ in 0..400 {
                let e = w.step();
                let text = explain(&e, &s);
                for noun in ["rows", "files", "records", "tasks"] {
                    assert!(!text.contains(&format!(" 1 {noun}")), "{}: {text}", p.name);
                    assert!(!text.contains(&format!("(1 {noun}")), "{}: {text}", p.name);
                }
                ones += usize::from(text.contains(" 1 row") || text.contains("(1 row"));
            }
        }
        assert!(ones > 0, "some note counts a single row");
    }

    #[test]
    fn a_task_that_throws_on_a_finished_start_row_says_it_is_inferred() {
        let mut s = preset("tablestore-split").unwrap();
        s.crashes.push("offset-log@4".parse().unwrap());
        let mut w = World::new(s.clone());
        let e = loop {
            let e = w.step();
            if matches!(e.kind, EventKind::TaskRead { error: Some(_), .. }) {
                break e;
            }
        };
        let text = explain(&e, &s);
        assert!(
            text.contains("inferred from the connector's code"),
            "{text}"
        );
        assert!(text.contains("before any ReadRecords call"), "{text}");
        assert!(text.contains("crash loop"), "{text}");
        // Its arrow does not claim a ReadRecords call either.
        assert!(
            !e.kind.label().contains("ReadRecords"),
            "{}",
            e.kind.label()
        );
    }

    #[test]
    fn failures_inside_a_batch_say_what_stays_and_who_restarts() {
        use batchscope_engine::microbatch::event::tag::EventTag;
        let explained = |s: batchscope_engine::microbatch::scenario::Scenario, tag: EventTag| {
            let mut w = World::new(s.clone());
            for _ in 0..400 {
                let e = w.step();
                if e.kind.tag() == tag {
                    return explain(&e, &s);
                }
            }
            panic!("no {tag} event");
        };
        let mut s = preset("tablestore-append").unwrap();
        s.faults.push("task-fail@2".parse().unwrap());
        let text = explained(s, EventTag::TaskFailed);
        assert!(text.contains("re-reads from its start token"), "{text}");
        let mut s = preset("foreach-batch-multi").unwrap();
        s.faults.push("foreach-fail@2".parse().unwrap());
        assert!(explained(s.clone(), EventTag::SinkWriteFailed)
            .contains("foreachBatch function throws"));
        assert!(explained(s.clone(), EventTag::QueryFailed).contains("Spark does not restart it"));
        s.restart = Some(batchscope_engine::microbatch::scenario::Restart::None);
        assert!(explained(s, EventTag::QueryFailed).contains("Nobody restarts it"));
        let text = explained(
            preset("checkpoint-deleted-latest").unwrap(),
            EventTag::CheckpointDeleted,
        );
        assert!(text.contains("startingOffsets"), "{text}");
    }

    #[test]
    fn the_rerun_decision_names_the_missing_commit() {
        let mut s = preset("kafka-append").unwrap();
        s.crashes.push("sink-commit@3".parse().unwrap());
        let mut w = World::new(s.clone());
        let e = loop {
            let e = w.step();
            if matches!(e.kind, EventKind::Recovered { .. }) && e.run == 2 {
                break e;
            }
        };
        let text = explain(&e, &s);
        assert!(text.contains("commits/3 is missing"), "{text}");
        assert!(
            text.contains("latest offsets/3 but latest commits/2"),
            "{text}"
        );
    }
}
