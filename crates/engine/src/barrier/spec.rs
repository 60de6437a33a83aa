//! The ETL topology as a serde JSON file: CDC stream, tables, jobs and operators, the declared
//! query, and the validation that turns a bad file into an error naming the field.

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::scenario::printable;

/// The name a job uses in `sources` to read the simulated CDC stream (the external source of a
/// root table, SEMANTICS §5.1 "root tables (fed by external sources)").
pub const CDC_SOURCE: &str = "cdc";

/// Columns of every CDC record: one shopping row of the seed's example.
pub const CDC_COLUMNS: [&str; 4] = ["userId", "itemId", "amount", "price"];

/// A whole ETL topology: what the CLI reads from a file and what presets build.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TopologySpec {
    /// Name shown in reports.
    pub name: String,
    /// One line saying what the topology shows.
    #[serde(default)]
    pub description: String,
    /// Time between two global timestamp barriers issued by the MetaService.
    pub barrier_interval_ms: u64,
    /// How many barriers the MetaService issues before the run drains.
    #[serde(default = "default_barriers")]
    pub barriers: u64,
    /// `true`: no timestamp barriers; every job checkpoints on its own schedule
    /// (`checkpoint_interval_ms`), as Flink + Table Store do without FLIP-276.
    #[serde(default)]
    pub no_barriers: bool,
    /// The simulated CDC stream of shopping rows.
    pub cdc: CdcSpec,
    /// Tables in Table Store (root and intermediate).
    pub tables: Vec<TableSpec>,
    /// Flink ETL jobs; each writes exactly one sink table.
    pub jobs: Vec<JobSpec>,
    /// The query the report evaluates after every step (the seed's avgPrice for `shopping`).
    pub query: QuerySpec,
}

fn default_barriers() -> u64 {
    5
}

/// The simulated CDC stream: explicit records plus rows drawn from the seeded PRNG.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CdcSpec {
    /// Records given literally, each with its CDC time.
    #[serde(default)]
    pub records: Vec<CdcRecordSpec>,
    /// Extra rows per barrier interval drawn from the seeded PRNG. They use userId 2.. only, so
    /// explicit rows of user 1 (the seed's example) keep their numbers.
    #[serde(default)]
    pub generated_per_barrier: u32,
    /// Distinct users of generated rows (userId 2..=users+1).
    #[serde(default = "default_two")]
    pub users: u32,
    /// Distinct items of generated rows (itemId 1..=items).
    #[serde(default = "default_two")]
    pub items: u32,
}

fn default_two() -> u32 {
    2
}

/// One literal CDC record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CdcRecordSpec {
    /// CDC time (when the change happened upstream), ms.
    pub at_ms: u64,
    /// Shopping user.
    pub user_id: i64,
    /// Shopping item.
    pub item_id: i64,
    /// Amount bought.
    pub amount: i64,
    /// Price paid.
    pub price: i64,
}

/// A table in Table Store.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    /// Table name.
    pub name: String,
    /// Column names in order; must equal what the writing job produces.
    pub columns: Vec<String>,
}

/// A Flink ETL job: sources → operators → one sink table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JobSpec {
    /// Job name.
    pub name: String,
    /// Tables read (or `cdc`); two sources need a `join` as first operator.
    pub sources: Vec<String>,
    /// The operator chain, applied in order.
    #[serde(default)]
    pub operators: Vec<OperatorSpec>,
    /// The one table this job writes.
    pub sink: String,
    /// Delay between an input barrier becoming available and the source emitting it.
    #[serde(default = "default_read_ms")]
    pub read_ms: u64,
    /// Time from alignment of a barrier to the sink having written its records (PROCESSED).
    #[serde(default = "default_process_ms")]
    pub process_ms: u64,
    /// Time from PROCESSED to the snapshot of the barrier (WRITTEN).
    #[serde(default = "default_commit_ms")]
    pub commit_ms: u64,
    /// Time a failed job needs to restart from its last checkpoint.
    #[serde(default = "default_restart_ms")]
    pub restart_ms: u64,
    /// Own checkpoint interval, used only with `no_barriers`.
    #[serde(default = "default_checkpoint_ms")]
    pub checkpoint_interval_ms: u64,
}

