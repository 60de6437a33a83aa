//! The texts of the presets that answer the recovery questions people who run Structured
//! Streaming bring (a torn checkpoint file, a lost `metadata` …): each lesson's head and
//! paragraphs, and each tour's stop titles and texts. Plain data: `lessons.rs` and
//! `tour_text.rs` read them, and the page's first load links only the heads and titles.
//!
//! Student-facing text: it cites public sources (a Spark class, a PR, a public thread), never
//! the project's internal documents, and says what is inferred rather than observed.

/// A lesson's head: title, question with its public source, a crash to arm, what it leads to.
pub struct Head {
    /// Heading.
    pub title: &'static str,
    /// The question, with the public source it comes from.
    pub question: &'static str,
    /// A crash point to arm, if the lesson needs one.
    pub try_crash: Option<&'static str>,
    /// What the run (with that crash) shows, in words.
    pub try_outcome: &'static str,
}

/// The head of the lesson of `name`, if it is one of these presets.
pub fn head(name: &str) -> Option<Head> {
    Some(match name {
        "torn-offset-log" => Head {
            title: "A torn offsets/N: every restart fails",
            question: "What does a restart do with a checkpoint file the machine left empty or half-written? (apache/spark PR #21048, SPARK-23966; PR #38291, SPARK-40826)",
            try_crash: None,
            try_outcome: "no crash needed: power is lost after batch 2's sink write, offsets/2 is empty, and every restart fails to read it — stuck",
        },
        "metadata-lost-txn-sink" => Head {
            title: "A lost metadata file fools an idempotent Delta sink",
            question: "Delta's txnAppId/txnVersion make foreachBatch writes idempotent — what if the checkpoint's metadata file is lost? (Delta docs, \"Idempotent table writes in foreachBatch\"; apache/spark PR #53844)",
            try_crash: None,
            try_outcome: "no crash needed: on Spark 3.5 the restart takes a new query id and the table applies batch 2 again — duplicates; with --spark-version 4.3 the restart refuses",
        },
        "evolution-source-added" => Head {
            title: "A source added between runs",
            question: "Can I add a source to a running query and restart it from its checkpoint? (Spark's OffsetSeq.toStreamProgress; source evolution, SPARK-54423)",
            try_crash: Some("commit-log@2"),
            try_outcome: "the query stops after commits/2 and comes back reading two sources: every restart is refused — stuck",
        },
        "async-progress" => Head {
            title: "Async progress tracking: fewer writes, more re-reads",
            question: "What does asyncProgressTrackingEnabled trade for its lower latency? (Spark's Structured Streaming guide, \"Asynchronous Progress Tracking\"; apache/spark PR #38517)",
            try_crash: Some("sink-commit@2"),
            try_outcome: "the folder holds only batch 0's entries when the driver dies: the restart re-reads batches 1 and 2 — duplicates",
        },
        "async-progress-off" => Head {
            title: "Async progress tracking switched off",
            question: "Can I turn asyncProgressTrackingEnabled off again on the same checkpoint? (apache/spark PR #38517; MicroBatchExecution.populateStartOffsets)",
            try_crash: Some("sink-commit@3"),
            try_outcome: "offsets/2 was never written, and an ordinary restart of batch 3 needs it: every restart is refused — stuck",
        },
        "two-drivers" => Head {
            title: "Two drivers on one checkpoint",
            question: "What happens when a second driver starts on a checkpoint a first one is still using? (Spark's CONCURRENT_STREAM_LOG_UPDATE error; MicroBatchExecution, HDFSMetadataLog.add)",
            try_crash: None,
            try_outcome: "no crash needed: the first driver stalls after batch 2's sink write, the second re-runs batch 2, and the first then fails on commits/2 — duplicates",
        },
        _ => return None,
    })
}

