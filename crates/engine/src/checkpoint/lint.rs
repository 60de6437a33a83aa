//! The linter: what in a checkpoint folder Spark would fail on, or silently misbehave
//! with, each with Spark's own text where Spark has one (error conditions of
//! `error-conditions.json`, `MicroBatchExecution` log lines).

use super::confs::session_key;
use super::folder::{CheckpointError, CheckpointFolder, COMMIT_LOG_DIR, OFFSET_LOG_DIR};
use super::offsets::OffsetLogEntry;
use super::restart::{RestartAction, RestartOptions, RestartPlan, RestartRule};
use super::state::StateOperator;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How bad a problem is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Spark refuses to start, or fails later on this folder.
    Error,
    /// Spark starts, but not the way its user probably expects.
    Warning,
}

/// One finding of the linter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// Stable identifier: `missing_metadata`, `offsets_gap`, `commits_ahead_of_offsets`, …
    pub code: String,
    /// How bad.
    pub severity: Severity,
    /// The file or folder it is about, relative to the checkpoint root.
    pub path: Option<String>,
    /// What is wrong and what follows, in one or two sentences.
    pub message: String,
    /// Spark's own words for it (an error or a log line), when Spark has them.
    pub spark_says: Option<String>,
}

impl Problem {
    pub(super) fn new(
        code: &str,
        severity: Severity,
        path: Option<String>,
        message: String,
    ) -> Problem {
        Problem {
            code: code.to_owned(),
            severity,
            path,
            message,
            spark_says: None,
        }
    }

    pub(super) fn says(mut self, text: impl Into<String>) -> Problem {
        self.spark_says = Some(text.into());
        self
    }
}

/// What the linter reads besides the folder.
pub struct LintInput<'a> {
    /// The folder.
    pub folder: &'a CheckpointFolder,
    /// How the query restarts.
    pub options: &'a RestartOptions,
    /// The restart decision.
    pub plan: &'a RestartPlan,
    /// The latest offset entry, when readable.
    pub latest: Option<&'a OffsetLogEntry>,
    /// Stateful operators.
    pub state: &'a [StateOperator],
    /// Confs the restarted query sets (`--conf`).
    pub conf: &'a BTreeMap<String, String>,
    /// Files that did not parse.
    pub unreadable: &'a [CheckpointError],
}

/// Every problem of the folder, errors first.
pub fn lint(input: &LintInput<'_>) -> Vec<Problem> {
    let mut problems = Vec::new();
    let folder = input.folder;
    let offset_ids = folder.offset_log_ids();
    let commit_ids = folder.commit_log_ids();
    let l = offset_ids.last().copied();
    let c = commit_ids.last().copied();
    restart_problem(input.plan, l, &mut problems);
    for error in input.unreadable {
        problems.push(unreadable(error));
    }
    if input.plan.rule != RestartRule::MetadataMissing
        && !folder.contains(super::METADATA_FILE)
        && (l.is_some() || c.is_some())
    {
        problems.push(Problem::new(
            "missing_metadata",
            Severity::Warning,
            Some(super::METADATA_FILE.to_owned()),
            format!(
                "there is no `metadata` file: Spark {} gives the query a new id and goes on; \
                 Spark 4.2+ refuses to start",
                input.options.spark
            ),
        ));
    }
    gaps(OFFSET_LOG_DIR, &offset_ids, input, &mut problems);
    gaps(COMMIT_LOG_DIR, &commit_ids, input, &mut problems);
    if let (Some(l), Some(c)) = (l, c) {
        if c > l {
            let clash = commit_ids.iter().copied().find(|id| *id >= l).unwrap_or(c);
            problems.push(
                Problem::new(
                    "commits_ahead_of_offsets",
                    Severity::Error,
                    Some(format!("{COMMIT_LOG_DIR}/{c}")),
                    format!(
                        "commits/{c} is ahead of the latest offset entry offsets/{l}: Spark re-runs \
                         batch {l}, writes its sink output, then stops when commits/{clash} already \
                         exists"
                    ),
                )
                .says(format!(
                    "[CONCURRENT_STREAM_LOG_UPDATE] Concurrent update to the log. Multiple \
                     streaming jobs detected for {clash}. Please make sure only one streaming job \
                     runs on a specific checkpoint location at a time."
                )),
            );
        } else if l > c + 1 {
            problems.push(async_ahead(l, c, input.options.async_progress_tracking));
        }
    }
    source_count(folder, &offset_ids, &mut problems);
    conf_differs(input, &mut problems);
    state_behind(input, l, &mut problems);
    problems.sort_by_key(|p| p.severity);
    problems
}

