//! The explorer's side of shards: which runs this process runs, and its report (the
//! [`super::shard`] module says why this split merges exactly).

use super::dedup::Key;
use super::fault::Origin;
use super::job::Job;
use super::shard::{MatrixCell, ShardReport};
use super::Explorer;
use std::collections::hash_map::DefaultHasher;
use std::hash::Hasher;

impl Explorer {
    /// Whether a job is of the last level: its faults reach the depth, so it has no children.
    pub(crate) fn is_last(&self, job: &Job) -> bool {
        job.crash_count() + u32::from(self.variants[job.variant].fault.is_some()) >= self.depth
    }

    /// The job, if this process runs it (see the module docs): always without shards, and for a
    /// run with children; a last-level run only when its key (or, without one, its place in
    /// the order) falls to this shard. A job queued again stays with the shard that owned it.
    pub(crate) fn claim(&mut self, mut job: Job, key: Option<&Key>) -> Option<Job> {
        let Some(shard) = self.options.shard else {
            return Some(job);
        };
        if job.owned || !self.is_last(&job) {
            return Some(job);
        }
        let ordinal = self.last_ordinal;
        self.last_ordinal += 1;
        job.owned = shard.owns(key.map_or(ordinal, Key::spread));
        job.owned.then_some(job)
    }

    /// The report of a sharded exploration (its options name the shard), with reproducing
    /// commands for `origin`; `None` without a shard.
    pub fn shard_report(&self, origin: &Origin) -> Option<ShardReport> {
        let shard = self.options.shard?;
        Some(ShardReport {
            shard,
            space: self.space(),
            origin: origin.clone(),
            summary: super::shard::ordered(self.summary()).with_commands(origin),
            shared: self.graph.counts_where(true),
            inexact_shared: self.inexact_shared,
            tally: self.tally.raw(),
            cells: self
                .matrix
                .iter()
                .map(|(&(point, batch), &(site, verdict))| MatrixCell {
                    point,
                    batch,
                    site,
                    verdict,
                })
                .collect(),
        })
    }

    /// What identifies this exploration across processes.
    fn space(&self) -> String {
        let json = serde_json::to_string(&self.base).expect("a scenario serializes");
        let mut h = DefaultHasher::new();
        h.write(json.as_bytes());
        format!(
            "{} · seed {} · depth {} · every_event {} · prune {} · forking {} · batchscope {} · scenario {:016x}",
            self.base.name,
            self.base.seed,
            self.depth,
            self.options.every_event,
            self.options.prune,
            self.forking,
            env!("CARGO_PKG_VERSION"),
            h.finish()
        )
    }
}