/// The paragraphs of the lesson of `name`, if it is one of these presets.
pub fn paragraphs(name: &str) -> Option<Vec<&'static str>> {
    Some(match name {
        "torn-offset-log" => vec![
            "Spark writes every checkpoint file through CheckpointFileManager.createAtomic: a temporary file, then a rename, so a reader sees the whole file or none (apache/spark PR #21048, SPARK-23966). Where the rename is not atomic, or a file system loses bytes that were never synced when the power goes, an entry can be left empty or half-written (PR #38291, SPARK-40826, fixes a temporary file left unrenamed).",
            "Here the machine loses power after the sink wrote batch 2 and before commits/2. When it is back, offsets/2 is there but empty: the step's note says how many bytes never reached the disk.",
            "On restart MicroBatchExecution reads the latest offsets/N to decide whether batch N must run again. HDFSMetadataLog cannot read an empty entry: pyspark 4.3.0 and 3.5.9 both stop the query with \"Failed to read log file … Incomplete log file\", and a half-written one with a JSON parse error (\"Unexpected end-of-input …\") — observed in real Spark runs.",
            "A job scheduler restarts the query; it reads the same file and fails the same way. Nothing after batch 1 is ever processed — stuck; the rows never delivered count as lost.",
            "The way out is by hand: delete the torn offsets/2. Then commits/1 is the latest entry, batch 2 is planned anew, and what the lost attempt appended is appended again (inferred from MicroBatchExecution.populateStartOffsets; not run here). `batchscope inspect` on such a folder names the empty entry and quotes Spark's error.",
        ],
        "metadata-lost-txn-sink" => vec![
            "The sink writes each batch to a Delta table from foreachBatch with Delta's idempotent-write options: txnAppId = the query's id, txnVersion = the batch id. The table records the latest version per application id and skips a write whose version is not above it — the Delta documentation's recipe, keyed here on the query id as some pipelines do.",
            "The driver is killed after batch 2's write and before commits/2, and the checkpoint's metadata file is lost while it is down (a cleanup, a partial copy of the folder). offsets/ and commits/ are intact.",
            "Spark 3.5 (this preset's release) does not notice: StreamExecution finds no metadata, writes a new one with a new query id and goes on. The re-run of batch 2 reaches foreachBatch with txnAppId = the new id: the table has no version for it, so it applies batch 2 again — duplicates, though the sink is \"idempotent\".",
            "Spark 4.2 and later refuse instead: with offsets or commits present and no metadata, the query stops with STREAMING_CHECKPOINT_MISSING_METADATA_FILE (apache/spark PR #53844). Run it with `--spark-version 4.3`: every restart refuses until the file is restored — no duplicates, but stuck.",
            "The fix on any release: key txnAppId on something that survives the checkpoint — a fixed name of the pipeline — not on the query id. (The table's behaviour is Delta's documented contract; no Delta table is run here.)",
        ],
        "evolution-source-added" => vec![
            "The query reads one Kafka-like source. After batch 2 it is stopped, and the new version of the job reads a second source — a union or a join with another stream — from the same checkpoint folder.",
            "An offset-log entry holds one line per source, in the order of the query's sources, with no name (offset log format v1). MicroBatchExecution.populateStartOffsets hands the latest entry to OffsetSeq.toStreamProgress, which asserts that the counts match: \"assertion failed: There are [1] sources in the checkpoint offsets and now there are [2] sources requested by the query. Cannot continue.\" — the text real pyspark 4.3.0 and 3.5.9 print for this change.",
            "The query fails before any batch runs. A job scheduler restarts it with the same code and the same folder, and it fails the same way: stuck. Removing a source fails the same way; nothing is skipped silently, nothing is duplicated.",
            "Ways out: a new checkpoint folder (with startingOffsets chosen for each source, knowing what it skips or reads again), or, on Spark releases with source evolution, named sources (spark.sql.streaming.queryEvolution.enableSourceEvolution, offset log v2) from the start of the checkpoint: sources are matched by name and a new one joins at its initial offset (observed with pyspark 4.3.0). An existing v1 checkpoint cannot be switched to named sources.",
            "What Spark does not refuse: a changed maxOffsetsPerTrigger (a logged batch keeps its range; see backlog-crash-loop) or shuffle partitions (the offset log's value wins for the state). Only the sources' count is modelled here; the second source is never read.",
        ],
        "async-progress" => vec![
            "With asyncProgressTrackingEnabled, AsyncProgressTrackingMicroBatchExecution writes the offset log and the commit log on a background thread, off the batch's path, and at most once every asyncProgressTrackingCheckpointIntervalMs — here 2500 ms (Spark's default is 1,000) while a batch runs every second. An offsets/N it does not write stays in the driver's memory (AsyncOffsetSeqLog), and commits/N is written only for a batch whose offsets/N was, or for the run's first batch (markMicroBatchEnd).",
            "Crash the driver at sink-commit@2: the sink has batches 0, 1 and 2, and the Checkpoint tab shows what the folder holds — batch 0's entries only. The restart resumes after the last committed entry on disk, so its next batch reads from offsets/0's end: batches 1 and 2 again, appended twice. At-least-once, as Spark's guide says of the feature.",
            "The restart takes the previous entry on disk as a re-run's start, not offsets/N-1 (validateOffsetLogAndGetPrevOffset). Spark accepts the option only for stateless queries with a processing-time trigger and a sink it names — Kafka, console, memory or noop (validateAndGetTrigger); here the append sink stands for a Kafka topic.",
            "Turning it off on such a checkpoint: the ordinary restart needs offsets/N-1 to re-run batch N, and the async log may have skipped it — the restart then fails (\"batch N-1 doesn't exist\") until the log is contiguous again (the review of apache/spark PR #38517). `batchscope inspect --async-progress-tracking` predicts the restart either way.",
            "The write itself is modelled as done the moment it is issued; in Spark it can still be in flight when the driver dies (inferred from the code). Real pyspark 4.3.0 and 3.5.9 with a one-hour interval keep only batch 0's entries and restart with batch 1, as here.",
        ],
        "async-progress-off" => vec![
            "The query runs with asyncProgressTrackingEnabled and an interval of 2500 ms, as in async-progress: the folder gets offsets/0 and then offsets/3, nothing between (the Checkpoint tab shows it). The driver dies in batch 3, and the operator restarts the query without the option, to have every batch logged again.",
            "An ordinary restart (MicroBatchExecution.populateStartOffsets) reads the latest entry, offsets/3, and asks for offsets/2 to know where batch 3 started (validateOffsetLogAndGetPrevOffset) — before it looks at the commit log at all. offsets/2 was never written: Spark 4.1 and later stop with \"requirement failed: Previous batch 2 not found in offset log\", earlier releases with \"batch 2 doesn't exist\".",
            "Every restart fails the same way: stuck. A crash after commits/3 fails too, since the check comes first. The async restart does not need offsets/N-1 — it takes the previous entry on disk — so restarting with the option on again works, and re-reads everything since offsets/0 (async-progress).",
            "The review of apache/spark PR #38517 notes that the option cannot simply be turned off on such a checkpoint. The way out: run with it on until a batch is logged whose predecessor is on disk too, or start a new checkpoint. (Inferred from Spark's code; this case is not run against real Spark here.)",
        ],
        "two-drivers" => vec![
            "A driver is not always dead when it stops answering: a long garbage-collection pause, a network partition or a hung node can look the same. Here the driver stalls after the sink wrote batch 2 and before commits/2, and a job scheduler that takes it for dead starts a second driver on the same checkpoint folder.",
            "Spark takes no lock on a checkpoint folder. Its one guard is that a log entry is never overwritten: HDFSMetadataLog.add writes offsets/N and commits/N only if the file is not there yet, and returns false otherwise (within one Spark application a second query with the same id is refused at start; across applications nothing checks).",
            "The second driver reads the folder as any restart does: offsets/2 without commits/2, so it re-runs batch 2 — and the append sink receives batch 2's rows a second time. It writes commits/2 and runs on.",
            "When the first driver wakes, it finishes batch 2 by writing commits/2. The file is there, add returns false, and MicroBatchExecution throws: \"[CONCURRENT_STREAM_LOG_UPDATE] Concurrent update to the log. Multiple streaming jobs detected for 2\" (QueryExecutionErrors.concurrentStreamLogUpdate). Its query stops; the second's goes on.",
            "Which driver wins the race depends on timing (here the first sleeps until the second has written commits/2: this model's choice); whichever loses fails with the same error, and an append sink keeps what both wrote. A sink that skips a batch id it already holds (a file sink's manifest, foreachBatch keyed on the batch id) would not duplicate. Make sure one query runs per checkpoint: stop the old driver for certain (fence it) before starting a new one.",
        ],
        _ => return None,
    })
}

