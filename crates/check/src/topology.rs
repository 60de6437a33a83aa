//! The judge of a FLIP-276 topology run, apart from the engine: after every step it evaluates
//! the topology's declared query at read-uncommitted, read-committed and repeatable-read and
//! tallies the results that mix barriers or go back to an earlier version
//! ([`ConsistencyTally`]); at the end it gathers delays and snapshots into a
//! [`TopologyReport`] (what `batchscope topology --json` prints).

use std::collections::BTreeMap;

use batchscope_engine::barrier::{
    BarrierEvent, BarrierEventKind, CheckpointStats, Consistency, DelaySeries, FailPhase, Fault,
    HeldSnapshot, JobProgress, JobRegistration, MarkerPoint, QueryResult, ReadLevel, RowCorrection,
    SnapshotRef, TableJobToOptimise, TopologyError, TopologyRun, TopologyWorld,
};
use serde::Serialize;

use crate::liveness::Limit;
pub use sinks::{checkpoint_history, kafka_report, markers, KafkaReport, TxnEntry};

mod sinks;

/// How far one query's answers lagged behind the newest version of its tables, in barriers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Lag {
    /// Sum over the evaluations of (newest barrier PROCESSED — WRITTEN at Repeatable Read — in
    /// one of the query's tables) minus (the oldest barrier the answer read).
    pub total: u64,
    /// Largest lag of one evaluation.
    pub max: u64,
}

/// One change of a query's answer: the event that changed it, the value, and where it was read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ValuePoint {
    /// The trace's number of the event after which the answer changed (`#N` in the trace:
    /// the value history prints `after #N`).
    pub after_event: u64,
    /// The value: the ratio of the first row when the query declares one (avgPrice), else the
    /// number of rows and the sum of their values.
    pub value: String,
    /// Whether the answer read one transaction only.
    pub consistent: bool,
    /// Barrier each queried table was read at.
    pub barriers: Vec<u64>,
}

/// Counts, over repeated evaluations of the named queries at one level, how many results were
/// inconsistent, how many went back to an earlier version, at how many moments two queries
/// disagreed on a table they share, and how fresh each query was.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ConsistencyTally {
    /// Evaluations (every named query after every step).
    pub queries: u64,
    /// Results that mix barriers or include partly processed barriers.
    pub inconsistent: u64,
    /// Results where some table was read at an earlier (barrier, partial records) position
    /// than in the previous evaluation of the same query: the reader saw data disappear.
    pub rolled_back: u64,
    /// Moments at which two queries read different versions of a table they share.
    pub disagreements: u64,
    /// Per query: how many barriers its answers lagged the newest version of its tables.
    pub freshness: BTreeMap<String, Lag>,
    /// Per query: its value each time it changed, with whether that answer was consistent.
    pub values: BTreeMap<String, Vec<ValuePoint>>,
    #[serde(skip)]
    last: BTreeMap<String, Vec<(u64, u32)>>,
}

/// A ratio as FLIP-276 prints it: `10`, `25`, `8.333`.
pub fn ratio_text(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round() as i64)
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// The value of an answer as the history prints it (see [`ValuePoint::value`]).
pub fn value_text(r: &QueryResult, has_ratio: bool) -> String {
    if has_ratio {
        return match r.rows.first().and_then(|row| row.ratio) {
            Some(v) => ratio_text(v),
            None => "–".into(),
        };
    }
    let sum: i64 = r
        .rows
        .iter()
        .flat_map(|row| row.on.iter().chain(row.columns.iter().map(|(_, v)| v)))
        .fold(0i64, |a, v| a.saturating_add(*v));
    format!("{} rows, sum {sum}", r.rows.len())
}

impl ConsistencyTally {
    /// Records one evaluation of one query (no freshness: [`Self::observe_moment`] has it).
    pub fn observe(&mut self, r: &QueryResult) {
        self.observe_at(r, None, 0, false);
    }

