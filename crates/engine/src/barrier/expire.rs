//! Snapshot expiration as the MetaService decides it (FLIP-276: it "determines the compaction
//! and expiration of snapshots for each table according to snapshots being used by the OLAP
//! and ETL jobs"): a table keeps its newest `snapshot_retention` snapshots besides the latest;
//! an older one expires unless a reader still uses it — a Repeatable Read reader of one of the
//! topology's queries (Strong or Weak) reading it, or a downstream job that would read it again
//! if it failed now: every snapshot after the position its last complete checkpoint restores
//! (a checkpoint may hold several barriers). Paimon's counterpart is a consumer (`consumer-id`,
//! apache/paimon#1022 "Introduce consume-id for retore consuming and reserve snapshot"): its
//! recorded position keeps the snapshots after it from expiring.
//! Expiration is bookkeeping here: the table's data is kept, so a revision may still roll back
//! to an expired snapshot (a simplification; Paimon would need a tag for that).

use super::meta::SnapshotRef;
use super::query::{Consistency, ReadLevel};
use super::world::TopologyWorld;

impl TopologyWorld {
    /// Every snapshot a Repeatable Read reader of the topology's queries reads now, as
    /// (table, barrier, reader).
    fn rr_reads(&self) -> Vec<(String, u64, String)> {
        let mut out = Vec::new();
        for (c, word) in [(Consistency::Strong, "strong"), (Consistency::Weak, "weak")] {
            for q in self.named_queries(ReadLevel::RepeatableRead, c) {
                for x in self.query(&q).reads {
                    out.push((x.table, x.barrier, format!("rr:{} ({word})", q.spec.name)));
                }
            }
        }
        out
    }

    /// Who uses the snapshot of barrier `b` in table `t` now.
    fn users(&self, t: usize, b: u64, rr: &[(String, u64, String)]) -> Vec<String> {
        let name = &self.tables[t].name;
        let mut by: Vec<String> = Vec::new();
        for (table, barrier, who) in rr {
            if table == name && *barrier == b && !by.contains(who) {
                by.push(who.clone());
            }
        }
        for job in self
            .jobs
            .iter()
            .filter(|j| j.spec.snapshot_guard.protects())
        {
            // Not only what the job has yet to read: a restart restores its last complete
            // checkpoint and reads again every snapshot after it (several barriers per
            // checkpoint), so those stay too.
            if job
                .inputs
                .iter()
                .enumerate()
                .any(|(i, inp)| &inp.source == name && job.restore_position(i) < b)
            {
                by.push(job.spec.name.clone());
            }
        }
        by
    }

    /// Expires the snapshots past the retention that no reader uses; records the ones held.
    pub(super) fn expire_snapshots(&mut self) {
        let keep = self.run.spec.snapshot_retention;
        let any_old = self.tables.iter().any(|t| {
            t.snapshots
                .first()
                .is_some_and(|s| s.barrier + keep < t.written())
        });
        if !any_old {
            return;
        }
        let rr = self.rr_reads();
        for t in 0..self.tables.len() {
            let newest = self.tables[t].written();
            let name = self.tables[t].name.clone();
            let old: Vec<SnapshotRef> = self.tables[t]
                .snapshots
                .iter()
                .filter(|s| s.barrier + keep < newest)
                .map(|s| SnapshotRef {
                    snapshot_id: s.snapshot.id,
                    barrier: s.barrier,
                })
                .collect();
            for s in old {
                if self.meta.is_expired(&name, s.barrier) {
                    continue;
                }
                let by = self.users(t, s.barrier, &rr);
                if by.is_empty() {
                    self.meta.expire(&name, s);
                } else {
                    self.meta.hold(&name, s, by);
                }
            }
        }
    }
}
