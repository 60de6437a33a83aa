//! The restart dry-run: what a restart does on this folder, step by step in Spark's
//! terms, and what that means for each kind of sink the simulator knows
//! ([`SinkKind`]: `FileStreamSink`, an upsert or append sink, `foreachBatch`, a two-phase
//! `StreamingWrite`, a V1 sink keeping `latestBatchId` on the driver).

use super::offsets::{LoggedSourceOffset, OffsetLogEntry};
use super::restart::{RestartAction, RestartPlan, RestartRule};
use super::sink_log::FileSinkLog;
use super::sources::SourceReport;
use super::state::StateOperator;
use crate::microbatch::scenario::SinkKind;
use serde::{Deserialize, Serialize};

/// What the restart does, in the JSON contract's words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestartReport {
    /// `fresh`, `rerun`, `next` or `fail`.
    pub action: String,
    /// The batch that runs (re-run, next, or 0 when fresh); `None` when it fails.
    pub batch: Option<u64>,
    /// The rule that decides (`last_batch_uncommitted`, `previous_offsets_missing`, …).
    pub rule: RestartRule,
    /// Where that rule lives in Spark.
    pub rule_source: String,
    /// One sentence why, naming the files it rests on.
    pub reason: String,
    /// Spark's own error text when it refuses to start.
    pub spark_error: Option<String>,
    /// Offsets the batch starts from; empty = the sources' initial offsets.
    pub start_offsets: Vec<LoggedSourceOffset>,
    /// Offsets a re-run ends at (`offsets/L`); `None` when the sources are asked.
    pub end_offsets: Option<Vec<LoggedSourceOffset>>,
    /// `batchTimestampMs` a re-run reuses from `offsets/L`.
    pub batch_timestamp_ms: Option<i64>,
    /// Whether V1 sources get a `getBatch` call for a batch that is not run.
    pub get_batch_without_running: bool,
    /// The state version the stateful operators load; `None` without state.
    pub state_version: Option<u64>,
    /// What the restart means for the sink, when its kind is known.
    pub sink: Option<ReRunEffect>,
    /// The restart step by step.
    pub steps: Vec<String>,
}

/// What a restart means for one kind of sink.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReRunEffect {
    /// The sink kind.
    pub kind: SinkKind,
    /// Whether the restart can hand the sink rows it already has.
    pub duplicates_possible: bool,
    /// One sentence.
    pub effect: String,
}

/// Everything the dry-run reads.
pub struct DryRunInput<'a> {
    /// The restart decision.
    pub plan: &'a RestartPlan,
    /// The query's sources.
    pub sources: &'a [SourceReport],
    /// Stateful operators (empty without `state/`).
    pub state: &'a [StateOperator],
    /// The sink kind, when given.
    pub sink_kind: Option<SinkKind>,
    /// The file sink's manifest, when given.
    pub sink_log: Option<&'a FileSinkLog>,
}

/// Builds the dry-run report from a restart plan.
pub fn dry_run(input: &DryRunInput<'_>) -> RestartReport {
    let plan = input.plan;
    let (action, batch) = match &plan.action {
        RestartAction::Fresh => ("fresh", Some(0)),
        RestartAction::Rerun { batch_id } => ("rerun", Some(*batch_id)),
        RestartAction::Next { batch_id } => ("next", Some(*batch_id)),
        RestartAction::Fail { .. } => ("fail", None),
    };
    let start_offsets = plan
        .start
        .as_ref()
        .map(|entry| entry.sources.clone())
        .unwrap_or_default();
    let end_offsets = plan.end.as_ref().map(|entry| entry.sources.clone());
    let v1_names: Vec<String> = input
        .sources
        .iter()
        .filter(|s| s.v1_source == Some(true))
        .map(|s| format!("{} ({})", s.id, s.kind))
        .collect();
    let empty_ranges = empty_ranges(plan, input.sources);
    let get_batch_without_running = match plan.action {
        RestartAction::Next { .. } => !v1_names.is_empty(),
        RestartAction::Rerun { .. } => !empty_ranges.is_empty(),
        _ => false,
    };
    let state_version = match (&plan.action, input.state.is_empty()) {
        (RestartAction::Rerun { batch_id } | RestartAction::Next { batch_id }, false) => {
            Some(*batch_id)
        }
        _ => None,
    };
    let sink = input
        .sink_kind
        .map(|kind| sink_effect(kind, &plan.action, input.sink_log));
    let mut steps = vec![format!("{} ({}).", plan.reason, plan.rule.source())];
    steps.extend(action_steps(plan, &v1_names, &empty_ranges));
    if let Some(version) = state_version {
        steps.push(state_step(version, input.state, &plan.action));
    }
    if let Some(effect) = &sink {
        steps.push(format!("{} sink: {}", effect.kind, effect.effect));
    }
    RestartReport {
        action: action.to_owned(),
        batch,
        rule: plan.rule,
        rule_source: plan.rule.source().to_owned(),
        reason: plan.reason.clone(),
        spark_error: plan.spark_error.clone(),
        start_offsets,
        end_offsets,
        batch_timestamp_ms: match plan.action {
            RestartAction::Rerun { .. } => plan
                .end
                .as_ref()
                .and_then(|e| e.metadata.as_ref())
                .map(|m| m.batch_timestamp_ms),
            _ => None,
        },
        get_batch_without_running,
        state_version,
        sink,
        steps,
    }
}

