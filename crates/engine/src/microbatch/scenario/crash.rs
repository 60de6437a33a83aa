//! Crash points: the named protocol steps at which the driver can be killed (`sink-commit@3`),
//! read from and written as text.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A named protocol step at which the driver can be killed.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum CrashKind {
    /// After the source returned the end offset of batch N.
    GetOffset,
    /// After `offsets/N` was written.
    OffsetLog,
    /// After `source.commit(end of N-1)` (only for N > 0, only on the construct path).
    SourceCommit,
    /// After `getBatch(start, end)` of batch N.
    GetBatch,
    /// After the first task of batch N finished (the others have read but not finished).
    Task,
    /// After the sink finished batch N (manifest written / function returned / epoch committed).
    SinkCommit,
    /// After `commits/N` was written.
    CommitLog,
    /// SeaTunnel readers: after the first `<id>.prepared` state file batch N wrote,
    /// before the sink saw the checkpoint record behind it.
    StatePrepared,
}

impl CrashKind {
    /// Every crash kind in protocol order.
    pub const ALL: [CrashKind; 8] = [
        CrashKind::GetOffset,
        CrashKind::OffsetLog,
        CrashKind::SourceCommit,
        CrashKind::GetBatch,
        CrashKind::Task,
        CrashKind::SinkCommit,
        CrashKind::CommitLog,
        CrashKind::StatePrepared,
    ];

    /// The stable name used in the CLI, URLs and tests.
    pub fn name(self) -> &'static str {
        match self {
            CrashKind::GetOffset => "get-offset",
            CrashKind::OffsetLog => "offset-log",
            CrashKind::SourceCommit => "source-commit",
            CrashKind::GetBatch => "get-batch",
            CrashKind::Task => "task",
            CrashKind::SinkCommit => "sink-commit",
            CrashKind::CommitLog => "commit-log",
            CrashKind::StatePrepared => "state-prepared",
        }
    }

    /// Parses a stable name.
    pub fn from_name(name: &str) -> Option<CrashKind> {
        CrashKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// A crash of the driver at a named point of batch `batch_id` (`sink-commit@3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CrashPoint {
    /// Where in the batch.
    pub kind: CrashKind,
    /// Which batch.
    pub batch_id: u64,
}

impl fmt::Display for CrashPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}", self.kind.name(), self.batch_id)
    }
}

/// Why a crash point could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrashPointError(pub String);

impl fmt::Display for CrashPointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CrashPointError {}

impl std::str::FromStr for CrashPoint {
    type Err = CrashPointError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let names = CrashKind::ALL.map(|k| k.name()).join(", ");
        let (name, batch) = s.split_once('@').ok_or_else(|| {
            CrashPointError(format!(
                "crash point `{s}` must look like NAME@BATCH, e.g. sink-commit@3 (names: {names})"
            ))
        })?;
        let kind = CrashKind::from_name(name).ok_or_else(|| {
            CrashPointError(format!(
                "unknown crash point `{name}` in `{s}` (known: {names})"
            ))
        })?;
        let batch_id = batch.parse().map_err(|_| {
            CrashPointError(format!(
                "crash point `{s}`: batch `{batch}` is not a batch id (a whole number ≥ 0)"
            ))
        })?;
        Ok(CrashPoint { kind, batch_id })
    }
}

impl Serialize for CrashPoint {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for CrashPoint {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::spec_json::deserialize_parsed(d)
    }
}
