//! Each job's checkpoint history as Flink's web UI and REST API show it
//! (`/jobs/:jobid/checkpoints`, `CheckpointingStatistics` in `flink-runtime`): counts —
//! `total` (the UI's "Triggered"), `in_progress`, `completed`, `failed`, `restored` — and the
//! `latest` completed, failed and restored checkpoint, read off the trace.
//!
//! With timestamp barriers a job's checkpoint k holds barriers `(k-1)·n+1 ..= k·n` (n barriers
//! per checkpoint): it is triggered when the job's source emits its last barrier, completed when
//! the job's table has WRITTEN that barrier (or recomputed it after a restore), and failed when
//! the job fails while it is in progress. Without barriers, a job's own checkpoints
//! (`CKPT`). A restart from checkpoint 0 (none completed) is a fresh start, not a restore, as in
//! Flink. Checkpoint ids are the model's (`<checkpoint, barrier>`): a re-attempt after a restore
//! reuses the id, where Flink would count on.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::event::{BarrierEvent, BarrierEventKind};

/// `counts` of Flink's `CheckpointingStatistics`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CheckpointCounts {
    /// Restores from a checkpoint since the job started (the UI's "Restored").
    pub restored: u64,
    /// Checkpoints triggered (the UI's "Triggered").
    pub total: u64,
    /// Triggered and neither completed nor failed yet.
    pub in_progress: u64,
    /// Completed.
    pub completed: u64,
    /// Failed.
    pub failed: u64,
}

/// One checkpoint of `latest`: its id and when (Flink's `trigger_timestamp`,
/// `latest_ack_timestamp` / `failure_timestamp` / `restore_timestamp`, here in simulated ms).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CheckpointRef {
    /// Checkpoint id.
    pub id: u64,
    /// Its last barrier.
    pub barrier: u64,
    /// When it completed, failed or was restored.
    pub at_ms: u64,
    /// Always false: the model takes no savepoints (`is_savepoint`).
    pub is_savepoint: bool,
    /// Why it failed (`failure_message`), for a failed one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_message: Option<String>,
}

/// `latest` of Flink's `CheckpointingStatistics` (no savepoints here).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LatestCheckpoints {
    /// The newest completed checkpoint.
    pub completed: Option<CheckpointRef>,
    /// The newest failed checkpoint.
    pub failed: Option<CheckpointRef>,
    /// The latest restore ("Latest Restore" in the UI).
    pub restored: Option<CheckpointRef>,
}

/// One job's checkpoint statistics.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CheckpointStats {
    /// Counts.
    pub counts: CheckpointCounts,
    /// The latest of each kind.
    pub latest: LatestCheckpoints,
}

/// Per job (by name), its checkpoint statistics after `events`; `per` barriers per checkpoint
/// (1 without barriers).
pub fn checkpoint_stats(
    events: &[BarrierEvent],
    per: u64,
    no_barriers: bool,
) -> BTreeMap<String, CheckpointStats> {
    let per = per.max(1);
    let mut out: BTreeMap<String, CheckpointStats> = BTreeMap::new();
    // Per job: the checkpoints in progress (ids), and the one a failure will restore.
    let mut open: BTreeMap<String, BTreeSet<u64>> = BTreeMap::new();
    let mut restoring: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for e in events {
        use BarrierEventKind as K;
        match &e.kind {
            K::SourceEmit { job, barrier, .. } if !no_barriers && barrier % per == 0 => {
                let id = barrier / per;
                if done(&out, job) < id && open.entry(job.clone()).or_default().insert(id) {
                    out.entry(job.clone()).or_default().counts.total += 1;
                }
            }
            K::CheckpointTriggered {
                job, checkpoint, ..
            } if no_barriers => {
                open.entry(job.clone()).or_default().insert(*checkpoint);
                out.entry(job.clone()).or_default().counts.total += 1;
            }
            K::SnapshotWritten { job, barrier, .. } | K::Replayed { job, barrier, .. }
                if barrier % per == 0 =>
            {
                let id = barrier / per;
                if open.get_mut(job).is_some_and(|o| o.remove(&id)) {
                    let s = out.entry(job.clone()).or_default();
                    s.counts.completed += 1;
                    s.latest.completed = Some(at(id, *barrier, e.at_ms, None));
                }
            }
            K::JobFailed {
                job,
                restored_checkpoint,
                restored_barrier,
                ..
            } => {
                let s = out.entry(job.clone()).or_default();
                for id in open.remove(job).unwrap_or_default() {
                    s.counts.failed += 1;
                    let why = format!("{job} failed while checkpoint {id} was in progress");
                    s.latest.failed = Some(at(id, id * per, e.at_ms, Some(why)));
                }
                restoring.insert(job.clone(), (*restored_checkpoint, *restored_barrier));
            }
            K::JobRecovered { job, .. } => {
                if let Some((id, barrier)) = restoring.remove(job).filter(|(id, _)| *id > 0) {
                    let s = out.entry(job.clone()).or_default();
                    s.counts.restored += 1;
                    s.latest.restored = Some(at(id, barrier, e.at_ms, None));
                }
            }
            _ => {}
        }
    }
    for (job, ids) in open {
        out.entry(job).or_default().counts.in_progress += ids.len() as u64;
    }
    out
}

