//! Flink's exactly-once two-phase Kafka sink and the committer's re-notification, on top of the
//! FLIP-276 world: a `kafka` table's barrier is one Kafka transaction, opened at its first write,
//! pre-committed when the job's checkpoint holds it (WRITTEN) and committed when its COMMIT is
//! notified — or, when the job was down then, when the job restores the checkpoint. The broker
//! aborts a transaction still open `transaction_timeout_ms` after it began, so a job down longer
//! than that restores a checkpoint whose transaction is gone: its rows are lost (Flink's Kafka
//! connector documentation; apache/flink PR #16941, FLINK-23839). After every restore the
//! restored checkpoint is notified complete again (`CheckpointListener`: notifications are at
//! least once); a committer that throws on a repeat fails the job on every restart
//! (apache/seatunnel PR #12150) until the restart strategy gives up.
//!
//! Simplifications, said where students read them: the transaction's clock starts at the
//! barrier's first write (Kafka starts it at the first record sent in it); one transaction per
//! barrier; the abort is seen when the commit is tried.

use super::event::BarrierEventKind;
use super::fault::Fault;
use super::sinks::{Committer, TableKind, Txn, TxnState};
use super::world::{Action, TopologyWorld};

impl TopologyWorld {
    pub(super) fn is_kafka(&self, table: usize) -> bool {
        self.run
            .spec
            .table(&self.tables[table].name)
            .is_some_and(|t| t.kind == TableKind::Kafka)
    }

    /// Rows were written into barrier `n` of table `t`: a Kafka table opens its transaction.
    pub(super) fn txn_write(&mut self, t: usize, n: u64) {
        if self.is_kafka(t) {
            let now = self.now_ms;
            self.txns.entry((t, n)).or_insert(Txn {
                opened_at_ms: now,
                state: TxnState::Open,
            });
        }
    }

    /// Table `t` WROTE barrier `n` (the job's checkpoint holds it): its transaction is
    /// pre-committed. Then a recorded `FailAfterWritten` of job `j` strikes.
    pub(super) fn after_written(&mut self, j: usize, t: usize, n: u64) {
        if let Some(txn) = self.txns.get_mut(&(t, n)) {
            txn.state = TxnState::Precommitted;
        }
        let name = &self.jobs[j].spec.name;
        if let Some(i) = self.run.faults.iter().enumerate().position(|(i, f)| {
            !self.fired[i]
                && matches!(f, Fault::FailAfterWritten { job, barrier } if job == name && *barrier == n)
        }) {
            self.fired[i] = true;
            self.urgent.push_back(Action::Fail { job: j });
        }
    }

    /// A restore drops the transactions of barriers after what the table keeps: Flink aborts
    /// them as it restores, and the job writes them again.
    pub(super) fn txn_rollback(&mut self, t: usize, keep: u64) {
        self.txns
            .retain(|(table, n), x| *table != t || *n <= keep || x.state != TxnState::Open);
    }

    /// Barrier `b` is COMMIT: every running writer of a Kafka table commits its transaction.
    pub(super) fn txn_on_commit(&mut self, b: u64) {
        for j in 0..self.jobs.len() {
            let t = self.sink_of(j);
            let pending = self
                .txns
                .get(&(t, b))
                .is_some_and(|x| x.state == TxnState::Precommitted);
            if pending && self.jobs[j].up {
                self.urgent
                    .push_back(Action::TxnResolve { job: j, barrier: b });
            }
        }
    }

    /// Job `j` restarted: it commits the pre-committed transactions its checkpoint holds whose
    /// COMMIT was notified while it was down, and the restored checkpoint is notified again.
    pub(super) fn after_recover(&mut self, j: usize, restored: u64) {
        let t = self.sink_of(j);
        let committed = self.meta.committed;
        let waiting: Vec<u64> = self
            .txns
            .iter()
            .filter(|((table, n), x)| {
                *table == t && *n <= committed && x.state == TxnState::Precommitted
            })
            .map(|((_, n), _)| *n)
            .collect();
        for n in waiting {
            self.urgent
                .push_back(Action::TxnResolve { job: j, barrier: n });
        }
        if self.jobs[j].spec.committer.is_some() && restored > 0 {
            self.urgent.push_back(Action::Renotify {
                job: j,
                barrier: restored,
            });
        }
    }

    /// Job `j` commits the transaction of barrier `n`, unless the broker aborted it first.
    pub(super) fn on_txn_resolve(&mut self, j: usize, n: u64) -> Option<BarrierEventKind> {
        let t = self.sink_of(j);
        let timeout_ms = self
            .run
            .spec
            .table(&self.tables[t].name)
            .map_or(0, |s| s.transaction_timeout());
        let now = self.now_ms;
        let txn = self.txns.get_mut(&(t, n))?;
        if txn.state != TxnState::Precommitted {
            return None;
        }
        let aborted = now > txn.opened_at_ms + timeout_ms;
        txn.state = if aborted {
            TxnState::Aborted
        } else {
            TxnState::Committed
        };
        let opened_at_ms = txn.opened_at_ms;
        let records = self.tables[t].barrier(n).map_or(0, |b| b.records);
        let (job, table) = (self.jobs[j].spec.name.clone(), self.tables[t].name.clone());
        Some(if aborted {
            BarrierEventKind::TransactionAborted {
                job,
                table,
                barrier: n,
                records,
                opened_at_ms,
                timeout_ms,
            }
        } else {
            BarrierEventKind::TransactionCommitted {
                job,
                table,
                barrier: n,
                records,
            }
        })
    }

    /// The restored checkpoint ending with barrier `b` is notified complete again.
    pub(super) fn on_renotify(&mut self, j: usize, b: u64) -> Option<BarrierEventKind> {
        let committer = self.jobs[j].spec.committer?;
        // Its commit already happened if the MetaService announced COMMIT of `b` before.
        let repeat = b <= self.meta.committed;
        let threw = repeat && committer == Committer::ThrowsOnRepeat;
        if threw {
            self.urgent.push_back(Action::Fail { job: j });
        }
        Some(BarrierEventKind::CommitRenotified {
            job: self.jobs[j].spec.name.clone(),
            checkpoint: b / self.jobs[j].per_checkpoint,
            barrier: b,
            repeat,
            threw,
        })
    }

    /// The Kafka transactions of the run (table, barrier, transaction), in order.
    pub fn transactions(&self) -> Vec<(String, u64, Txn)> {
        self.txns
            .iter()
            .map(|((t, n), x)| (self.tables[*t].name.clone(), *n, *x))
            .collect()
    }
}
