//! The guided lesson of each preset: what to watch, why, which question it answers, and where
//! the simulation simplifies. Keyed by preset name, with a fallback for new presets.
//!
//! Student-facing text: it cites public sources (a Spark class or guide, a connector, a PR, a
//! public thread), never the project's internal documents.

/// A preset's lesson.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lesson {
    /// Heading.
    pub title: &'static str,
    /// The question this preset answers, with the public source it comes from.
    pub question: &'static str,
    /// Short paragraphs: what to watch and why.
    pub paragraphs: Vec<&'static str>,
    /// A crash point to arm to see the point of the lesson (`sink-commit@3`).
    pub try_crash: Option<&'static str>,
    /// What that crash should lead to, in words.
    pub try_outcome: &'static str,
}

/// Where every preset's simulation simplifies (the module doc of the engine's `world.rs`).
pub const SIMPLIFICATIONS: &str = "Simplified: one source and one sink per query; a batch's \
tasks all read, then finish one by one; a task attempt fails only where the scenario says \
(task-fail, or a task memory budget in records) or where the sink store is down, and Spark retries it up to spark.task.maxFailures \
attempts (a connector's own write retries are not modelled); a task whose connector throws (a \
finished start row) fails the job at once rather than after that many identical attempts, and \
in continuous mode or in a SeaTunnel reader a down store fails the query at once; Spark never \
restarts a failed query — an operator or a job scheduler does, after the scenario's restart \
delay, or nobody (restart: none); the watermark stays 0; logs keep Spark's default of 100 \
batches; time is simulated (each call costs a fixed number of ms).";

/// The first reference to one of the project's internal documents in a student-facing text
/// (`SEMANTICS`, a section sign, a seed number), if any: such text cites public sources only.
pub fn internal_reference(text: &str) -> Option<&'static str> {
    const UPPER: [&str; 4] = ["SEMANTICS", "§", "DESIGN.md", "STYLE.md"];
    const ANY_CASE: [&str; 2] = ["seed 00", "seeds 00"];
    // ASCII lowering finds the ASCII words above as well, without the Unicode case tables.
    let lower = text.to_ascii_lowercase();
    UPPER
        .into_iter()
        .find(|w| text.contains(w))
        .or_else(|| ANY_CASE.into_iter().find(|w| lower.contains(w)))
}

/// The lesson of a preset; an unknown name gets a general lesson that still says what to watch.
pub fn lesson(name: &str) -> Lesson {
    Lesson {
        paragraphs: lesson_paragraphs(name),
        ..lesson_head(name)
    }
}

