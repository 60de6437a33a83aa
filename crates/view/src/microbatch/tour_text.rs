//! The titles and texts of the guided tours' stops, apart from the stops themselves
//! ([`super::tour`]): the dashboard's first load carries the stops (where each pauses, its
//! tab) and only the opening preset's words; the second module hands it the others.

use crate::microbatch::questions;
/// The texts of a preset's tour stops, in order (an unknown name: the general tour's).
pub fn tour_texts(preset: &str) -> Vec<&'static str> {
    match preset {
        "kafka-idempotent" => vec![
            "offsets/0 is on disk before any task of batch 0 runs. Open it in the Checkpoint folder: the Kafka offsets of the batch's end, per partition.",
            "commits/0 is written only after the sink finished. A batch with both offsets/N and commits/N is never run again.",
            "The file sink wrote batch 3's files and listed them in _spark_metadata/3. commits/3 comes next — but the crash comes first.",
            "The folder now holds offsets/3 without commits/3: from Spark's point of view batch 3 never finished.",
            "Latest offsets/3, latest commits/2: batch 3 is re-run with exactly the offsets in offsets/3 — the same Kafka range, the same rows.",
            "addBatch(3) finds batch 3 in the sink's own manifest and returns before any task runs. Nothing is written twice.",
            "Replayable source + idempotent sink: every record is in the sink once. (Arm task@3 instead to see orphan files: written by a killed attempt, never listed in the manifest, invisible to readers.)",
        ],
        "kafka-append" => vec![
            "offsets/0 is written before batch 0 runs: a restart will re-run batch 0 with these offsets until commits/0 exists.",
            "A task appends its rows as it finishes — before commits/0. A crash from here to commits/0 leaves rows in the sink for a batch Spark will run again.",
            "Every row of batch 3 is appended. Only commits/3 is missing.",
            "offsets/3 without commits/3.",
            "Same offsets, same rows: the Kafka range is replayed exactly.",
            "The plain append sink has no memory of batch 3: the re-run's task appends the same rows a second time. Their keys turn red in the Sink tab.",
            "At-least-once for the last, uncommitted batch: exact replay needs an idempotent sink to become exactly-once.",
        ],
        "tablestore" => tablestore_stop_texts(),
        "tablestore-append" => vec![
            "Rows of batch 2 are appended as each task finishes.",
            "The sink holds batch 2's rows; the checkpoint says batch 2 never finished.",
            "From the same start UUID — the Meta rows of batch 1's end.",
            "The re-run reads the same rows again plus everything that arrived meanwhile, and appends all of it.",
            "The end UUID's rows are overwritten with the later positions: the first attempt's end is forgotten.",
            "The UUID design is at-least-once on its own; only a sink idempotent by key makes it exactly-once.",
        ],
        "tablestore-split" => vec![
            "ch0 split at 2.5 s. A task of batch 3 reads it to its end and writes `finished` as its end row in the Meta table. Its children ch2 and ch3 wait on the Tunnel server: they open only once the server has the parent's final checkpoint.",
            "offsets/4 is on disk; source.commit(end of batch 3) has not run. The Tunnel server never got ch0's `finished`, and ch0's finished row is still in the Meta table.",
            "commits/4 is missing, so batch 4 re-runs from batch 3's end rows. The re-run path never calls the skipped commit.",
            "ch0's task starts at `finished`: readRecords returns null and the task dereferences it — a NullPointerException (inferred from the connector's code, TableStoreSourceRDD; not observed on a cluster). No ReadRecords call is made. The batch fails, and the query with it.",
            "The restart finds the same logs and re-runs batch 4 from the same rows: it will throw the same way on every attempt. A crash loop.",
            "Batch 4 never commits, so ch0 never terminates and ch2/ch3 never open; nothing after batch 3 reaches the sink. (A crash after source.commit, source-commit@4, loses nothing: the commit already reached the server.)",
        ],
        "tablestore-two-phase" => vec![
            "The sink published the rows it staged for epoch 2 in the driver's commit.",
            "Batch 2 will re-run.",
            "More data arrived: the tasks read past the first attempt's end and move the end rows past it.",
            "Epoch 2 is already committed, so the sink drops this attempt's staged rows — including the extra ones.",
            "Batch 3 starts from the moved end rows. The extra rows of batch 2 are never read again.",
            "The missing keys are listed in the Sink tab. The V1 Source contract demands the same rows for the same offsets for this reason.",
        ],
        "pull-ahead" => vec![
            "getOffset reads every new row to find the batch's end, and caches them. The counters show the rows read ahead and the cache size.",
            "offsets/1 holds real channel positions, like Kafka offsets: replay is deterministic.",
            "The cache dies with the driver.",
            "The first attempt's tasks took their rows from the cache (\"cached\" arrows). The re-run has no cache: it reads the same range from the Tunnel server again — the same rows.",
            "Every row was read twice (once ahead, once by a task) and held in memory in between.",
        ],
        "auto-commit" => vec![
            "The task pushes its checkpoint to the Tunnel server as soon as it reads the page (committed = true) — before the rows reach the sink.",
            "One task wrote its rows. The other has read and committed its rows to the server, but not written them.",
            "The unwritten task's rows were committed to the server and are in no sink.",
            "The re-run plans from the server's checkpoints, which are already past those rows.",
            "Nobody reads those rows again. A source may commit only after the batch is done — compare the tablestore preset.",
        ],
        "foreach-batch-multi" => vec![
            "foreachBatch wrote batch 2 to one of three stores, chosen at random.",
            "The function returned; commits/2 is missing.",
            "The re-run calls the function with the same batch id and data — it ignores the id and writes the batch again, maybe into another store.",
            "The same keys sit in two stores (or twice in one). De-duplicate by batch id to be exactly-once.",
        ],
        "continuous-epochs" => vec![
            "No batches: tasks read all the time, and the driver ends an epoch each interval. Each reader reports its offset at the epoch marker.",
            "Each writer committed epoch 1's rows to the sink; only then the driver wrote commits/1.",
            "Its rows are visible; commits/3 is next.",
            "The commit log ends at 2.",
            "Spark looks only at the commit log: epoch 3 starts again from offsets/2.",
            "The replayed epoch writes the rows the first attempt had already committed.",
            "Continuous processing is at-least-once.",
        ],
        "checkpoint-deleted-latest" => vec![
            "commits/2 is written: everything up to batch 2 is in the sink.",
            "The query is stopped; the data keeps arriving.",
            "An operator deletes the checkpoint folder: offsets, commits, metadata and sources/0/0 are gone. The Kafka offsets were nowhere else.",
            "The restart is a new query. sources/0/0 records the end of each partition now: the rows that arrived while the query was down lie before it.",
            "Those rows are never read. The lost keys are listed in the Sink tab.",
        ],
        "checkpoint-deleted-earliest" => vec![
            "commits/2 is written: everything up to batch 2 is in the sink.",
            "An operator deletes the checkpoint folder while the query is down. The restart is a new query.",
            "sources/0/0 records offset 0 for every partition: the new query starts at the beginning of the topic.",
            "The new query's batch 0 holds everything the old query already wrote; the append sink appends it again.",
            "Every row the old query wrote is in the sink twice.",
        ],
        "batch-id-in-memory" => vec![
            "The sink wrote batch 3 and set its driver-side field latestBatchId to 3. commits/3 is next — the crash comes first.",
            "offsets/3 without commits/3; the sink object is gone.",
            "Same offsets, same rows, same batch id.",
            "The new driver's sink starts with latestBatchId = -1: batch 3 is not skipped.",
            "Batch 3 is in the sink twice. A batch id de-duplicates only if it is kept where the restart can read it (FileStreamSink's _spark_metadata).",
        ],
        "kafka-v1-source" => vec![
            "commits/3 is on disk: batch 3 will never run again. The crash comes right after it.",
            "offsets/3 and commits/3 are both there.",
            "The latest batch in offsets/ is committed: the driver moves on to batch 4.",
            "First Spark calls getBatch of batch 3 on the V1 KafkaSource and discards the result: the V1 KafkaSource expects the last batch to run before getOffset is called again. A V2 KafkaMicroBatchStream (kafka-append) is not asked.",
            "The extra call writes nothing: every record once.",
        ],
        "kafka-retention-fail" | "kafka-retention-skip" => retention_texts(preset),
        "backlog-crash-loop" | "backlog-limited" => backlog_texts(preset),
        "sink-outage" => sink_outage_texts(),
        "reader-never-closes" => vec![
            "The sink waits for the tasks; a task ends when its reader's next() returns false.",
            "SeaTunnel's reader loops while its queue is empty: `while (running && handover.isEmpty()) sleep`.",
            "The queue has been empty for seconds, and the reader still waits: in streaming mode it is always running.",
            "No task finished, nothing was committed, commits/0 was never written: the delay grows without bound.",
        ],
        "reader-idle-timeout" => vec![
            "The reader's timer fired once, 1 s after it started: it writes its position to sources/0/0/<subtask>/<id>.prepared and emits a checkpoint row.",
            "The sink writer flushed the rows before the record, then renamed the state file. The timer is not rescheduled: no other snapshot in this batch.",
            "The reader saw no row for 800 ms and returns next() = false — without a snapshot. Its rows after the record are flushed at the task commit.",
            "commits/0: the fix works, batches end.",
            "Batch 1 starts at {\"checkpointId\":0}, folder 0: each reader restores from its mid-batch snapshot and reads the rows after it a second time.",
            "The append sink holds the re-read rows twice (inferred from PR #7476's code).",
        ],
        "seatunnel-checkpoint-records" => vec![
            "The reader's one timer fired: it writes <id>.prepared with its position; the checkpoint record goes behind the rows it read. The sink has not seen it yet.",
            "The rows before the record die with the task; <id>.prepared stays on disk.",
            "commits/0 is missing: batch 0 runs again.",
            "As PR #7476 wrote it, the reader restores from the folder's next .prepared first: it starts past the rows the sink never received.",
            "The missing keys are the crash's; the duplicates are every batch re-reading what followed its one snapshot. Compare seatunnel-committed-only.",
        ],
        "seatunnel-committed-only" => vec![
            "The reader writes <id>.prepared and emits a checkpoint record behind the rows it read.",
            "In this design the sink makes the rows before the record visible first; the rename to .committed is next.",
            "The rows are in the sink; their checkpoint is only .prepared.",
            "A .prepared file is never trusted: the reader resumes from the newest .committed file, before those rows.",
            "The re-run's sink wrote the first record's rows again before this rename.",
            "Duplicates, never loss: rows reach the sink before their checkpoint is committed.",
        ],
        "seatunnel-idempotent-sink" => vec![
            "The sink upserts the rows before the first checkpoint record; the rename to .committed is next.",
            "The rows are in the sink; their checkpoint is only .prepared.",
            "The reader resumes from the newest .committed file and reads those rows again.",
            "The re-run wrote the same keys again; the upsert kept one row per key (counted as rewrites).",
            "At-least-once delivery into an idempotent sink: every key once.",
        ],
        "seatunnel-dev-timer" => vec![
            "The checkpoint interval is over: one virtual checkpoint, then next() returns false.",
            "The reader appends its state to /1; the next reader would restore from /0, which nothing writes.",
            "commits/0: the first micro-batch is done.",
            "{\"checkpointId\":0} again: commit(end of batch 0) would move it, but Spark calls it only while constructing batch 1.",
            "Rows keep arriving and no batch reads them.",
        ],
        _ => questions::stop_texts(preset).unwrap_or_else(|| {
            vec![
                "offsets/0 is written before anything of batch 0 runs.",
                "commits/0 only after the sink finished.",
                "The badge compares the sink with every record the upstream produced.",
            ]
        }),
    }
}

