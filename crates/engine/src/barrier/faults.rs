//! Recorded faults striking the topology: a job failing (before its sink has WRITTEN a barrier,
//! or at a step), its restart from the last checkpoint with the CDC ranges it replays, and a
//! revision rolling a table and everything downstream back to a barrier. Interactive faults
//! (`fail_job`, `revise`) are recorded at the current step, so a replay repeats them.

use super::cut::cdc_to_record;
use super::event::{BarrierEventKind, FailPhase, ReplayRange, RevisionReplay};
use super::revise::{merge, RevisedBarrier};
use super::run::{check_fault, Fault};
use super::spec::TopologyError;
use super::world::{Action, TopologyWorld};

impl TopologyWorld {
    /// Queues the faults recorded for the current step.
    pub(super) fn fire_step_faults(&mut self) {
        for i in 0..self.run.faults.len() {
            if self.fired[i] {
                continue;
            }
            match self.run.faults[i].clone() {
                Fault::FailAtStep { job, step } if step == self.steps => {
                    self.fired[i] = true;
                    let j = self.job_index(&job).expect("checked");
                    self.urgent.push_back(Action::Fail { job: j });
                }
                Fault::ReviseAtStep {
                    table,
                    barrier,
                    step,
                } if step == self.steps => {
                    self.fired[i] = true;
                    self.urgent.push_back(Action::Revise { table, barrier });
                }
                _ => {}
            }
        }
    }

    /// Queues the revisions waiting for `table` to have WRITTEN barrier `n`.
    pub(super) fn fire_written_faults(&mut self, table: &str, n: u64) {
        for i in 0..self.run.faults.len() {
            if let Fault::ReviseAfterWritten {
                table: t,
                barrier,
                written,
            } = &self.run.faults[i]
            {
                if !self.fired[i] && t == table && *written == n {
                    self.fired[i] = true;
                    self.urgent.push_back(Action::Revise {
                        table: t.clone(),
                        barrier: *barrier,
                    });
                }
            }
        }
    }

    /// A `FailBeforeWritten` fault for job `j` at barrier `n`, if one is recorded: the job
    /// fails now (`Some` of the failure), or its snapshot is held until PRECOMMIT (`Some` of
    /// `SnapshotHeld`). `None`: no fault, the snapshot goes ahead.
    pub(super) fn fail_before_written(
        &mut self,
        j: usize,
        n: u64,
    ) -> Option<Option<BarrierEventKind>> {
        let name = &self.jobs[j].spec.name;
        let i = self.run.faults.iter().enumerate().position(|(i, f)| {
            !self.fired[i]
                && matches!(f, Fault::FailBeforeWritten { job, barrier } if job == name && *barrier == n)
        })?;
        // A table other jobs read cannot reach PRECOMMIT before its snapshot (they read
        // WRITTEN barriers only), so its writer fails after PROCESSED instead of waiting.
        let read_downstream = !self.meta.readers_of(&self.jobs[j].spec.sink).is_empty();
        if self.run.spec.no_barriers || self.meta.precommitted >= n || read_downstream {
            self.fired[i] = true;
            return Some(self.on_fail(j));
        }
        self.jobs[j].held = Some(n);
        Some(Some(BarrierEventKind::SnapshotHeld {
            job: self.jobs[j].spec.name.clone(),
            barrier: n,
        }))
    }

    /// Barrier `b` is PRECOMMIT: every job holding a snapshot of `b` or earlier fails now.
    pub(super) fn release_held(&mut self, b: u64) {
        for j in 0..self.jobs.len() {
            let Some(held) = self.jobs[j].held.filter(|h| *h <= b) else {
                continue;
            };
            let name = &self.jobs[j].spec.name;
            if let Some(i) = self.run.faults.iter().position(
                |f| matches!(f, Fault::FailBeforeWritten { job, barrier } if job == name && *barrier == held),
            ) {
                self.fired[i] = true;
            }
            self.urgent.push_back(Action::Fail { job: j });
        }
    }