    fn observe_at(&mut self, r: &QueryResult, newest: Option<u64>, after_event: u64, ratio: bool) {
        self.queries += 1;
        if !r.consistent {
            self.inconsistent += 1;
        }
        let now: Vec<(u64, u32)> = r
            .reads
            .iter()
            .map(|t| (t.barrier, t.partial_records))
            .collect();
        let last = self.last.entry(r.name.clone()).or_default();
        if last.len() == now.len() && last.iter().zip(&now).any(|(a, b)| b < a) {
            self.rolled_back += 1;
        }
        *last = now;
        if let Some(newest) = newest {
            let oldest = r.reads.iter().map(|t| t.barrier).min().unwrap_or(0);
            let lag = newest.saturating_sub(oldest);
            let f = self.freshness.entry(r.name.clone()).or_default();
            f.total += lag;
            f.max = f.max.max(lag);
        }
        let point = ValuePoint {
            after_event,
            value: value_text(r, ratio),
            consistent: r.consistent,
            barriers: r.reads.iter().map(|t| t.barrier).collect(),
        };
        let values = self.values.entry(r.name.clone()).or_default();
        // A new point when the value changes (whether the answer mixed transactions is that
        // point's; the per-level counts say how often answers mixed in all).
        let same = values.last().is_some_and(|p| p.value == point.value);
        if !same {
            values.push(point);
        }
        assert!(self.inconsistent <= self.queries && self.rolled_back < self.queries);
    }

    /// Records one moment: every named query evaluated on the same world.
    pub fn observe_moment(
        &mut self,
        world: &TopologyWorld,
        level: ReadLevel,
        results: &[QueryResult],
    ) {
        for (r, spec) in results.iter().zip(world.spec().all_queries()) {
            let newest = r
                .reads
                .iter()
                .filter_map(|t| world.table(&t.table))
                .map(|t| match level {
                    ReadLevel::RepeatableRead => t.written(),
                    _ => t.processed(),
                })
                .max()
                .unwrap_or(0);
            // The trace numbers events from #0: the one just stepped is `steps() - 1`.
            let after_event = world.steps().saturating_sub(1);
            self.observe_at(r, Some(newest), after_event, spec.ratio.is_some());
        }
        if disagree(results) {
            self.disagreements += 1;
        }
    }
}

/// Whether two of the answers read one table at different positions (barrier, partial records).
pub fn disagree(results: &[QueryResult]) -> bool {
    let mut seen: BTreeMap<&str, (u64, u32)> = BTreeMap::new();
    for r in results {
        for t in &r.reads {
            let pos = (t.barrier, t.partial_records);
            if *seen.entry(t.table.as_str()).or_insert(pos) != pos {
                return true;
            }
        }
    }
    false
}

/// One tally per read level, in the order of [`ReadLevel::ALL`] (ru, rc, rr).
pub type LevelTallies = [ConsistencyTally; 3];

/// Every named query at one level, evaluated on the same world.
pub fn moment(
    world: &TopologyWorld,
    level: ReadLevel,
    consistency: Consistency,
) -> Vec<QueryResult> {
    world
        .named_queries(level, consistency)
        .iter()
        .map(|q| world.query(q))
        .collect()
}

/// Steps `world` to the end, evaluating every named query at every level after every step.
pub fn tally_to_end(world: &mut TopologyWorld, consistency: Consistency) -> LevelTallies {
    let mut tallies = LevelTallies::default();
    crate::liveness::run_observed(world, Limit::JUDGE, |world| {
        for (t, level) in tallies.iter_mut().zip(ReadLevel::ALL) {
            t.observe_moment(world, level, &moment(world, level, consistency));
        }
    });
    tallies
}

/// Largest, latest and mean value of a delay series.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MaxLast {
    /// Largest.
    pub max: u64,
    /// Latest.
    pub last: u64,
    /// Mean (what the job to optimise for a table is chosen by).
    pub mean: u64,
}

/// End-to-end delay per job and per table (batchscope's definitions: FLIP-276 asks how to
/// define the delay, it does not define it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DelayMs {
    /// Per job: snapshot of barrier N written minus all its inputs of N available.
    pub jobs: BTreeMap<String, MaxLast>,
    /// Per table: snapshot time minus CDC time of the newest record it covers.
    pub tables: BTreeMap<String, MaxLast>,
}

