//! A barrier's life after the cut: PROCESSED in a table (the sink aligned and wrote it),
//! WRITTEN (a snapshot holds it), PRECOMMIT (PROCESSED in all tables) and COMMIT (WRITTEN in
//! all tables), announced by the MetaService one step after the step that completed them.
//!
//! Invariants asserted here: a table's barriers advance PROCESSED → WRITTEN in order, one
//! barrier at a time; PRECOMMIT and COMMIT advance by one; COMMIT never passes PRECOMMIT.

use serde::Serialize;

use super::event::BarrierEventKind;
use super::job::JobCheckpoint;
use super::table::Table;
use super::world::{Action, TopologyWorld};

/// Per-table transaction state of one barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum TableTxnState {
    /// Not processed in this table yet (maybe partly written).
    Pending,
    /// PROCESSED.
    Processed,
    /// WRITTEN.
    Written,
}

/// Global transaction state of one barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum TransactionState {
    /// Issued, processed nowhere or only in some tables.
    Open,
    /// PROCESSED in all tables.
    Precommit,
    /// WRITTEN in all tables.
    Commit,
}

/// One barrier for the dashboard.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BarrierView {
    /// Barrier.
    pub barrier: u64,
    /// Global state.
    pub state: TransactionState,
    /// State in each table.
    pub tables: Vec<(String, TableTxnState)>,
}

impl TopologyWorld {
    /// Schedules the processing of job `j`'s next barrier once it arrived on every input.
    pub(super) fn schedule_process(&mut self, j: usize) {
        let job = &self.jobs[j];
        if job.up && job.ready_to_process() && !job.process_scheduled {
            let next = job.processed + 1;
            self.jobs[j].process_scheduled = true;
            let at = self.now_ms + self.jobs[j].spec.process_ms;
            self.schedule(
                at,
                Action::Process {
                    job: j,
                    barrier: next,
                },
            );
        }
    }

    /// The sink of job `j` aligned barrier `n` and wrote it: PROCESSED in its table.
    pub(super) fn on_process(&mut self, j: usize, n: u64) -> Option<BarrierEventKind> {
        self.jobs[j].process_scheduled = false;
        let arrival = self.jobs[j].arrived.remove(&n)?;
        assert!(arrival.complete(), "barrier {n} aligned on every input");
        let deltas: Vec<_> = arrival
            .deltas
            .into_iter()
            .map(Option::unwrap_or_default)
            .collect();
        let out = self.jobs[j].process(n, &deltas);
        let job = &mut self.jobs[j];
        let (consumed, cdc_written) = if self.run.spec.no_barriers {
            (arrival.consumed, arrival.cdc_written)
        } else {
            // With barriers an input position is the barrier itself (`<barrier, offset>`).
            let end = self.meta.barrier(n).map_or(0, |b| b.cdc_offset_end);
            (
                vec![n; job.inputs.len()],
                if job.reads_cdc() { end } else { 0 },
            )
        };
        job.staged.insert(
            n,
            JobCheckpoint {
                state: job.state.clone(),
                consumed,
                cdc_written,
                ready_at_ms: arrival.available_at_ms.iter().copied().max().unwrap_or(0),
            },
        );
        let name = job.spec.name.clone();
        let sink = self.sink_of(j);
        if n <= self.tables[sink].written() {
            return Some(self.replayed(j, n, out));
        }
        let coverage = arrival.coverage.iter().copied().min().unwrap_or(0);
        let table = &mut self.tables[sink];
        assert_eq!(
            n,
            table.processed() + 1,
            "`{}` PROCESSES barriers in order",
            table.name
        );
        table.write(n, out);
        let records = table.mark_processed(n, coverage, self.now_ms);
        self.txn_write(sink, n);
        self.meta.on_processed(&name, n);
        if self.jobs[j].written + 1 == n && !self.jobs[j].snapshot_scheduled {
            self.schedule_snapshot(j, n);
        }
        self.schedule_process(j);
        self.check_transactions();
        Some(BarrierEventKind::Processed {
            job: name,
            table: self.tables[sink].name.clone(),
            barrier: n,
            records,
        })
    }

    /// Job `j` recomputed barrier `n` after restoring a checkpoint, but its table WROTE `n`
    /// before the failure: the recomputed records must equal the snapshot's (FLIP-276: replay
    /// "must produce the same data as before failover"), and the commit is skipped as a
    /// duplicate, as Paimon skips a commit whose identifier its commit user already committed.
    fn replayed(
        &mut self,
        j: usize,
        n: u64,
        out: Vec<super::operator::Record>,
    ) -> BarrierEventKind {
        let sink = self.sink_of(j);
        let table = &self.tables[sink];
        if self.jobs[j].pipeline.is_stateful() {
            table.assert_replay_equal(n, &out, "recomputes");
        }
        let records = table.barrier(n).map_or(0, |b| b.records);
        self.jobs[j].mark_written(n);
        let name = self.jobs[j].spec.name.clone();
        let table = self.tables[sink].name.clone();
        self.meta.on_processed(&name, n);
        self.meta.on_replayed(&name, n);
        self.schedule_process(j);
        BarrierEventKind::Replayed {
            job: name,
            table,
            barrier: n,
            records,
        }
    }

    fn schedule_snapshot(&mut self, j: usize, n: u64) {
        self.jobs[j].snapshot_scheduled = true;
        let at = self.now_ms + self.jobs[j].spec.commit_ms;
        self.schedule(at, Action::Snapshot { job: j, barrier: n });
    }

