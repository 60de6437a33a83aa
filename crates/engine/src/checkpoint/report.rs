//! [`inspect`]: everything a checkpoint folder says — formats, batches, sources, state,
//! the restart dry-run and the linter's problems — as one report (the JSON contract of
//! `batchscope inspect --json`). Pure: the caller reads the disk.
//!
//! A file that does not parse never stops the report: it becomes a problem, and the
//! restart fails only if Spark reads that file to decide.

use super::commits::{parse_commit_sinks, CommitMetadata, SinkMetadataInfo};
use super::confs::{explain_confs, restored_confs, RestoredConf};
use super::dryrun::{dry_run, DryRunInput, RestartReport};
use super::folder::{commits_path, offsets_path, CheckpointError, CheckpointFolder};
use super::input::{explain_input, rerun_input, RerunInput};
use super::lint::{lint, LintInput, Problem};
use super::offsets::{LoggedSourceOffset, OffsetLogEntry};
use super::restart::{restart_plan_with, RestartAction, RestartOptions, RestartPlan, RestartRule};
use super::sink_log::{file_sink_log, FileSinkLog};
use super::sources::{source_reports, SourceReport};
use super::state::{state_operators, StateOperator};
use crate::microbatch::scenario::SinkKind;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// What the inspection is told besides the folder.
#[derive(Clone, Debug, Default)]
pub struct InspectOptions {
    /// How the query restarts (Spark release, async progress tracking, its sources).
    pub restart: RestartOptions,
    /// Confs the restarted query sets.
    pub conf: BTreeMap<String, String>,
    /// The kind of sink, for the dry-run.
    pub sink_kind: Option<SinkKind>,
    /// The file sink's output folder (its `_spark_metadata/` entries), when given.
    pub sink: Option<CheckpointFolder>,
    /// Which input files the caller checked: `None` = none; `Some(gone)` = every local
    /// `file:` URI of the re-run batch was checked and `gone` are those that no longer exist.
    pub input_files_gone: Option<BTreeSet<String>>,
}

/// What `inspect` found; its JSON form is a contract other tools parse.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inspection {
    /// The query id from `metadata`; `None` if the file is absent or unreadable.
    pub query_id: Option<String>,
    /// The Spark release whose rules the restart follows.
    pub spark: String,
    /// Log format versions.
    pub format: LogFormat,
    /// Every batch id found in the offset log or the commit log, ascending.
    pub batches: Vec<BatchSummary>,
    /// Latest offset-log batch id (`L`).
    pub latest_offset: Option<u64>,
    /// Latest commit-log batch id (`C`).
    pub latest_commit: Option<u64>,
    /// The query's sources.
    pub sources: Vec<SourceReport>,
    /// Stateful operators, when the folder has `state/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<StateReport>,
    /// The sinks the latest commit records (commit log v3, sink evolution); empty before.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commit_sinks: Vec<SinkMetadataInfo>,
    /// The file sink's manifest, when the sink folder was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sink: Option<FileSinkLog>,
    /// What the restart does.
    pub restart: RestartReport,
    /// The input files the re-run batch reads (file sources), when it re-runs one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rerun_input: Option<RerunInput>,
    /// The confs the restart takes from the latest offset entry, over the session's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub restored_confs: Vec<RestoredConf>,
    /// What Spark would fail on or silently misbehave with; empty for a healthy folder.
    pub problems: Vec<Problem>,
    /// Report lines: unknown files, things worth knowing that are not problems.
    pub notes: Vec<String>,
}

/// Versions of the logs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogFormat {
    /// Version of the latest readable offset entry (what Spark keeps writing).
    pub offset_log: Option<u32>,
    /// Version of the latest readable commit entry.
    pub commit_log: Option<u32>,
    /// Every offset-log version present.
    pub offset_log_versions: Vec<u32>,
    /// Every commit-log version present.
    pub commit_log_versions: Vec<u32>,
    /// Whether the sources are named (offset log v2 with source evolution).
    pub named_sources: bool,
}

/// The `state/` folder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateReport {
    /// One entry per operator folder.
    pub operators: Vec<StateOperator>,
}