/// A preset's lesson without its paragraphs (empty): its title, question, crash and outcome —
/// what the page shows before the paragraphs come ([`lesson_paragraphs`]; the dashboard's
/// first load carries no paragraph).
pub fn lesson_head(name: &str) -> Lesson {
    if let Some(l) = seatunnel_lesson(name) {
        return l;
    }
    match name {
        "kafka-idempotent" => Lesson {
            title: "Replayable source + idempotent file sink",
            question: "How does Structured Streaming make a Kafka → file pipeline exactly-once? (Spark's Structured Streaming guide, \"Fault Tolerance Semantics\"; FileStreamSink)",
            paragraphs: vec![],
            try_crash: Some("sink-commit@3"),
            try_outcome: "batch 3 re-runs, the file sink skips it: exactly-once",
        },
        "kafka-append" => Lesson {
            title: "Replayable source + plain append sink",
            question: "Why does a re-run after the sink wrote its rows duplicate them? (Spark's guide: exactly-once needs an idempotent sink; apache/paimon#9666)",
            paragraphs: vec![],
            try_crash: Some("sink-commit@3"),
            try_outcome: "batch 3 is appended twice: duplicates",
        },
        "tablestore" => Lesson {
            title: "Tablestore CDC source: UUID placeholder offsets",
            question: "How can a CDC stream without seek drive micro-batches? (Tablestore's documentation, \"Stream computing implementation details\")",
            paragraphs: vec![],
            try_crash: Some("sink-commit@2"),
            try_outcome: "the re-run reads more rows; the upsert sink absorbs the rewrites: exactly-once",
        },
        "tablestore-append" => Lesson {
            title: "Tablestore source + append sink",
            question: "Is the UUID design exactly-once on its own? (the emr-tablestore connector, TableStoreSourceRDD; its delivery guarantee is not documented: at-least-once is inferred from the connector's code)",
            paragraphs: vec![],
            try_crash: Some("sink-commit@2"),
            try_outcome: "the re-run appends the rows again (and more): duplicates",
        },
        "tablestore-split" => Lesson {
            title: "Partition split: parent before child, and a crash loop",
            question: "Why must the Commit step push checkpoints to the Tunnel server, and what if the driver dies just before it? (Tablestore's documentation, \"Stream computing implementation details\"; the emr-tablestore connector's code)",
            paragraphs: vec![],
            try_crash: Some("offset-log@4"),
            try_outcome: "every re-run of batch 4 throws on ch0's `finished` start row (inferred from the connector's code): a crash loop — stuck",
        },
        "tablestore-two-phase" => Lesson {
            title: "Tablestore + a sink that de-duplicates only at commit",
            question: "When does a source whose batches cannot be replayed lose data? (Spark's V1 Source contract: getBatch returns the same rows for the same offsets)",
            paragraphs: vec![],
            try_crash: Some("sink-commit@2"),
            try_outcome: "the re-run reads more, the commit is skipped: data loss",
        },
        "pull-ahead" => Lesson {
            title: "The rejected design: read ahead in getOffset",
            question: "Why not pull the data in GetOffset to learn the real end offset? (Tablestore's documentation, \"Stream computing implementation details\")",
            paragraphs: vec![],
            try_crash: Some("sink-commit@2"),
            try_outcome: "deterministic replay: exactly-once, at the cost of reading everything twice",
        },
        "auto-commit" => Lesson {
            title: "A consumer that commits as it reads",
            question: "Why must a source commit only after the batch is done? (Spark's Source.commit: called only for offsets of finished batches)",
            paragraphs: vec![],
            try_crash: Some("task@2"),
            try_outcome: "rows read but not written are skipped by the re-run: data loss",
        },
        "foreach-batch-multi" => Lesson {
            title: "foreachBatch to one of several stores",
            question: "Is writing each batch to a random blob store exactly-once? (Stack Overflow: \"How does Structured Streaming ensure exactly-once\")",
            paragraphs: vec![],
            try_crash: Some("sink-commit@2"),
            try_outcome: "the batch is written twice, possibly in two stores: duplicates",
        },
        "sink-outage" => sink_outage(),
        "continuous-epochs" => Lesson {
            title: "Continuous processing: epochs, at-least-once",
            question: "Why does Trigger.Continuous only promise at-least-once? (Spark's Structured Streaming guide, \"Continuous Processing\")",
            paragraphs: vec![],
            try_crash: Some("sink-commit@3"),
            try_outcome: "epoch 3 is replayed from offsets/2: duplicates, never loss",
        },
        "checkpoint-deleted-latest" => Lesson {
            title: "No checkpoint, startingOffsets=latest: data loss",
            question: "\"I don't have any aggregations, I might not need checkpoint at all\" — do I? (Stack Overflow: Spark structured streaming from Kafka checkpoint and acknowledgement)",
            paragraphs: vec![],
            try_crash: None,
            try_outcome: "no crash needed: the rows that arrived while the query was down are never read — data loss",
        },
        "checkpoint-deleted-earliest" => Lesson {
            title: "No checkpoint, startingOffsets=earliest: duplicates",
            question: "What if the new query starts from the beginning of the topic instead? (Structured Streaming + Kafka Integration Guide, startingOffsets)",
            paragraphs: vec![],
            try_crash: None,
            try_outcome: "no crash needed: the whole topic is read again and appended twice — duplicates",
        },
        "batch-id-in-memory" => Lesson {
            title: "latestBatchId in a driver-side field",
            question: "Why does \"if batchId <= latestBatchId skip\" not make a sink exactly-once? (Spark's foreachBatch docs: use the batchId to de-duplicate)",
            paragraphs: vec![],
            try_crash: Some("sink-commit@3"),
            try_outcome: "batch 3 is written, the driver dies before commits/3, the new driver's sink forgot it: duplicates",
        },
        "kafka-v1-source" => Lesson {
            title: "Kafka as a V1 Source: the extra getBatch on restart",
            question: "Why does Spark call getBatch for a batch it does not run? (MicroBatchExecution.populateStartOffsets; Spark's KafkaMicroBatchV1SourceSuite)",
            paragraphs: vec![],
            try_crash: Some("commit-log@3"),
            try_outcome: "the restart calls GetBatch(3) on the V1 source without running it, then runs batch 4: exactly-once",
        },
        _ => Lesson {
            title: "Watch a micro-batch recover",
            question: "Does the sink end up with every record exactly once after a crash?",
            paragraphs: vec![],
            try_crash: Some("sink-commit@2"),
            try_outcome: "see the badge",
        },
    }
}