/// One snapshot in the report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SnapshotEntry {
    /// Snapshot id.
    pub id: u64,
    /// Barrier held (own checkpoint without barriers).
    pub barrier: u64,
    /// `COMMIT` (written in all tables) or `WRITTEN`.
    pub state: String,
}

/// One job failover as the run reported it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FailoverEntry {
    /// Job.
    pub job: String,
    /// Its sink table.
    pub table: String,
    /// Events before the failure.
    pub step: u64,
    /// Where the barrier in flight stood (before PROCESSED, before PRECOMMIT, after PRECOMMIT).
    pub phase: FailPhase,
    /// The barrier in flight (the first its table had not WRITTEN).
    pub in_flight: u64,
    /// Checkpoint restored.
    pub restored_checkpoint: u64,
    /// Last barrier of that checkpoint.
    pub restored_barrier: u64,
    /// Barriers after the checkpoint the job processes again.
    pub replayed_barriers: Vec<u64>,
    /// Barriers its table lost (PROCESSED, not WRITTEN).
    pub lost_barriers: Vec<u64>,
}

/// One revision as the run performed it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RevisionEntry {
    /// Table revised.
    pub table: String,
    /// Barrier revised.
    pub barrier: u64,
    /// Barrier the tables rolled back to (end of the checkpoint before it).
    pub rolled_back_to: u64,
    /// Corrected rows (0: the same data replayed).
    pub corrected_rows: u32,
    /// Each corrected row with the row of the barrier it replaced (matched by key).
    pub replaced: Vec<RowCorrection>,
    /// Rows of the barrier kept as they were (when it has corrected rows).
    pub kept_rows: Option<u32>,
    /// Tables rolled back.
    pub tables: Vec<String>,
}

/// One row of the MetaService's lineage system tables.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LineageRow {
    /// Job.
    pub job_id: String,
    /// Table.
    pub table_name: String,
}

/// The MetaService's lineage: each job with its source and sink tables, and the same as the
/// system tables FLIP-276 shows (`__META_JOB_SOURCE`, `__META_JOB_SINK`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Lineage {
    /// Jobs with the tables they read and the table they write.
    pub jobs: Vec<JobRegistration>,
    /// `__META_JOB_SOURCE`: (job_id, table_name) per Table Store table a job reads (not its
    /// CDC source).
    #[serde(rename = "__META_JOB_SOURCE")]
    pub job_source: Vec<LineageRow>,
    /// `__META_JOB_SINK`: (job_id, table_name) per table a job writes.
    #[serde(rename = "__META_JOB_SINK")]
    pub job_sink: Vec<LineageRow>,
}

impl Lineage {
    /// The lineage the MetaService of `world` holds.
    pub fn of(world: &TopologyWorld) -> Self {
        let jobs = world.meta().jobs.clone();
        let row = |j: &JobRegistration, t: &str| LineageRow {
            job_id: j.name.clone(),
            table_name: t.to_string(),
        };
        // The system tables list Table Store tables: a CDC source is not one (the job's
        // registration in `jobs` still names it).
        let is_table = |t: &&String| world.table(t).is_some();
        Lineage {
            job_source: jobs
                .iter()
                .flat_map(|j| j.sources.iter().filter(is_table).map(move |t| row(j, t)))
                .collect(),
            job_sink: jobs.iter().map(|j| row(j, &j.sink)).collect(),
            jobs,
        }
    }

    /// FLIP-276's lineage query: the tables written by jobs reading `table`
    /// (`SELECT T.table_name FROM __META_JOB_SOURCE S JOIN __META_JOB_SINK T ON
    /// S.job_id = T.job_id WHERE S.table_name = ?`).
    pub fn sinks_of_readers(&self, table: &str) -> Vec<String> {
        self.job_source
            .iter()
            .filter(|s| s.table_name == table)
            .flat_map(|s| self.job_sink.iter().filter(move |t| t.job_id == s.job_id))
            .map(|t| t.table_name.clone())
            .collect()
    }
}

