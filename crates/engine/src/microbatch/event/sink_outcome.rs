//! What a sink reports in an event, as values: where a commit put its rows
//! ([`CommitTarget`], `SinkCommitted`'s `target`) and why a write failed ([`SinkFailure`],
//! `SinkWriteFailed`'s `reason`). Each is written as the sentence the trace shows, and read
//! back from it only when a trace is deserialized.

use serde::{Deserialize, Serialize};
use std::convert::Infallible;
use std::fmt;
use std::str::FromStr;

/// Where a sink commit put its rows (`SinkCommitted`'s `target`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommitTarget {
    /// The rows are visible here: a file name, a store, `StreamingWrite.commit(3): …`.
    Visible(String),
    /// SeaTunnel's committed-only design: the rows before a checkpoint record, visible before
    /// the rename.
    Record {
        /// The checkpoint record's id.
        checkpoint_id: u64,
        /// The reader's subtask.
        subtask: u32,
    },
    /// SeaTunnel (PR #7476): `prepareCommit` at a checkpoint record, in the task's sink writer.
    /// A sink without a committer has flushed the rows (visible); the commit info it returns is
    /// dropped (`ackCheckpoint` never stores it; `commit()` commits only `latestCommitInfoT`).
    Prepared {
        /// The checkpoint record's id.
        checkpoint_id: u64,
        /// The reader's subtask.
        subtask: u32,
    },
}

const RECORD: (&str, &str) = ("checkpoint record ", " of subtask ");

const PREPARED: (&str, &str, &str) = (
    "prepareCommit at checkpoint record ",
    " of subtask ",
    " (rows flushed, commit info dropped)",
);

impl fmt::Display for CommitTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommitTarget::Visible(place) => f.write_str(place),
            CommitTarget::Record {
                checkpoint_id,
                subtask,
            } => {
                let (a, b) = RECORD;
                write!(f, "{a}{checkpoint_id}{b}{subtask}")
            }
            CommitTarget::Prepared {
                checkpoint_id,
                subtask,
            } => {
                let (a, b, c) = PREPARED;
                write!(f, "{a}{checkpoint_id}{b}{subtask}{c}")
            }
        }
    }
}

impl FromStr for CommitTarget {
    type Err = Infallible;

    /// The text of a prepared commit, else of a record, else a visible place.
    fn from_str(s: &str) -> Result<CommitTarget, Infallible> {
        let ids = |rest: &str, b: &str| -> Option<(u64, u32)> {
            let (id, task) = rest.split_once(b)?;
            Some((id.parse().ok()?, task.parse().ok()?))
        };
        let (a, b, c) = PREPARED;
        let prepared = s
            .strip_prefix(a)
            .and_then(|rest| rest.strip_suffix(c))
            .and_then(|rest| ids(rest, b));
        let (ra, rb) = RECORD;
        let record = s.strip_prefix(ra).and_then(|rest| ids(rest, rb));
        Ok(match (prepared, record) {
            (Some((checkpoint_id, subtask)), _) => CommitTarget::Prepared {
                checkpoint_id,
                subtask,
            },
            (None, Some((checkpoint_id, subtask))) => CommitTarget::Record {
                checkpoint_id,
                subtask,
            },
            (None, None) => CommitTarget::Visible(s.to_string()),
        })
    }
}

/// Why a sink write failed (`SinkWriteFailed`'s `reason`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SinkFailure {
    /// The sink store is down (an outage window).
    Unavailable {
        /// When the write was refused.
        at_ms: u64,
        /// What was refused (`commit of batch 3`, `task 1 of batch 3`).
        what: String,
    },
    /// The foreachBatch function wrote its store, then threw (`foreach-fail@N`).
    FunctionThrew {
        /// Rows it had written.
        rows: u64,
        /// The batch.
        batch_id: u64,
        /// Where it wrote them.
        target: CommitTarget,
    },
}

const UNAVAILABLE: (&str, &str, &str) = ("sink store unavailable at ", " ms: ", " failed");
const THREW: (&str, &str, &str) = (
    "the foreachBatch function threw after writing ",
    " rows of batch ",
    " to ",
);

