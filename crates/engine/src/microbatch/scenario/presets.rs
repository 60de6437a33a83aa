//! The built-in presets: each a small change to one base scenario, listed in the order
//! `batchscope presets` shows them.

use super::fault::{default_task_max_failures, Fault, FaultKind, OnRestart, StartingOffsets};
use super::spec::{
    default_checkpoint_interval_ms, default_idle_timeout_ms, default_max_offsets_per_channel,
    default_page_size, default_restart_delay_ms, default_seed, default_stores,
    default_trigger_interval_ms, invalid, Execution, ReaderEnd, Scenario, ScenarioError,
    SeaTunnelDesign, SinkKind, SinkSpec, SinkValue, SourceApi, SourceKind, SourceSpec, SplitSpec,
    UpstreamSpec, Window,
};
use crate::spec_json::NamedSchema;

/// A built-in scenario: name, one-line description, and the scenario itself.
#[derive(Clone, Debug)]
pub struct Preset {
    /// Stable name (`kafka-append`).
    pub name: &'static str,
    /// One line saying what it shows.
    pub description: &'static str,
    /// The scenario.
    pub scenario: Scenario,
}

fn base(
    name: &'static str,
    description: &'static str,
    source: SourceKind,
    sink: SinkKind,
) -> Preset {
    Preset {
        name,
        description,
        scenario: Scenario {
            schema: NamedSchema,
            name: name.to_string(),
            description: description.to_string(),
            seed: default_seed(),
            batches: 6,
            upstream: UpstreamSpec {
                channels: 2,
                records_per_batch: 3,
                idle: vec![],
                bursts: vec![],
                splits: vec![],
            },
            source: SourceSpec {
                kind: source,
                max_offsets_per_channel: default_max_offsets_per_channel(),
                page_size: default_page_size(),
                max_offsets_per_trigger: 0,
                reader: ReaderEnd::Never,
                idle_timeout_ms: default_idle_timeout_ms(),
                checkpoint_interval_ms: default_checkpoint_interval_ms(),
                design: SeaTunnelDesign::Pr7476,
                // The presets read the log from its beginning (the first records arrive before
                // the query's first trigger); Spark's default `latest` is shown by
                // `checkpoint-deleted-latest`.
                starting_offsets: StartingOffsets::Earliest,
                api: None,
                retention_ms: None,
                fail_on_data_loss: true,
            },
            sink: SinkSpec {
                kind: sink,
                stores: default_stores(),
                outages: vec![],
                value: SinkValue::Record,
            },
            trigger_interval_ms: default_trigger_interval_ms(),
            restart_delay_ms: default_restart_delay_ms(),
            crashes: vec![],
            crash_after_events: vec![],
            execution: Execution::MicroBatch,
            faults: vec![],
            task_max_failures: default_task_max_failures(),
            restart: None,
            spark_version: None,
            task_memory_records: None,
            on_restart: None,
            async_progress: None,
        },
    }
}

