//! What Spark does when a micro-batch query restarts on a checkpoint folder
//! (`MicroBatchExecution.initializeExecution` + `populateStartOffsets`, SEMANTICS.md §1.5).
//!
//! Read from `apache/spark` `sql/core/.../streaming/runtime/MicroBatchExecution.scala`
//! (4.x; 2.4/3.x `populateStartOffsets` has the same decisions):
//!
//! * `initializeExecution` reads the latest offset entry `L` and the latest commit entry
//!   `C` first (both files are parsed, so a broken one stops the query). With no offset
//!   entry it *asserts* that there is no commit entry either, then starts batch 0.
//! * `populateStartOffsets` then calls `validateOffsetLogAndGetPrevOffset(L)`: for every
//!   `L != 0` it needs `offsets/L-1` (the start offsets of batch L) and throws
//!   "batch L-1 doesn't exist" otherwise. This happens **before** the commit log is
//!   looked at, so `offsets/L-1` is needed even when `C == L` (the committed case also
//!   uses it, for the extra `getBatch(start_L, end_L)` of V1 sources). A purged log
//!   (ids starting above 0) is fine as long as `L-1` survives, which
//!   `minBatchesToRetain > 0` guarantees.
//! * `C == L` -> next batch `L+1`; `C == L-1` -> re-run `L`; `C < L-1` -> a warning
//!   ("Batch completion log latest batch id is C, which is not trailing batchid L by
//!   one") and re-run `L`; no commit log -> re-run `L`.
//! * `C > L` matches none of the branches: Spark keeps batch `L` as constructed and
//!   re-runs it without any warning. The query then stops with a concurrent-update
//!   error at the first batch whose `commits/<id>` already exists (`markMicroBatchEnd`
//!   refuses to overwrite), after that batch's sink writes happened.
//! * Both v1 offset entries (`L-1`, `L`) are matched against the query's sources
//!   (`OffsetSeq.toStreamProgress`); two entries with different source counts cannot
//!   both match, so the restart fails. Named sources (offset log v2 with source
//!   evolution, Spark 4.2+) are matched by name instead.
//! * With async progress tracking (`AsyncProgressTrackingMicroBatchExecution`, 3.4+) the
//!   logs may have gaps: the start offsets come from the previous entry present on disk,
//!   not from `L-1`.

use super::folder::{commits_path, offsets_path, CheckpointError, CheckpointFolder};
use super::offsets::{OffsetLogEntry, SourceId};
use serde::{Deserialize, Serialize};
use std::fmt;

/// What Spark says of an empty log entry (a write torn on a store without atomic rename), as
/// pyspark 4.3.0 and 3.5.9 print it (`HDFSMetadataLog`'s "Incomplete log file"; the conformance
/// suite's `offset-log-empty` row checks it against real Spark).
pub const EMPTY_LOG_FILE_ERROR: &str = "Failed to read log file <path> Incomplete log file";

/// What Spark says when it reads a log entry that fails as `error` does, where the folder
/// tells it: an empty entry's [`EMPTY_LOG_FILE_ERROR`].
pub fn spark_read_error(error: &CheckpointError) -> Option<&'static str> {
    error
        .to_string()
        .contains("empty file")
        .then_some(EMPTY_LOG_FILE_ERROR)
}

/// The decision Spark takes on restart (micro-batch).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RestartAction {
    /// No offset entry: a new query, batch 0, sources start from their initial offsets.
    Fresh,
    /// Batch `batch_id` was planned (`offsets/<id>`) but not committed: run it again
    /// with exactly the recorded offsets, timestamp and watermark.
    Rerun {
        /// The batch that runs again.
        batch_id: u64,
    },
    /// The latest batch is committed: construct batch `batch_id` (= L+1) afresh.
    Next {
        /// The batch that is constructed next.
        batch_id: u64,
    },
    /// Spark stops with an error before running any batch.
    Fail {
        /// Why, in one sentence.
        reason: String,
    },
}

