//! The work budget of a topology: how many CDC records it generates, how many events a run can
//! take, and how much a query evaluated after every event can cost, computed from the spec
//! alone, so that a topology too big to run is refused by validation.
//!
//! The limits, stated once here and in every refusal:
//! - every time field (`barrier_interval_ms`, each job's `*_ms`, and `barriers ×
//!   barrier_interval_ms`) is at most [`MAX_TIME_MS`];
//! - at most [`MAX_NODES`] tables and jobs, [`MAX_OPERATORS`] operators a job, [`MAX_COLUMNS`]
//!   columns a table (and in a `project`, a group's keys, a join's or query's `on`),
//!   [`MAX_QUERY_TABLES`] tables in the query, [`MAX_LITERAL_RECORDS`] literal CDC records;
//! - `cdc.records + cdc.generated_per_barrier × barriers` is at most [`MAX_RECORDS`];
//! - the events of a run ([`TopologyWork::events`], an upper estimate) are at most
//!   [`MAX_EVENTS`], and the rows a judge's query evaluations compare
//!   ([`TopologyWork::query_rows`]) at most [`MAX_QUERY_ROWS`].

use super::spec::{OperatorSpec, TopologyError, TopologySpec};

/// Largest value of any time field, and of `barriers × barrier_interval_ms` (10¹² ms).
pub const MAX_TIME_MS: u64 = 1_000_000_000_000;
/// Most tables, and most jobs.
pub const MAX_NODES: usize = 64;
/// Most operators in one job.
pub const MAX_OPERATORS: usize = 16;
/// Most columns in a table or in any column list.
pub const MAX_COLUMNS: usize = 64;
/// Most tables the query joins.
pub const MAX_QUERY_TABLES: usize = 4;
/// Most named queries (`query` plus `queries`).
pub const MAX_QUERIES: usize = 8;
/// Most literal records in `cdc.records`.
pub const MAX_LITERAL_RECORDS: usize = 100_000;
/// Most CDC records a topology may generate.
pub const MAX_RECORDS: u64 = 200_000;
/// Most events a run may take, by [`TopologyWork::events`].
pub const MAX_EVENTS: u64 = 2_000_000;
/// Most row comparisons of the query evaluations a judged run makes (three read levels after
/// every event and two for snapshot expiry, each joining the queried tables row by row).
pub const MAX_QUERY_ROWS: u64 = 20_000_000_000;

/// Events per job and barrier (or own checkpoint): read per input, process, snapshot, fail and
/// recover, with room.
const EVENTS_PER_JOB: u64 = 8;
/// Events per barrier apart from the jobs: issue, precommit, commit, with room.
const EVENTS_PER_BARRIER: u64 = 4;

/// The work a topology asks for, computed from its spec before it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TopologyWork {
    /// CDC records.
    pub records: u64,
    /// An upper estimate of the events of a run.
    pub events: u64,
    /// An upper estimate of the rows compared by the query evaluations of a judged run: five
    /// per event and named query (three read levels, and Strong and Weak Repeatable Read for
    /// the MetaService's snapshot expiry), each at most (records + 1) rows per queried table, joined pairwise.
    pub query_rows: u64,
}

fn sat(x: u128) -> u64 {
    u64::try_from(x).unwrap_or(u64::MAX)
}

fn invalid(field: impl Into<String>, reason: impl Into<String>) -> TopologyError {
    TopologyError::Invalid {
        field: field.into(),
        reason: reason.into(),
    }
}

impl TopologySpec {
    /// The work this topology asks for (saturating, never overflowing).
    pub fn work(&self) -> TopologyWork {
        let records: u128 = self
            .cdc
            .iter()
            .map(|c| {
                c.records.len() as u128
                    + u128::from(c.generated_per_barrier) * u128::from(self.barriers)
            })
            .sum();
        let jobs = self.jobs.len() as u128;
        let end_ms = u128::from(self.barriers) * u128::from(self.barrier_interval_ms.max(1));
        let drain_ms: u128 = self
            .jobs
            .iter()
            .map(|j| {
                u128::from(j.checkpoint_interval_ms)
                    + u128::from(j.read_ms)
                    + u128::from(j.process_ms)
                    + u128::from(j.commit_ms)
                    + u128::from(j.restart_ms)
            })
            .sum();
        let rounds: u128 = if self.no_barriers {
            self.jobs
                .iter()
                .map(|j| (end_ms + drain_ms) / u128::from(j.checkpoint_interval_ms.max(1)) + 1)
                .max()
                .unwrap_or(0)
        } else {
            u128::from(self.barriers)
        };
        let events = records
            + (rounds + 2) * (u128::from(EVENTS_PER_BARRIER) + u128::from(EVENTS_PER_JOB) * jobs);
        let per_query: u128 = self
            .all_queries()
            .iter()
            .take(MAX_QUERIES + 1)
            .map(|q| {
                let k = q.tables.len().min(MAX_QUERY_TABLES + 1) as u32;
                (records + 1).saturating_pow(k.max(1)) * u128::from(k.max(1))
            })
            .fold(0u128, u128::saturating_add);
        TopologyWork {
            records: sat(records),
            events: sat(events),
            query_rows: sat(events.saturating_mul(5).saturating_mul(per_query)),
        }
    }