/// The tablestore tour's stop texts (the preset a bare link opens).
pub(crate) fn tablestore_stop_texts() -> Vec<&'static str> {
    vec![
            "The source stores where each channel starts in the Meta table, one row per (UUID, channel). Nothing in Spark's checkpoint knows these positions.",
            "getOffset cannot know where the batch ends without reading it, so it returns a random UUID. Open offsets/0: the UUID is all it holds.",
            "Each task writes where it stopped under the end UUID of batch 1 — the highlighted row. The next batch starts from these rows.",
            "source.commit(end of batch 1) runs while batch 2 is being constructed: only now does the Tunnel server learn batch 1's checkpoints. The server column trails the Meta table by one batch.",
            "Batch 2's rows are in the sink, commits/2 is missing.",
            "Batch 2 re-runs from the same start rows, but the data kept arriving: the tasks read further and overwrite the end rows (marked). getBatch is not deterministic here.",
            "The upsert sink absorbs the re-read rows (counted as rewrites). With an append sink the same crash duplicates — see tablestore-append.",
        ]
}

/// The titles of a preset's tour stops, in order (an unknown name: the general tour's).
pub fn tour_titles(preset: &str) -> Vec<&'static str> {
    match preset {
        "tablestore" => tablestore_stop_titles(),
        "kafka-idempotent" => vec![
            "The write-ahead log",
            "Done for good",
            "Batch 3 is in the sink",
            "Killed before commits/3",
            "The restart reads the logs",
            "The sink skips what it has",
            "Exactly-once",
        ],
        "kafka-append" => vec![
            "The write-ahead log",
            "Rows are visible early",
            "Batch 3 is in the sink",
            "Killed before commits/3",
            "Re-run batch 3",
            "Appended again",
            "Duplicates",
        ],
        "tablestore-append" => vec![
            "Batch 2 appends",
            "Killed before commits/2",
            "Re-run batch 2",
            "Appended again, and more",
            "The end moved",
            "Duplicates",
        ],
        "tablestore-split" => vec![
            "The parent ends",
            "Killed before the commit",
            "Re-run batch 4",
            "A finished start row",
            "Again",
            "Stuck",
        ],
        "tablestore-two-phase" => vec![
            "Batch 2 committed",
            "Killed before commits/2",
            "The re-run reads more",
            "…and the sink skips it",
            "Batch 3 starts after them",
            "Data loss",
        ],
        "pull-ahead" => vec![
            "Reading ahead",
            "Real positions",
            "Killed before commits/2",
            "Read again",
            "Exactly-once, at a price",
        ],
        "auto-commit" => vec![
            "Commit on read",
            "One task done",
            "Killed mid-batch",
            "The re-run starts past them",
            "Data loss",
        ],
        "foreach-batch-multi" => vec![
            "One store of three",
            "Killed before commits/2",
            "Written again",
            "Duplicates",
        ],
        "continuous-epochs" => vec![
            "An epoch ends",
            "Writers first, then commits/1",
            "Epoch 3 is in the sink",
            "Killed before commits/3",
            "Restart from commits/2",
            "Written again",
            "Duplicates, never loss",
        ],
        "checkpoint-deleted-latest" => vec![
            "Batch 2 is done",
            "The query stops",
            "The folder is deleted",
            "startingOffsets=latest",
            "Data loss",
        ],
        "checkpoint-deleted-earliest" => vec![
            "Batch 2 is done",
            "The folder is deleted",
            "startingOffsets=earliest",
            "Appended again",
            "Duplicates",
        ],
        "batch-id-in-memory" => vec![
            "latestBatchId = 3",
            "The field dies with the driver",
            "Re-run batch 3",
            "A new sink object",
            "Duplicates",
        ],
        "kafka-v1-source" => vec![
            "Batch 3 is done",
            "Killed after commits/3",
            "Batch 4 is next",
            "getBatch(3), not run",
            "Nothing changes in the sink",
        ],
        "kafka-retention-fail" | "kafka-retention-skip" => retention_titles(preset),
        "sink-outage" => vec![
            "The store is down",
            "Out of attempts: the query fails",
            "A scheduler restarts it",
            "Still down",
            "The store is back",
            "A short outage",
            "Ridden out",
            "Nothing lost",
        ],
        "reader-never-closes" => vec![
            "Batch 0 starts",
            "The reader polls",
            "The data has stopped",
            "Stuck",
        ],
        "reader-idle-timeout" => vec![
            "One snapshot, mid-batch",
            "Renamed .committed",
            "The idle timeout",
            "Batch 0 commits",
            "Read again",
            "Duplicates without a failure",
        ],
        "seatunnel-checkpoint-records" => vec![
            "A checkpoint record is due",
            "Killed before the sink saw the record",
            "Re-run the batch",
            "Restore from .prepared",
            "Loss, and duplicates",
        ],
        "seatunnel-committed-only" => vec![
            "A checkpoint record",
            "Visible before the rename",
            "Killed before the rename",
            "Resume from .committed",
            "Written twice",
            "At-least-once",
        ],
        "seatunnel-idempotent-sink" => vec![
            "Rows before the record",
            "Killed before the rename",
            "Resume from .committed",
            "Overwritten, not duplicated",
            "Exactly-once",
        ],
        "seatunnel-dev-timer" => vec![
            "A timer, not the data",
            "sources/0/<subtask>/1",
            "Batch 0 commits",
            "latestOffset did not move",
            "Stuck",
        ],
        _ => other_titles(preset),
    }
}

