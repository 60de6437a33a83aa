//! A table in Table Store as the simulation keeps it: a log of records tagged with the barrier
//! (or own checkpoint) that wrote them, the barriers PROCESSED and WRITTEN, and its snapshots.

use std::collections::BTreeMap;

use serde::Serialize;

use super::operator::Record;
use super::snapshot::{PaimonSnapshot, SNAPSHOT_VERSION};

/// A record in a table's log, tagged with the barrier whose transaction wrote it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TableRecord {
    /// Barrier (or own checkpoint without barriers) of the write.
    pub barrier: u64,
    /// Upsert key.
    pub key: Vec<i64>,
    /// Column values.
    pub values: Vec<i64>,
}

/// One barrier as seen by one table: PROCESSED once its sink aligned, WRITTEN once a snapshot
/// holds it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TableBarrier {
    /// The barrier.
    pub barrier: u64,
    /// Records written for it (streamed and at alignment).
    pub records: u32,
    /// CDC records reflected once this barrier is complete (the `<barrier, offset>` end).
    pub cdc_offset: u64,
    /// When the sink processed it (PROCESSED).
    pub processed_at_ms: u64,
    /// When the snapshot was written (WRITTEN).
    pub written_at_ms: Option<u64>,
    /// Snapshot holding it.
    pub snapshot_id: Option<u64>,
}

/// A snapshot and the barrier it holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TableSnapshot {
    /// Barrier held (equal to `snapshot.commitIdentifier`).
    pub barrier: u64,
    /// The snapshot file.
    pub snapshot: PaimonSnapshot,
}

/// A table's whole simulated state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Table {
    /// Table name.
    pub name: String,
    /// Column names.
    pub columns: Vec<String>,
    /// Root table (written from CDC).
    pub root: bool,
    /// Writing job.
    pub writer: String,
    /// Every record written and not rolled back, in write order.
    pub log: Vec<TableRecord>,
    /// Barriers PROCESSED (dense from 1), with their WRITTEN state.
    pub barriers: Vec<TableBarrier>,
    /// Snapshots, ids dense from 1.
    pub snapshots: Vec<TableSnapshot>,
    /// `commitUser` of the writer (stable across its restarts).
    pub commit_user: String,
    /// Id used in manifest list names.
    pub manifest_id: String,
}

impl Table {
    /// Asserts that a replay of barrier `n` after a failover (`what` it does: "reads",
    /// "recomputes") yields exactly the records the table logged for `n` the first time, in
    /// any order: the sources are replayable and the jobs deterministic.
    pub(crate) fn assert_replay_equal(
        &self,
        n: u64,
        records: &[super::operator::Record],
        what: &str,
    ) {
        let mut had: Vec<(&Vec<i64>, &Vec<i64>)> = self
            .log
            .iter()
            .filter(|r| r.barrier == n)
            .map(|r| (&r.key, &r.values))
            .collect();
        let mut now: Vec<(&Vec<i64>, &Vec<i64>)> =
            records.iter().map(|r| (&r.key, &r.values)).collect();
        had.sort();
        now.sort();
        assert_eq!(
            had, now,
            "`{}`: replay of barrier {n} {what} the same records",
            self.name
        );
    }

    /// Latest barrier PROCESSED (0 if none).
    pub fn processed(&self) -> u64 {
        self.barriers.last().map_or(0, |b| b.barrier)
    }

    /// Latest barrier WRITTEN, i.e. held by a snapshot (0 if none).
    pub fn written(&self) -> u64 {
        self.barriers
            .iter()
            .rev()
            .find(|b| b.written_at_ms.is_some())
            .map_or(0, |b| b.barrier)
    }

    /// A processed barrier.
    pub fn barrier(&self, n: u64) -> Option<&TableBarrier> {
        n.checked_sub(1)
            .and_then(|i| self.barriers.get(i as usize))
            .filter(|b| b.barrier == n)
    }

    /// CDC records reflected once barrier `n` is complete (0 for barrier 0).
    pub fn cdc_offset_at(&self, n: u64) -> u64 {
        self.barrier(n).map_or(0, |b| b.cdc_offset)
    }

