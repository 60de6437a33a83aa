//! The ETL topology as a serde JSON file: CDC stream, tables, jobs and operators, the named
//! queries and revisions; `validate.rs` turns a bad file into an error naming the field.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::fault::Fault;
use super::sinks::{Committer, SnapshotGuard, TableKind};
use crate::spec_json::printable;

/// The name a job uses in `sources` to read the simulated CDC stream (the external source of a
/// root table, SEMANTICS §5.1 "root tables (fed by external sources)"); the default name of a
/// topology's first CDC source, and the prefix of every CDC source's name ([`is_cdc_source`]).
pub const CDC_SOURCE: &str = "cdc";

/// Whether a name in a job's `sources` names a CDC source: CDC sources are named `cdc…`
/// (`cdc`, `cdc2`, `cdc_prices`) and tables may not be, so a trace line tells them apart
/// without the topology.
pub fn is_cdc_source(name: &str) -> bool {
    name.starts_with(CDC_SOURCE)
}

/// Columns of every CDC record: one shopping row of the seed's example.
pub const CDC_COLUMNS: [&str; 4] = ["userId", "itemId", "amount", "price"];

/// A whole ETL topology: what the CLI reads from a file and what presets build.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TopologySpec {
    /// The JSON Schema the file names (`"$schema": "../schemas/topology.schema.json"`), if
    /// any: ignored, and never written.
    #[serde(rename = "$schema", default, skip_serializing)]
    #[schemars(skip)]
    pub schema: crate::spec_json::NamedSchema,
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
    /// The simulated CDC source(s) of shopping rows: one source (an object, named `cdc` unless
    /// it says otherwise) or a list of named sources. Tables fed by different sources, and not
    /// joined downstream, are unrelated: under Strong consistency each group of related tables
    /// reads its own minimum version (FLIP-276: "Min(table1 version, table2 version) for table1
    /// and table2, Min(table3 version) for table3").
    #[serde(deserialize_with = "one_or_list")]
    #[schemars(with = "CdcSources")]
    pub cdc: Vec<CdcSpec>,
    /// Tables in Table Store (root and intermediate).
    pub tables: Vec<TableSpec>,
    /// Flink ETL jobs; each writes exactly one sink table.
    pub jobs: Vec<JobSpec>,
    /// The query the report evaluates after every step (the seed's avgPrice for `shopping`).
    pub query: QuerySpec,
    /// Further named queries asked at the same moments as `query` (the FLIP's Query1, Query2,
    /// Query3): Strong consistency makes all of them agree, Weak lets each read its own latest
    /// consistent version.
    #[serde(default)]
    pub queries: Vec<QuerySpec>,
    /// Timestamp barriers per checkpoint of every job (the FLIP stores `<checkpoint, barrier>`:
    /// barriers 1, 2, 3 in checkpoint 1). A failed job restores its last complete checkpoint and
    /// replays the barriers after it. 1 = one barrier per checkpoint.
    #[serde(default = "default_one")]
    pub barriers_per_checkpoint: u64,
    /// Corrected rows for a table's barrier, applied by a revision of that table and barrier.
    #[serde(default)]
    pub revisions: Vec<RevisionSpec>,
    /// Snapshots of a table kept besides its newest one before the MetaService expires older
    /// ones, unless a reader still uses them.
    #[serde(default = "default_retention")]
    pub snapshot_retention: u64,
    /// Failures the topology ships with (a lesson's own failure), replayed as `--fail` ones.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "crate::spec_json::deserialize_tagged_list"
    )]
    pub faults: Vec<Fault>,
}

fn default_one() -> u64 {
    1
}

fn default_retention() -> u64 {
    2
}

/// Corrected data for one barrier of a root table: when the table is revised at that barrier,
/// each corrected row replaces the barrier's row with the same `key` values and every other
/// row of the barrier is kept; everything downstream recomputes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RevisionSpec {
    /// Root table revised.
    pub table: String,
    /// Barrier whose data is corrected.
    pub barrier: u64,
    /// The corrected rows, one value per column of the table. Each replaces the first row of
    /// the barrier (in CDC order) with the same `key` values not yet replaced; a corrected row
    /// that matches none is added to the barrier.
    pub rows: Vec<Vec<i64>>,
    /// Columns that identify the row a corrected row replaces. Default: the table's `userId`
    /// and `itemId` (which user's order of which item), those of them it has.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub key: Vec<String>,
}

impl RevisionSpec {
    /// The columns a corrected row is matched by: `key`, or the default (see [`Self::key`]).
    pub fn key_columns(&self, table: &TableSpec) -> Vec<String> {
        if !self.key.is_empty() {
            return self.key.clone();
        }
        ["userId", "itemId"]
            .iter()
            .filter(|c| table.columns.iter().any(|t| t == *c))
            .map(|c| c.to_string())
            .collect()
    }
}

fn default_barriers() -> u64 {
    5
}

