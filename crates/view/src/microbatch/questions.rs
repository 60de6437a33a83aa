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