    /// Records of barriers not PROCESSED yet: visible to read-uncommitted only.
    pub fn partial_records(&self) -> u32 {
        let p = self.processed();
        self.log.iter().filter(|r| r.barrier > p).count() as u32
    }

    /// Rows (by key) as of the end of barrier `n`: what the snapshot of `n` holds.
    pub fn rows_at(&self, n: u64) -> BTreeMap<Vec<i64>, Vec<i64>> {
        let mut rows = BTreeMap::new();
        for r in self.log.iter().filter(|r| r.barrier <= n) {
            rows.insert(r.key.clone(), r.values.clone());
        }
        rows
    }

    /// Rows including data of unfinished barriers (read-uncommitted).
    pub fn rows_latest(&self) -> BTreeMap<Vec<i64>, Vec<i64>> {
        self.rows_at(u64::MAX)
    }

    pub(crate) fn write(&mut self, barrier: u64, recs: Vec<Record>) -> u32 {
        let n = recs.len() as u32;
        self.log.extend(recs.into_iter().map(|r| TableRecord {
            barrier,
            key: r.key,
            values: r.values,
        }));
        n
    }

    pub(crate) fn mark_processed(&mut self, barrier: u64, cdc_offset: u64, at_ms: u64) -> u32 {
        assert_eq!(
            barrier,
            self.processed() + 1,
            "`{}`: PROCESSED in order",
            self.name
        );
        let records = self.log.iter().filter(|r| r.barrier == barrier).count() as u32;
        self.barriers.push(TableBarrier {
            barrier,
            records,
            cdc_offset,
            processed_at_ms: at_ms,
            written_at_ms: None,
            snapshot_id: None,
        });
        records
    }

    /// Creates the snapshot of barrier `n` (WRITTEN) in Paimon's format.
    pub(crate) fn write_snapshot(&mut self, n: u64, at_ms: u64) -> &TableSnapshot {
        let id = self.snapshots.last().map_or(1, |s| s.snapshot.id + 1);
        let total = self.rows_at(n).len() as i64;
        let delta = self.log.iter().filter(|r| r.barrier == n).count() as i64;
        let snapshot = PaimonSnapshot {
            version: SNAPSHOT_VERSION,
            uuid: None,
            id,
            schema_id: 0,
            base_manifest_list: format!("manifest-list-{}-{}", self.manifest_id, 2 * id - 2),
            base_manifest_list_size: None,
            delta_manifest_list: format!("manifest-list-{}-{}", self.manifest_id, 2 * id - 1),
            delta_manifest_list_size: None,
            changelog_manifest_list: None,
            changelog_manifest_list_size: None,
            index_manifest: None,
            commit_user: self.commit_user.clone(),
            writer_version: None,
            commit_identifier: n as i64,
            commit_kind: "APPEND".to_string(),
            time_millis: at_ms as i64,
            total_record_count: total,
            delta_record_count: delta,
            changelog_record_count: None,
            watermark: None,
            next_row_id: None,
        };
        let b = self
            .barriers
            .iter_mut()
            .find(|b| b.barrier == n)
            .expect("a snapshot holds a PROCESSED barrier");
        assert!(b.written_at_ms.is_none(), "barrier {n} is WRITTEN once");
        b.written_at_ms = Some(at_ms);
        b.snapshot_id = Some(id);
        self.snapshots.push(TableSnapshot {
            barrier: n,
            snapshot,
        });
        self.snapshots.last().expect("just pushed")
    }

    /// Rolls the table back to barrier `n`: later records, barriers and snapshots go (Paimon's
    /// rollback deletes later snapshots, so the next snapshot id follows the kept ones).
    pub(crate) fn truncate(&mut self, n: u64) -> Vec<u64> {
        let lost = self
            .barriers
            .iter()
            .filter(|b| b.barrier > n)
            .map(|b| b.barrier)
            .collect();
        self.log.retain(|r| r.barrier <= n);
        self.barriers.retain(|b| b.barrier <= n);
        self.snapshots.retain(|s| s.barrier <= n);
        lost
    }
}