/// A re-run calls `getBatch` early for V1 sources whose range in the batch is empty (no
/// start, or start == end): their names.
fn empty_ranges(plan: &RestartPlan, sources: &[SourceReport]) -> Vec<String> {
    let (RestartAction::Rerun { .. }, Some(end)) = (&plan.action, &plan.end) else {
        return Vec::new();
    };
    sources
        .iter()
        .filter(|s| s.v1_source == Some(true))
        .filter(|s| {
            let start = plan.start.as_ref().and_then(|e| e.offset_of(&s.id));
            start.is_none() || start == end.offset_of(&s.id)
        })
        .map(|s| format!("{} ({})", s.id, s.kind))
        .collect()
}

fn offsets_text(entry: Option<&OffsetLogEntry>) -> String {
    match entry {
        None => "the sources' initial offsets".to_owned(),
        Some(entry) => entry
            .sources
            .iter()
            .map(|s| format!("{}={}", s.id, s.offset.as_deref().unwrap_or("-")))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

fn action_steps(plan: &RestartPlan, v1_names: &[String], empty: &[String]) -> Vec<String> {
    let mut steps = Vec::new();
    match &plan.action {
        RestartAction::Fresh => steps.push(
            "Batch 0 is constructed from the sources' initial offsets (startingOffsets; a Kafka \
             source reuses the initial offsets it saved in sources/<id>/0)."
                .to_owned(),
        ),
        RestartAction::Rerun { batch_id } => {
            let timestamp = plan
                .end
                .as_ref()
                .and_then(|e| e.metadata.as_ref())
                .map(|m| format!(" and batchTimestampMs {}", m.batch_timestamp_ms))
                .unwrap_or_default();
            steps.push(format!(
                "Batch {batch_id} runs again with exactly the logged offsets: from {} to {}; \
                 offsets/{batch_id} is not rewritten, its watermark{timestamp} are reused.",
                offsets_text(plan.start.as_ref()),
                offsets_text(plan.end.as_ref()),
            ));
            if *batch_id > 0 {
                steps.push(format!(
                    "constructNextBatch is skipped, so source.commit of batch {} is not called \
                     again on this path; the next commit call comes with batch {}.",
                    batch_id - 1,
                    batch_id + 1
                ));
            }
            if !empty.is_empty() {
                steps.push(format!(
                    "V1 sources whose range in this batch is empty get a getBatch call first, \
                     to initialise: {}.",
                    empty.join(", ")
                ));
            }
        }
        RestartAction::Next { batch_id } => {
            let last = batch_id - 1;
            if !v1_names.is_empty() {
                steps.push(format!(
                    "getBatch({} .. {}) of batch {last} is called on the V1 sources without \
                     running it (\"certain sources assume on restart the last batch will be \
                     executed before getOffset is called again\"): {}.",
                    offsets_text(plan.start.as_ref()),
                    "offsets/".to_owned() + &last.to_string(),
                    v1_names.join(", ")
                ));
            }
            steps.push(format!(
                "Batch {batch_id} is constructed afresh: the sources report their latest offsets \
                 from {}, offsets/{batch_id} is written, then source.commit of batch {last}.",
                offsets_text(plan.start.as_ref()),
            ));
        }
        RestartAction::Fail { .. } => {
            let advice = match plan.rule {
                RestartRule::PreviousOffsetsMissing => {
                    " Spark's advice: ensure there are two subsequent offset logs available for \
                     the latest batch (delete newer offset files), and that the latest commit is \
                     equal to or one batch before the latest offset entry."
                }
                RestartRule::MetadataMissing => {
                    " Restore the metadata file or create a new checkpoint directory."
                }
                _ => "",
            };
            steps.push(format!(
                "Spark stops before running any batch; nothing reaches the sink.{advice}"
            ));
        }
    }
    steps
}

fn state_step(version: u64, state: &[StateOperator], action: &RestartAction) -> String {
    let operators: Vec<String> = state
        .iter()
        .map(|op| {
            format!(
                "operator {} (latest version on disk {})",
                op.operator_id,
                op.latest_version
                    .map_or_else(|| "none".to_owned(), |v| v.to_string())
            )
        })
        .collect();
    let rollback = match action {
        RestartAction::Rerun { batch_id } => format!(
            "; version {} files the killed attempt may have written are written again",
            batch_id + 1
        ),
        _ => String::new(),
    };
    format!(
        "State stores load version {version} (the state after batch {}){rollback}: {}.",
        version as i64 - 1,
        operators.join(", ")
    )
}

fn sink_effect(kind: SinkKind, action: &RestartAction, log: Option<&FileSinkLog>) -> ReRunEffect {
    let RestartAction::Rerun { batch_id } = action else {
        let effect = match action {
            RestartAction::Fail { .. } => "nothing is written until the folder is repaired",
            RestartAction::Fresh => "the query starts from its initial offsets; nothing is re-sent",
            _ => "no batch is re-run, so nothing it already has is sent again",
        };
        return ReRunEffect {
            kind,
            duplicates_possible: false,
            effect: effect.to_owned(),
        };
    };
    let n = batch_id;
    let (duplicates_possible, effect) = match kind {
        SinkKind::File => match log {
            Some(log) if log.has_batch(*n) => (
                false,
                format!(
                    "_spark_metadata has batch {n}{}, so FileStreamSink skips it (\"Skipping \
                     already committed batch {n}\"): nothing is written twice",
                    log.files_added
                        .get(n)
                        .map(|files| format!(" ({files} files)"))
                        .unwrap_or_default()
                ),
            ),
            Some(log) => (
                false,
                format!(
                    "_spark_metadata ends at {}, so re-running batch {n} rewrites its files and \
                     commits _spark_metadata/{n}; files of the killed attempt stay as orphans no \
                     reader of the manifest sees",
                    log.latest_batch
                        .map_or_else(|| "no batch".to_owned(), |b| format!("batch {b}"))
                ),
            ),
            None => (
                false,
                format!(
                    "FileStreamSink skips batch {n} if _spark_metadata/{n} exists, and otherwise \
                     rewrites its files; readers of the manifest see each row once (pass --sink \
                     DIR to see which)"
                ),
            ),
        },
        SinkKind::Upsert => (
            false,
            format!(
                "batch {n}'s rows are written again under the same keys and overwrite \
                 themselves (the logged offsets give the same rows)"
            ),
        ),
        SinkKind::Append => (
            true,
            format!(
                "re-running batch {n} hands the sink its rows again; an append sink receives \
                 every row the killed attempt had written twice"
            ),
        ),
        SinkKind::ForeachBatch => (
            true,
            format!(
                "foreachBatch is called again with batchId {n} and the same rows: at-least-once, \
                 unless the function skips a batchId it already wrote"
            ),
        ),
        SinkKind::TwoPhase => (
            false,
            format!(
                "the re-run's tasks stage batch {n}'s rows again and StreamingWrite.commit({n}) \
                 publishes them once: the sink skips an epoch it already committed, so nothing \
                 is written twice"
            ),
        ),
        SinkKind::BatchIdInMemory | SinkKind::TxnAppId => keyed_effect(kind, *n),
    };
    ReRunEffect {
        kind,
        duplicates_possible,
        effect,
    }
}

/// What re-running batch `n` does to a sink that skips by a key: a batch id kept in a
/// driver-side field, or Delta's (txnAppId, txnVersion) kept in the table.
fn keyed_effect(kind: SinkKind, n: u64) -> (bool, String) {
    if kind == SinkKind::TxnAppId {
        return (
            false,
            format!(
                "foreachBatch writes batch {n} with txnAppId = the query id and txnVersion = \
                 {n}; the table skips a version it already has for that id, so nothing is \
                 written twice — as long as the query id in metadata is the one that wrote it"
            ),
        );
    }
    (
        true,
        format!(
            "latestBatchId is a field of the sink object on the driver, and the restart \
             resets it to -1, so addBatch({n}) is not skipped: the sink writes batch {n}'s \
             rows again, twice where the killed attempt had written them"
        ),
    )
}
