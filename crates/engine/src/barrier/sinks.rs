//! What a job writes into and how it commits: a Paimon table (the FLIP's Table Store) or a
//! Kafka topic behind Flink's exactly-once two-phase sink ([`TableKind`]); what a committer
//! does when a completed checkpoint is notified again after a restore ([`Committer`]); and what
//! keeps the snapshots a streaming reader will read from expiring ([`SnapshotGuard`]).

use serde::{Deserialize, Serialize};

/// Flink's default `transaction.timeout.ms` of its exactly-once Kafka producer (one hour); a
/// broker refuses a producer whose timeout exceeds its `transaction.max.timeout.ms` (15 minutes
/// by default), so real jobs set it lower (Flink's Kafka connector documentation).
pub const DEFAULT_TRANSACTION_TIMEOUT_MS: u64 = 3_600_000;

/// The kind of a table.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TableKind {
    /// A Paimon table: a snapshot per barrier, commits idempotent by commit identifier.
    #[default]
    Paimon,
    /// A Kafka topic written by Flink's exactly-once two-phase sink (`KafkaSink` with
    /// `DeliveryGuarantee.EXACTLY_ONCE`): a barrier's rows go into one Kafka transaction, which
    /// is pre-committed (flushed) when the job's checkpoint holds the barrier (WRITTEN) and
    /// committed when the checkpoint's completion is notified (COMMIT) — or, if the job was
    /// down then, when it restores the checkpoint. The broker aborts a transaction still open
    /// `transaction_timeout_ms` after it began. No job or query reads the topic here.
    Kafka,
}

impl TableKind {
    /// Whether this is the default kind (left out of a written topology file).
    pub fn is_paimon(&self) -> bool {
        *self == TableKind::Paimon
    }
}

/// What a job's committer does when `notifyCheckpointComplete` arrives again for a checkpoint
/// it already committed: Flink notifies at least once, and re-notifies the restored checkpoint
/// after a restore (`CheckpointListener`'s contract).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Committer {
    /// Recognises the checkpoint as committed and does nothing (Paimon skips a commit
    /// identifier its commit user already committed).
    #[default]
    Idempotent,
    /// Throws on a checkpoint it already committed, so the restored job fails again on every
    /// restart until the restart strategy gives up (apache/seatunnel PR #12150: the restored
    /// `latestCompletedCheckpoint` is notified again and an `IllegalStateException` follows
    /// "on every single restart attempt").
    ThrowsOnRepeat,
}

impl Committer {
    /// Whether this is the default committer (left out of a written topology file).
    pub fn is_idempotent(&self) -> bool {
        *self == Committer::Idempotent
    }
}

/// What keeps the upstream snapshots a job will still read (after its last checkpoint) from
/// expiring.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SnapshotGuard {
    /// FLIP-276's MetaService, which "determines the compaction and expiration of snapshots
    /// for each table according to snapshots being used by the OLAP and ETL jobs".
    #[default]
    MetaService,
    /// A Paimon consumer (`consumer-id`, apache/paimon PR #1022): the reader records its next
    /// snapshot when a checkpoint completes, and expiry keeps every snapshot from there on.
    ConsumerId,
    /// Nothing: a plain Paimon streaming read without `consumer-id`. Expiry may remove a
    /// snapshot the job's checkpoint still points at; restored onto it, the reader fails with
    /// Paimon's `OutOfRangeException` on every restart (apache/paimon #9533).
    None,
}

impl SnapshotGuard {
    /// Whether this is the default guard (left out of a written topology file).
    pub fn is_meta_service(&self) -> bool {
        *self == SnapshotGuard::MetaService
    }

    /// Whether the job's snapshots are kept from expiring.
    pub fn protects(&self) -> bool {
        *self != SnapshotGuard::None
    }
}

/// Where one Kafka transaction stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TxnState {
    /// Rows written into it; not in a checkpoint yet.
    Open,
    /// Flushed and recorded in the job's checkpoint (WRITTEN): waiting for the commit.
    Precommitted,
    /// Committed: visible to `read_committed` consumers.
    Committed,
    /// Aborted by the broker's transaction timeout: its rows never become visible.
    Aborted,
}

/// One barrier's Kafka transaction in a `kafka` table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Txn {
    /// When its first row was written (the broker's timeout counts from here).
    pub opened_at_ms: u64,
    /// Where it stands.
    pub state: TxnState,
}