    /// Sizes, time fields, records, events and query cost within the limits of this module.
    pub(super) fn validate_budget(&self) -> Result<(), TopologyError> {
        self.validate_shape()?;
        self.validate_times()?;
        let w = self.work();
        if w.records > MAX_RECORDS {
            return Err(invalid(
                "cdc.generated_per_barrier",
                format!(
                    "cdc.records + cdc.generated_per_barrier × barriers = {} records, over the budget of {MAX_RECORDS}",
                    w.records
                ),
            ));
        }
        if w.events > MAX_EVENTS {
            return Err(invalid(
                "barriers",
                format!(
                    "a run could take {} events (records, and barriers or own checkpoints × jobs), over the budget of {MAX_EVENTS}",
                    w.events
                ),
            ));
        }
        if w.query_rows > MAX_QUERY_ROWS {
            return Err(invalid(
                "query.tables",
                format!(
                    "evaluating the queries after every event could compare {} rows ((records + 1) ^ queried tables, summed over the {} queries, × events × 5: three read levels for the judge, two Repeatable Read readers for snapshot expiry), over the budget of {MAX_QUERY_ROWS}",
                    w.query_rows,
                    self.queries.len() + 1
                ),
            ));
        }
        Ok(())
    }

    fn validate_shape(&self) -> Result<(), TopologyError> {
        let too_many = |field: String, n: usize, max: usize| {
            Err(invalid(
                field,
                format!("{n} entries, over the limit of {max}"),
            ))
        };
        if self.tables.len() > MAX_NODES {
            return too_many("tables".into(), self.tables.len(), MAX_NODES);
        }
        if self.jobs.len() > MAX_NODES {
            return too_many("jobs".into(), self.jobs.len(), MAX_NODES);
        }
        if self.cdc.len() > MAX_NODES {
            return too_many("cdc".into(), self.cdc.len(), MAX_NODES);
        }
        for (k, c) in self.cdc.iter().enumerate() {
            if c.records.len() > MAX_LITERAL_RECORDS {
                return too_many(
                    format!("{}.records", self.cdc_field(k)),
                    c.records.len(),
                    MAX_LITERAL_RECORDS,
                );
            }
        }
        if self.queries.len() + 1 > MAX_QUERIES {
            return too_many("queries".into(), self.queries.len() + 1, MAX_QUERIES);
        }
        for (i, q) in self.all_queries().into_iter().enumerate() {
            let field = if i == 0 {
                "query".to_string()
            } else {
                format!("queries[{}]", i - 1)
            };
            if q.tables.len() > MAX_QUERY_TABLES {
                return too_many(format!("{field}.tables"), q.tables.len(), MAX_QUERY_TABLES);
            }
            if q.on.len() > MAX_COLUMNS {
                return too_many(format!("{field}.on"), q.on.len(), MAX_COLUMNS);
            }
        }
        for (i, t) in self.tables.iter().enumerate() {
            if t.columns.len() > MAX_COLUMNS {
                return too_many(format!("tables[{i}].columns"), t.columns.len(), MAX_COLUMNS);
            }
        }
        for (j, job) in self.jobs.iter().enumerate() {
            if job.operators.len() > MAX_OPERATORS {
                return too_many(
                    format!("jobs[{j}].operators"),
                    job.operators.len(),
                    MAX_OPERATORS,
                );
            }
            for (i, op) in job.operators.iter().enumerate() {
                let n = match op {
                    OperatorSpec::Project { columns } => columns.len(),
                    OperatorSpec::GroupSum { keys, .. } => keys.len(),
                    OperatorSpec::Join { on } => on.len(),
                    OperatorSpec::Forward | OperatorSpec::Filter { .. } => 0,
                };
                if n > MAX_COLUMNS {
                    return too_many(format!("jobs[{j}].operators[{i}]"), n, MAX_COLUMNS);
                }
            }
        }
        Ok(())
    }

    fn validate_times(&self) -> Result<(), TopologyError> {
        let mut times = vec![("barrier_interval_ms".to_string(), self.barrier_interval_ms)];
        for (j, job) in self.jobs.iter().enumerate() {
            for (name, ms) in [
                ("read_ms", job.read_ms),
                ("process_ms", job.process_ms),
                ("commit_ms", job.commit_ms),
                ("restart_ms", job.restart_ms),
                ("checkpoint_interval_ms", job.checkpoint_interval_ms),
            ] {
                times.push((format!("jobs[{j}].{name}"), ms));
            }
        }
        if let Some((field, ms)) = times.into_iter().find(|(_, ms)| *ms > MAX_TIME_MS) {
            return Err(invalid(
                field,
                format!("{ms} ms is over the limit of {MAX_TIME_MS} ms"),
            ));
        }
        let span = u128::from(self.barriers) * u128::from(self.barrier_interval_ms);
        if span > u128::from(MAX_TIME_MS) {
            return Err(invalid(
                "barriers",
                format!(
                    "barriers × barrier_interval_ms = {span} ms is over the limit of {MAX_TIME_MS} ms"
                ),
            ));
        }
        Ok(())
    }
}