fn default_read_ms() -> u64 {
    10
}
fn default_process_ms() -> u64 {
    100
}
fn default_commit_ms() -> u64 {
    100
}
fn default_restart_ms() -> u64 {
    500
}
fn default_checkpoint_ms() -> u64 {
    1000
}

/// An operator of a job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum OperatorSpec {
    /// Stateless: forwards every record unchanged.
    Forward,
    /// Stateless: keeps records whose `column` is at least `at_least`.
    Filter {
        /// Column compared.
        column: String,
        /// Smallest value kept.
        at_least: i64,
    },
    /// Stateless: keeps these columns, in this order (a map).
    Project {
        /// Columns kept.
        columns: Vec<String>,
    },
    /// Stateful: `sum(sum) AS into ... GROUP BY keys`; aligns on barriers.
    GroupSum {
        /// Group-by columns (the key of the output).
        keys: Vec<String>,
        /// Column summed.
        sum: String,
        /// Name of the sum column.
        into: String,
    },
    /// Stateful: inner join of input 0 (left) with input 1 (right, one row per `on` value);
    /// aligns on barriers. Output: left columns, then the right's other columns.
    Join {
        /// Join columns, present in both inputs.
        on: Vec<String>,
    },
}

impl OperatorSpec {
    /// Whether the operator keeps state and therefore aligns on barriers.
    pub fn is_stateful(&self) -> bool {
        matches!(
            self,
            OperatorSpec::GroupSum { .. } | OperatorSpec::Join { .. }
        )
    }
}

/// The declared query: an inner join of tables on common columns, with an optional ratio column.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuerySpec {
    /// Query name.
    pub name: String,
    /// Tables joined, in order.
    pub tables: Vec<String>,
    /// Join columns, present in every table.
    pub on: Vec<String>,
    /// Optional `numerator / denominator AS name` (the seed's avgPrice).
    #[serde(default)]
    pub ratio: Option<RatioSpec>,
}

/// `numerator / denominator AS name`; columns are written `table.column`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RatioSpec {
    /// Output column name.
    pub name: String,
    /// `table.column` of the numerator.
    pub numerator: String,
    /// `table.column` of the denominator.
    pub denominator: String,
}

/// What can be wrong with a topology or a request against it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum TopologyError {
    /// A field has a bad value.
    Invalid {
        /// Path of the field, e.g. `jobs[1].sources[0]`.
        field: String,
        /// Why it is bad.
        reason: String,
    },
    /// Two jobs write one table (FLIP-276: no concurrent writers).
    TwoWriters {
        /// The table.
        table: String,
        /// First writer in file order.
        first: String,
        /// Second writer.
        second: String,
    },
    /// The topology has a cycle (FLIP-276: no cycles); alternating table, job, table, ….
    Cycle {
        /// The cycle, first node repeated at the end.
        path: Vec<String>,
    },
    /// The JSON text does not parse.
    Json(String),
}

impl fmt::Display for TopologyError {
    /// One line: control characters quoted from the input are escaped.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            TopologyError::Invalid { field, reason } => format!("{field}: {reason}"),
            TopologyError::TwoWriters {
                table,
                first,
                second,
            } => format!("table `{table}` has two writers: `{first}` and `{second}`"),
            TopologyError::Cycle { path } => format!("cycle: {}", path.join(" → ")),
            TopologyError::Json(e) => format!("topology JSON: {e}"),
        };
        f.write_str(&printable(&text))
    }
}

impl std::error::Error for TopologyError {}

fn invalid(field: impl Into<String>, reason: impl Into<String>) -> TopologyError {
    TopologyError::Invalid {
        field: field.into(),
        reason: reason.into(),
    }
}