fn restart_problem(plan: &RestartPlan, l: Option<u64>, problems: &mut Vec<Problem>) {
    let code = match plan.rule {
        RestartRule::MetadataMissing => "missing_metadata",
        RestartRule::PreviousOffsetsMissing => "previous_offsets_missing",
        RestartRule::CommitsWithoutOffsets => "commits_without_offsets",
        RestartRule::SourcesChanged => "sources_changed",
        _ => return,
    };
    let path = match plan.rule {
        RestartRule::MetadataMissing => Some(super::METADATA_FILE.to_owned()),
        RestartRule::PreviousOffsetsMissing => l
            .and_then(|l| l.checked_sub(1))
            .map(|previous| format!("{OFFSET_LOG_DIR}/{previous}")),
        RestartRule::SourcesChanged => l.map(|l| format!("{OFFSET_LOG_DIR}/{l}")),
        _ => None,
    };
    let mut problem = Problem::new(code, Severity::Error, path, plan.reason.clone());
    problem.spark_says = plan.spark_error.clone();
    problems.push(problem);
}

fn unreadable(error: &CheckpointError) -> Problem {
    let text = error.to_string();
    let problem = Problem::new(
        "unreadable_file",
        Severity::Error,
        Some(error.path().to_owned()),
        format!("{text}; Spark fails when it reads this entry"),
    );
    if let Some(found) = text
        .split("log version v")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
    {
        let max = text.rsplit('v').next().unwrap_or_default();
        return problem.says(format!(
            "[INVALID_LOG_VERSION.MAX_SUPPORTED_VERSION] The maximum supported log version is \
             v{max}, but encountered v{found}. The log file was produced by a newer version of \
             Spark and cannot be read by this version. You need to upgrade."
        ));
    }
    if text.contains("empty file") {
        return problem.says(super::restart::EMPTY_LOG_FILE_ERROR);
    }
    if text.contains("expected a version line") {
        return problem.says(
            "[MALFORMED_LOG_FILE] Log file was malformed: failed to read correct log version \
             from <text>.",
        );
    }
    problem
}

fn gaps(dir: &str, ids: &[u64], input: &LintInput<'_>, problems: &mut Vec<Problem>) {
    let Some(list) = super::restart::missing_ids(ids) else {
        return;
    };
    let async_note = if input.options.async_progress_tracking {
        " (expected with async progress tracking, which writes only every \
         asyncProgressTrackingCheckpointIntervalMs)"
    } else {
        "; HDFSMetadataLog assumes batch ids are contiguous"
    };
    problems.push(Problem::new(
        &format!("{dir}_gap"),
        Severity::Warning,
        Some(format!("{dir}/")),
        format!("{dir}/ has gaps (missing {list}){async_note}"),
    ));
}

fn async_ahead(l: u64, c: u64, async_restart: bool) -> Problem {
    let message = if async_restart {
        format!(
            "offsets/{l} is {} batches ahead of commits/{c}: async progress tracking wrote offsets \
             for batches whose commits were still in flight. The restart re-runs batch {l} from \
             the previous offset entry on disk, so it covers every batch after the last one \
             logged before it",
            l - c
        )
    } else {
        format!(
            "offsets/{l} is {} batches ahead of commits/{c} (a folder left by async progress \
             tracking?): without it, Spark re-runs only batch {l} from offsets/{}; batches {}..{} \
             are not run again, whatever their sink received",
            l - c,
            l - 1,
            c + 1,
            l - 1
        )
    };
    Problem::new(
        "offsets_ahead_of_commits",
        Severity::Warning,
        Some(format!("{OFFSET_LOG_DIR}/{l}")),
        message,
    )
    .says(format!(
        "Batch completion log latest batch id is {c}, which is not trailing batchid {l} by one"
    ))
}