    /// Restores job `j` to its checkpoint ending with barrier `b` (state, input positions;
    /// pending actions dropped) and rolls its sink table back to barrier `keep` ≥ `b`: the
    /// table keeps the snapshots up to `keep`, which the job recomputes identically on replay.
    /// Returns the barriers the table lost.
    fn restore(&mut self, j: usize, b: u64, keep: u64) -> Vec<u64> {
        assert!(
            b <= keep,
            "the table keeps at least the checkpoint's barriers"
        );
        self.queue.retain(|_, a| a.job() != Some(j));
        self.urgent.retain(|a| a.job() != Some(j));
        self.jobs[j].restore(b);
        let name = self.jobs[j].spec.name.clone();
        let sink = self.sink_of(j);
        let table = self.tables[sink].name.clone();
        self.meta.on_rollback(&name, &table, keep);
        let lost = self.tables[sink].truncate(keep);
        self.txn_rollback(sink, keep);
        assert!(
            self.tables[sink].processed() <= keep && self.tables[sink].written() <= keep,
            "`{table}` rolled back to barrier {keep}"
        );
        lost
    }

    /// Job `j` fails: its sink table loses what was not WRITTEN (snapshots stay: a failure
    /// never rolls one back); the job restores its last complete checkpoint, restarts after
    /// `restart_ms` and replays the barriers after the checkpoint.
    pub(super) fn on_fail(&mut self, j: usize) -> Option<BarrierEventKind> {
        if !self.jobs[j].up {
            return None;
        }
        let in_flight = self.jobs[j].written + 1;
        let sink = self.sink_of(j);
        let phase = if self.run.spec.no_barriers {
            FailPhase::OwnCheckpoint
        } else if self.tables[sink].processed() < in_flight {
            FailPhase::BeforeProcessed
        } else if self.meta.precommitted < in_flight {
            FailPhase::BeforePrecommit
        } else {
            FailPhase::AfterPrecommit
        };
        let keep = self.jobs[j].written;
        let b = self.jobs[j].checkpoint_barrier();
        let last = if self.run.spec.no_barriers {
            self.jobs[j].processed
        } else {
            self.meta.last_issued()
        };
        let replayed: Vec<u64> = (b + 1..=last.max(b)).collect();
        let lost = self.restore(j, b, keep);
        self.jobs[j].restarts += 1;
        self.jobs[j].restored_from = b;
        let gave_up_after = self.jobs[j]
            .spec
            .restart_attempts
            .filter(|max| self.jobs[j].restarts > *max);
        if gave_up_after.is_none() {
            let at = self.now_ms + self.jobs[j].spec.restart_ms;
            self.schedule(at, Action::Recover { job: j });
        }
        self.check_transactions();
        Some(BarrierEventKind::JobFailed {
            job: self.jobs[j].spec.name.clone(),
            table: self.jobs[j].spec.sink.clone(),
            phase,
            in_flight,
            restored_checkpoint: b / self.jobs[j].per_checkpoint,
            restored_barrier: b,
            replayed_barriers: replayed,
            lost_barriers: lost,
            gave_up_after,
        })
    }

    /// Job `j` restarts from its checkpoint and replays from the next barrier.
    pub(super) fn on_recover(&mut self, j: usize) -> BarrierEventKind {
        assert!(!self.jobs[j].up, "only a failed job recovers");
        self.jobs[j].up = true;
        let from = self.jobs[j].written;
        let replay = if self.jobs[j].reads_cdc() && !self.run.spec.no_barriers {
            self.meta
                .barriers
                .iter()
                .filter(|b| b.barrier > from)
                .map(|b| ReplayRange {
                    barrier: b.barrier,
                    cdc_offset_start: b.cdc_offset_start,
                    cdc_offset_end: b.cdc_offset_end,
                })
                .collect()
        } else {
            Vec::new()
        };
        self.cdc_catch_up(j);
        if self.run.spec.no_barriers {
            let at = self.now_ms + self.jobs[j].spec.checkpoint_interval_ms;
            self.schedule(at, Action::Trigger { job: j });
        } else {
            self.schedule_reads(j);
        }
        self.after_recover(j, self.jobs[j].restored_from);
        BarrierEventKind::JobRecovered {
            job: self.jobs[j].spec.name.clone(),
            from_barrier: from,
            replay,
            revision: self.revising.remove(&j),
        }
    }

