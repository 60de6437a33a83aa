//! End-to-end delay: samples per table (snapshot time minus the CDC time of the newest record
//! it covers) and per job (snapshot of barrier N minus all inputs of N available), and for each
//! table the job on its path contributing the most. These definitions are batchscope's own:
//! FLIP-276 asks "how to define the E2E delay of streaming data from CDC to Table2? … which
//! ETL job needs to be optimized?" and leaves the answer open.

use serde::Serialize;

/// A sample of end-to-end delay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DelaySample {
    /// When the snapshot was written.
    pub at_ms: u64,
    /// Its barrier.
    pub barrier: u64,
    /// The delay.
    pub delay_ms: u64,
}

/// Delay samples of one table or job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DelaySeries {
    /// Table or job.
    pub name: String,
    /// Samples, in time order.
    pub samples: Vec<DelaySample>,
}

impl DelaySeries {
    /// Largest delay.
    pub fn max_ms(&self) -> u64 {
        self.samples.iter().map(|s| s.delay_ms).max().unwrap_or(0)
    }
    /// Latest delay.
    pub fn last_ms(&self) -> u64 {
        self.samples.last().map_or(0, |s| s.delay_ms)
    }
    /// Mean delay (integer ms): the measure the job to optimise is chosen by.
    pub fn mean_ms(&self) -> u64 {
        let n = self.samples.len() as u64;
        self.samples.iter().map(|s| s.delay_ms).sum::<u64>() / n.max(1)
    }
}

/// The job to optimise for one table: of the jobs on the table's path from CDC (its writer and
/// the writers of every table it is computed from), the one with the largest mean job delay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TableJobToOptimise {
    /// The table.
    pub table: String,
    /// The job on its path with the largest mean job delay (the first in the topology's
    /// order on a tie).
    pub job: String,
    /// That job's mean delay ([`DelaySeries::mean_ms`]).
    pub mean_ms: u64,
    /// The jobs on the table's path, in the topology's order.
    pub path: Vec<String>,
}

/// End-to-end delay over time, per table and per job (batchscope's definitions: the FLIP asks
/// the question, it does not define the delay).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DelayReport {
    /// Per table: snapshot time minus CDC time of the newest record it covers.
    pub tables: Vec<DelaySeries>,
    /// Per job: snapshot of barrier N written minus all inputs of N available.
    pub jobs: Vec<DelaySeries>,
    /// Per table with a snapshot, the job to optimise for it, in the topology's table order.
    pub per_table: Vec<TableJobToOptimise>,
    /// The job to optimise for the table with the largest mean end-to-end delay (the first in
    /// the topology's order on a tie): `per_table`'s answer for that table.
    pub job_to_optimise: Option<String>,
}

impl DelayReport {
    /// The table with the largest mean end-to-end delay and its job to optimise.
    pub fn worst_table(&self) -> Option<&TableJobToOptimise> {
        let mean = |t: &TableJobToOptimise| {
            self.tables
                .iter()
                .find(|s| s.name == t.table)
                .map_or(0, DelaySeries::mean_ms)
        };
        // `max_by_key` keeps the last of equal keys: reverse to keep the first.
        self.per_table.iter().rev().max_by_key(|t| mean(t))
    }
}

/// The samples recorded so far, one list per table and per job (in the topology's order).
#[derive(Clone, Debug, Default)]
pub(super) struct DelayLog {
    tables: Vec<Vec<DelaySample>>,
    jobs: Vec<Vec<DelaySample>>,
}

impl DelayLog {
    /// An empty log for `tables` tables and `jobs` jobs.
    pub(super) fn new(tables: usize, jobs: usize) -> Self {
        DelayLog {
            tables: vec![Vec::new(); tables],
            jobs: vec![Vec::new(); jobs],
        }
    }

    /// Job `j` wrote the snapshot of `barrier` at `at_ms`; its inputs were all there at `ready_ms`.
    pub(super) fn job_wrote(&mut self, j: usize, barrier: u64, at_ms: u64, ready_ms: u64) {
        let series = &mut self.jobs[j];
        assert!(
            series.last().is_none_or(|s| s.at_ms <= at_ms),
            "delay samples are in time order"
        );
        series.push(DelaySample {
            at_ms,
            barrier,
            delay_ms: at_ms.saturating_sub(ready_ms),
        });
    }

    /// Table `t` got the snapshot of `barrier` at `at_ms`, covering CDC data of `cdc_at_ms`.
    pub(super) fn table_wrote(&mut self, t: usize, barrier: u64, at_ms: u64, cdc_at_ms: u64) {
        self.tables[t].push(DelaySample {
            at_ms,
            barrier,
            delay_ms: at_ms.saturating_sub(cdc_at_ms),
        });
    }

    /// The report, naming the series by `tables` and `jobs` (in the order of the log);
    /// `path(t)` gives the jobs on table `t`'s path from CDC.
    pub(super) fn report(
        &self,
        tables: &[&str],
        jobs: &[&str],
        path: impl Fn(&str) -> Vec<String>,
    ) -> DelayReport {
        let tables = series(tables, &self.tables);
        let jobs = series(jobs, &self.jobs);
        let per_table = tables
            .iter()
            .filter(|t| !t.samples.is_empty())
            .filter_map(|t| {
                let on_path: Vec<String> = jobs
                    .iter()
                    .map(|j| j.name.clone())
                    .filter(|j| path(&t.name).contains(j))
                    .collect();
                let best = jobs
                    .iter()
                    .filter(|j| on_path.contains(&j.name) && !j.samples.is_empty())
                    .rev()
                    .max_by_key(|j| j.mean_ms())?;
                Some(TableJobToOptimise {
                    table: t.name.clone(),
                    job: best.name.clone(),
                    mean_ms: best.mean_ms(),
                    path: on_path,
                })
            })
            .collect();
        let mut report = DelayReport {
            tables,
            jobs,
            per_table,
            job_to_optimise: None,
        };
        report.job_to_optimise = report.worst_table().map(|t| t.job.clone());
        report
    }
}

fn series(names: &[&str], samples: &[Vec<DelaySample>]) -> Vec<DelaySeries> {
    assert_eq!(names.len(), samples.len(), "one name per series");
    names
        .iter()
        .zip(samples)
        .map(|(name, s)| DelaySeries {
            name: (*name).to_string(),
            samples: s.clone(),
        })
        .collect()
}