/// Which rule of `populateStartOffsets` (or the checks before it) decides the restart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RestartRule {
    /// No offset entry: a new query.
    NoOffsetLog,
    /// `C == L`: the latest batch is committed, the next one is constructed.
    LastBatchCommitted,
    /// `C == L-1`: the latest batch was planned but not committed, it runs again.
    LastBatchUncommitted,
    /// `C < L-1`: Spark warns and runs the latest batch again.
    CommitLogBehind,
    /// Offsets but no commit log at all: the latest batch runs again.
    NoCommitLog,
    /// `C > L`: no branch matches; batch `L` stays constructed and runs again.
    CommitAheadOfOffsets,
    /// `offsets/L-1` is missing: Spark cannot find the start offsets of batch `L`.
    PreviousOffsetsMissing,
    /// Offsets or commits without `metadata`: Spark 4.2+ refuses to start.
    MetadataMissing,
    /// Commits without any offset entry: Spark's assertion fails.
    CommitsWithoutOffsets,
    /// The offset entries do not match the query's sources.
    SourcesChanged,
    /// A log file Spark reads to decide does not parse.
    UnreadableLog,
}

impl RestartRule {
    /// Where in Spark the rule lives, for a reader who wants to check it.
    pub fn source(self) -> &'static str {
        match self {
            RestartRule::NoOffsetLog => {
                "MicroBatchExecution.populateStartOffsets: offsetLog.getLatest() is None, \
                 \"Starting new streaming query\""
            }
            RestartRule::LastBatchCommitted => {
                "MicroBatchExecution.populateStartOffsets: latestBatchId == \
                 latestCommittedBatchId, so batchId = latestCommittedBatchId + 1"
            }
            RestartRule::LastBatchUncommitted => {
                "MicroBatchExecution.populateStartOffsets: latestCommittedBatchId == \
                 latestBatchId - 1, the latest batch stays constructed and runs again"
            }
            RestartRule::CommitLogBehind => {
                "MicroBatchExecution.populateStartOffsets: \"Batch completion log latest batch \
                 id is C, which is not trailing batchid L by one\""
            }
            RestartRule::NoCommitLog => {
                "MicroBatchExecution.populateStartOffsets: \"no commit log present\""
            }
            RestartRule::CommitAheadOfOffsets => {
                "MicroBatchExecution.populateStartOffsets: no branch for \
                 latestCommittedBatchId > latestBatchId; markMicroBatchEnd later refuses to \
                 overwrite commits/<id> (CONCURRENT_STREAM_LOG_UPDATE)"
            }
            RestartRule::PreviousOffsetsMissing => {
                "MicroBatchExecution.validateOffsetLogAndGetPrevOffset: \
                 \"batch L-1 doesn't exist\""
            }
            RestartRule::MetadataMissing => {
                "StreamExecution (Spark 4.2+): STREAMING_CHECKPOINT_MISSING_METADATA_FILE"
            }
            RestartRule::CommitsWithoutOffsets => {
                "MicroBatchExecution.initializeExecution: asserts that a query without offset \
                 entries has no commit entry"
            }
            RestartRule::SourcesChanged => {
                "OffsetSeq.toStreamProgress: \"There are [x] sources in the checkpoint offsets \
                 and now there are [y] sources requested by the query. Cannot continue.\""
            }
            RestartRule::UnreadableLog => {
                "HDFSMetadataLog.get / MetadataVersionUtil.validateVersion: the entry cannot \
                 be read"
            }
        }
    }
}

impl fmt::Display for RestartRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = serde_json::to_value(self)
            .ok()
            .and_then(|value| value.as_str().map(str::to_owned))
            .unwrap_or_default();
        f.write_str(&text)
    }
}

/// A Spark release line, `major.minor`: the rules that changed between releases
/// (the missing-`metadata` check of 4.2, named sources of 4.2) depend on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SparkVersion {
    /// Major version, e.g. 4.
    pub major: u32,
    /// Minor version, e.g. 3.
    pub minor: u32,
}

impl SparkVersion {
    /// The newest release whose behaviour the rules follow.
    pub const LATEST: SparkVersion = SparkVersion { major: 4, minor: 3 };

    /// Reads `4.3`, `3.5.9` or `3` (the patch level is ignored).
    pub fn parse(text: &str) -> Option<SparkVersion> {
        let mut parts = text.trim().split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = match parts.next() {
            Some(minor) => minor.parse().ok()?,
            None => 0,
        };
        if parts.clone().any(|part| part.parse::<u32>().is_err()) {
            return None;
        }
        Some(SparkVersion { major, minor })
    }