fn done(out: &BTreeMap<String, CheckpointStats>, job: &str) -> u64 {
    out.get(job)
        .and_then(|s| s.latest.completed.as_ref())
        .map_or(0, |c| c.id)
}

fn at(id: u64, barrier: u64, at_ms: u64, failure_message: Option<String>) -> CheckpointRef {
    CheckpointRef {
        id,
        barrier,
        at_ms,
        is_savepoint: false,
        failure_message,
    }
}

/// A CDC-reading job's two progress markers at one moment, against the CDC stream's head: the
/// offset its latest completed checkpoint holds (what a restore resumes from) and the offset
/// the outside sees (a Kafka consumer group's committed offset: Flink's KafkaSource commits it
/// when a checkpoint's completion is notified, here the COMMIT of its barrier, and not while
/// the job is down). A lag monitor reading the group sees `head - group`; the job is only
/// `head - checkpoint` behind (apache/flink-connector-kafka PR #293, FLINK-33484).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MarkerPoint {
    /// The event after which the markers stand so.
    pub step: u64,
    /// Its time.
    pub at_ms: u64,
    /// CDC records arrived so far.
    pub head: u64,
    /// The CDC offset of the job's latest completed checkpoint.
    pub checkpoint: u64,
    /// The offset committed outside (the consumer group).
    pub group: u64,
}

/// Per job reading CDC (`cdc_jobs`), its markers after every event that moved one of them.
pub fn progress_markers(
    events: &[BarrierEvent],
    per: u64,
    cdc_jobs: &[String],
) -> BTreeMap<String, Vec<MarkerPoint>> {
    let per = per.max(1);
    let mut end: BTreeMap<u64, u64> = BTreeMap::new();
    let mut head = 0;
    // Per job: latest completed checkpoint's barrier, the group offset, and whether it is down.
    let mut state: BTreeMap<&str, (u64, u64, bool)> = cdc_jobs
        .iter()
        .map(|j| (j.as_str(), (0, 0, false)))
        .collect();
    let mut out: BTreeMap<String, Vec<MarkerPoint>> = BTreeMap::new();
    for e in events {
        use BarrierEventKind as K;
        match &e.kind {
            K::CdcRecord { record, .. } => head = head.max(record.offset + 1),
            K::BarrierIssued {
                barrier,
                cdc_offset_end,
                ..
            } => {
                end.insert(*barrier, *cdc_offset_end);
            }
            K::SnapshotWritten { job, barrier, .. } | K::Replayed { job, barrier, .. }
                if barrier % per == 0 =>
            {
                if let Some(s) = state.get_mut(job.as_str()) {
                    s.0 = s.0.max(*barrier);
                }
            }
            K::JobFailed {
                job,
                restored_barrier,
                ..
            } => {
                if let Some(s) = state.get_mut(job.as_str()) {
                    s.0 = *restored_barrier;
                    s.2 = true;
                }
            }
            K::JobRecovered { job, .. } => {
                if let Some(s) = state.get_mut(job.as_str()) {
                    s.2 = false;
                }
            }
            K::Commit { barrier } => {
                for s in state.values_mut().filter(|s| !s.2) {
                    let notified = (*barrier).min(s.0) / per * per;
                    s.1 = s.1.max(end.get(&notified).copied().unwrap_or(0));
                }
            }
            _ => continue,
        }
        for (job, s) in &state {
            let point = MarkerPoint {
                step: e.step,
                at_ms: e.at_ms,
                head,
                checkpoint: end.get(&s.0).copied().unwrap_or(0),
                group: s.1,
            };
            let series = out.entry((*job).to_string()).or_default();
            let same = series.last().is_some_and(|p| {
                (p.head, p.checkpoint, p.group) == (point.head, point.checkpoint, point.group)
            });
            if !same {
                series.push(point);
            }
        }
    }
    out
}
