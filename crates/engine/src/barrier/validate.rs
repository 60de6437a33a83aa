//! Validation of a topology file: every check that turns a bad file into an error naming the
//! field (schemas of the operator chains, writers, cycles, queries, revisions).

use std::collections::BTreeSet;

use super::sinks::{Committer, SnapshotGuard, TableKind};
use super::spec::{
    invalid, is_cdc_source, JobSpec, OperatorSpec, QuerySpec, TopologyError, TopologySpec,
    CDC_SOURCE,
};

/// The most restart attempts a job may have (each restart is a few events of the run).
const MAX_RESTART_ATTEMPTS: u64 = 20;

impl TopologySpec {
    /// Columns flowing out of a job's chain, or the first error (with `field` prefix).
    pub(super) fn chain_columns(
        &self,
        job: &JobSpec,
        field: &str,
    ) -> Result<Vec<String>, TopologyError> {
        let inputs: Vec<Vec<String>> = job
            .sources
            .iter()
            .map(|s| self.input_columns(s).unwrap_or_default())
            .collect();
        let mut cols = inputs.first().cloned().unwrap_or_default();
        for (i, op) in job.operators.iter().enumerate() {
            let f = format!("{field}.operators[{i}]");
            let need = |cols: &Vec<String>, c: &str| {
                if cols.iter().any(|x| x == c) {
                    Ok(())
                } else {
                    Err(invalid(
                        f.clone(),
                        format!("column `{c}` is not in the input ({})", cols.join(", ")),
                    ))
                }
            };
            match op {
                OperatorSpec::Forward => {}
                OperatorSpec::Filter { column, .. } => need(&cols, column)?,
                OperatorSpec::Project { columns } => {
                    for c in columns {
                        need(&cols, c)?;
                    }
                    cols = columns.clone();
                }
                OperatorSpec::GroupSum { keys, sum, into } => {
                    for c in keys.iter().chain(std::iter::once(sum)) {
                        need(&cols, c)?;
                    }
                    cols = keys.clone();
                    cols.push(into.clone());
                }
                OperatorSpec::Join { on } => {
                    if i != 0 || inputs.len() != 2 {
                        return Err(invalid(
                            f,
                            "a join must be the first operator of a job with two sources",
                        ));
                    }
                    for c in on {
                        need(&inputs[0], c)?;
                        need(&inputs[1], c)?;
                    }
                    for c in &inputs[1] {
                        if !cols.contains(c) {
                            cols.push(c.clone());
                        }
                    }
                }
            }
        }
        Ok(cols)
    }