/// Offset entries whose number of (unnamed) source lines differs from the latest one.
fn source_count(folder: &CheckpointFolder, ids: &[u64], problems: &mut Vec<Problem>) {
    let counts: Vec<(u64, usize)> = ids
        .iter()
        .filter_map(|id| {
            let entry = folder.offset_entry(*id).ok()??;
            (!entry.named()).then_some((*id, entry.sources.len()))
        })
        .collect();
    let Some(&(latest_id, latest)) = counts.last() else {
        return;
    };
    let changed: Vec<String> = counts
        .iter()
        .filter(|(_, n)| *n != latest)
        .map(|(id, n)| format!("offsets/{id} ({n})"))
        .collect();
    if !changed.is_empty() {
        problems.push(Problem::new(
            "offset_lines_changed",
            Severity::Warning,
            Some(format!("{OFFSET_LOG_DIR}/{latest_id}")),
            format!(
                "offsets/{latest_id} lists {latest} sources but earlier entries list another \
                 number: {}; a query's sources are matched by position, so the query changed",
                changed.join(", ")
            ),
        ));
    }
}

fn conf_differs(input: &LintInput<'_>, problems: &mut Vec<Problem>) {
    let Some(conf) = input
        .latest
        .and_then(|entry| entry.metadata.as_ref())
        .and_then(|metadata| metadata.conf.as_ref())
    else {
        return;
    };
    for (key, wanted) in input.conf {
        let Some(logged) = conf.get(key) else {
            continue;
        };
        if logged != wanted {
            problems.push(
                Problem::new(
                    "conf_differs",
                    Severity::Warning,
                    input
                        .folder
                        .latest_offset_id()
                        .map(|l| format!("{OFFSET_LOG_DIR}/{l}")),
                    format!(
                        "{key} is {logged} in the offset metadata: Spark restores it from the \
                         checkpoint and ignores the query's {wanted}{}",
                        if session_key(key, input.options.spark) == key {
                            ""
                        } else {
                            " for its stateful operators (SPARK-53942)"
                        }
                    ),
                )
                .says(format!(
                    "Updating the value of conf '{}' in current session from '{wanted}' to \
                     '{logged}'.",
                    session_key(key, input.options.spark)
                )),
            );
        }
    }
}

/// The batch a restart runs loads state version = its batch id; every partition must have
/// it on disk.
fn state_behind(input: &LintInput<'_>, l: Option<u64>, problems: &mut Vec<Problem>) {
    let needed = match input.plan.action {
        RestartAction::Rerun { batch_id } | RestartAction::Next { batch_id } => batch_id,
        _ => return,
    };
    for op in input.state {
        let have = op.min_partition_version.unwrap_or(0);
        if needed > 0 && have < needed {
            let file = format!("state/{}/<partition>/{needed}.delta", op.operator_id);
            problems.push(
                Problem::new(
                    "state_behind_commit",
                    Severity::Error,
                    Some(format!("state/{}", op.operator_id)),
                    format!(
                        "batch {needed} loads state version {needed} of operator {}, but its \
                         partitions go only to version {have}: the state of a committed batch is \
                         missing",
                        op.operator_id
                    ),
                )
                .says(format!(
                    "[CANNOT_LOAD_STATE_STORE.CANNOT_READ_DELTA_FILE_NOT_EXISTS] Error reading \
                     delta file {file} of HDFSStateStoreProvider: {file} does not exist."
                )),
            );
        }
        if let (Some(latest), Some(l)) = (op.latest_version, l) {
            if latest > l + 1 {
                problems.push(Problem::new(
                    "state_ahead_of_offsets",
                    Severity::Warning,
                    Some(format!("state/{}", op.operator_id)),
                    format!(
                        "operator {} has state version {latest}, written by batch {}, but the \
                         offset log ends at batch {l}: the state belongs to another run",
                        op.operator_id,
                        latest - 1
                    ),
                ));
            }
        }
    }
}
