//! The MetaService of FLIP-276 (SEMANTICS §5.1): registers jobs and tables, refuses cycles and
//! second writers, issues global timestamp barriers with their `<barrier, offset>` mapping,
//! tracks barrier progress per job and snapshots per table, and answers lineage queries.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::spec::{is_cdc_source, TopologyError, TopologySpec};

/// A registered ETL job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct JobRegistration {
    /// Job name.
    pub name: String,
    /// Tables it reads (or a CDC source).
    pub sources: Vec<String>,
    /// The table it writes.
    pub sink: String,
}

/// A registered table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TableRegistration {
    /// Table name.
    pub name: String,
    /// The one job writing it.
    pub writer: String,
    /// Jobs reading it.
    pub readers: Vec<String>,
    /// Root table: written from the external CDC source.
    pub root: bool,
}

/// A global timestamp barrier issued by the MetaService.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BarrierRecord {
    /// Barrier number, from 1.
    pub barrier: u64,
    /// Checkpoint it belongs to (`<checkpoint, barrier>`: checkpoint c holds
    /// `barriers_per_checkpoint` consecutive barriers).
    pub checkpoint: u64,
    /// When it was issued.
    pub issued_at_ms: u64,
    /// First CDC offset of the barrier (`<barrier, offset>`: replays read the same records).
    pub cdc_offset_start: u64,
    /// One past the last CDC offset of the barrier.
    pub cdc_offset_end: u64,
    /// When it was last announced PRECOMMIT (processed in all tables).
    pub precommit_at_ms: Option<u64>,
    /// When it was announced COMMIT (written in all tables).
    pub commit_at_ms: Option<u64>,
}

/// Barrier progress of one job as the MetaService sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct JobProgress {
    /// Latest barrier (or own checkpoint) processed by its sink.
    pub processed: u64,
    /// Completed barriers: those with a snapshot in its sink table, in order.
    pub completed: Vec<u64>,
    /// Barriers recomputed after a failover that its table had already WRITTEN, in order.
    pub replayed: Vec<u64>,
}

/// A snapshot of a table and the barrier it holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SnapshotRef {
    /// Paimon snapshot id.
    pub snapshot_id: u64,
    /// Barrier (commitIdentifier) of the snapshot.
    pub barrier: u64,
}

/// A snapshot past the retention that a reader kept from expiring.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeldSnapshot {
    /// Paimon snapshot id.
    pub snapshot_id: u64,
    /// Barrier it holds.
    pub barrier: u64,
    /// Who held it: `rr:<query>` (a Repeatable Read reader, with its consistency) or a job.
    pub held_by: Vec<String>,
}

/// The MetaService: coordinator of the ETL topology.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MetaService {
    /// Registered jobs, in file order.
    pub jobs: Vec<JobRegistration>,
    /// Registered tables, in file order.
    pub tables: Vec<TableRegistration>,
    /// Issued barriers, in order.
    pub barriers: Vec<BarrierRecord>,
    /// Barrier progress per job.
    pub job_progress: BTreeMap<String, JobProgress>,
    /// Snapshots per table.
    pub table_snapshots: BTreeMap<String, Vec<SnapshotRef>>,
    /// Latest barrier announced PRECOMMIT (all earlier ones are too).
    pub precommitted: u64,
    /// Latest barrier announced COMMIT.
    pub committed: u64,
    /// Barriers per checkpoint of every job.
    pub barriers_per_checkpoint: u64,
    /// Snapshots expired per table (no reader used them any more).
    pub expired: BTreeMap<String, Vec<SnapshotRef>>,
    /// Snapshots past the retention that a reader held back from expiry, per table.
    pub held: BTreeMap<String, Vec<HeldSnapshot>>,
    /// Per table, the CDC sources it is computed from (see [`Self::cdc_sources_of`]).
    #[serde(skip)]
    cdc_sources: BTreeMap<String, Vec<String>>,
}

