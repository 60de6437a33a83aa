//! Recorded faults striking the topology: a job failing (before its sink has WRITTEN a barrier,
//! or at a step), its restart from the last checkpoint with the CDC ranges it replays, and a
//! revision rolling a table and everything downstream back to a barrier. Interactive faults
//! (`fail_job`, `revise`) are recorded at the current step, so a replay repeats them.

use super::event::{BarrierEventKind, ReplayRange};
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

    /// Drops everything of job `j` beyond its checkpoint `b` (state, input positions, pending
    /// actions) and rolls its sink table back to `b`; returns the barriers lost.
    fn restore(&mut self, j: usize, b: u64) -> Vec<u64> {
        self.queue.retain(|_, a| a.job() != Some(j));
        self.urgent.retain(|a| a.job() != Some(j));
        self.jobs[j].restore(b);
        let name = self.jobs[j].spec.name.clone();
        let sink = self.sink_of(j);
        let table = self.tables[sink].name.clone();
        self.meta.on_rollback(&name, &table, b);
        let lost = self.tables[sink].truncate(b);
        assert!(
            self.tables[sink].processed() <= b && self.tables[sink].written() <= b,
            "`{table}` rolled back to barrier {b}"
        );
        lost
    }

    /// Job `j` fails: its sink table loses what was not WRITTEN; it restarts after
    /// `restart_ms`.
    pub(super) fn on_fail(&mut self, j: usize) -> Option<BarrierEventKind> {
        if !self.jobs[j].up {
            return None;
        }
        let b = self.jobs[j].written;
        let lost = self.restore(j, b);
        let at = self.now_ms + self.jobs[j].spec.restart_ms;
        self.schedule(at, Action::Recover { job: j });
        self.check_transactions();
        Some(BarrierEventKind::JobFailed {
            job: self.jobs[j].spec.name.clone(),
            table: self.jobs[j].spec.sink.clone(),
            restored_barrier: b,
            lost_barriers: lost,
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
        BarrierEventKind::JobRecovered {
            job: self.jobs[j].spec.name.clone(),
            from_barrier: from,
            replay,
        }
    }

    /// Rolls `table` and every table downstream back to `barrier`; their writers restart.
    pub(super) fn on_revise(&mut self, table: &str, barrier: u64) -> BarrierEventKind {
        let mut tables = vec![table.to_string()];
        tables.extend(self.meta.downstream_tables(table));
        let mut jobs = Vec::new();
        for j in 0..self.jobs.len() {
            if tables.contains(&self.jobs[j].spec.sink) {
                let b = barrier.min(self.jobs[j].written);
                let lost = self.restore(j, b);
                assert!(
                    lost.iter().all(|l| *l > b),
                    "only barriers after {b} are lost"
                );
                let at = self.now_ms + self.jobs[j].spec.restart_ms;
                self.schedule(at, Action::Recover { job: j });
                jobs.push(self.jobs[j].spec.name.clone());
            }
        }
        self.check_transactions();
        BarrierEventKind::Revised {
            table: table.to_string(),
            barrier,
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

    /// Rolls `table` and everything downstream back to `barrier` now and replays from there
    /// (recorded as a fault). Needs timestamp barriers and a WRITTEN `barrier`.
    pub fn revise(&mut self, table: &str, barrier: u64) -> Result<(), TopologyError> {
        let fault = Fault::ReviseAtStep {
            table: table.to_string(),
            barrier,
            step: self.steps,
        };
        check_fault(&self.run.spec, &self.meta, &fault)?;
        let t = &self.tables[self.table_index(table).expect("checked")];
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