/// The stop titles of the backlog tours, of a preset answering a recovery question, or of a preset without a tour of its own.
fn other_titles(preset: &str) -> Vec<&'static str> {
    if preset.starts_with("backlog-") {
        return backlog_titles(preset);
    }
    if let Some(titles) = questions::stop_titles(preset) {
        return titles;
    }
    vec!["The write-ahead log", "Batch 0 done", "The verdict"]
}

/// The sink-outage tour's stop texts.
fn sink_outage_texts() -> Vec<&'static str> {
    vec![
            "From 2.135 s the store refuses writes: a task's write fails. The task fails, not the query — Spark runs it again (spark.task.maxFailures).",
            "Every attempt failed: the job, the batch and the query fail. The Kafka offsets of the batch are in offsets/N, but Spark marks nothing processed: commits/N is not written.",
            "Spark does not restart a failed query; a job scheduler does. The failed batch re-runs with the same offsets.",
            "The re-run's attempts fail too; another restart follows.",
            "The failed batch finally commits. Rows written before each failure were written again — the upsert sink absorbs them.",
            "At 5.61 s the store is down again, for 50 ms: a task attempt fails and is retried.",
            "A retry writes once the store is back: the batch goes on to commit with no query failure and no restart.",
            "Exactly-once: the offsets were never marked processed while writes failed.",
        ]
}

