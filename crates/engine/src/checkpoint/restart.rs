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
//!   both match, so the restart fails.

use super::folder::{commits_path, offsets_path, CheckpointError, CheckpointFolder};
use serde::{Deserialize, Serialize};

/// The decision Spark takes on restart (micro-batch, without async progress tracking).
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

/// The decision plus what a careful reader of the folder should know.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestartPlan {
    /// What Spark does.
    pub action: RestartAction,
    /// One sentence saying why, naming the files it rests on.
    pub reason: String,
    /// Things that are off but do not stop Spark (Spark's own warnings included).
    pub warnings: Vec<String>,
}

/// Predicts the restart on this folder. Errors only for files that do not parse
/// (the offsets and commits Spark reads to decide: `L`, `L-1` and `C`).
pub fn restart_plan(folder: &CheckpointFolder) -> Result<RestartPlan, CheckpointError> {
    let offset_ids = folder.offset_log_ids();
    let commit_ids = folder.commit_log_ids();
    let mut warnings = Vec::new();
    warn_gaps("offsets", &offset_ids, &mut warnings);
    warn_gaps("commits", &commit_ids, &mut warnings);
    let latest_commit = commit_ids.last().copied();
    if let Some(c) = latest_commit {
        folder.commit(c)?;
    }
    // Spark 4.2+ refuses to start a query whose checkpoint has batches but no `metadata`
    // (STREAMING_CHECKPOINT_MISSING_METADATA_FILE, conf
    // `spark.sql.streaming.checkpoint.verifyMetadataExists.enabled`, default true); older
    // versions wrote a new query id and carried on. Observed with Spark 4.3.0 in the
    // conformance suite (docs/CONFORMANCE.md).
    if !folder.contains(super::METADATA_FILE) && (!offset_ids.is_empty() || latest_commit.is_some())
    {
        return Ok(fail(
            "metadata is missing while the offset or commit log has entries: Spark 4.2+ refuses              to start (STREAMING_CHECKPOINT_MISSING_METADATA_FILE); Spark before 4.2 would              write a new query id and go on"
                .to_owned(),
            warnings,
        ));
    }
    let Some(l) = offset_ids.last().copied() else {
        let plan = match latest_commit {
            Some(c) => fail(
                format!(
                    "commits/{c} exists but the offset log is empty; Spark asserts that a query \
                     without offset entries has no committed batch"
                ),
                warnings,
            ),
            None => RestartPlan {
                action: RestartAction::Fresh,
                reason: "there is no offsets/ entry, so the query starts fresh at batch 0"
                    .to_owned(),
                warnings,
            },
        };
        return Ok(plan);
    };
    let latest = folder
        .offsets(l)?
        .ok_or_else(|| missing(&offsets_path(l)))?;
    if l != 0 {
        let previous = l - 1;
        match folder.offsets(previous)? {
            None => {
                return Ok(fail(
                    format!(
                        "offsets/{previous} is missing: Spark needs it for the start offsets of \
                         batch {l} (\"batch {previous} doesn't exist\")"
                    ),
                    warnings,
                ))
            }
            Some(seq) if seq.offsets.len() != latest.offsets.len() => {
                return Ok(fail(
                    format!(
                        "offsets/{previous} lists {} sources but offsets/{l} lists {}, so one of \
                         them cannot match the query's sources",
                        seq.offsets.len(),
                        latest.offsets.len()
                    ),
                    warnings,
                ))
            }
            Some(_) => {}
        }
    }
    let (action, reason) = match latest_commit {
        None => (
            RestartAction::Rerun { batch_id: l },
            format!("offsets/{l} has no commits/{l}; there is no commit log at all"),
        ),
        Some(c) if c == l => (
            RestartAction::Next { batch_id: l + 1 },
            format!("commits/{l} records batch {l} as done"),
        ),
        Some(c) if c < l => {
            if c + 1 < l {
                warnings.push(format!(
                    "commit log latest batch id is {c}, which is not trailing batch id {l} by one"
                ));
            }
            (
                RestartAction::Rerun { batch_id: l },
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
                format!(
                    "offsets/{l} is the latest offset entry and commits/{c} is ahead of it, a case \
                     Spark's populateStartOffsets does not handle, so batch {l} runs again"
                ),
            )
        }
    };
    Ok(RestartPlan {
        action,
        reason,
        warnings,
    })
}

fn fail(reason: String, warnings: Vec<String>) -> RestartPlan {
    RestartPlan {
        action: RestartAction::Fail {
            reason: reason.clone(),
        },
        reason,
        warnings,
    }
}

fn missing(path: &str) -> CheckpointError {
    CheckpointError::Invalid {
        path: path.to_owned(),
        reason: "listed but unreadable".to_owned(),
    }
}

/// `HDFSMetadataLog` assumes ids are contiguous from the smallest to the largest.
fn warn_gaps(dir: &str, ids: &[u64], warnings: &mut Vec<String>) {
    let missing: Vec<String> = ids
        .windows(2)
        .flat_map(|pair| (pair[0] + 1)..pair[1])
        .map(|id| id.to_string())
        .collect();
    if !missing.is_empty() {
        warnings.push(format!(
            "{dir}/ has gaps (missing {}); Spark assumes batch ids are contiguous",
            missing.join(", ")
        ));
    }
}