/// The lessons of the SeaTunnel presets (apache/seatunnel PR #7476 and the dev reader), then
/// of the retention presets ([`retention_lesson`]).
fn seatunnel_lesson(name: &str) -> Option<Lesson> {
    Some(match name {
        "reader-never-closes" => Lesson {
            title: "The reader that never closes",
            question: "Why would a SeaTunnel micro-batch on Spark never end and never write anything? (the micro-batch reader of apache/seatunnel PR #7476 without its idle timeout)",
            paragraphs: vec![],
            try_crash: None,
            try_outcome: "no crash needed: the batch never ends — stuck",
        },
        "reader-idle-timeout" => Lesson {
            title: "The fix: end the batch when the reader is idle — and read its tail again",
            question: "How can a reader that never finishes on its own fit Spark's micro-batches? (apache/seatunnel PR #7476)",
            paragraphs: vec![],
            try_crash: None,
            try_outcome: "no crash needed: each batch re-reads what its readers read after their one snapshot — duplicates",
        },
        "seatunnel-checkpoint-records" => Lesson {
            title: "Checkpoint records as PR #7476's code does them: duplicates without a failure, loss with one",
            question: "apache/seatunnel PR #7476: is an in-band checkpoint record enough for at-least-once?",
            paragraphs: vec![],
            try_crash: Some("state-prepared@0"),
            try_outcome: "0.prepared is on disk, the sink never saw record 0: the re-run resumes from it past those rows (loss), and every batch re-reads what followed its snapshot (duplicates)",
        },
        "seatunnel-committed-only" => Lesson {
            title: "Checkpoint records, committed-only: at-least-once",
            question: "What would make in-band checkpoint records at-least-once? (a safer variant of apache/seatunnel PR #7476)",
            paragraphs: vec![],
            try_crash: Some("sink-commit@0"),
            try_outcome: "the first record's rows are in the sink, the rename never happens: duplicates, never loss",
        },
        "seatunnel-idempotent-sink" => Lesson {
            title: "Checkpoint records into an idempotent sink: exactly-once",
            question: "\"If sink can be idempotent for handling reprocessing data, it can ensure exactly-once\" — does it? (apache/seatunnel PR #7476 thread)",
            paragraphs: vec![],
            try_crash: Some("sink-commit@0"),
            try_outcome: "the first record's rows are written again and absorbed by the key: exactly-once",
        },
        "seatunnel-dev-timer" => Lesson {
            title: "The merged dev reader: a timer ends the batch, then nothing moves",
            question: "What would SeaTunnel's merged micro-batch classes do if someone called readStream? (apache/seatunnel dev, SeaTunnelMicroBatch and ParallelMicroBatchPartitionReader)",
            paragraphs: vec![],
            try_crash: None,
            try_outcome: "no crash needed: batch 0 commits, then latestOffset never moves — stuck",
        },
        _ => return retention_lesson(name).or_else(|| question_lesson(name)),
    })
}

/// The lesson head of a preset answering a practitioners' recovery question.
fn question_lesson(name: &str) -> Option<Lesson> {
    let head = super::questions::head(name)?;
    Some(Lesson {
        title: head.title,
        question: head.question,
        paragraphs: vec![],
        try_crash: head.try_crash,
        try_outcome: head.try_outcome,
    })
}

/// The lessons of the Kafka-like log with a retention (Spark's `failOnDataLoss`).
fn retention_lesson(name: &str) -> Option<Lesson> {
    let fail = match name {
        "kafka-retention-fail" => true,
        "kafka-retention-skip" => false,
        _ => return backlog_lesson(name),
    };
    Some(Lesson {
        title: if fail {
            "Retention, failOnDataLoss=true: the restart loops"
        } else {
            "Retention, failOnDataLoss=false: aged out"
        },
        question: "What if the offsets in the checkpoint have aged out of Kafka? (Kafka integration guide, failOnDataLoss)",
        paragraphs: vec![],
        try_crash: None,
        try_outcome: if fail {
            "no crash needed: every restart fails on the deleted range — stuck"
        } else {
            "no crash needed: the deleted records are skipped — aged out"
        },
    })
}

/// The lessons of the backlog after an outage, over a task's memory budget.
fn backlog_lesson(name: &str) -> Option<Lesson> {
    let looped = match name {
        "backlog-crash-loop" => true,
        "backlog-limited" => false,
        _ => return None,
    };
    Some(Lesson {
        title: if looped {
            "The backlog crash loop"
        } else {
            "The limit set before the batch is logged"
        },
        question: "Why does lowering maxOffsetsPerTrigger not end an out-of-memory crash loop? (MicroBatchExecution.populateStartOffsets)",
        paragraphs: vec![],
        try_crash: None,
        try_outcome: if looped {
            "no crash needed: each restart re-runs the logged backlog — stuck"
        } else {
            "no crash needed: every batch fits — exactly-once"
        },
    })
}

/// The sink-outage lesson: task retries ride out a short outage; a long one fails the query.
fn sink_outage() -> Lesson {
    Lesson {
        title: "The sink goes down",
        question: "If Cassandra is down, are the Kafka offsets recorded as processed? (Stack Overflow: \"Spark structured streaming from Kafka checkpoint and acknowledgement\")",
        paragraphs: vec![],
        try_crash: None,
        try_outcome: "failed attempts are retried, failed batches re-run until the store is back: exactly-once",
    }
}