/// One checkpoint and its barriers (the MetaService's `<checkpoint, barrier>` mapping).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CheckpointEntry {
    /// Checkpoint id.
    pub checkpoint: u64,
    /// Its barriers.
    pub barriers: Vec<u64>,
}

/// The judged run: what `batchscope topology --json` prints.
#[derive(Clone, Debug, Serialize)]
pub struct TopologyReport {
    /// Topology name.
    pub topology: String,
    /// Seed used.
    pub seed: u64,
    /// Barriers issued.
    pub barriers: u64,
    /// Run without barriers.
    pub no_barriers: bool,
    /// Consistency of the counted queries: `strong` or `weak`.
    pub consistency_mode: Consistency,
    /// Faults injected.
    pub faults: Vec<Fault>,
    /// Events emitted.
    pub events: u64,
    /// End-to-end delay.
    pub delay_ms: DelayMs,
    /// The job to optimise for the table with the largest mean delay: of the jobs on that
    /// table's path, the one with the largest mean job delay (`delay_ms.jobs[job].mean`).
    pub job_to_optimise: Option<String>,
    /// Per table, the job to optimise on its path (FLIP-276 asks it "from CDC to Table2").
    pub jobs_to_optimise: Vec<TableJobToOptimise>,
    /// Snapshots per table (the barrier ↔ snapshot mapping).
    pub snapshots: BTreeMap<String, Vec<SnapshotEntry>>,
    /// Barriers per checkpoint.
    pub barriers_per_checkpoint: u64,
    /// The `<checkpoint, barrier>` mapping of the issued barriers.
    pub checkpoints: Vec<CheckpointEntry>,
    /// Job failovers: when each failed, the checkpoint restored and the barriers replayed.
    pub failovers: Vec<FailoverEntry>,
    /// Revisions performed.
    pub revisions: Vec<RevisionEntry>,
    /// The MetaService's job/table lineage.
    pub lineage: Lineage,
    /// The tables the named queries depend on, in groups of related tables (computed from a
    /// common CDC source): under Strong each group is read at its own minimum version.
    pub related_groups: Vec<Vec<String>>,
    /// Each job's barrier progress (processed, completed, replayed).
    pub job_progress: BTreeMap<String, JobProgress>,
    /// Snapshots older than the retention that no reader used any more, per table.
    pub expired_snapshots: BTreeMap<String, Vec<SnapshotRef>>,
    /// Snapshots older than the retention that a reader held back from expiry at some moment
    /// of the run, per table: a history, not the final state (one may have expired later).
    pub held_snapshots: BTreeMap<String, Vec<HeldSnapshot>>,
    /// Per level `ru`, `rc`, `rr`: queries, inconsistent, rolled_back.
    pub consistency: BTreeMap<String, ConsistencyTally>,
    /// The declared query at repeatable read once the run drained.
    pub final_query: QueryResult,
    /// Each job's checkpoints as Flink's web UI counts them (REST `CheckpointingStatistics`).
    pub checkpoint_history: BTreeMap<String, CheckpointStats>,
    /// Kafka tables' transactions and the rows lost to the broker's timeout (topologies with a
    /// Kafka table only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kafka: Option<KafkaReport>,
    /// Per job reading CDC: its checkpoint's offset and the consumer group's committed offset
    /// against the CDC head, at every change (with barriers only).
    pub progress_markers: BTreeMap<String, Vec<MarkerPoint>>,
    /// Every event (printed in text mode; not in the JSON).
    #[serde(skip)]
    pub trace: Vec<BarrierEvent>,
}

fn max_last(series: &[DelaySeries]) -> BTreeMap<String, MaxLast> {
    series
        .iter()
        .map(|d| {
            let m = MaxLast {
                max: d.max_ms(),
                last: d.last_ms(),
                mean: d.mean_ms(),
            };
            assert!(
                m.last <= m.max,
                "{}: latest delay above the largest",
                d.name
            );
            (d.name.clone(), m)
        })
        .collect()
}