/// The stop titles of the tour of `name`, if it is one of these presets.
pub fn stop_titles(name: &str) -> Option<Vec<&'static str>> {
    Some(match name {
        "torn-offset-log" => vec![
            "Batch 2 is in the sink",
            "Power lost",
            "offsets/2 is empty",
            "Incomplete log file",
            "Stuck",
        ],
        "evolution-source-added" => vec![
            "Batch 2 is done",
            "Stopped for a new version",
            "One line, two sources",
            "The restart is refused",
            "Stuck",
        ],
        "async-progress" => vec![
            "offsets/0 is written",
            "offsets/1 stays in memory",
            "Killed after batch 2",
            "Resumed after batch 0",
            "Batches 1 and 2 again",
            "At-least-once",
        ],
        "async-progress-off" => vec![
            "offsets/3, after a gap",
            "Killed in batch 3",
            "Restarted without the option",
            "Previous batch not found",
            "Stuck",
        ],
        "two-drivers" => vec![
            "Batch 2 is in the sink",
            "The driver stalls",
            "The second driver re-runs batch 2",
            "Batch 2 again",
            "Concurrent update to the log",
            "Duplicates",
        ],
        "metadata-lost-txn-sink" => vec![
            "One transaction per batch",
            "Killed before commits/2",
            "metadata is lost",
            "A new query id",
            "Batch 2 again",
            "Duplicates",
        ],
        _ => return None,
    })
}