/// The retention tours' stop titles (`failOnDataLoss` true or false).
fn retention_titles(preset: &str) -> Vec<&'static str> {
    if preset == "kafka-retention-fail" {
        vec![
            "Batch 1 fails",
            "The range has aged out",
            "failOnDataLoss",
            "The same offsets/1",
            "Stuck",
        ]
    } else {
        vec![
            "Batch 1 fails",
            "Re-run with offsets/1",
            "Skipped",
            "Batch 1 commits",
            "Aged out",
        ]
    }
}

/// The retention tours' stop texts (`failOnDataLoss` true or false).
fn retention_texts(preset: &str) -> Vec<&'static str> {
    let first = "The sink is down: out of task attempts, batch 1 fails with the query. Its range is in offsets/1; commits/1 is not written.";
    if preset == "kafka-retention-fail" {
        vec![
            first,
            "A restart re-runs batch 1 from offsets/1, but retention has deleted the start of that range from the log: the task cannot fetch its first offset.",
            "The query fails with the executor's error: \"Cannot fetch offset …\" and KafkaSourceProvider's instruction to set the source option failOnDataLoss to false.",
            "The next restart reads the same offsets/1 — still gone.",
            "Every restart fails the same way; nothing after batch 1 is read: stuck.",
        ]
    } else {
        vec![
            first,
            "The restart re-runs batch 1 with the same offsets: a logged batch keeps its range.",
            "Retention has deleted the start of the range: with failOnDataLoss=false the consumer skips to the earliest offset the log still has. The arrow says how many records were aged out.",
            "Batch 1 commits with what was left, and the query goes on.",
            "The skipped records never reach the sink: lost, and marked aged out — the log deleted them, not Spark's protocol.",
        ]
    }
}