/// Snapshots of every table, each marked COMMIT (its barrier is WRITTEN in all tables) or
/// WRITTEN. Own checkpoints (no barriers) are never COMMIT.
fn snapshots(world: &TopologyWorld) -> BTreeMap<String, Vec<SnapshotEntry>> {
    let committed = if world.spec().no_barriers {
        0
    } else {
        world.meta().committed
    };
    world
        .tables()
        .iter()
        .map(|t| {
            let list = t
                .snapshots
                .iter()
                .map(|s| SnapshotEntry {
                    id: s.snapshot.id,
                    barrier: s.barrier,
                    state: if s.barrier <= committed {
                        "COMMIT"
                    } else {
                        "WRITTEN"
                    }
                    .into(),
                })
                .collect();
            (t.name.clone(), list)
        })
        .collect()
}

fn failovers(trace: &[BarrierEvent]) -> Vec<FailoverEntry> {
    trace
        .iter()
        .filter_map(|e| match &e.kind {
            BarrierEventKind::JobFailed {
                job,
                table,
                phase,
                in_flight,
                restored_checkpoint,
                restored_barrier,
                replayed_barriers,
                lost_barriers,
                ..
            } => Some(FailoverEntry {
                job: job.clone(),
                table: table.clone(),
                step: e.step,
                phase: *phase,
                in_flight: *in_flight,
                restored_checkpoint: *restored_checkpoint,
                restored_barrier: *restored_barrier,
                replayed_barriers: replayed_barriers.clone(),
                lost_barriers: lost_barriers.clone(),
            }),
            _ => None,
        })
        .collect()
}

fn revisions(trace: &[BarrierEvent]) -> Vec<RevisionEntry> {
    trace
        .iter()
        .filter_map(|e| match &e.kind {
            BarrierEventKind::Revised {
                table,
                barrier,
                rolled_back_to,
                corrected_rows,
                replaced,
                kept_rows,
                tables,
                ..
            } => Some(RevisionEntry {
                table: table.clone(),
                barrier: *barrier,
                rolled_back_to: *rolled_back_to,
                corrected_rows: *corrected_rows,
                replaced: replaced.clone(),
                kept_rows: *kept_rows,
                tables: tables.clone(),
            }),
            _ => None,
        })
        .collect()
}

/// Runs `run` to the end, judging the declared query at `consistency` after every step.
pub fn report(run: TopologyRun, consistency: Consistency) -> Result<TopologyReport, TopologyError> {
    let mut world = TopologyWorld::from_run(run)?;
    let tallies = tally_to_end(&mut world, consistency);
    assert!(world.is_drained(), "the run is judged at its end");
    let delays = world.delays();
    let run = world.run();
    Ok(TopologyReport {
        topology: run.spec.name.clone(),
        seed: run.seed,
        barriers: run.barriers,
        no_barriers: run.spec.no_barriers,
        consistency_mode: consistency,
        faults: run.faults.clone(),
        events: world.steps(),
        delay_ms: DelayMs {
            jobs: max_last(&delays.jobs),
            tables: max_last(&delays.tables),
        },
        job_to_optimise: delays.job_to_optimise,
        jobs_to_optimise: delays.per_table,
        snapshots: snapshots(&world),
        barriers_per_checkpoint: run.spec.barriers_per_checkpoint,
        checkpoints: world
            .meta()
            .checkpoint_barriers()
            .into_iter()
            .map(|(checkpoint, barriers)| CheckpointEntry {
                checkpoint,
                barriers,
            })
            .collect(),
        failovers: failovers(world.trace()),
        revisions: revisions(world.trace()),
        lineage: Lineage::of(&world),
        related_groups: world.strong_groups(),
        job_progress: world.meta().job_progress.clone(),
        expired_snapshots: world.meta().expired.clone(),
        held_snapshots: world.meta().held.clone(),
        consistency: ReadLevel::ALL
            .iter()
            .map(|l| l.short().to_string())
            .zip(tallies)
            .collect(),
        final_query: world.query(&world.declared_query(ReadLevel::RepeatableRead, consistency)),
        checkpoint_history: checkpoint_history(&world),
        kafka: kafka_report(&world),
        progress_markers: if run.spec.no_barriers {
            BTreeMap::new()
        } else {
            markers(&world)
        },
        trace: world.trace().to_vec(),
    })
}

#[cfg(test)]
mod tests;