/// Every built-in preset, in the order `batchscope presets` lists them.
pub fn presets() -> Vec<Preset> {
    let mut out = vec![
        base(
            "kafka-idempotent",
            "Kafka-like replayable log into a file sink that skips committed batch ids: exactly-once under any single crash.",
            SourceKind::ReplayableLog,
            SinkKind::File,
        ),
        base(
            "kafka-append",
            "Kafka-like replayable log into a plain append sink: a re-run batch is appended twice.",
            SourceKind::ReplayableLog,
            SinkKind::Append,
        ),
        base(
            "tablestore",
            "Tablestore CDC source (UUID placeholder offsets, Meta table, Tunnel checkpoints one batch late) into an upsert sink.",
            SourceKind::Tablestore,
            SinkKind::Upsert,
        ),
        base(
            "tablestore-append",
            "Tablestore CDC source into an append sink: a re-run reads again (and more) and appends twice.",
            SourceKind::Tablestore,
            SinkKind::Append,
        ),
        base(
            "tablestore-split",
            "Tablestore CDC source while a channel splits: the children open only after the parent's final checkpoint reaches the Tunnel server.",
            SourceKind::Tablestore,
            SinkKind::Upsert,
        ),
        base(
            "tablestore-two-phase",
            "Tablestore CDC source into a sink that de-duplicates only at the driver's commit: a re-run reads more rows, then skips them.",
            SourceKind::Tablestore,
            SinkKind::TwoPhase,
        ),
        base(
            "pull-ahead",
            "The rejected design: get_offset reads the data ahead and caches it to learn the real end offset (count the extra reads).",
            SourceKind::PullAhead,
            SinkKind::Upsert,
        ),
        base(
            "auto-commit",
            "A consumer that commits to the Tunnel server as it reads: a crash mid-batch loses the rows it read.",
            SourceKind::AutoCommit,
            SinkKind::Upsert,
        ),
        base(
            "foreach-batch-multi",
            "foreachBatch writing each batch to one of three blob stores chosen at random (Stack Overflow: \"How does Structured Streaming ensure exactly-once\"): a retry can duplicate into another store.",
            SourceKind::ReplayableLog,
            SinkKind::ForeachBatch,
        ),
        base(
            "continuous-epochs",
            "Continuous processing (Trigger.Continuous): writers commit each epoch before commits/e, so a restart replays the epoch — at-least-once.",
            SourceKind::ReplayableLog,
            SinkKind::Append,
        ),
        base(
            "reader-never-closes",
            "SeaTunnel's micro-batch reader in streaming mode without an idle timeout (apache/seatunnel PR #7476): next() never returns false, so the batch never ends and nothing commits.",
            SourceKind::SeaTunnel,
            SinkKind::Append,
        ),
        base(
            "reader-idle-timeout",
            "The fix: a SeaTunnel reader ends its micro-batch after an idle timeout — but, as PR #7476's code does it, the next batch resumes from the reader's one mid-batch snapshot and reads its tail again.",
            SourceKind::SeaTunnel,
            SinkKind::Append,
        ),
        base(
            "seatunnel-checkpoint-records",
            "In-band checkpoint records as PR #7476's code does them: one record per reader per batch and none at close, so each batch re-reads what followed it; a crash after k.prepared, before the sink saw record k, loses rows.",
            SourceKind::SeaTunnel,
            SinkKind::Append,
        ),
        base(
            "sink-outage",
            "Kafka-like log into an upsert store that goes down for a while (Stack Overflow: \"Spark structured streaming from Kafka checkpoint and acknowledgement\"): no commits/N while writes fail, nothing lost.",
            SourceKind::ReplayableLog,
            SinkKind::Upsert,
        ),
        base(
            "seatunnel-committed-only",
            "A safer SeaTunnel design than PR #7476: readers restore only from .committed state files, take a record every interval and a last one as they close — no loss.",
            SourceKind::SeaTunnel,
            SinkKind::Append,
        ),
        base(
            "seatunnel-idempotent-sink",
            "The committed-only SeaTunnel design into a sink idempotent by key: a replayed checkpoint record overwrites its rows — exactly-once.",
            SourceKind::SeaTunnel,
            SinkKind::Upsert,
        ),
        base(
            "seatunnel-dev-timer",
            "SeaTunnel's merged dev reader, if someone called readStream: one virtual checkpoint ends each micro-batch on a timer, but latestOffset never moves past batch 0 — stuck.",
            SourceKind::SeaTunnel,
            SinkKind::Append,
        ),
        base(
            "checkpoint-deleted-latest",
            "The checkpoint folder is deleted after batch 2 and the query starts anew with startingOffsets=latest (Spark's default): what arrived while it was down is skipped.",
            SourceKind::ReplayableLog,
            SinkKind::Append,
        ),
        base(
            "checkpoint-deleted-earliest",
            "The checkpoint folder is deleted after batch 2 and the query starts anew with startingOffsets=earliest: everything is read again and appended twice.",
            SourceKind::ReplayableLog,
            SinkKind::Append,
        ),
        base(
            "batch-id-in-memory",
            "A sink that skips a batch id it remembers in a driver-side field: it de-duplicates within a run, but a driver restart forgets the field and a re-run batch is written twice.",
            SourceKind::ReplayableLog,
            SinkKind::BatchIdInMemory,
        ),
        base(
            "kafka-v1-source",
            "Kafka with the V2 reader disabled (spark.sql.streaming.disabledV2MicroBatchReaders naming KafkaSourceProvider): the V1 KafkaSource, which Spark asks once more for getBatch of the last committed batch on a restart.",
            SourceKind::ReplayableLog,
            SinkKind::Append,
        ),
    ];
    out.extend(retention_presets().into_iter().chain(backlog_presets()));
    out.iter_mut().for_each(tune);
    out
}