/// The backlog tours' stop titles (the limit set after the batch was logged, or before).
fn backlog_titles(preset: &str) -> Vec<&'static str> {
    if preset == "backlog-crash-loop" {
        vec![
            "Batch 1 fails",
            "The backlog in one batch",
            "Out of memory",
            "The query fails",
            "A new limit",
            "offsets/2 is final",
            "Out of memory again",
            "Stuck",
        ]
    } else {
        vec![
            "Batch 1 fails",
            "A new limit, early",
            "Batch 2 under the limit",
            "It fits",
            "Exactly-once",
        ]
    }
}

/// The backlog tours' stop texts (the limit set after the batch was logged, or before).
fn backlog_texts(preset: &str) -> Vec<&'static str> {
    let first = "The sink is down: out of task attempts, batch 1 fails with the query. Each restart re-runs it from offsets/1 until the store is back; records pile up in the log.";
    if preset == "backlog-crash-loop" {
        vec![
            first,
            "The store is back and batch 1 commits. Without maxOffsetsPerTrigger, offsets/2 takes everything that arrived since: the whole backlog.",
            "The task on partition 0 holds 16 records, over the 8 it can hold: the executor runs out of memory. Spark retries the task.",
            "Every attempt reads the same range and fails: after spark.task.maxFailures the query fails. offsets/2 stays, without commits/2.",
            "The restart comes with maxOffsetsPerTrigger 6: too late for batch 2.",
            "commits/2 is missing: batch 2 re-runs with the offsets of offsets/2 (populateStartOffsets). The limit is read only when a batch is constructed.",
            "The same range, the same records: out of memory again.",
            "Every restart re-runs the same logged batch: a crash loop, stuck. The limit would apply from batch 3, never constructed.",
        ]
    } else {
        vec![
            first,
            "The first restart comes with maxOffsetsPerTrigger 6. Batch 1 still re-runs with its logged range; it fits.",
            "Batch 2 is constructed under the limit: offsets/2 ends 3 records past offsets/1 on each partition.",
            "Its tasks hold 3 records each: batch 2 commits, commits/2 is written. The backlog drains over the next batches.",
            "Every record once, no loop: the limit was set before the backlog's batch was logged.",
        ]
    }
}

/// The tablestore tour's stop titles (the preset a bare link opens).
pub(crate) fn tablestore_stop_titles() -> Vec<&'static str> {
    vec![
        "The Meta table",
        "A UUID as the offset",
        "Tasks write the end",
        "Checkpoints one batch late",
        "Killed before commits/2",
        "The re-run reads more",
        "Exactly-once with upserts",
    ]
}