/// One CDC source (an object, named `cdc` by default), or a list of CDC sources.
#[derive(schemars::JsonSchema)]
#[allow(dead_code)]
#[serde(untagged)]
enum CdcSources {
    /// One CDC source.
    One(CdcSpec),
    /// Several CDC sources, each with its own name.
    Many(Vec<CdcSpec>),
}

/// Reads `cdc`: an object (one source) or a list of sources, each element read in place so an
/// error names its field.
fn one_or_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<CdcSpec>, D::Error> {
    struct OneOrList;
    impl<'de> serde::de::Visitor<'de> for OneOrList {
        type Value = Vec<CdcSpec>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a CDC source (an object) or a list of CDC sources")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            CdcSpec::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(|c| vec![c])
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            crate::spec_json::deserialize_tagged_list(serde::de::value::SeqAccessDeserializer::new(
                seq,
            ))
        }
    }
    d.deserialize_any(OneOrList)
}

fn default_cdc_name() -> String {
    CDC_SOURCE.to_string()
}

/// A simulated CDC source: explicit records plus rows drawn from the seeded PRNG.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CdcSpec {
    /// The name jobs read it by in `sources`: `cdc` (the default) or another name starting with
    /// `cdc` (`cdc2`, `cdc_prices`); names differ between sources.
    #[serde(default = "default_cdc_name")]
    #[schemars(regex(pattern = "^cdc"))]
    pub name: String,
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
    /// `paimon` (the default) or `kafka`: a topic behind Flink's exactly-once two-phase sink.
    #[serde(default, skip_serializing_if = "TableKind::is_paimon")]
    pub kind: TableKind,
    /// A `kafka` table's producer `transaction.timeout.ms`: the broker aborts a transaction
    /// still open this long after it began. Default: Flink's, one hour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transaction_timeout_ms: Option<u64>,
}

impl TopologySpec {
    /// Barriers in each job's checkpoint: `barriers_per_checkpoint`, or 1 without barriers
    /// (each own checkpoint is one).
    pub fn per_checkpoint(&self) -> u64 {
        if self.no_barriers {
            1
        } else {
            self.barriers_per_checkpoint.max(1)
        }
    }
}

impl TableSpec {
    /// The transaction timeout of a `kafka` table (its own, or Flink's default).
    pub fn transaction_timeout(&self) -> u64 {
        self.transaction_timeout_ms
            .unwrap_or(super::sinks::DEFAULT_TRANSACTION_TIMEOUT_MS)
    }
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
    #[serde(
        default,
        deserialize_with = "crate::spec_json::deserialize_tagged_list"
    )]
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
    /// What its committer does when a committed checkpoint is notified again after a restore.
    /// Unset: the re-notification is not drawn (Paimon's own committer, idempotent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub committer: Option<Committer>,
    /// Restarts the job's restart strategy allows (Flink's
    /// `restart-strategy.fixed-delay.attempts`); once spent, the job stays FAILED. Default:
    /// unlimited, as Flink's default strategy with checkpointing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_attempts: Option<u64>,
    /// What keeps the upstream snapshots it will still read from expiring: `meta_service` (the
    /// default, FLIP-276), `consumer_id` (Paimon's consumer) or `none`.
    #[serde(default, skip_serializing_if = "SnapshotGuard::is_meta_service")]
    pub snapshot_guard: SnapshotGuard,
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

pub(super) fn invalid(field: impl Into<String>, reason: impl Into<String>) -> TopologyError {
    TopologyError::Invalid {
        field: field.into(),
        reason: reason.into(),
    }
}

impl TopologySpec {
    /// Parses and validates a topology file's text.
    pub fn from_json(text: &str) -> Result<Self, TopologyError> {
        let spec: TopologySpec =
            crate::spec_json::parse_naming_field(text).map_err(|(field, e)| match field {
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

    /// Every named query: the declared `query` first, then `queries`.
    pub fn all_queries(&self) -> Vec<&QuerySpec> {
        std::iter::once(&self.query).chain(&self.queries).collect()
    }

    /// The corrected rows shipped for `table` at `barrier`, if any.
    pub fn revision(&self, table: &str, barrier: u64) -> Option<&RevisionSpec> {
        self.revisions
            .iter()
            .find(|r| r.table == table && r.barrier == barrier)
    }

    pub(super) fn table(&self, name: &str) -> Option<&TableSpec> {
        self.tables.iter().find(|t| t.name == name)
    }

    /// The CDC source named `name`.
    pub fn cdc_source(&self, name: &str) -> Option<&CdcSpec> {
        self.cdc.iter().find(|c| c.name == name)
    }

    pub(super) fn input_columns(&self, source: &str) -> Option<Vec<String>> {
        if self.cdc_source(source).is_some() {
            Some(CDC_COLUMNS.iter().map(|c| c.to_string()).collect())
        } else {
            self.table(source).map(|t| t.columns.clone())
        }
    }
}