    /// Whether this release is `major.minor` or newer.
    pub fn at_least(self, major: u32, minor: u32) -> bool {
        self >= SparkVersion { major, minor }
    }
}

impl Default for SparkVersion {
    fn default() -> Self {
        SparkVersion::LATEST
    }
}

impl fmt::Display for SparkVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// How the query is restarted, as far as the decision depends on it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestartOptions {
    /// The Spark release that restarts the query.
    pub spark: SparkVersion,
    /// `asyncProgressTrackingEnabled` on the restarted query.
    pub async_progress_tracking: bool,
    /// The restarted query's sources, when known: indexes (a count) or names.
    pub query_sources: Option<Vec<SourceId>>,
}

/// The decision plus what a careful reader of the folder should know.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestartPlan {
    /// What Spark does.
    pub action: RestartAction,
    /// The rule that decides it.
    pub rule: RestartRule,
    /// One sentence saying why, naming the files it rests on.
    pub reason: String,
    /// Spark's own error text when it refuses to start (placeholders filled where the
    /// folder tells their value).
    pub spark_error: Option<String>,
    /// Things that are off but do not stop Spark (Spark's own warnings included).
    pub warnings: Vec<String>,
    /// The offsets the batch starts from (`offsets/L-1` for a re-run, `offsets/L` for
    /// the next batch); `None` = from the sources' initial offsets.
    pub start: Option<OffsetLogEntry>,
    /// The offsets a re-run ends at (`offsets/L`); `None` when the end is asked from the
    /// sources (next batch, fresh query) or the restart fails.
    pub end: Option<OffsetLogEntry>,
}

/// Predicts the restart on this folder with the newest Spark's rules. Errors only for
/// files that do not parse (the offsets and commits Spark reads to decide: `L`, `L-1`
/// and `C`).
pub fn restart_plan(folder: &CheckpointFolder) -> Result<RestartPlan, CheckpointError> {
    restart_plan_with(folder, &RestartOptions::default())
}

