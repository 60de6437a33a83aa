//! Crashes and query failures: crash points armed as recorded inputs, the one mapping from
//! events to crash points ([`World::crash_sites`]), and what a crash takes with it (the
//! volatile state of the driver, the source and the sink's staged output).

use super::{Damage, Driver, Phase, Stalled, World};
use crate::microbatch::event::EventKind;
use crate::microbatch::scenario::{CrashKind, CrashPoint, Fault, FaultKind, Restart};
use crate::microbatch::sink::Sink as _;
use crate::microbatch::source::SourceState;

impl World {
    /// Arms one more crash (a recorded input: replaying the scenario with it gives the same trace).
    pub fn arm_crash(&mut self, point: CrashPoint) {
        self.scenario.crashes.push(point);
        self.pending_crashes.push(point);
    }

    /// Crashes the driver right after the last event (the dashboard's Crash button). Recorded
    /// in the scenario as `crash_after_events`, so a replay gives the same trace.
    pub fn crash_now(&mut self) {
        if let Some(last) = self.events.last().map(|e| e.seq) {
            if !matches!(self.phase, Phase::Down { .. }) && self.crash_next.is_none() {
                self.scenario.crash_after_events.push(last);
                self.crash_next = Some((None, last));
            }
        }
    }

    /// What the world carries into its future besides its public fields and its history
    /// (events, crash sites, fired crashes): the PRNG's position, the clock, the driver run,
    /// the phase, armed crashes and faults, and what the next steps already hold. With the
    /// public durable and volatile state it says whether two worlds have the same future.
    pub fn private_state(&self) -> impl std::fmt::Debug + '_ {
        (
            self.rng.word_pos(),
            self.now_ms,
            self.run,
            &self.phase,
            &self.pending_crashes,
            &self.pending_faults,
            self.delete_checkpoint,
            self.damage,
            self.stalled,
            &self.crash_next,
            &self.follow_ups,
            self.last_task_done,
        )
    }

    pub(super) fn arm_if_crash_site(&mut self, kind: &EventKind) {
        let tasks_done = self.driver.batch.as_ref().map_or(0, |b| b.tasks_done);
        let site = match kind {
            EventKind::GetOffset { batch_id, .. } => Some((CrashKind::GetOffset, *batch_id)),
            EventKind::OffsetLogWritten { batch_id, .. } => Some((CrashKind::OffsetLog, *batch_id)),
            EventKind::SourceCommit { batch_id, .. } => {
                Some((CrashKind::SourceCommit, batch_id + 1))
            }
            EventKind::GetBatch { batch_id, .. } => Some((CrashKind::GetBatch, *batch_id)),
            EventKind::TaskFinished { batch_id, .. }
            | EventKind::MetaRowWritten { batch_id, .. }
            | EventKind::StateFile { batch_id, .. }
                if tasks_done == 1 && self.task_just_done() =>
            {
                Some((CrashKind::Task, *batch_id))
            }
            EventKind::StateFile {
                batch_id,
                renamed_from: None,
                ..
            } => Some((CrashKind::StatePrepared, *batch_id)),
            EventKind::SinkCommitted { batch_id, .. } => Some((CrashKind::SinkCommit, *batch_id)),
            EventKind::AddBatch {
                batch_id,
                skipped: true,
            } => Some((CrashKind::SinkCommit, *batch_id)),
            EventKind::CommitLogWritten { batch_id, .. } => Some((CrashKind::CommitLog, *batch_id)),
            // Async progress tracking: the step that would have written the entry.
            EventKind::LogKeptInMemory { batch_id, path } if path.starts_with("offsets/") => {
                Some((CrashKind::OffsetLog, *batch_id))
            }
            EventKind::LogKeptInMemory { batch_id, .. } => Some((CrashKind::CommitLog, *batch_id)),
            _ => None,
        };
        let seq = self.events.len() as u64;
        if let Some(point) = self.fault_stop(site) {
            // A crash armed at the same point is this very crash; otherwise the fault's stop is
            // not one of the scenario's crash points (no name in the report).
            let armed = self.pending_crashes.iter().position(|p| *p == point);
            if let Some(i) = armed {
                self.pending_crashes.remove(i);
            }
            self.sites.push((seq, point));
            self.crash_next = Some((armed.map(|_| point), seq));
            return;
        }
        if let Some((kind, batch_id)) = site {
            let point = CrashPoint { kind, batch_id };
            self.sites.push((seq, point));
            if let Some(i) = self.pending_crashes.iter().position(|p| *p == point) {
                self.pending_crashes.remove(i);
                self.crash_next = Some((Some(point), seq));
                return;
            }
        }
        if self.crash_next.is_none()
            && self.scenario.crash_after_events.contains(&seq)
            && !matches!(self.phase, Phase::Down { .. })
        {
            self.crash_next = Some((None, seq));
        }
    }

    /// Whether the last event completed a task (so `task@N` fires after the first complete task).
    pub(super) fn task_just_done(&self) -> bool {
        self.last_task_done
    }

    pub(super) fn crash(&mut self, point: Option<CrashPoint>, after_seq: u64) -> EventKind {
        if let Some(Stalled::Stopping(batch_id)) = self.stalled {
            // A crash armed at the same point kills the driver: nothing is left to stall.
            if point.is_none() {
                return self.stall(batch_id);
            }
            self.stalled = None;
        }
        let mut lost = vec![];
        if let Some(b) = &self.driver.batch {
            lost.push(match b.plan.len() {
                0 => format!("batch {} in flight (no task planned yet)", b.batch_id),
                n => format!(
                    "batch {} in flight ({} of {n} tasks finished)",
                    b.batch_id, b.tasks_done
                ),
            });
        }
        let staged = self.sink_contract().abort_attempt(&mut self.sink);
        if staged > 0 {
            lost.push(format!("{staged} staged sink rows"));
        }
        let contract = self.contract();
        lost.extend(contract.drop_volatile(&mut self.source, &mut self.counters));
        if self.driver.committed.is_some() {
            lost.push("in-memory committed offsets".into());
        }
        self.drop_volatile();
        self.phase = self.after_failure();
        if self.delete_checkpoint {
            lost.push(format!(
                "the query, stopped after commits/{} (checkpoint-deleted): its checkpoint folder is deleted before the restart",
                self.checkpoint.latest_commit_id().unwrap_or(0)
            ));
        }
        match self.damage {
            Some(Damage::TornOffsets(b)) => lost.push(format!(
                "offsets/{b}'s bytes: written in place and not yet synced when the machine lost power (torn-offset-log)"
            )),
            Some(Damage::MetadataLost) => {
                lost.push("the checkpoint's metadata file, lost before the restart (metadata-lost)".into())
            }
            None => {}
        }
        if self.phase == Phase::Stopped {
            lost.push(
                "the query: restart is none, no operator or job scheduler starts it again".into(),
            );
        }
        EventKind::Crashed {
            point,
            after_seq,
            lost,
        }
    }

    pub(super) fn drop_volatile(&mut self) {
        self.sink_contract().new_driver(&mut self.sink);
        self.source = SourceState::default();
        self.driver = Driver::default();
        self.last_task_done = false;
    }

    /// A failed query (a sink write failed, a task failed too often, a checkpoint write was
    /// refused): the staged output and the volatile state are dropped. Spark does not restart
    /// it; the scenario's `restart` says who does (by default a job scheduler, after
    /// `restart_delay_ms`), or that nobody does.
    pub(super) fn fail_query(&mut self, reason: String) -> EventKind {
        self.sink_contract().abort_attempt(&mut self.sink);
        self.drop_volatile();
        self.phase = self.after_failure();
        let who = match self.phase {
            Phase::Stopped => "restart is none: the query stays failed".to_string(),
            Phase::Down { until_ms } => format!(
                "Spark does not restart a failed query; a job scheduler restarts it after {} ms",
                until_ms - self.now_ms
            ),
            _ => unreachable!("after a failure the query is down or stopped"),
        };
        EventKind::QueryFailed {
            reason: format!("{reason}; {who}"),
        }
    }

    /// The same world after a stop (`restart: none`), started again by an operator after the
    /// default restart delay, with no further failure ([`World::without_failures`]): what the
    /// next start would deliver from the checkpoint and the upstream.
    /// The oracle counts the records it delivers as unread by the stopped query, not lost.
    /// `None` unless the query is stopped.
    pub fn started_again(&self) -> Option<World> {
        if self.phase != Phase::Stopped {
            return None;
        }
        let mut w = self.without_failures();
        w.scenario.restart = None;
        w.delete_checkpoint = false;
        w.damage = None;
        w.phase = w.after_failure();
        Some(w)
    }

    /// The same world with no failure still to come: armed crashes (named points, crashes
    /// after an event, a crash whose site is the last event and that would fire next), armed
    /// faults and sink outages that have not begun are dropped. What has happened stays: a
    /// crash already fired, a query down or stopped, an outage in progress. Running it on is
    /// the failure-free continuation of the run from this moment.
    pub fn without_failures(&self) -> World {
        let mut w = self.clone();
        let now = w.now_ms;
        w.scenario.crash_after_events.clear();
        w.pending_crashes.clear();
        w.pending_faults.clear();
        if w.crash_next.take().is_some() {
            // A `checkpoint-deleted` or `torn-offset-log` fault whose stop has not fired yet
            // goes with it.
            w.delete_checkpoint = false;
            w.damage = None;
            if matches!(w.stalled, Some(Stalled::Stopping(_))) {
                w.stalled = None;
            }
        }
        w.scenario.sink.outages.retain(|o| o.from_ms <= now);
        w.sink.spec.outages.retain(|o| o.from_ms <= now);
        w
    }

    /// The same world with no driver crash still to come (armed crash points, crashes after an
    /// event, a crash whose site is the last event and that would fire next); armed faults stay,
    /// a fault's own stop too. What the explorer's runs keep: their faults, not their crashes.
    pub fn without_crashes(&self) -> World {
        let mut w = self.clone();
        w.scenario.crash_after_events.clear();
        w.pending_crashes.clear();
        let fault_stop = w.delete_checkpoint
            || w.damage.is_some()
            || matches!(w.stalled, Some(Stalled::Stopping(_)));
        if !fault_stop {
            w.crash_next = None;
        }
        w
    }

    /// Where a failed or crashed query goes: down until the scenario's restart, or stopped.
    fn after_failure(&self) -> Phase {
        let delay = match self.scenario.restart {
            Some(Restart::None) => return Phase::Stopped,
            Some(Restart::After { after_ms }) => after_ms,
            None => self.scenario.restart_delay_ms,
        };
        Phase::Down {
            until_ms: self.now_ms + delay,
        }
    }

    /// A fault that stops the query at this event, armed for what it does to the folder before
    /// the next start: `checkpoint-deleted@N` after `commits/N` (the folder is deleted),
    /// `torn-offset-log@N` after the sink wrote batch N (`offsets/N` is found empty).
    fn fault_stop(&mut self, site: Option<(CrashKind, u64)>) -> Option<CrashPoint> {
        let (crash, batch_id) = site?;
        let kinds: &[FaultKind] = match crash {
            CrashKind::CommitLog => &[FaultKind::CheckpointDeleted],
            CrashKind::SinkCommit => &[
                FaultKind::TornOffsetLog,
                FaultKind::MetadataLost,
                FaultKind::SecondDriver,
            ],
            _ => return None,
        };
        let kind = *kinds
            .iter()
            .find(|&&kind| self.pending_faults.contains(&Fault { kind, batch_id }))?;
        self.take_fault(Fault { kind, batch_id });
        match kind {
            FaultKind::CheckpointDeleted => self.delete_checkpoint = true,
            FaultKind::TornOffsetLog => self.damage = Some(Damage::TornOffsets(batch_id)),
            FaultKind::SecondDriver => self.stalled = Some(Stalled::Stopping(batch_id)),
            _ => self.damage = Some(Damage::MetadataLost),
        }
        Some(CrashPoint {
            kind: crash,
            batch_id,
        })
    }

    /// `second-driver@N`: the driver stalls after the sink wrote batch N. Its volatile state is
    /// out of the world from now on (the world runs the second driver); a job scheduler that
    /// takes it for dead starts the second driver after the restart delay.
    fn stall(&mut self, batch_id: u64) -> EventKind {
        self.stalled = Some(Stalled::Asleep(batch_id));
        self.sink_contract().abort_attempt(&mut self.sink);
        self.drop_volatile();
        self.phase = self.after_failure();
        EventKind::DriverStalled { batch_id }
    }

    /// After `commits/N` is written: a first driver asleep on batch N wakes and writes
    /// `commits/N` too. `HDFSMetadataLog.add` finds the file and returns false, and
    /// MicroBatchExecution throws CONCURRENT_STREAM_LOG_UPDATE
    /// (`QueryExecutionErrors.concurrentStreamLogUpdate`): the first driver's query fails.
    /// (When it wakes is this model's choice: after the second driver's commit, so the second
    /// wins the race; the other order fails the second driver the same way.)
    pub(super) fn wake_stalled_driver(&mut self, batch_id: u64) {
        if self.stalled == Some(Stalled::Asleep(batch_id)) {
            self.stalled = None;
            self.follow_ups.push_back(EventKind::DriverLostLogRace {
                batch_id,
                error: format!(
                    "[CONCURRENT_STREAM_LOG_UPDATE] Concurrent update to the log. Multiple \
                     streaming jobs detected for {batch_id}. Please make sure only one \
                     streaming job runs on a specific checkpoint location at a time."
                ),
            });
        }
    }

    /// Takes an armed fault if it is pending; whether it was.
    pub(super) fn take_fault(&mut self, fault: Fault) -> bool {
        match self.pending_faults.iter().position(|f| *f == fault) {
            Some(i) => {
                self.pending_faults.remove(i);
                true
            }
            None => false,
        }
    }

    /// An operator deletes the checkpoint folder while the query is down: the next start is a
    /// new query (new `metadata`, new `sources/0/0` from `startingOffsets`). The sink and the
    /// upstream keep what they hold.
    pub(super) fn delete_checkpoint_folder(&mut self) -> EventKind {
        let files = self.checkpoint.files().count() as u64;
        self.checkpoint = crate::checkpoint::CheckpointFolder::new();
        EventKind::CheckpointDeleted { files }
    }

    /// What a fault did to the folder while the query was down, found at the next start.
    pub(super) fn damage_folder(&mut self, damage: Damage) -> EventKind {
        match damage {
            Damage::TornOffsets(batch_id) => self.tear_offset_log(batch_id),
            Damage::MetadataLost => {
                self.checkpoint.delete(crate::checkpoint::METADATA_FILE);
                EventKind::MetadataLost
            }
        }
    }

    /// The machine is back after a `torn-offset-log` fault: `offsets/N` was written in place
    /// and never synced, so it is there but empty (`CheckpointFileManager.createAtomic` writes
    /// a temporary file and renames it, which a store without an atomic rename cannot do).
    fn tear_offset_log(&mut self, batch_id: u64) -> EventKind {
        let path = crate::checkpoint::offsets_path(batch_id);
        let bytes = self.checkpoint.read(&path).map_or(0, |b| b.len() as u64);
        self.checkpoint.delete(&path);
        self.checkpoint
            .create_atomic(&path, Vec::new())
            .expect("the entry was just removed");
        EventKind::OffsetLogTorn { batch_id, bytes }
    }
}