/// A preset's lesson paragraphs: what to watch, and why (an unknown name: the general ones).
pub fn lesson_paragraphs(name: &str) -> Vec<&'static str> {
    match name {
        "kafka-idempotent" => vec![
                "Watch the order of files in the Checkpoint folder: offsets/N is written before the batch runs (the write-ahead log), commits/N only after the sink finished.",
                "Kafka offsets are real positions: the same (start, end) pair always gives the same rows, so a re-run reads exactly what the killed attempt read.",
                "The file sink keeps its own manifest (_spark_metadata/N). On a re-run of a batch it already holds, addBatch skips it before any task runs.",
                "Crash at sink-commit: on restart commits/3 is missing, batch 3 is re-run, and the sink says \"skip\". Files of a killed attempt that never reached the manifest stay on disk as orphans, invisible to readers (greyed in the Sink tab).",
            ],
        "kafka-append" => vec![
                "Offsets and replay are as good as in kafka-idempotent: the re-run reads exactly the same rows. The difference is the sink.",
                "Tasks append their rows as they finish, so rows are visible before commits/N is written. A crash between the sink's commit and commits/N leaves offsets/3 without commits/3.",
                "On restart Spark re-runs batch 3 with the same offsets — and the append sink writes the same 7 rows a second time. Watch the Sink tab: a second \"batch 3\" group appears, its keys in red.",
                "Spark only promises exactly-once with an idempotent sink; a plain append gives at-least-once for the last, uncommitted batch.",
            ],
        "tablestore" => tablestore_paragraphs(),
        "tablestore-append" => vec![
                "Same source as the tablestore preset, but rows are appended as tasks finish.",
                "After a crash at sink-commit, batch 2 re-runs from the same start UUID. Its tasks read again — and, because more data has arrived meanwhile, read more than the killed attempt.",
                "The rows the first attempt appended are appended again: duplicates. The Meta table's end rows of batch 2 are overwritten (marked) with the new, later positions.",
                "The Tablestore source is at-least-once; only a sink idempotent by primary key makes it exactly-once.",
            ],
        "tablestore-split" => vec![
                "At 2.5 s channel ch0 splits: new records go to two children, ch2 and ch3, which the Tunnel server creates in state WAIT. A child opens only when the parent's final checkpoint (\"finished\") reaches the server.",
                "The task that reads ch0 to its end writes `finished` into the Meta table; source.commit sends it to the server one batch later and deletes the finished row. Watch the Channels tab: ch0 turns TERMINATED and ch2/ch3 OPEN right after a Commit arrow. A crash after that commit (source-commit@N) loses nothing: the checkpoint is already on the server.",
                "The hazard is a crash one step earlier, after offsets/4 is written and before source.commit(end of batch 3). The re-run of batch 4 starts from batch 3's end rows, and ch0's row still says `finished` — a re-run never calls that commit.",
                "The connector's task asks readRecords for a finished channel, gets null and dereferences it: a NullPointerException on every attempt (inferred from the connector's code, TableStoreSourceRDD — not observed on a cluster). Each restart re-runs batch 4 and fails the same way: a crash loop. Batch 4 never commits, ch0 never terminates, its children never open — stuck.",
                "Without a crash there is a smaller oddity: the offset reader caches the channel list for 5 s (TableStoreOffsetReader), so after the commit ch0 is planned once more from its old server checkpoint and read again. The upsert sink absorbs those rows; an append sink would duplicate them (the engine follows the connector's cache; the re-read is inferred, not observed).",
            ],
        "tablestore-two-phase" => vec![
                "This sink stages rows in tasks and publishes them in the driver's commit(epoch N); it skips an epoch it already committed. With a replayable source that is exactly-once.",
                "Crash right after the sink committed batch 2 but before commits/2: on restart batch 2 re-runs. Its tasks read MORE rows than the first attempt (more data has arrived) and move the end UUID's Meta rows past them.",
                "Then the sink skips epoch 2 as a duplicate — the extra rows are never written. Batch 3 starts from the moved end rows, after them. They are lost: the badge turns red and the Sink tab lists the missing keys.",
                "This is why the V1 Source contract demands that getBatch return the same rows for the same offsets.",
            ],
        "pull-ahead" => vec![
                "getOffset reads every new row to find where the batch ends and caches them; offsets/N then holds real channel positions, like Kafka.",
                "Replay is deterministic (same positions, same rows), so recovery is as good as with Kafka: crashes give exactly-once with the upsert sink.",
                "The price is the extra work: every row is read once more before the batch runs, and the cache holds the rows in memory. The Channels tab shows the cache and the counters (rows read ahead, cache peak).",
                "After a crash the cache is gone and the tasks read the same range again from the Tunnel server.",
            ],
        "auto-commit" => vec![
                "This source pushes each page's checkpoint to the Tunnel server as soon as a task reads it, and plans batches from the server's checkpoints.",
                "Crash after the first task of batch 2 finished: the second task had read its rows (and committed them to the server) but had not handed them to the sink.",
                "On restart the re-run starts from the server's checkpoints — already past those rows. Nobody will read them again: data loss.",
                "Compare with the tablestore preset, whose commit of batch N−1 happens only after offsets/N is durable.",
            ],
        "foreach-batch-multi" => vec![
                "The user function picks one of three stores at random on every call (storagePaths(r.nextInt(3))) and writes the whole batch there.",
                "foreachBatch gets the same batch id and the same data on a re-run, but does nothing with the id here: it is at-least-once.",
                "Crash after the function returned but before commits/N: the re-run writes batch N again, possibly into another store. Watch the Sink tab: the same keys appear in two stores.",
                "To be exactly-once the function must de-duplicate by batch id itself, or use a sink with a transactional commit.",
            ],
        "continuous-epochs" => vec![
                "There are no batches here: long-running tasks read all the time, and every trigger interval the driver ends an epoch. Each reader reaches its epoch marker and reports its offset; the coordinator writes offsets/e with an empty metadata line (continuous mode writes only the source offset).",
                "Then each writer commits the epoch's rows to the sink (a Kafka-like append), and only after all of them does the driver call StreamingWrite.commit(e) and write commits/e.",
                "On restart Spark looks only at the commit log: it starts from offsets/E of the last committed epoch E and replays everything after it. Rows a writer had already committed for epoch E+1 are written again.",
                "Simplified: a writer's rows become visible when it commits its epoch (a real Kafka producer sends them even earlier, which only widens the window), and offsets/e of a replayed epoch is kept as it was (`add` returns false and Spark ignores it).",
            ],
        "checkpoint-deleted-latest" => vec![
                "Spark does not commit Kafka offsets to the broker: the offsets of every batch live only in the checkpoint folder (offsets/N, commits/N), as the StreamExecution class doc says of the offset and commit logs.",
                "Here the query is stopped after commits/2 and an operator deletes the checkpoint folder. The restart finds no metadata and no offsets: it is a new query with a new id.",
                "A new query reads from startingOffsets. For a streaming Kafka query the default is latest (Structured Streaming + Kafka Integration Guide): the end of each partition at the moment it starts. Everything that arrived while the query was down is skipped.",
                "Simplified: the query is stopped right after a batch committed, so the loss is exactly the rows that arrived while it was down.",
            ],
        "checkpoint-deleted-earliest" => vec![
                "As in checkpoint-deleted-latest, the checkpoint folder is deleted after commits/2 and the restart is a new query.",
                "With startingOffsets=earliest the new query reads every partition from its beginning: batch 0 of the new query holds everything the old query already wrote.",
                "The append sink has no memory of the old query's batches, so it appends them all again. Only a sink that de-duplicates by key would absorb this; a file sink's _spark_metadata would even skip the new query's first batch ids, because they reuse the old ids.",
            ],
        "batch-id-in-memory" => vec![
                "Spark hands the sink the batch id, and a re-run batch comes with the same id and the same data. A common V1 sink pattern skips batchId <= latestBatchId.",
                "FileStreamSink reads latestBatchId from its own log (_spark_metadata), which survives a restart. Several third-party sinks keep it in a field of the sink object on the driver, initialised to -1 (inferred from connector code, e.g. Kusto, Doris and YTsaurus SPYT sinks).",
                "Within one run the field works: a batch handed over twice is skipped. But a driver restart creates a new sink object with the field at -1: the re-run of the uncommitted batch is written again.",
            ],
        "kafka-v1-source" => vec![
                "Since Spark 3 a Kafka query reads through the V2 KafkaMicroBatchStream (latestOffset, planInputPartitions) — the other Kafka presets. This one reads through the V1 KafkaSource (getOffset, getBatch), which Spark 3+ uses only when spark.sql.streaming.disabledV2MicroBatchReaders names KafkaSourceProvider (its default is empty; Spark 2.x always used the V1 source).",
                "Crash right after commits/3 is written. The restart finds offsets/3 and commits/3: batch 3 is done and batch 4 is next.",
                "Before it plans batch 4, Spark calls getBatch(start, end) of batch 3 on every V1 source and throws the result away: \"certain sources (e.g., KafkaSource) assume on restart the last batch will be executed before getOffset is called again\" (populateStartOffsets). For a V2 stream it does nothing: \"The V2 API does not have the same edge case\". Compare kafka-append under the same crash: no GetBatch(3) there.",
                "The call reads nothing into the sink, so the verdict is the same as with the V2 reader.",
            ],
        "reader-never-closes" => vec![
                "A micro-batch ends when every task's reader says next() = false. SeaTunnel's reader waits while its handover queue is empty — `while (running && handover.isEmpty()) sleep` — and in streaming mode it is always running.",
                "Watch the SourceRDD lane: the readers poll forever and keep reading new rows, but the task never finishes, so the sink never commits and commits/0 is never written. Nothing reaches the sink and the delay grows without bound.",
                "The oracle calls this `stuck`: no data moves (no task reads a row, none reaches the sink) long after the data has ended. The symptom resembles apache/seatunnel#9477 (\"job gets stuck and never move forward … the files also doesn't get written\"), but that report's cause is the batch path: SeaTunnel's Spark starter never calls readStream, and a STREAMING job runs as one batch job that never ends (see seatunnel-dev-timer). This run does write offsets/0, which such a job never has.",
                "Simplified: readers poll in turn, one poll per step; the SeaTunnel sink writer is modelled as an append sink.",
            ],
        "reader-idle-timeout" => vec![
                "The reader now returns next() = false after it has seen no row for the idle timeout (800 ms here; the PR's next() waits 20 polls of 1 s). The CDC stream has two quiet stretches, so batches end there.",
                "Where does the next batch start? Not from the offset: latestOffset is just {\"checkpointId\":N}, the largest committed batch id + 1. Each reader restores from state files under sources/0/<id>/<subtask>/, where <id> is the batch's start checkpoint id (planInputPartitions passes startOffset.getCheckpointId()): batches 0 and 1 both use folder 0, batch N folder N−1.",
                "What writes them: the PR's reader schedules one checkpoint timer as it starts (startCheckpointConditionService, checkpoint.interval, 1 s here). If a row arrived by then, its next next() writes <id>.prepared and emits a checkpoint row; the sink writer flushes the rows before it and renames the file .committed. The timer is never rescheduled, and a reader that goes idle returns false without a snapshot (close() writes none).",
                "So the next batch resumes from that one mid-batch snapshot and reads every row after it again: the append sink writes them twice, with no failure at all — duplicates (inferred from the PR's code, ParallelMicroBatchPartitionReader at apache/seatunnel 34c5d786; the PR was closed unmerged). Crashes add to it: state-prepared@1 resumes a reader from a .prepared whose rows the sink never got.",
            ],
        "seatunnel-checkpoint-records" => vec![
                "Each reader's checkpoint timer fires once per micro-batch: prepare() calls startCheckpointConditionService, which schedules checkpointCondition once, checkpoint.interval later, and nothing reschedules it. If a row arrived by then, the reader's next next() writes <id>.prepared with its position and emits a checkpoint record behind the rows it read: one .prepared per reader per batch. The id is the folder's newest .committed id + 1 (0 in a new folder), the folder the batch's start checkpoint id.",
                "The sink writer meets the record in the same Spark task: ackCheckpoint calls prepareCommit — for a sink without a committer, as here, that flushes the rows before the record — and renames <id>.prepared to <id>.committed. A reader that goes idle returns next() = false without a snapshot, and the task commit flushes its last rows (SeaTunnelSparkDataWriter).",
                "No failure needed: the next batch's readers restore from that one mid-batch snapshot and read every row after it again, and the append sink writes them twice — duplicates in a failure-free run (inferred from the PR's code at apache/seatunnel 34c5d786; the PR was closed unmerged).",
                "A crash adds loss: the PR's reader restores from <committed id + 1>.prepared first. Crash after <id>.prepared was written, before the sink saw record <id> (state-prepared@0), and the re-run resumes past rows the sink never received.",
                "A sink with a committer (JDBC with XA, Kafka exactly-once, the file sinks' aggregated committer) would fare worse: ackCheckpoint drops the commit info prepareCommit returns, and commit() commits only latestCommitInfoT — the rows before a record would never be committed, a loss without any failure (inferred; the engine models sinks without a committer).",
            ],
        "seatunnel-committed-only" => vec![
                "The readers and sink writer of seatunnel-checkpoint-records, with changes the PR does not have: (1) a reader restores only from .committed files, never from a .prepared; (2) the checkpoint timer is rescheduled after each record, so a record every interval instead of one per batch; (3) a reader that goes idle writes a last snapshot as it closes, renamed .committed after the task's rows are written, so the next batch starts where this one ended; (4) a re-run's snapshot replaces a stale .prepared instead of being appended to it. The state folders are the PR's.",
                "As with the PR's writer and a sink without a committer, the rows before a record are visible before the rename. A sink with a committer would also need each record's commit info committed, where the PR's writer drops it.",
                "A .committed file now proves its rows are in the sink, and a .prepared file is never trusted. The window between the sink's write and the rename is where duplicates come from: crash there and the reader resumes from the previous .committed file, reading rows the sink already holds. Nothing is lost; with an idempotent sink it would be exactly-once, as the PR's author says in its thread.",
            ],
        "seatunnel-idempotent-sink" => vec![
                "The committed-only design of seatunnel-committed-only, writing into a sink that upserts by key instead of appending.",
                "The same crash between the sink's write and the rename makes the reader resume from the previous .committed file and read those rows again. The sink overwrites each key with the same row: the Sink tab counts them as rewrites, nothing is duplicated.",
                "Idempotence repairs replays, not gaps: with PR #7476's own restore order (seatunnel-checkpoint-records) the rows a reader skips after a crash are never written at all, and no sink can make that up. It would absorb the PR's failure-free re-reads, though.",
            ],
        "seatunnel-dev-timer" => vec![
                "SeaTunnel's Spark starter never calls readStream: a STREAMING job runs as one batch job that never ends (apache/seatunnel#9477). This preset runs the micro-batch classes the translation layer does contain.",
                "Each reader runs one virtual checkpoint after checkpoint.interval: it appends its state to sources/0/<subtask>/1, notifies the checkpoint complete and sets running = false — next() returns false and the micro-batch ends on a timer. The readers restore from sources/0/<subtask>/0, which nothing writes.",
                "latestOffset returns the in-memory currentOffset, which only commit(end) moves to end + 1. Spark calls commit for batch 0 only while it constructs batch 1 — and it constructs batch 1 only when latestOffset moves. After batch 0 every trigger finds no new data: the query stalls with the rows still arriving.",
                "Inferred from the code (the stall is not observed in a report): the oracle calls it stuck.",
            ],
        "sink-outage" => sink_outage_paragraphs(),
        "kafka-retention-fail" | "kafka-retention-skip" => retention_paragraphs(name),
        _ => other_paragraphs(name),
    }
}