    /// Barrier `barrier` of root table `table` with the corrected rows the topology ships for
    /// it merged in; `None` when it ships none (the revision replays the same data).
    pub(super) fn revised_barrier(&self, table: &str, barrier: u64) -> Option<RevisedBarrier> {
        let revision = self.run.spec.revision(table, barrier)?;
        let columns = &self.run.spec.table(table).expect("validated").columns;
        let key: Vec<usize> = revision
            .key_columns(self.run.spec.table(table).expect("validated"))
            .iter()
            .map(|c| columns.iter().position(|t| t == c).expect("validated"))
            .collect();
        let j = self
            .jobs
            .iter()
            .position(|j| j.spec.sink == table && j.reads_cdc())
            .expect("validated: a revised table is a root table");
        let b = self
            .meta
            .barrier(barrier)
            .expect("a revised barrier was issued");
        let cdc = self.cdc_plan[b.cdc_offset_start as usize..b.cdc_offset_end as usize]
            .iter()
            .map(cdc_to_record)
            .collect();
        let records = self.jobs[j].pipeline.apply_pre(cdc);
        Some(merge(records, &revision.rows, &key, barrier))
    }

    /// Revises barrier `barrier` of `table`: the table and every table downstream roll back to
    /// the checkpoint before that barrier (snapshots included); their writers restart from it
    /// and recompute, with the corrected rows the topology ships for it, if any.
    pub(super) fn on_revise(&mut self, table: &str, barrier: u64) -> BarrierEventKind {
        let mut tables = vec![table.to_string()];
        tables.extend(self.meta.downstream_tables(table));
        let per = self.run.spec.barriers_per_checkpoint.max(1);
        let before = barrier.saturating_sub(1) / per * per;
        let revised = self.revised_barrier(table, barrier);
        let corrected_rows = self
            .run
            .spec
            .revision(table, barrier)
            .map_or(0, |r| r.rows.len() as u32);
        if let Some(r) = &revised {
            self.corrections
                .insert((table.to_string(), barrier), r.clone());
        }
        let replaced = revised
            .as_ref()
            .map(|r| r.replaced.clone())
            .unwrap_or_default();
        let mut jobs = Vec::new();
        for j in 0..self.jobs.len() {
            if tables.contains(&self.jobs[j].spec.sink) {
                let b = before.min(self.jobs[j].checkpoint_barrier());
                let lost = self.restore(j, b, b);
                assert!(
                    lost.iter().all(|l| *l > b),
                    "only barriers after {b} are lost"
                );
                let at = self.now_ms + self.jobs[j].spec.restart_ms;
                self.schedule(at, Action::Recover { job: j });
                jobs.push(self.jobs[j].spec.name.clone());
                let root = self.jobs[j].spec.sink == table;
                self.revising.insert(
                    j,
                    RevisionReplay {
                        table: table.to_string(),
                        barrier,
                        replaced: if root { replaced.clone() } else { Vec::new() },
                    },
                );
            }
        }
        self.check_transactions();
        BarrierEventKind::Revised {
            table: table.to_string(),
            barrier,
            rolled_back_to: before,
            corrected_rows,
            replaced,
            kept_rows: revised.map(|r| r.kept),
            tables,
            jobs,
        }
    }

    /// Fails a job now (recorded as a fault at the current step, so a replay repeats it): it
    /// loses what its sink table has not WRITTEN and restarts from its last checkpoint.
    pub fn fail_job(&mut self, job: &str) -> Result<(), TopologyError> {
        let fault = Fault::FailAtStep {
            job: job.to_string(),
            step: self.steps,
        };
        check_fault(&self.run.spec, &self.meta, &fault)?;
        self.run.faults.push(fault);
        self.fired.push(false);
        Ok(())
    }

    /// Revises barrier `barrier` of `table` now (recorded as a fault): it and everything
    /// downstream roll back to the checkpoint before it and recompute, with the topology's
    /// corrected rows for it if it ships some. Needs timestamp barriers and a WRITTEN `barrier`.
    pub fn revise(&mut self, table: &str, barrier: u64) -> Result<(), TopologyError> {
        let fault = Fault::ReviseAtStep {
            table: table.to_string(),
            barrier,
            step: self.steps,
        };
        check_fault(&self.run.spec, &self.meta, &fault)?;
        let t = &self.tables[self.table_index(table).expect("checked")];
        if barrier == 0 {
            return Err(TopologyError::Invalid {
                field: "revise".into(),
                reason: "barrier 0 holds no data to revise: barriers count from 1".into(),
            });
        }
        if barrier > t.written() {
            return Err(TopologyError::Invalid {
                field: "revise".into(),
                reason: format!(
                    "table `{table}` has not WRITTEN barrier {barrier} (latest: {})",
                    t.written()
                ),
            });
        }
        self.run.faults.push(fault);
        self.fired.push(false);
        Ok(())
    }
}