    /// Job `j` creates the snapshot of barrier `n`: WRITTEN in its table (unless a recorded
    /// fault strikes first).
    pub(super) fn on_snapshot(&mut self, j: usize, n: u64) -> Option<BarrierEventKind> {
        if let Some(strike) = self.fail_before_written(j, n) {
            return strike;
        }
        self.jobs[j].snapshot_scheduled = false;
        let sink = self.sink_of(j);
        let table = &mut self.tables[sink];
        assert_eq!(
            (n, n <= table.processed()),
            (table.written() + 1, true),
            "`{}` is WRITTEN in order, after PROCESSED",
            table.name
        );
        let snap = table.write_snapshot(n, self.now_ms);
        let (id, total, delta) = (
            snap.snapshot.id,
            snap.snapshot.total_record_count,
            snap.snapshot.delta_record_count,
        );
        let ready = self.jobs[j].mark_written(n);
        let name = self.jobs[j].spec.name.clone();
        let table = self.tables[sink].name.clone();
        self.meta.on_written(&name, &table, id, n);
        self.delay_log.job_wrote(j, n, self.now_ms, ready);
        let cov = self.tables[sink].cdc_offset_at(n) as usize;
        // The newest record it covers of the CDC sources it is computed from.
        let sources = self.meta.cdc_sources_of(&table);
        let newest = self.cdc_plan[..cov]
            .iter()
            .rev()
            .find(|r| sources.contains(&r.source));
        if let Some(cdc_at) = newest.map(|r| r.at_ms) {
            self.delay_log.table_wrote(sink, n, self.now_ms, cdc_at);
        }
        if self.jobs[j].processed > n {
            self.schedule_snapshot(j, n + 1);
        }
        for r in 0..self.jobs.len() {
            self.schedule_reads(r);
        }
        self.check_transactions();
        self.expire_snapshots();
        self.fire_written_faults(&table, n);
        self.after_written(j, sink, n);
        Some(BarrierEventKind::SnapshotWritten {
            job: name,
            table,
            barrier: n,
            snapshot_id: id,
            total_record_count: total,
            delta_record_count: delta,
            precommitted_txn: self.is_kafka(sink),
        })
    }

    fn min_processed(&self) -> u64 {
        self.tables.iter().map(Table::processed).min().unwrap_or(0)
    }

    fn min_written(&self) -> u64 {
        self.tables.iter().map(Table::written).min().unwrap_or(0)
    }

    /// PRECOMMIT / COMMIT are MetaService announcements: each its own step, right after the
    /// step that completed the barrier; a roll-back lowers them again.
    pub(super) fn check_transactions(&mut self) {
        if self.run.spec.no_barriers {
            return;
        }
        let p = self.min_processed();
        self.meta.precommitted = self.meta.precommitted.min(p);
        if p > self.meta.precommitted && !self.precommit_pending {
            self.precommit_pending = true;
            self.schedule(self.now_ms, Action::Precommit);
        }
        let c = self.min_written();
        self.meta.committed = self.meta.committed.min(c);
        if c > self.meta.committed && !self.commit_pending {
            self.commit_pending = true;
            self.schedule(self.now_ms, Action::Commit);
        }
    }

    /// The MetaService announces the next barrier PROCESSED in all tables: PRECOMMIT.
    pub(super) fn on_precommit(&mut self) -> Option<BarrierEventKind> {
        self.precommit_pending = false;
        let b = self.meta.precommitted + 1;
        if self.min_processed() < b {
            return None;
        }
        self.meta.precommitted = b;
        self.meta.barriers[b as usize - 1].precommit_at_ms = Some(self.now_ms);
        self.release_held(b);
        self.check_transactions();
        Some(BarrierEventKind::Precommit { barrier: b })
    }

    /// The MetaService announces the next barrier WRITTEN in all tables: COMMIT.
    pub(super) fn on_commit(&mut self) -> Option<BarrierEventKind> {
        self.commit_pending = false;
        let b = self.meta.committed + 1;
        if self.min_written() < b {
            return None;
        }
        assert!(
            b <= self.meta.precommitted && b <= self.min_processed(),
            "COMMIT {b} only after PRECOMMIT {}",
            self.meta.precommitted
        );
        self.meta.committed = b;
        self.meta.barriers[b as usize - 1].commit_at_ms = Some(self.now_ms);
        self.txn_on_commit(b);
        self.check_transactions();
        self.expire_snapshots();
        Some(BarrierEventKind::Commit { barrier: b })
    }
    /// Transaction state of every issued barrier (own checkpoints are not global: empty
    /// without barriers).
    pub fn barriers(&self) -> Vec<BarrierView> {
        self.meta
            .barriers
            .iter()
            .map(|b| {
                let n = b.barrier;
                let tables: Vec<(String, TableTxnState)> = self
                    .tables
                    .iter()
                    .map(|t| {
                        let s = if t.written() >= n {
                            TableTxnState::Written
                        } else if t.processed() >= n {
                            TableTxnState::Processed
                        } else {
                            TableTxnState::Pending
                        };
                        (t.name.clone(), s)
                    })
                    .collect();
                let state = if tables.iter().all(|(_, s)| *s == TableTxnState::Written) {
                    TransactionState::Commit
                } else if tables.iter().all(|(_, s)| *s != TableTxnState::Pending) {
                    TransactionState::Precommit
                } else {
                    TransactionState::Open
                };
                BarrierView {
                    barrier: n,
                    state,
                    tables,
                }
            })
            .collect()
    }
}