/// The paragraphs of the backlog presets, of a preset answering a recovery question, or of a preset without a lesson of its own.
fn other_paragraphs(name: &str) -> Vec<&'static str> {
    if name.starts_with("backlog-") {
        return backlog_paragraphs(name);
    }
    if let Some(paragraphs) = super::questions::paragraphs(name) {
        return paragraphs;
    }
    vec![
        "Each batch: getOffset → offsets/N → source.commit(N−1) → getBatch → tasks → sink → commits/N.",
        "Arm a crash point (or press Crash now) and step through the restart: commits/N missing means batch N is re-run with the offsets in offsets/N.",
        "The badge compares the sink with every record the upstream produced: each should be there exactly once.",
    ]
}

/// The sink-outage lesson's paragraphs.
fn sink_outage_paragraphs() -> Vec<&'static str> {
    vec![
        "The store is down from 2.135 s to 4.2 s, and again for 50 ms at 5.61 s. A write to a down store fails its task, not the query: Spark's TaskSetManager runs the task again, up to spark.task.maxFailures attempts (4 by default), and each attempt reads its rows again and retries the write.",
        "The long outage outlasts the attempts: after the fourth the job fails, so do the batch and the query. Spark does not restart a failed query; here a job scheduler restarts it.",
        "offsets/N was written before the batch ran, but commits/N never is: Spark keeps Kafka offsets in its own checkpoint and only marks a batch done after the sink finished.",
        "Each restart re-runs the same batch from offsets/N until the store is back. Nothing is lost; rows a task wrote before its sibling failed are written again, and the upsert sink absorbs them.",
        "The short outage is ridden out: two attempts fail, the third writes, and the query never fails.",
        "No crash needed: press play and watch the red failures on the timeline. (A connector's own write retries, such as the Cassandra connector's, come before a task fails; they are not modelled.)",
    ]
}