/// One batch id of the logs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchSummary {
    /// The batch id.
    pub batch_id: u64,
    /// Whether `offsets/<batch_id>` exists (a commit can outlive its purged offsets).
    pub has_offsets: bool,
    /// Offset-log version of the entry.
    pub offset_version: Option<u32>,
    /// Offset per source; empty without a readable entry.
    pub offsets: Vec<LoggedSourceOffset>,
    /// `batchWatermarkMs` of the offset metadata.
    pub batch_watermark_ms: Option<i64>,
    /// `batchTimestampMs` of the offset metadata.
    pub batch_timestamp_ms: Option<i64>,
    /// Whether `commits/<batch_id>` exists.
    pub committed: bool,
    /// Commit-log version of the entry.
    pub commit_version: Option<u32>,
    /// `nextBatchWatermarkMs` of the commit (absent in Spark 2.2/2.3 commits).
    pub next_batch_watermark_ms: Option<i64>,
    /// Operators with state checkpoint ids in the commit (commit log v2/v3).
    pub state_checkpoint_operators: Vec<String>,
}

/// Reads the whole folder and predicts the restart. Never fails: unreadable files are
/// problems.
pub fn inspect(folder: &CheckpointFolder, options: &InspectOptions) -> Inspection {
    let mut unreadable: Vec<CheckpointError> = Vec::new();
    let query_id = match folder.query_metadata() {
        Ok(meta) => meta.map(|m| m.id),
        Err(error) => {
            unreadable.push(error);
            None
        }
    };
    let offset_ids = folder.offset_log_ids();
    let commit_ids = folder.commit_log_ids();
    let ids: BTreeSet<u64> = offset_ids.iter().chain(&commit_ids).copied().collect();
    let mut batches = Vec::new();
    let mut latest_entry: Option<OffsetLogEntry> = None;
    let mut latest_commit: Option<CommitMetadata> = None;
    let mut format = LogFormat {
        offset_log: None,
        commit_log: None,
        offset_log_versions: Vec::new(),
        commit_log_versions: Vec::new(),
        named_sources: false,
    };
    for batch_id in ids {
        let entry = keep(folder.offset_entry(batch_id), &mut unreadable);
        let commit = keep(folder.commit(batch_id), &mut unreadable);
        let metadata = entry.as_ref().and_then(|e| e.metadata.as_ref());
        batches.push(BatchSummary {
            batch_id,
            has_offsets: folder.contains(&offsets_path(batch_id)),
            offset_version: entry.as_ref().map(|e| e.version),
            offsets: entry
                .as_ref()
                .map(|e| e.sources.clone())
                .unwrap_or_default(),
            batch_watermark_ms: metadata.map(|m| m.batch_watermark_ms),
            batch_timestamp_ms: metadata.map(|m| m.batch_timestamp_ms),
            committed: folder.contains(&commits_path(batch_id)),
            commit_version: commit.as_ref().map(|c| c.version),
            next_batch_watermark_ms: commit.as_ref().and_then(|c| c.next_batch_watermark_ms),
            state_checkpoint_operators: commit
                .as_ref()
                .and_then(|c| c.state_unique_ids.as_ref())
                .and_then(|ids| ids.as_object())
                .map(|ids| ids.keys().cloned().collect())
                .unwrap_or_default(),
        });
        if let Some(entry) = entry {
            format.offset_log_versions.push(entry.version);
            latest_entry = Some(entry);
        }
        if let Some(commit) = commit {
            format.commit_log_versions.push(commit.version);
            latest_commit = Some(commit);
        }
    }
    finish_format(&mut format, latest_entry.as_ref(), latest_commit.as_ref());
    let commit_sinks = latest_commit_sinks(folder, commit_ids.last().copied());
    let plan = restart_plan_with(folder, &options.restart).unwrap_or_else(unreadable_plan);
    let (sources, mut notes) = source_reports(folder, latest_entry.as_ref());
    // Source evolution: sources the restart adds or drops are worth a line.
    notes.extend(
        plan.warnings
            .iter()
            .filter(|w| w.starts_with("source "))
            .cloned(),
    );
    let (operators, state_notes) = state_operators(folder);
    notes.extend(
        state_notes
            .into_iter()
            .map(|p| format!("{p}: not a state store file")),
    );
    notes.extend(log_notes(folder));
    let sink = options.sink.as_ref().map(file_sink_log);
    if let Some(log) = &sink {
        notes.extend(log.notes.iter().cloned());
    }
    let sink_kind = options
        .sink_kind
        .or_else(|| sink.as_ref().map(|_| SinkKind::File));
    let mut restart = dry_run(&DryRunInput {
        plan: &plan,
        sources: &sources,
        state: &operators,
        sink_kind,
        sink_log: sink.as_ref(),
    });
    let rerun_input = rerun_input(folder, &plan, options.input_files_gone.as_ref());
    let restored_confs = restored_confs(latest_entry.as_ref(), options.restart.spark);
    let mut problems = lint(&LintInput {
        folder,
        options: &options.restart,
        plan: &plan,
        latest: latest_entry.as_ref(),
        state: &operators,
        conf: &options.conf,
        unreadable: &unreadable,
    });
    explain_input(rerun_input.as_ref(), &mut restart.steps, &mut problems);
    explain_confs(
        &restored_confs,
        offset_ids.last().copied(),
        &mut restart.steps,
    );
    Inspection {
        query_id,
        spark: options.restart.spark.to_string(),
        format,
        batches,
        latest_offset: offset_ids.last().copied(),
        latest_commit: commit_ids.last().copied(),
        sources,
        state: (!operators.is_empty()).then_some(StateReport { operators }),
        commit_sinks,
        sink,
        restart,
        rerun_input,
        restored_confs,
        problems,
        notes,
    }
}