/// The Kafka-like log with a retention, failing on the data it lost or skipping it.
fn retention_presets() -> Vec<Preset> {
    vec![
        base(
            "kafka-retention-fail",
            "Kafka-like log with a short retention while the sink is down: the re-run batch's range ages out and failOnDataLoss=true fails every restart.",
            SourceKind::ReplayableLog,
            SinkKind::Upsert,
        ),
        base(
            "kafka-retention-skip",
            "The same with failOnDataLoss=false: the aged-out records are skipped.",
            SourceKind::ReplayableLog,
            SinkKind::Upsert,
        ),
        base(
            "torn-offset-log",
            "Power is lost in batch 2 on a store without atomic rename: offsets/2 is found empty and every restart fails to read it.",
            SourceKind::ReplayableLog,
            SinkKind::Append,
        ),
        base(
            "metadata-lost-txn-sink",
            "Spark 3.5, a Delta sink with txnAppId = the query id: metadata is lost with batch 2 unfinished, the restart takes a new id and the table applies batch 2 again.",
            SourceKind::ReplayableLog,
            SinkKind::TxnAppId,
        ),
        base(
            "evolution-source-added",
            "The query is restarted with a second source: Spark matches offset-log lines to sources by position and refuses the restart, every time.",
            SourceKind::ReplayableLog,
            SinkKind::Append,
        ),
        base(
            "async-progress",
            "Async progress tracking writes offsets/N and commits/N at most every 2.5 s: a crash re-runs every batch since the last entry on disk — at-least-once.",
            SourceKind::ReplayableLog,
            SinkKind::Append,
        ),
        base(
            "async-progress-off",
            "The same query restarted without async progress tracking: the offset log has gaps, and a re-run of a batch whose predecessor was never written is refused.",
            SourceKind::ReplayableLog,
            SinkKind::Append,
        ),
        base(
            "two-drivers",
            "A driver stalls after batch 2's sink write and a scheduler starts a second one on the same checkpoint: both write batch 2 to the sink, and the first fails with \"Concurrent update to the log\".",
            SourceKind::ReplayableLog,
            SinkKind::Append,
        ),
    ]
}

/// A backlog after a long sink outage, over a task's memory budget: `maxOffsetsPerTrigger`
/// set at a restart after the batch was logged, or before.
fn backlog_presets() -> Vec<Preset> {
    vec![
        base(
            "backlog-crash-loop",
            "After a long outage the next batch takes the whole backlog and runs out of memory; a limit set at the restart cannot shrink the logged batch: stuck.",
            SourceKind::ReplayableLog,
            SinkKind::Upsert,
        ),
        base(
            "backlog-limited",
            "The same limit set at the first restart, before the backlog's batch was logged: every batch fits.",
            SourceKind::ReplayableLog,
            SinkKind::Upsert,
        ),
    ]
}