/// The stop texts of the tour of `name`, if it is one of these presets.
pub fn stop_texts(name: &str) -> Option<Vec<&'static str>> {
    Some(match name {
        "torn-offset-log" => vec![
            "The sink has batch 2's rows; commits/2 is next.",
            "The machine loses power. offsets/2 was written in place, not as a temporary file renamed atomically, and its bytes were never synced.",
            "Back up: offsets/2 exists, but it is empty.",
            "The restart reads offsets/2 to decide whether batch 2 ran, and HDFSMetadataLog fails: \"Failed to read log file … Incomplete log file\", as real Spark says. The query fails.",
            "Every restart fails on the same file: nothing after batch 1 is processed — stuck. Deleting the empty offsets/2 by hand lets batch 2 be planned again.",
        ],
        "evolution-source-added" => vec![
            "commits/2: batch 2 is done. The operator stops the query here to deploy a new version.",
            "The query is stopped. The new version reads a second source from the same checkpoint folder.",
            "The restart reads offsets/2: one offset line, with no source name, for a query that now has two sources.",
            "OffsetSeq.toStreamProgress asserts that the counts match: \"There are [1] sources in the checkpoint offsets and now there are [2] sources requested by the query\". The query fails before any batch runs.",
            "Every restart fails the same way: stuck. Start a new checkpoint, or use named sources (source evolution) from a checkpoint's first run.",
        ],
        "async-progress" => vec![
            "offsets/0 is written: a run's first entry always is.",
            "Batch 1's offsets stay in the driver's memory: the 2500 ms interval since offsets/0 has not passed. Its commits/1 will not be written either.",
            "The driver dies after batch 2's sink write. The sink has batches 0 to 2; the folder has batch 0's entries only.",
            "The restart finds batch 0 committed and plans the next batch from offsets/0's end.",
            "The restart's batch 1 reads what batches 1 and 2 had read, and more: appended a second time.",
            "Every row of batches 1 and 2 is in the sink twice: async progress tracking is at-least-once after a crash.",
        ],
        "async-progress-off" => vec![
            "offsets/3 is written: 2500 ms have passed since offsets/0. offsets/1 and offsets/2 stayed in memory.",
            "The driver dies in batch 3, before commits/3. The operator restarts the query without async progress tracking.",
            "The ordinary restart re-runs batch 3, and needs offsets/2 for its start.",
            "offsets/2 was never written: \"requirement failed: Previous batch 2 not found in offset log\". The query fails.",
            "Every restart fails the same way: stuck. Turned on again, the option's own restart would go on from offsets/0.",
        ],
        "two-drivers" => vec![
            "The sink has batch 2's rows; commits/2 is next.",
            "The driver stalls before commits/2 — not dead, but a job scheduler thinks so and starts a second driver on the same checkpoint folder.",
            "The second driver finds offsets/2 without commits/2: it re-runs batch 2, as any restart would.",
            "The append sink receives batch 2's rows from the second driver too.",
            "The first driver wakes and writes commits/2: the second already wrote it, so HDFSMetadataLog refuses and the first driver's query fails with \"Concurrent update to the log. Multiple streaming jobs detected for 2\".",
            "Batch 2's rows are in the sink twice. Spark's refusal came after both drivers had written: one query per checkpoint is the operator's job.",
        ],
        "metadata-lost-txn-sink" => vec![
            "Batch 2 is written to the table as one transaction: txnAppId = the query id, txnVersion = 2.",
            "The driver dies before commits/2: batch 2 will run again.",
            "While it is down, the checkpoint's metadata file is lost; the logs stay.",
            "Spark 3.5 writes a new metadata file with a new query id and carries on (4.2+ would refuse here).",
            "The re-run hands batch 2 to foreachBatch with the new id as txnAppId: the table has never seen it, so it writes batch 2 again.",
            "Batch 2's rows are in the table twice: the idempotence was keyed on an id the checkpoint no longer kept.",
        ],
        _ => return None,
    })
}