impl fmt::Display for SinkFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SinkFailure::Unavailable { at_ms, what } => {
                let (a, b, c) = UNAVAILABLE;
                write!(f, "{a}{at_ms}{b}{what}{c}")
            }
            SinkFailure::FunctionThrew {
                rows,
                batch_id,
                target,
            } => {
                let (a, b, c) = THREW;
                write!(f, "{a}{rows}{b}{batch_id}{c}{target}")
            }
        }
    }
}

impl FromStr for SinkFailure {
    type Err = String;

    /// Reads the sentence [`SinkFailure`]'s `Display` writes.
    fn from_str(s: &str) -> Result<SinkFailure, String> {
        let (a, b, c) = UNAVAILABLE;
        let unavailable = s
            .strip_prefix(a)
            .and_then(|rest| rest.strip_suffix(c))
            .and_then(|rest| rest.split_once(b))
            .and_then(|(at, what)| Some((at.parse().ok()?, what)));
        if let Some((at_ms, what)) = unavailable {
            let what = what.to_string();
            return Ok(SinkFailure::Unavailable { at_ms, what });
        }
        let (a, b, c) = THREW;
        let threw = s
            .strip_prefix(a)
            .and_then(|rest| rest.split_once(b))
            .and_then(|(rows, rest)| Some((rows.parse().ok()?, rest.split_once(c)?)))
            .and_then(|(rows, (batch, target))| Some((rows, batch.parse().ok()?, target)));
        match threw {
            Some((rows, batch_id, target)) => Ok(SinkFailure::FunctionThrew {
                rows,
                batch_id,
                target: target.parse().unwrap_or_else(|e: Infallible| match e {}),
            }),
            None => Err(format!("not a sink failure: {s:?}")),
        }
    }
}

macro_rules! serde_as_text {
    ($t:ty) => {
        impl Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
                crate::spec_json::deserialize_parsed(d)
            }
        }
    };
}

serde_as_text!(CommitTarget);
serde_as_text!(SinkFailure);

#[cfg(test)]
mod tests {
    use super::{CommitTarget, SinkFailure};

    #[test]
    fn targets_and_failures_are_written_as_the_trace_says_them_and_read_back() {
        let prepared = CommitTarget::Prepared {
            checkpoint_id: 4,
            subtask: 1,
        };
        let targets = [
            (
                prepared.clone(),
                "prepareCommit at checkpoint record 4 of subtask 1 (rows flushed, commit info dropped)",
            ),
            (
                CommitTarget::Record {
                    checkpoint_id: 2,
                    subtask: 0,
                },
                "checkpoint record 2 of subtask 0",
            ),
            (
                CommitTarget::Visible("StreamingWrite.commit(3): store-0".into()),
                "StreamingWrite.commit(3): store-0",
            ),
        ];
        for (target, text) in targets {
            let json = serde_json::to_string(&target).expect("serializes");
            assert_eq!(json, format!("\"{text}\""));
            assert_eq!(
                serde_json::from_str::<CommitTarget>(&json).ok(),
                Some(target)
            );
        }
        let failures = [
            (
                SinkFailure::Unavailable {
                    at_ms: 2135,
                    what: "task 0 of batch 3".into(),
                },
                "sink store unavailable at 2135 ms: task 0 of batch 3 failed",
            ),
            (
                SinkFailure::FunctionThrew {
                    rows: 7,
                    batch_id: 2,
                    target: CommitTarget::Visible("part-00002 to store-1".into()),
                },
                "the foreachBatch function threw after writing 7 rows of batch 2 to part-00002 to store-1",
            ),
        ];
        for (failure, text) in failures {
            let json = serde_json::to_string(&failure).expect("serializes");
            assert_eq!(json, format!("\"{text}\""));
            assert_eq!(
                serde_json::from_str::<SinkFailure>(&json).ok(),
                Some(failure)
            );
        }
        assert!("the store is on fire".parse::<SinkFailure>().is_err());
    }
}