/// What sets a preset apart from its base scenario.
fn tune(p: &mut Preset) {
    match p.name {
        "tablestore-split" => {
            p.scenario.batches = 8;
            p.scenario.upstream.splits = vec![SplitSpec {
                channel: 0,
                at_ms: 2500,
            }];
        }
        "tablestore" | "tablestore-append" | "tablestore-two-phase" | "auto-commit" => {
            // A small per-channel cap so batches are decided by the cap, not only by "caught up".
            p.scenario.source.max_offsets_per_channel = 8;
        }
        "reader-idle-timeout" => {
            // Quiet stretches in the CDC stream let idle readers end their micro-batch.
            p.scenario.source.reader = ReaderEnd::IdleTimeout;
            p.scenario.source.idle_timeout_ms = 800;
            p.scenario.upstream.idle = vec![
                Window {
                    from_ms: 2000,
                    to_ms: 3000,
                },
                Window {
                    from_ms: 4000,
                    to_ms: 5000,
                },
            ];
        }
        "seatunnel-checkpoint-records"
        | "seatunnel-committed-only"
        | "seatunnel-idempotent-sink" => {
            if p.name != "seatunnel-checkpoint-records" {
                p.scenario.source.design = SeaTunnelDesign::CommittedOnly;
            }
            p.scenario.source.reader = ReaderEnd::CheckpointRecords;
            p.scenario.source.idle_timeout_ms = 800;
            p.scenario.source.checkpoint_interval_ms = 600;
            p.scenario.upstream.idle = vec![
                Window {
                    from_ms: 2000,
                    to_ms: 3000,
                },
                Window {
                    from_ms: 4000,
                    to_ms: 5000,
                },
            ];
        }
        "checkpoint-deleted-latest" | "checkpoint-deleted-earliest" => {
            p.scenario.faults = vec![Fault {
                kind: FaultKind::CheckpointDeleted,
                batch_id: 2,
            }];
            if p.name == "checkpoint-deleted-latest" {
                p.scenario.source.starting_offsets = StartingOffsets::Latest;
            }
        }
        "seatunnel-dev-timer" => {
            p.scenario.source.reader = ReaderEnd::VirtualCheckpoint;
            p.scenario.source.checkpoint_interval_ms = 1_500;
        }
        "kafka-v1-source" => {
            // Spark 3+ reads Kafka through the V2 KafkaMicroBatchStream unless this conf
            // names KafkaSourceProvider (SQLConf.DISABLED_V2_STREAMING_MICROBATCH_READERS,
            // default ""; Spark's KafkaMicroBatchV1SourceSuite sets it).
            p.scenario.source.api = Some(SourceApi::V1);
        }
        "kafka-retention-fail" | "kafka-retention-skip" => {
            // The outage outlasts the task retries; by the time the sink is back the logged
            // range of the failed batch is older than the retention.
            p.scenario.sink.outages = vec![Window {
                from_ms: 2135,
                to_ms: 6000,
            }];
            p.scenario.source.retention_ms = Some(2_500);
            p.scenario.source.fail_on_data_loss = p.name == "kafka-retention-fail";
        }
        "backlog-crash-loop" | "backlog-limited" => {
            p.scenario.batches = 8;
            p.scenario.sink.outages = vec![Window {
                from_ms: 2135,
                to_ms: 6000,
            }];
            p.scenario.task_memory_records = Some(8);
            // Restart 4 follows the out-of-memory failure of the backlog's batch (logged in
            // run 4); restart 1 is during the outage, before it was logged.
            p.scenario.on_restart = Some(OnRestart {
                from: if p.name == "backlog-limited" { 1 } else { 4 },
                max_offsets_per_trigger: Some(6),
                sources: None,
                async_progress: None,
            });
        }
        "continuous-epochs" => {
            p.scenario.execution = Execution::Continuous;
        }
        "sink-outage" => {
            // A long outage that outlasts a task's retries, then a short one they ride out.
            p.scenario.sink.outages = vec![
                Window {
                    from_ms: 2135,
                    to_ms: 4200,
                },
                Window {
                    from_ms: 5610,
                    to_ms: 5660,
                },
            ];
        }
        _ => tune_question(p),
    }
}

/// The presets of the recovery questions: the fault or the change each is about.
fn tune_question(p: &mut Preset) {
    match p.name {
        "torn-offset-log" => {
            p.scenario.faults = vec![Fault {
                kind: FaultKind::TornOffsetLog,
                batch_id: 2,
            }];
        }
        "metadata-lost-txn-sink" => {
            p.scenario.faults = vec![Fault {
                kind: FaultKind::MetadataLost,
                batch_id: 2,
            }];
            p.scenario.spark_version = Some("3.5".into());
        }
        "evolution-source-added" => {
            p.scenario.on_restart = Some(OnRestart {
                from: 1,
                max_offsets_per_trigger: None,
                sources: Some(2),
                async_progress: None,
            });
        }
        "async-progress" | "async-progress-off" => {
            p.scenario.async_progress = Some(super::AsyncProgress {
                checkpoint_interval_ms: 2_500,
            });
            if p.name == "async-progress-off" {
                p.scenario.on_restart = Some(OnRestart {
                    from: 1,
                    max_offsets_per_trigger: None,
                    sources: None,
                    async_progress: Some(false),
                });
            }
        }
        "two-drivers" => {
            p.scenario.faults = vec![Fault {
                kind: FaultKind::SecondDriver,
                batch_id: 2,
            }];
        }
        _ => {}
    }
}

/// Looks a preset up by name; the error lists the known names.
pub fn preset(name: &str) -> Result<Scenario, ScenarioError> {
    presets()
        .into_iter()
        .find(|p| p.name == name)
        .map(|p| p.scenario)
        .ok_or_else(|| {
            let names: Vec<&str> = presets().iter().map(|p| p.name).collect();
            invalid(
                "preset",
                format!("unknown preset `{name}` (known: {})", names.join(", ")),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::presets;

    #[test]
    fn every_description_is_a_sentence() {
        for p in presets() {
            assert!(
                p.description.ends_with('.') && p.description.starts_with(char::is_uppercase)
                    || p.description.starts_with("foreachBatch"),
                "{}: {}",
                p.name,
                p.description
            );
        }
    }
}
