//! End-to-end delay: samples per table (snapshot time minus the CDC time of the newest record
//! it covers) and per job (snapshot of barrier N minus all inputs of N available), and the job
//! contributing the most.

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

/// End-to-end delay over time, per table and per job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DelayReport {
    /// Per table: snapshot time minus CDC time of the newest record it covers.
    pub tables: Vec<DelaySeries>,
    /// Per job: snapshot of barrier N written minus all inputs of N available.
    pub jobs: Vec<DelaySeries>,
    /// The job with the largest mean delay ([`DelaySeries::mean_ms`]).
    pub job_to_optimise: Option<String>,
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

    /// The report, naming the series by `tables` and `jobs` (in the order of the log).
    pub(super) fn report(&self, tables: &[&str], jobs: &[&str]) -> DelayReport {
        let tables = series(tables, &self.tables);
        let jobs = series(jobs, &self.jobs);
        let job_to_optimise = jobs
            .iter()
            .filter(|s| !s.samples.is_empty())
            .max_by_key(|s| s.mean_ms())
            .map(|s| s.name.clone());
        DelayReport {
            tables,
            jobs,
            job_to_optimise,
        }
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