    /// Checks the work budget (`budget`), names, references, schemas, writers and cycles.
    pub fn validate(&self) -> Result<(), TopologyError> {
        if self.barrier_interval_ms == 0 {
            return Err(invalid("barrier_interval_ms", "must be above 0"));
        }
        if self.barriers == 0 {
            return Err(invalid("barriers", "must be at least 1"));
        }
        if self.barriers_per_checkpoint == 0 || self.barriers_per_checkpoint > self.barriers {
            return Err(invalid(
                "barriers_per_checkpoint",
                format!("must be between 1 and barriers ({})", self.barriers),
            ));
        }
        // Sizes, times and work first: what follows multiplies times and walks the graph.
        self.validate_budget()?;
        self.validate_cdc()?;
        let mut names = BTreeSet::new();
        for (i, t) in self.tables.iter().enumerate() {
            if t.name.is_empty() || is_cdc_source(&t.name) {
                return Err(invalid(
                    format!("tables[{i}].name"),
                    format!(
                        "`{}` is not a usable table name (names starting with `{CDC_SOURCE}` name CDC sources)",
                        t.name
                    ),
                ));
            }
            if !names.insert(t.name.as_str()) {
                return Err(invalid(
                    format!("tables[{i}].name"),
                    format!("table `{}` is declared twice", t.name),
                ));
            }
        }
        let mut job_names = BTreeSet::new();
        for (j, job) in self.jobs.iter().enumerate() {
            let f = format!("jobs[{j}]");
            if !job_names.insert(job.name.as_str()) {
                return Err(invalid(
                    format!("{f}.name"),
                    format!("job `{}` is declared twice", job.name),
                ));
            }
            if job.sources.is_empty() || job.sources.len() > 2 {
                return Err(invalid(
                    format!("{f}.sources"),
                    "a job reads one or two sources",
                ));
            }
            for (s, src) in job.sources.iter().enumerate() {
                if self.input_columns(src).is_none() {
                    let what = if is_cdc_source(src) {
                        "CDC source"
                    } else {
                        "table"
                    };
                    return Err(invalid(
                        format!("{f}.sources[{s}]"),
                        format!("unknown {what} `{src}`"),
                    ));
                }
                if is_cdc_source(src) && job.sources.len() != 1 {
                    return Err(invalid(
                        format!("{f}.sources"),
                        format!("a job reading the CDC source `{src}` reads nothing else"),
                    ));
                }
            }
            let stateful = job.operators.iter().filter(|o| o.is_stateful()).count();
            if stateful > 1 {
                return Err(invalid(
                    format!("{f}.operators"),
                    "at most one stateful operator (group_sum or join) per job",
                ));
            }
            if job.sources.len() == 2
                && !matches!(job.operators.first(), Some(OperatorSpec::Join { .. }))
            {
                return Err(invalid(
                    format!("{f}.operators"),
                    "a job with two sources starts with a join",
                ));
            }
            if job.checkpoint_interval_ms == 0 {
                return Err(invalid(
                    format!("{f}.checkpoint_interval_ms"),
                    "must be above 0",
                ));
            }
            if self.table(&job.sink).is_none() {
                return Err(invalid(
                    format!("{f}.sink"),
                    format!("unknown table `{}`", job.sink),
                ));
            }
        }
        // Topology shape first: a cycle or a second writer is the real problem, not the schema.
        self.check_writers()?;
        self.check_cycles()?;
        for (j, job) in self.jobs.iter().enumerate() {
            let f = format!("jobs[{j}]");
            let sink = self.table(&job.sink).expect("checked above");
            let cols = self.chain_columns(job, &f)?;
            if cols != sink.columns {
                return Err(invalid(
                    format!("{f}.sink"),
                    format!(
                        "job produces ({}) but table `{}` has ({})",
                        cols.join(", "),
                        sink.name,
                        sink.columns.join(", ")
                    ),
                ));
            }
        }
        for (i, t) in self.tables.iter().enumerate() {
            if !self.jobs.iter().any(|j| j.sink == t.name) {
                return Err(invalid(
                    format!("tables[{i}]"),
                    format!("table `{}` has no writer", t.name),
                ));
            }
        }
        for (i, q) in self.all_queries().into_iter().enumerate() {
            let field = if i == 0 {
                "query".to_string()
            } else {
                format!("queries[{}]", i - 1)
            };
            self.validate_query(q, &field)?;
        }
        let mut names = BTreeSet::new();
        for (i, q) in self.all_queries().into_iter().enumerate() {
            if !names.insert(q.name.as_str()) {
                return Err(invalid(
                    format!("queries[{}].name", i.saturating_sub(1)),
                    format!("query `{}` is declared twice", q.name),
                ));
            }
        }
        self.validate_revisions().and(self.validate_sinks())
    }