/// [`restart_plan`] for a given Spark release, async progress tracking and query sources.
pub fn restart_plan_with(
    folder: &CheckpointFolder,
    options: &RestartOptions,
) -> Result<RestartPlan, CheckpointError> {
    let offset_ids = folder.offset_log_ids();
    let commit_ids = folder.commit_log_ids();
    let mut warnings = Vec::new();
    if !options.async_progress_tracking {
        warn_gaps("offsets", &offset_ids, &mut warnings);
    }
    warn_gaps("commits", &commit_ids, &mut warnings);
    let latest_commit = commit_ids.last().copied();
    if let Some(c) = latest_commit {
        folder.commit(c)?;
    }
    let has_batches = !offset_ids.is_empty() || latest_commit.is_some();
    if !folder.contains(super::METADATA_FILE) && has_batches && options.spark.at_least(4, 2) {
        return Ok(fail(
            RestartRule::MetadataMissing,
            "metadata is missing while the offset or commit log has entries: Spark 4.2+ refuses \
             to start (STREAMING_CHECKPOINT_MISSING_METADATA_FILE); Spark before 4.2 would \
             write a new query id and go on"
                .to_owned(),
            Some(
                "[STREAMING_CHECKPOINT_MISSING_METADATA_FILE] Checkpoint location \
                 <checkpointLocation> is in an inconsistent state: the metadata file is missing \
                 but offset and/or commit logs contain data. Please restore the metadata file \
                 or create a new checkpoint directory."
                    .to_owned(),
            ),
            warnings,
        ));
    }
    let Some(l) = offset_ids.last().copied() else {
        let plan = match latest_commit {
            Some(c) => fail(
                RestartRule::CommitsWithoutOffsets,
                format!(
                    "commits/{c} exists but the offset log is empty; Spark asserts that a query \
                     without offset entries has no committed batch"
                ),
                Some("assertion failed".to_owned()),
                warnings,
            ),
            None => RestartPlan {
                action: RestartAction::Fresh,
                rule: RestartRule::NoOffsetLog,
                reason: "there is no offsets/ entry, so the query starts fresh at batch 0"
                    .to_owned(),
                spark_error: None,
                warnings,
                start: None,
                end: None,
            },
        };
        return Ok(plan);
    };
    let latest = folder
        .offset_entry(l)?
        .ok_or_else(|| missing(&offsets_path(l)))?;
    if let Some(plan) = sources_changed(&latest, l, options, &mut warnings) {
        return Ok(plan(warnings));
    }
    let previous_id = if options.async_progress_tracking {
        offset_ids.iter().rev().copied().find(|id| *id < l)
    } else {
        l.checked_sub(1)
    };
    let mut start = None;
    if let Some(previous) = previous_id {
        match folder.offset_entry(previous)? {
            None => {
                let spark_error = if options.spark.at_least(4, 1) {
                    format!("requirement failed: Previous batch {previous} not found in offset log")
                } else {
                    format!("batch {previous} doesn't exist")
                };
                return Ok(fail(
                    RestartRule::PreviousOffsetsMissing,
                    format!(
                        "offsets/{previous} is missing: Spark needs it for the start offsets of \
                         batch {l} (\"batch {previous} doesn't exist\")"
                    ),
                    Some(spark_error),
                    warnings,
                ));
            }
            Some(entry) if !entry.named() && entry.sources.len() != latest.sources.len() => {
                return Ok(fail(
                    RestartRule::SourcesChanged,
                    format!(
                        "offsets/{previous} lists {} sources but offsets/{l} lists {}, so one of \
                         them cannot match the query's sources",
                        entry.sources.len(),
                        latest.sources.len()
                    ),
                    Some(source_count_error(
                        entry.sources.len(),
                        latest.sources.len(),
                    )),
                    warnings,
                ));
            }
            Some(entry) => start = Some(entry),
        }
    }
    let (action, rule, reason) = match latest_commit {
        None => (
            RestartAction::Rerun { batch_id: l },
            RestartRule::NoCommitLog,
            format!("offsets/{l} has no commits/{l}; there is no commit log at all"),
        ),
        Some(c) if c == l => (
            RestartAction::Next { batch_id: l + 1 },
            RestartRule::LastBatchCommitted,
            format!("commits/{l} records batch {l} as done"),
        ),
        Some(c) if c < l => {
            let rule = if c + 1 < l {
                warnings.push(format!(
                    "commit log latest batch id is {c}, which is not trailing batch id {l} by one"
                ));
                RestartRule::CommitLogBehind
            } else {
                RestartRule::LastBatchUncommitted
            };
            (
                RestartAction::Rerun { batch_id: l },
                rule,
                format!("offsets/{l} has no commits/{l}"),
            )
        }
        Some(c) => {
            let clash = commit_ids.iter().copied().find(|id| *id >= l).unwrap_or(c);
            warnings.push(format!(
                "commits/{c} is ahead of the latest offset entry offsets/{l}; Spark does not \
                 notice, but batch {clash} will stop the query when it finds {} already written \
                 (concurrent update to the log)",
                commits_path(clash)
            ));
            (
                RestartAction::Rerun { batch_id: l },
                RestartRule::CommitAheadOfOffsets,
                format!(
                    "offsets/{l} is the latest offset entry and commits/{c} is ahead of it, a case \
                     Spark's populateStartOffsets does not handle, so batch {l} runs again"
                ),
            )
        }
    };
    let (start, end) = match action {
        RestartAction::Next { .. } => (Some(latest), None),
        _ => (start, Some(latest)),
    };
    Ok(RestartPlan {
        action,
        rule,
        reason,
        spark_error: None,
        warnings,
        start,
        end,
    })
}