/// The retention lessons' paragraphs (`failOnDataLoss` true or false).
fn retention_paragraphs(name: &str) -> Vec<&'static str> {
    let mut out = vec![
        "The log keeps a record 2.5 s after it arrives (Kafka's retention.ms, simplified: Kafka deletes whole segments, later). The sink is down from 2.135 s to 6 s: batch 1 fails, and each restart re-runs it with the range in offsets/1 — a logged batch keeps its offsets.",
        "By the time a restart's tasks fetch that range, its first offsets are older than the retention: the log no longer has them. Spark does not reset the offsets; the Structured Streaming + Kafka Integration Guide says the query then sees data loss (a note added by apache/spark PR #31089).",
    ];
    out.extend(if name == "kafka-retention-fail" {
        [
            "failOnDataLoss is true (the default): the executor's consumer cannot fetch the first offset and throws \"Cannot fetch offset …\" with KafkaSourceProvider's instruction to set failOnDataLoss to false (KafkaDataConsumer). The task, the batch and the query fail.",
            "A scheduler restarts the query; it re-runs batch 1 from the same offsets/1, which is still gone: every restart fails the same way, and nothing after batch 1 is ever read — stuck. Spark retries the task up to spark.task.maxFailures attempts, each throwing the same; the simulation fails the query at the first.",
        ]
    } else {
        [
            "failOnDataLoss is false: the consumer logs a warning and reads from the earliest offset the log still has (KafkaDataConsumer), so the batch commits with what is left and the query goes on. The fetch arrows say how many records were aged out and skipped.",
            "The oracle still counts every skipped record as lost — it never reached the sink — but marks it aged out (the Sink tab's mark, `aged_out` in the report's JSON): the log deleted it before any task could read it, not Spark's protocol. With false, Spark only logs a warning; the guide says the failure failOnDataLoss=true gives \"may be a false alarm\".",
        ]
    });
    out
}