    /// Kafka tables (a timeout above 0, barriers, nobody reads the topic back) and committers
    /// (one that throws on a repeat needs a restart strategy that gives up).
    fn validate_sinks(&self) -> Result<(), TopologyError> {
        for (i, t) in self.tables.iter().enumerate() {
            let f = format!("tables[{i}]");
            if t.kind != TableKind::Kafka {
                if t.transaction_timeout_ms.is_some() {
                    return Err(invalid(
                        format!("{f}.transaction_timeout_ms"),
                        "only a `kafka` table has a transaction timeout",
                    ));
                }
                continue;
            }
            if t.transaction_timeout_ms == Some(0) {
                return Err(invalid(
                    format!("{f}.transaction_timeout_ms"),
                    "must be above 0 ms: the broker would abort every transaction as it begins",
                ));
            }
            if self.no_barriers {
                return Err(invalid(
                    format!("{f}.kind"),
                    "a `kafka` table needs timestamp barriers here: its transactions commit on COMMIT",
                ));
            }
            let read = self.jobs.iter().position(|j| j.sources.contains(&t.name));
            if let Some(j) = read {
                return Err(invalid(
                    format!("jobs[{j}].sources"),
                    format!(
                        "`{}` is a Kafka table: no job reads a topic back here",
                        t.name
                    ),
                ));
            }
            if self
                .all_queries()
                .iter()
                .any(|q| q.tables.contains(&t.name))
            {
                return Err(invalid(
                    "query.tables",
                    format!("`{}` is a Kafka table: queries read Paimon tables", t.name),
                ));
            }
        }
        for (j, job) in self.jobs.iter().enumerate() {
            let f = format!("jobs[{j}]");
            if job
                .restart_attempts
                .is_some_and(|n| n > MAX_RESTART_ATTEMPTS)
            {
                return Err(invalid(
                    format!("{f}.restart_attempts"),
                    format!("at most {MAX_RESTART_ATTEMPTS}"),
                ));
            }
            let per = self.barriers_per_checkpoint;
            if job.snapshot_guard == SnapshotGuard::None && self.snapshot_retention + 1 < per {
                return Err(invalid(
                    "snapshot_retention",
                    format!(
                        "{} snapshots kept cannot hold a checkpoint of {per} barriers: `{}` reads without a snapshot guard, and every restore would find its snapshots gone",
                        self.snapshot_retention + 1,
                        job.name
                    ),
                ));
            }
            if job.snapshot_guard == SnapshotGuard::None && job.restart_attempts.is_none() {
                return Err(invalid(
                    format!("{f}.restart_attempts"),
                    "a reader without a snapshot guard can be restored onto an expired snapshot and fail on every restart: set restart_attempts (Flink's restart-strategy.fixed-delay.attempts) so the run ends",
                ));
            }
            if job.committer == Some(Committer::ThrowsOnRepeat) && job.restart_attempts.is_none() {
                return Err(invalid(
                    format!("{f}.restart_attempts"),
                    "a committer that throws on a repeated notification fails on every restart: set restart_attempts (Flink's restart-strategy.fixed-delay.attempts) so the run ends",
                ));
            }
        }
        Ok(())
    }

    /// The field of CDC source `k`: `cdc` when the topology has one source, else `cdc[k]`.
    pub(super) fn cdc_field(&self, k: usize) -> String {
        if self.cdc.len() == 1 {
            "cdc".to_string()
        } else {
            format!("cdc[{k}]")
        }
    }

    /// At least one CDC source, named `cdc…` and each name once; records before the last barrier.
    fn validate_cdc(&self) -> Result<(), TopologyError> {
        if self.cdc.is_empty() {
            return Err(invalid("cdc", "name at least one CDC source"));
        }
        let mut names = BTreeSet::new();
        let end_ms = self.barriers * self.barrier_interval_ms;
        for (k, c) in self.cdc.iter().enumerate() {
            let f = self.cdc_field(k);
            if !is_cdc_source(&c.name) {
                return Err(invalid(
                    format!("{f}.name"),
                    format!(
                        "`{}`: a CDC source's name starts with `{CDC_SOURCE}`",
                        c.name
                    ),
                ));
            }
            if !names.insert(c.name.as_str()) {
                return Err(invalid(
                    format!("{f}.name"),
                    format!("CDC source `{}` is declared twice", c.name),
                ));
            }
            if c.generated_per_barrier > 0 && (c.users == 0 || c.items == 0) {
                return Err(invalid(f, "users and items must be at least 1"));
            }
            for (i, r) in c.records.iter().enumerate() {
                if r.at_ms >= end_ms {
                    return Err(invalid(
                        format!("{f}.records[{i}].at_ms"),
                        format!("{} is after the last barrier ({end_ms} ms)", r.at_ms),
                    ));
                }
            }
        }
        Ok(())
    }

