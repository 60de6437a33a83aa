//! What a topology report says about Kafka tables' transactions (committed, aborted, the rows
//! lost), about each job's checkpoints, counted as Flink's web UI counts them, and about the
//! progress markers of the jobs reading CDC.

use std::collections::BTreeMap;

use batchscope_engine::barrier::{
    checkpoint_stats, is_cdc_source, progress_markers, CheckpointStats, MarkerPoint, TopologyWorld,
    TxnState,
};
use serde::Serialize;

/// One barrier's Kafka transaction at the end of the run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TxnEntry {
    /// Kafka table.
    pub table: String,
    /// Barrier.
    pub barrier: u64,
    /// Where it ended: committed, aborted, pre-committed or open.
    pub state: TxnState,
    /// When it began.
    pub opened_at_ms: u64,
    /// Rows in it.
    pub rows: u32,
}

/// The Kafka tables' transactions of a run, and the rows the broker's timeout lost.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct KafkaReport {
    /// Every transaction, by table and barrier.
    pub transactions: Vec<TxnEntry>,
    /// Rows in committed transactions.
    pub committed_rows: u64,
    /// Rows in transactions the broker aborted after the checkpoint had taken them: lost.
    pub lost_rows: u64,
}

/// The Kafka report of a drained run; `None` when the topology has no Kafka table.
pub fn kafka_report(world: &TopologyWorld) -> Option<KafkaReport> {
    let kafka = world
        .spec()
        .tables
        .iter()
        .any(|t| t.kind == batchscope_engine::barrier::TableKind::Kafka);
    if !kafka {
        return None;
    }
    let mut r = KafkaReport::default();
    for (table, barrier, txn) in world.transactions() {
        let rows = world
            .table(&table)
            .and_then(|t| t.barrier(barrier))
            .map_or(0, |b| b.records);
        match txn.state {
            TxnState::Committed => r.committed_rows += u64::from(rows),
            TxnState::Aborted => r.lost_rows += u64::from(rows),
            _ => {}
        }
        r.transactions.push(TxnEntry {
            table,
            barrier,
            state: txn.state,
            opened_at_ms: txn.opened_at_ms,
            rows,
        });
    }
    Some(r)
}

/// Each job's checkpoint statistics after the run's events so far.
pub fn checkpoint_history(world: &TopologyWorld) -> BTreeMap<String, CheckpointStats> {
    let spec = world.spec();
    checkpoint_stats(world.trace(), spec.per_checkpoint(), spec.no_barriers)
}

/// Each CDC-reading job's progress markers over the run: its checkpoint's offset and the
/// offset committed outside (the consumer group), against the CDC head.
pub fn markers(world: &TopologyWorld) -> BTreeMap<String, Vec<MarkerPoint>> {
    let spec = world.spec();
    let cdc_jobs: Vec<String> = spec
        .jobs
        .iter()
        .filter(|j| j.sources.iter().any(|s| is_cdc_source(s)))
        .map(|j| j.name.clone())
        .collect();
    progress_markers(world.trace(), spec.per_checkpoint(), &cdc_jobs)
}