/// The backlog lessons' paragraphs (the limit set after the batch was logged, or before).
fn backlog_paragraphs(name: &str) -> Vec<&'static str> {
    let mut out = vec![
        "The sink is down from 2.135 s to 6 s. Batch 1 fails with it, and each restart re-runs batch 1 with its logged range until the store is back, while records pile up in the Kafka-like log.",
        "A task here can hold 8 records (the scenario's task_memory_records, standing in for an executor's memory). Without maxOffsetsPerTrigger the next batch Spark constructs takes everything up to the latest offsets (Kafka integration guide: the option is a \"rate limit on maximum number of offsets processed per trigger interval\"; unset, there is none).",
    ];
    out.extend(if name == "backlog-crash-loop" {
        [
            "Batch 2 takes the whole backlog: its task on partition 0 reads 16 records and the executor runs out of memory. Spark's TaskSetManager retries it up to spark.task.maxFailures (4 by default) and every attempt reads the same range: the job, the batch and the query fail. offsets/2 is written; commits/2 is not.",
            "Before the next restart the operator sets maxOffsetsPerTrigger to 6. Spark ignores it for batch 2: MicroBatchExecution.populateStartOffsets finds offsets/2 without commits/2 and re-runs batch 2 with the offsets of offsets/2 (isCurrentBatchConstructed is true, so constructNextBatch does not ask the source's latestOffset, where the limit applies). An entry of the offset log (OffsetSeqLog) is final for its batch; the limit would apply from batch 3, which is never constructed.",
            "Every restart fails the same way: a crash loop, judged stuck. Spark's guide allows a change of rate limits between restarts (\"Recovery Semantics after Changes in a Streaming Query\"); Databricks' page on batch size warns that a change of admission controls does not take effect until a planned micro-batch completes. backlog-limited sets the same limit one step earlier.",
            "Inferred, not observed on a cluster: what holds a task's records is the query's (a sort, a state store, a sink that buffers its partition); a Kafka read alone is streamed. The simulation counts records against a fixed budget. The usual way out, not modelled and not a Spark feature: delete the uncommitted last offsets/N file by hand, so that Spark constructs that batch again under the new limit.",
        ]
    } else {
        [
            "Here the operator sets maxOffsetsPerTrigger to 6 at the first restart, while the store is still down. Batch 1 re-runs with its logged range (the limit does not touch it either), and it fits.",
            "Batch 2 is constructed after the change: latestOffset applies the limit, split evenly across the partitions, so each task reads at most 3 records. The backlog drains over several batches, each within the budget.",
            "Every record once, no loop: the same change, made before the backlog's batch was logged (MicroBatchExecution.constructNextBatch writes offsets/N with the limited range).",
            "Inferred, not observed on a cluster: what holds a task's records is the query's (a sort, a state store, a sink that buffers its partition); the simulation counts records against a fixed budget.",
        ]
    });
    out
}