/// The latest entries' versions, and every version present once, ascending.
fn finish_format(
    format: &mut LogFormat,
    latest_entry: Option<&OffsetLogEntry>,
    latest_commit: Option<&CommitMetadata>,
) {
    format.offset_log = latest_entry.map(|e| e.version);
    format.commit_log = latest_commit.map(|c| c.version);
    format.named_sources = latest_entry.is_some_and(OffsetLogEntry::named);
    for versions in [
        &mut format.offset_log_versions,
        &mut format.commit_log_versions,
    ] {
        versions.sort_unstable();
        versions.dedup();
    }
}

/// The sinks the latest commit records (commit log v3); empty before.
fn latest_commit_sinks(folder: &CheckpointFolder, latest: Option<u64>) -> Vec<SinkMetadataInfo> {
    latest
        .and_then(|c| {
            folder
                .parse_file(&commits_path(c), parse_commit_sinks)
                .ok()
                .flatten()
        })
        .unwrap_or_default()
}

fn keep<T>(
    result: Result<Option<T>, CheckpointError>,
    unreadable: &mut Vec<CheckpointError>,
) -> Option<T> {
    result.unwrap_or_else(|error| {
        unreadable.push(error);
        None
    })
}

/// Spark fails when a log entry it reads to decide does not parse.
fn unreadable_plan(error: CheckpointError) -> RestartPlan {
    let reason = format!(
        "{} cannot be read, and Spark reads it to restart",
        error.path()
    );
    RestartPlan {
        action: RestartAction::Fail {
            reason: reason.clone(),
        },
        rule: RestartRule::UnreadableLog,
        reason,
        spark_error: super::restart::spark_read_error(&error).map(str::to_owned),
        warnings: Vec::new(),
        start: None,
        end: None,
    }
}

/// Files in `offsets/` and `commits/` that are not batch files (Spark ignores them).
fn log_notes(folder: &CheckpointFolder) -> Vec<String> {
    let mut notes = Vec::new();
    for (path, _) in folder.files() {
        for dir in [super::OFFSET_LOG_DIR, super::COMMIT_LOG_DIR] {
            if let Some(name) = path
                .strip_prefix(dir)
                .and_then(|rest| rest.strip_prefix('/'))
            {
                let is_batch = name.parse::<u64>().is_ok()
                    && (name == "0" || !name.starts_with('0'))
                    && name.bytes().all(|b| b.is_ascii_digit());
                if !is_batch {
                    notes.push(format!(
                        "{path}: not a batch file; Spark ignores it (HDFSMetadataLog.isBatchFile)"
                    ));
                }
            }
        }
    }
    notes
}