impl MetaService {
    /// Registers every job and table of a topology; refuses invalid ones, cycles, second writers.
    pub fn register(spec: &TopologySpec) -> Result<Self, TopologyError> {
        spec.validate()?;
        let jobs = spec
            .jobs
            .iter()
            .map(|j| JobRegistration {
                name: j.name.clone(),
                sources: j.sources.clone(),
                sink: j.sink.clone(),
            })
            .collect::<Vec<_>>();
        let tables = spec
            .tables
            .iter()
            .map(|t| {
                let writer = spec
                    .jobs
                    .iter()
                    .find(|j| j.sink == t.name)
                    .expect("validated");
                TableRegistration {
                    name: t.name.clone(),
                    writer: writer.name.clone(),
                    readers: spec
                        .jobs
                        .iter()
                        .filter(|j| j.sources.contains(&t.name))
                        .map(|j| j.name.clone())
                        .collect(),
                    root: writer.sources.iter().any(|s| is_cdc_source(s)),
                }
            })
            .collect();
        Ok(MetaService {
            job_progress: jobs
                .iter()
                .map(|j| (j.name.clone(), JobProgress::default()))
                .collect(),
            table_snapshots: spec
                .tables
                .iter()
                .map(|t| (t.name.clone(), Vec::new()))
                .collect(),
            jobs,
            tables,
            barriers: Vec::new(),
            precommitted: 0,
            committed: 0,
            barriers_per_checkpoint: spec.barriers_per_checkpoint.max(1),
            expired: BTreeMap::new(),
            held: BTreeMap::new(),
            cdc_sources: BTreeMap::new(),
        }
        .with_cdc_sources())
    }

    /// Records each table's CDC sources once (queries ask after every step).
    fn with_cdc_sources(mut self) -> Self {
        let names: Vec<String> = self.tables.iter().map(|t| t.name.clone()).collect();
        for t in names {
            let sources = self.walk_cdc_sources(&t);
            self.cdc_sources.insert(t, sources);
        }
        self
    }

    /// The job writing a table.
    pub fn writer_of(&self, table: &str) -> Option<&str> {
        self.tables
            .iter()
            .find(|t| t.name == table)
            .map(|t| t.writer.as_str())
    }

    /// The jobs reading a table.
    pub fn readers_of(&self, table: &str) -> Vec<&str> {
        self.tables
            .iter()
            .find(|t| t.name == table)
            .map(|t| t.readers.iter().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// Every table the given one is computed from, transitively (not itself), sorted.
    pub fn upstream_tables(&self, table: &str) -> Vec<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![table.to_string()];
        while let Some(t) = todo.pop() {
            let Some(job) = self.writer_of(&t).and_then(|w| self.job(w)) else {
                continue;
            };
            for s in &job.sources {
                if !is_cdc_source(s) && seen.insert(s.clone()) {
                    todo.push(s.clone());
                }
            }
        }
        seen.into_iter().collect()
    }

    /// The CDC sources a table is computed from, transitively, sorted (empty for an unknown
    /// table).
    pub fn cdc_sources_of(&self, table: &str) -> &[String] {
        self.cdc_sources.get(table).map_or(&[], Vec::as_slice)
    }

    fn walk_cdc_sources(&self, table: &str) -> Vec<String> {
        let mut out = BTreeSet::new();
        for t in self
            .upstream_tables(table)
            .iter()
            .chain([&table.to_string()])
        {
            let Some(job) = self.writer_of(t).and_then(|w| self.job(w)) else {
                continue;
            };
            out.extend(job.sources.iter().filter(|s| is_cdc_source(s)).cloned());
        }
        out.into_iter().collect()
    }

    /// Every table computed from the given one, transitively (not itself), sorted.
    pub fn downstream_tables(&self, table: &str) -> Vec<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![table.to_string()];
        while let Some(t) = todo.pop() {
            for r in self.readers_of(&t) {
                let sink = &self.job(r).expect("registered").sink;
                if seen.insert(sink.clone()) {
                    todo.push(sink.clone());
                }
            }
        }
        seen.into_iter().collect()
    }

    /// A registered job.
    pub fn job(&self, name: &str) -> Option<&JobRegistration> {
        self.jobs.iter().find(|j| j.name == name)
    }