/// The tablestore lesson's paragraphs (the preset a bare link opens: see
/// [`super::lesson_text::opening_texts`]).
pub(crate) fn tablestore_paragraphs() -> Vec<&'static str> {
    vec![
                "A CDC stream cannot say where a batch ends without reading it. Instead of reading ahead, getOffset returns a random UUID as a placeholder: offsets/N holds only that UUID.",
                "The real positions live in the Meta table: one row per (UUID, channel). The start UUID's rows say where each task begins; each task writes where it stopped under the end UUID (highlighted rows).",
                "source.commit(end of N−1) runs while batch N is constructed, so the Tunnel server's checkpoints lag one batch behind the Meta table (Channels tab: server vs end row).",
                "How much a batch reads is decided when its tasks run (maxOffsetsPerChannel, or caught up). A re-run starts from the same start rows but may read more and overwrites the end rows — getBatch is not deterministic. The upsert sink absorbs it: rewrites are counted, nothing duplicates.",
            ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use batchscope_engine::microbatch::scenario::{presets, CrashPoint};

    #[test]
    fn every_preset_has_its_own_lesson_with_a_valid_crash() {
        let fallback = lesson("no-such-preset");
        for p in presets() {
            let l = lesson(p.name);
            assert_ne!(l.title, fallback.title, "{} has no lesson", p.name);
            assert!(
                (3..=6).contains(&l.paragraphs.len()),
                "{}: 3–6 paragraphs",
                p.name
            );
            if let Some(c) = l.try_crash {
                c.parse::<CrashPoint>()
                    .expect("a crash point the engine parses");
            }
        }
    }

    #[test]
    fn lessons_cite_public_sources_never_internal_documents() {
        assert!(lesson("tablestore")
            .question
            .contains("Stream computing implementation details"));
        assert!(lesson("sink-outage").question.contains("Stack Overflow"));
        assert!(lesson("foreach-batch-multi")
            .question
            .contains("Stack Overflow"));
        assert!(lesson("tablestore-two-phase")
            .question
            .contains("V1 Source contract"));
        for p in presets() {
            let l = lesson(p.name);
            let mut texts = vec![l.title, l.question, l.try_outcome];
            texts.extend(&l.paragraphs);
            for t in texts {
                if let Some(bad) = internal_reference(t) {
                    panic!("{}: `{bad}` in {t:?}", p.name);
                }
            }
        }
    }

    #[test]
    fn the_split_lesson_teaches_the_crash_loop_not_a_lost_commit() {
        let l = lesson("tablestore-split");
        assert_eq!(l.try_crash, Some("offset-log@4"));
        let text = l.paragraphs.join(" ");
        assert!(!text.contains("lost commit") && !l.try_outcome.contains("lost commit"));
        assert!(
            text.contains("inferred from the connector's code"),
            "{text}"
        );
        assert!(l.try_outcome.contains("inferred from the connector's code"));
        assert!(l.try_outcome.contains("stuck"));
    }
}