impl TopologySpec {
    /// Parses and validates a topology file's text.
    pub fn from_json(text: &str) -> Result<Self, TopologyError> {
        let text = crate::schema::without_schema_key(text);
        let spec: TopologySpec =
            crate::schema::parse_naming_field(&text).map_err(|(field, e)| match field {
                Some(field) => TopologyError::Json(format!("{field}: {e}")),
                None => TopologyError::Json(e),
            })?;
        spec.validate()?;
        Ok(spec)
    }

    /// The columns a job's operator chain produces (after validation succeeded for its sources).
    pub fn output_columns(&self, job: &JobSpec) -> Vec<String> {
        self.chain_columns(job, "").unwrap_or_default()
    }

    fn table(&self, name: &str) -> Option<&TableSpec> {
        self.tables.iter().find(|t| t.name == name)
    }

    fn input_columns(&self, source: &str) -> Option<Vec<String>> {
        if source == CDC_SOURCE {
            Some(CDC_COLUMNS.iter().map(|c| c.to_string()).collect())
        } else {
            self.table(source).map(|t| t.columns.clone())
        }
    }

    /// Columns flowing out of a job's chain, or the first error (with `field` prefix).
    fn chain_columns(&self, job: &JobSpec, field: &str) -> Result<Vec<String>, TopologyError> {
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
        // Sizes, times and work first: what follows multiplies times and walks the graph.
        self.validate_budget()?;
        if self.cdc.generated_per_barrier > 0 && (self.cdc.users == 0 || self.cdc.items == 0) {
            return Err(invalid("cdc", "users and items must be at least 1"));
        }
        for (i, r) in self.cdc.records.iter().enumerate() {
            if r.at_ms >= self.barriers * self.barrier_interval_ms {
                return Err(invalid(
                    format!("cdc.records[{i}].at_ms"),
                    format!(
                        "{} is after the last barrier ({} ms)",
                        r.at_ms,
                        self.barriers * self.barrier_interval_ms
                    ),
                ));
            }
        }
        let mut names = BTreeSet::new();
        for (i, t) in self.tables.iter().enumerate() {
            if t.name.is_empty() || t.name == CDC_SOURCE {
                return Err(invalid(
                    format!("tables[{i}].name"),
                    format!("`{}` is not a usable table name", t.name),
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
                    return Err(invalid(
                        format!("{f}.sources[{s}]"),
                        format!("unknown table `{src}`"),
                    ));
                }
                if src == CDC_SOURCE && job.sources.len() != 1 {
                    return Err(invalid(
                        format!("{f}.sources"),
                        "a job reading `cdc` reads nothing else",
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
        self.validate_query()
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

    fn validate_query(&self) -> Result<(), TopologyError> {
        let q = &self.query;
        if q.tables.is_empty() {
            return Err(invalid("query.tables", "name at least one table"));
        }
        for (i, t) in q.tables.iter().enumerate() {
            let Some(table) = self.table(t) else {
                return Err(invalid(
                    format!("query.tables[{i}]"),
                    format!("unknown table `{t}`"),
                ));
            };
            for c in &q.on {
                if !table.columns.contains(c) {
                    return Err(invalid(
                        "query.on",
                        format!("column `{c}` is not in table `{t}`"),
                    ));
                }
            }
        }
        if let Some(r) = &q.ratio {
            for (field, col) in [
                ("query.ratio.numerator", &r.numerator),
                ("query.ratio.denominator", &r.denominator),
            ] {
                let ok = col.split_once('.').is_some_and(|(t, c)| {
                    q.tables.iter().any(|x| x == t)
                        && self
                            .table(t)
                            .is_some_and(|s| s.columns.iter().any(|x| x == c))
                });
                if !ok {
                    return Err(invalid(
                        field,
                        format!("`{col}` is not `table.column` of a queried table"),
                    ));
                }
            }
        }
        Ok(())
    }
}