    /// Issues the next global barrier; it covers the CDC records from the previous barrier's end
    /// up to `cdc_offset_end`. Returns its number.
    pub fn issue_barrier(&mut self, at_ms: u64, cdc_offset_end: u64) -> u64 {
        let start = self.barriers.last().map_or(0, |b| b.cdc_offset_end);
        let barrier = self.barriers.len() as u64 + 1;
        self.barriers.push(BarrierRecord {
            checkpoint: self.checkpoint_of(barrier),
            barrier,
            issued_at_ms: at_ms,
            cdc_offset_start: start,
            cdc_offset_end,
            precommit_at_ms: None,
            commit_at_ms: None,
        });
        barrier
    }

    /// The checkpoint holding barrier `n` (`<checkpoint, barrier>`).
    pub fn checkpoint_of(&self, n: u64) -> u64 {
        n.div_ceil(self.barriers_per_checkpoint)
    }

    /// The `<checkpoint, barrier>` mapping of the issued barriers: each checkpoint with its
    /// barriers, in order.
    pub fn checkpoint_barriers(&self) -> Vec<(u64, Vec<u64>)> {
        let mut out: Vec<(u64, Vec<u64>)> = Vec::new();
        for b in &self.barriers {
            match out.last_mut() {
                Some((c, list)) if *c == b.checkpoint => list.push(b.barrier),
                _ => out.push((b.checkpoint, vec![b.barrier])),
            }
        }
        out
    }

    /// The issued barrier `n`.
    pub fn barrier(&self, n: u64) -> Option<&BarrierRecord> {
        n.checked_sub(1).and_then(|i| self.barriers.get(i as usize))
    }

    /// Latest issued barrier (0 before the first).
    pub fn last_issued(&self) -> u64 {
        self.barriers.len() as u64
    }

    pub(crate) fn on_processed(&mut self, job: &str, barrier: u64) {
        if let Some(p) = self.job_progress.get_mut(job) {
            p.processed = barrier;
        }
    }

    /// A recovering job recomputed barrier `barrier`, already completed before its failure.
    pub(crate) fn on_replayed(&mut self, job: &str, barrier: u64) {
        if let Some(p) = self.job_progress.get_mut(job) {
            if !p.completed.contains(&barrier) {
                p.completed.push(barrier);
            }
            p.replayed.push(barrier);
        }
    }

    pub(crate) fn on_written(&mut self, job: &str, table: &str, snapshot_id: u64, barrier: u64) {
        if let Some(p) = self.job_progress.get_mut(job) {
            p.completed.push(barrier);
        }
        if let Some(s) = self.table_snapshots.get_mut(table) {
            s.push(SnapshotRef {
                snapshot_id,
                barrier,
            });
        }
    }

    /// Whether the snapshot of `barrier` in `table` has expired.
    pub fn is_expired(&self, table: &str, barrier: u64) -> bool {
        self.expired
            .get(table)
            .is_some_and(|l| l.iter().any(|s| s.barrier == barrier))
    }

    pub(crate) fn expire(&mut self, table: &str, s: SnapshotRef) {
        self.expired.entry(table.to_string()).or_default().push(s);
    }

    pub(crate) fn hold(&mut self, table: &str, s: SnapshotRef, by: Vec<String>) {
        let list = self.held.entry(table.to_string()).or_default();
        match list.iter_mut().find(|h| h.barrier == s.barrier) {
            Some(h) => {
                for b in by {
                    if !h.held_by.contains(&b) {
                        h.held_by.push(b);
                    }
                }
            }
            None => list.push(HeldSnapshot {
                snapshot_id: s.snapshot_id,
                barrier: s.barrier,
                held_by: by,
            }),
        }
    }

    /// A job restarts from `barrier`: forget its progress beyond, and the table's snapshots beyond.
    pub(crate) fn on_rollback(&mut self, job: &str, table: &str, barrier: u64) {
        if let Some(p) = self.job_progress.get_mut(job) {
            p.processed = p.processed.min(barrier);
            p.completed.retain(|b| *b <= barrier);
        }
        if let Some(s) = self.table_snapshots.get_mut(table) {
            s.retain(|r| r.barrier <= barrier);
        }
        if let Some(s) = self.expired.get_mut(table) {
            s.retain(|r| r.barrier <= barrier);
        }
        if let Some(s) = self.held.get_mut(table) {
            s.retain(|r| r.barrier <= barrier);
        }
    }
}