    fn validate_revisions(&self) -> Result<(), TopologyError> {
        for (i, r) in self.revisions.iter().enumerate() {
            let f = format!("revisions[{i}]");
            let Some(t) = self.table(&r.table) else {
                return Err(invalid(
                    format!("{f}.table"),
                    format!("unknown table `{}`", r.table),
                ));
            };
            let root = self.jobs.iter().any(|j| {
                j.sink == r.table
                    && j.sources.iter().any(|s| is_cdc_source(s))
                    && !j.operators.iter().any(OperatorSpec::is_stateful)
            });
            if !root {
                return Err(invalid(
                    format!("{f}.table"),
                    format!(
                        "`{}` is not a root table written by a stateless job: corrected rows \
                         replace the CDC rows such a job streams into it",
                        r.table
                    ),
                ));
            }
            if r.barrier == 0 || r.barrier > self.barriers {
                return Err(invalid(
                    format!("{f}.barrier"),
                    format!("must be between 1 and barriers ({})", self.barriers),
                ));
            }
            let key = r.key_columns(t);
            if key.is_empty() && !r.rows.is_empty() {
                return Err(invalid(
                    format!("{f}.key"),
                    format!(
                        "`{}` has neither `userId` nor `itemId`: name the columns that identify the row a corrected row replaces",
                        r.table
                    ),
                ));
            }
            if let Some(c) = key.iter().find(|c| !t.columns.contains(c)) {
                return Err(invalid(
                    format!("{f}.key"),
                    format!("`{c}` is not a column of `{}`", r.table),
                ));
            }
            for (k, row) in r.rows.iter().enumerate() {
                if row.len() != t.columns.len() {
                    return Err(invalid(
                        format!("{f}.rows[{k}]"),
                        format!(
                            "{} values for the {} columns of `{}`",
                            row.len(),
                            t.columns.len(),
                            r.table
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    fn check_writers(&self) -> Result<(), TopologyError> {
        for (j, job) in self.jobs.iter().enumerate() {
            if let Some(other) = self.jobs[j + 1..].iter().find(|o| o.sink == job.sink) {
                return Err(TopologyError::TwoWriters {
                    table: job.sink.clone(),
                    first: job.name.clone(),
                    second: other.name.clone(),
                });
            }
        }
        Ok(())
    }

    /// Depth-first search over table → reading job → its sink; reports the first cycle found.
    fn check_cycles(&self) -> Result<(), TopologyError> {
        fn visit(
            spec: &TopologySpec,
            table: &str,
            path: &mut Vec<String>,
            done: &mut BTreeSet<String>,
        ) -> Result<(), TopologyError> {
            if let Some(pos) = path.iter().position(|p| p == table) {
                let mut cycle = path[pos..].to_vec();
                cycle.push(table.to_string());
                return Err(TopologyError::Cycle { path: cycle });
            }
            if done.contains(table) {
                return Ok(());
            }
            path.push(table.to_string());
            for job in spec
                .jobs
                .iter()
                .filter(|j| j.sources.iter().any(|s| s == table))
            {
                path.push(job.name.clone());
                visit(spec, &job.sink, path, done)?;
                path.pop();
            }
            path.pop();
            done.insert(table.to_string());
            Ok(())
        }
        let mut done = BTreeSet::new();
        for t in &self.tables {
            visit(self, &t.name, &mut Vec::new(), &mut done)?;
        }
        Ok(())
    }

    fn validate_query(&self, q: &QuerySpec, field: &str) -> Result<(), TopologyError> {
        if q.tables.is_empty() {
            return Err(invalid(
                format!("{field}.tables"),
                "name at least one table",
            ));
        }
        for (i, t) in q.tables.iter().enumerate() {
            let Some(table) = self.table(t) else {
                return Err(invalid(
                    format!("{field}.tables[{i}]"),
                    format!("unknown table `{t}`"),
                ));
            };
            for c in &q.on {
                if !table.columns.contains(c) {
                    return Err(invalid(
                        format!("{field}.on"),
                        format!("column `{c}` is not in table `{t}`"),
                    ));
                }
            }
        }
        if let Some(r) = &q.ratio {
            for (part, col) in [("numerator", &r.numerator), ("denominator", &r.denominator)] {
                let ok = col.split_once('.').is_some_and(|(t, c)| {
                    q.tables.iter().any(|x| x == t)
                        && self
                            .table(t)
                            .is_some_and(|s| s.columns.iter().any(|x| x == c))
                });
                if !ok {
                    return Err(invalid(
                        format!("{field}.ratio.{part}"),
                        format!("`{col}` is not `table.column` of a queried table"),
                    ));
                }
            }
        }
        Ok(())
    }
}