/// The restart fails when the query's sources do not match `offsets/L`.
fn sources_changed(
    latest: &OffsetLogEntry,
    l: u64,
    options: &RestartOptions,
    warnings: &mut Vec<String>,
) -> Option<impl FnOnce(Vec<String>) -> RestartPlan> {
    let query = options.query_sources.as_ref()?;
    let query_named = query.iter().any(|id| matches!(id, SourceId::Name(_)));
    let failure = if latest.named() {
        if !query_named {
            Some((
                format!(
                    "offsets/{l} names its sources but the query's sources are unnamed; with \
                     source evolution on, every source must be named"
                ),
                "[STREAMING_QUERY_EVOLUTION_ERROR.UNNAMED_STREAMING_SOURCES_WITH_ENFORCEMENT] \
                 All streaming sources must be named when \
                 spark.sql.streaming.queryEvolution.enableSourceEvolution is enabled."
                    .to_owned(),
            ))
        } else {
            for id in query {
                if latest.sources.iter().all(|source| &source.id != id) {
                    warnings.push(format!(
                        "source {id} is not in offsets/{l}: it is new and starts from its \
                         initial offset"
                    ));
                }
            }
            for source in &latest.sources {
                if !query.contains(&source.id) {
                    warnings.push(format!(
                        "source {} of offsets/{l} is not in the query any more: its offsets \
                         are not used",
                        source.id
                    ));
                }
            }
            None
        }
    } else if query_named && latest.version == 1 {
        Some((
            format!(
                "offsets/{l} is offset log v1, which cannot hold named sources; source \
                 evolution cannot be turned on for an existing checkpoint"
            ),
            format!(
                "[STREAMING_QUERY_EVOLUTION_ERROR.CANNOT_ENABLE_ON_EXISTING_CHECKPOINT] Cannot \
                 enable streaming source evolution on a checkpoint that was created without it. \
                 The existing checkpoint uses offset log format version {}, which does not \
                 support the named source tracking required by streaming source evolution.",
                latest.version
            ),
        ))
    } else if query.len() != latest.sources.len() {
        Some((
            format!(
                "offsets/{l} lists {} sources and the query has {}",
                latest.sources.len(),
                query.len()
            ),
            source_count_error(latest.sources.len(), query.len()),
        ))
    } else {
        None
    };
    failure.map(|(reason, spark_error)| {
        move |warnings| {
            fail(
                RestartRule::SourcesChanged,
                reason,
                Some(spark_error),
                warnings,
            )
        }
    })
}

/// `OffsetSeq.toStreamProgress`'s assertion message.
fn source_count_error(in_checkpoint: usize, in_query: usize) -> String {
    format!(
        "assertion failed: There are [{in_checkpoint}] sources in the checkpoint offsets and now \
         there are [{in_query}] sources requested by the query. Cannot continue."
    )
}

fn fail(
    rule: RestartRule,
    reason: String,
    spark_error: Option<String>,
    warnings: Vec<String>,
) -> RestartPlan {
    RestartPlan {
        action: RestartAction::Fail {
            reason: reason.clone(),
        },
        rule,
        reason,
        spark_error,
        warnings,
        start: None,
        end: None,
    }
}

fn missing(path: &str) -> CheckpointError {
    CheckpointError::Invalid {
        path: path.to_owned(),
        reason: "listed but unreadable".to_owned(),
    }
}

/// At most this many missing ids are named in a gap warning; the rest are counted (a
/// damaged folder can hold `offsets/0` and `offsets/1099511627776`).
const MAX_GAP_IDS_NAMED: usize = 20;

/// `HDFSMetadataLog` assumes ids are contiguous from the smallest to the largest.
fn warn_gaps(dir: &str, ids: &[u64], warnings: &mut Vec<String>) {
    if let Some(missing) = missing_ids(ids) {
        warnings.push(format!(
            "{dir}/ has gaps (missing {missing}); Spark assumes batch ids are contiguous"
        ));
    }
}

/// The ids missing between sorted `ids`, comma-separated: the first
/// `MAX_GAP_IDS_NAMED`, then how many more (bounded however far apart the ids are).
pub(crate) fn missing_ids(ids: &[u64]) -> Option<String> {
    let total: u128 = ids
        .windows(2)
        .map(|pair| u128::from(pair[1].saturating_sub(pair[0]).saturating_sub(1)))
        .sum();
    if total == 0 {
        return None;
    }
    let mut missing: Vec<String> = ids
        .windows(2)
        .flat_map(|pair| (pair[0].saturating_add(1))..pair[1])
        .take(MAX_GAP_IDS_NAMED)
        .map(|id| id.to_string())
        .collect();
    let named = missing.len() as u128;
    if total > named {
        missing.push(format!("and {} more", total - named));
    }
    Some(missing.join(", "))
}
