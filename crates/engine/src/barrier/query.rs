//! OLAP queries against the tables at the seed's consistency levels (Read Uncommitted, Read
//! Committed, Repeatable Read) with Strong or Weak consistency. The judge that tallies
//! inconsistent and rolled-back results over a run lives apart, in `batchscope_check::topology`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::meta::MetaService;
use super::spec::QuerySpec;
use super::table::Table;

/// The reader's level (FLIP-276, "Data Consistency Type").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ReadLevel {
    /// Latest data written, including barriers not PROCESSED everywhere (or only partly).
    #[serde(rename = "ru")]
    ReadUncommitted,
    /// Data of PRECOMMIT transactions only (PROCESSED in every table the query depends on;
    /// under Strong, in every table any query depends on); rolls back when a job fails before
    /// WRITTEN.
    #[serde(rename = "rc")]
    ReadCommitted,
    /// Data of WRITTEN snapshots of COMMIT transactions (WRITTEN in every table the query
    /// depends on); never rolls back on a job failure, only on a revision.
    #[serde(rename = "rr")]
    RepeatableRead,
}

impl ReadLevel {
    /// All levels, in the order reports list them.
    pub const ALL: [ReadLevel; 3] = [
        ReadLevel::ReadUncommitted,
        ReadLevel::ReadCommitted,
        ReadLevel::RepeatableRead,
    ];

    /// Short name: `ru`, `rc`, `rr`.
    pub fn short(self) -> &'static str {
        match self {
            ReadLevel::ReadUncommitted => "ru",
            ReadLevel::ReadCommitted => "rc",
            ReadLevel::RepeatableRead => "rr",
        }
    }
}

/// How several queries relate (FLIP-276, "Strong/Weak Consistency"). Neither lets one query
/// mix transactions at Read Committed or Repeatable Read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Consistency {
    /// Every query reads the minimum version over the tables all the queries depend on, so
    /// queries asked at one moment agree on the tables they share.
    Strong,
    /// Every query reads its own latest consistent version (over the tables it depends on):
    /// fresher, but two queries may read different versions of a table they share.
    Weak,
}

/// A query: the declared join, a level and a consistency.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Query {
    /// Tables, join columns, ratio.
    pub spec: QuerySpec,
    /// Reader level.
    pub level: ReadLevel,
    /// Strong or Weak.
    pub consistency: Consistency,
}

/// Where one table was read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TableRead {
    /// Table.
    pub table: String,
    /// Barrier read (for Read Uncommitted: latest PROCESSED, plus `partial_records` beyond).
    pub barrier: u64,
    /// CDC records reflected by the data read (the barrier's `<barrier, offset>` end).
    pub cdc_offset: u64,
    /// Records of unfinished barriers included (Read Uncommitted only).
    pub partial_records: u32,
}

/// One joined row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QueryRow {
    /// Values of the join columns.
    pub on: Vec<i64>,
    /// Other columns as `table.column`, in query-table order.
    pub columns: Vec<(String, i64)>,
    /// The ratio column (e.g. avgPrice), if declared and the denominator is not 0.
    pub ratio: Option<f64>,
}

impl QueryRow {
    /// A column by `table.column` name.
    pub fn column(&self, name: &str) -> Option<i64> {
        self.columns
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    }
}

/// A query's answer and where each table was read.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QueryResult {
    /// The query's name.
    pub name: String,
    /// Level used.
    pub level: ReadLevel,
    /// Consistency used.
    pub consistency: Consistency,
    /// Where each queried table was read.
    pub reads: Vec<TableRead>,
    /// Joined rows, sorted by the join columns.
    pub rows: Vec<QueryRow>,
    /// `false` when the tables reflect different CDC prefixes (different barriers) or data of
    /// partly processed barriers: the result may mix versions, like the seed's (2500, 100, 25).
    pub consistent: bool,
}

impl QueryResult {
    /// The row whose join columns equal `on`.
    pub fn row(&self, on: &[i64]) -> Option<&QueryRow> {
        self.rows.iter().find(|r| r.on == on)
    }
}

fn visible(t: &Table, level: ReadLevel) -> u64 {
    match level {
        ReadLevel::ReadUncommitted | ReadLevel::ReadCommitted => t.processed(),
        ReadLevel::RepeatableRead => t.written(),
    }
}

/// The tables a query depends on: the ones it reads and every table they are computed from
/// (the lineage the MetaService keeps), sorted.
pub fn lineage(meta: &MetaService, spec: &QuerySpec) -> Vec<String> {
    let mut all: std::collections::BTreeSet<String> = spec.tables.iter().cloned().collect();
    for t in &spec.tables {
        all.extend(meta.upstream_tables(t));
    }
    all.into_iter().collect()
}

/// The newest barrier a transaction over `scope` has reached at `level`: PROCESSED in every
/// table of the scope (Read Committed: PRECOMMIT over those tables) or WRITTEN in every one
/// (Repeatable Read: COMMIT over those tables).
fn scope_barrier(tables: &[Table], scope: &[String], level: ReadLevel) -> u64 {
    scope
        .iter()
        .filter_map(|n| tables.iter().find(|t| &t.name == n))
        .map(|t| visible(t, level))
        .min()
        .unwrap_or(0)
}

/// Evaluates a query over the tables (see [`ReadLevel`] and [`Consistency`]). `strong_scope`
/// is the lineage of all the topology's queries together: under Strong every query reads the
/// barrier complete over it, so queries asked at one moment agree; under Weak a query reads the
/// barrier complete over its own lineage. Read Committed and Repeatable Read never mix
/// transactions within one query, whatever the consistency.
pub(crate) fn evaluate(
    tables: &[Table],
    meta: &MetaService,
    q: &Query,
    strong_scope: &[String],
) -> QueryResult {
    let table = |n: &str| tables.iter().find(|t| t.name == n);
    let queried: Vec<&Table> = q.spec.tables.iter().filter_map(|n| table(n)).collect();
    let own = lineage(meta, &q.spec);
    let pinned = match q.consistency {
        Consistency::Strong => {
            let mut scope: Vec<String> = strong_scope.to_vec();
            scope.extend(own);
            scope_barrier(tables, &scope, q.level)
        }
        Consistency::Weak => scope_barrier(tables, &own, q.level),
    };
    let mut reads = Vec::new();
    let mut data = Vec::new();
    for t in &queried {
        let (barrier, rows, partial) = match q.level {
            // Uncommitted data is not addressable by barrier: neither Strong nor Weak pins it.
            ReadLevel::ReadUncommitted => (t.processed(), t.rows_latest(), t.partial_records()),
            _ => (pinned, t.rows_at(pinned), 0),
        };
        reads.push(TableRead {
            table: t.name.clone(),
            barrier,
            cdc_offset: t.cdc_offset_at(barrier),
            partial_records: partial,
        });
        data.push((*t, rows));
    }
    let consistent = reads.iter().all(|r| r.partial_records == 0)
        && reads.windows(2).all(|w| w[0].cdc_offset == w[1].cdc_offset);
    QueryResult {
        name: q.spec.name.clone(),
        level: q.level,
        consistency: q.consistency,
        rows: join_rows(&q.spec, &data),
        reads,
        consistent,
    }
}

type Partial = (Vec<i64>, Vec<(String, i64)>);
type Rows = BTreeMap<Vec<i64>, Vec<i64>>;

fn join_rows(spec: &QuerySpec, data: &[(&Table, Rows)]) -> Vec<QueryRow> {
    let mut acc: Option<Vec<Partial>> = None;
    for (t, rows) in data {
        let on_idx: Vec<usize> = spec
            .on
            .iter()
            .filter_map(|c| t.columns.iter().position(|x| x == c))
            .collect();
        let mut side: Vec<Partial> = rows
            .values()
            .map(|v| {
                let on = on_idx.iter().map(|i| v[*i]).collect();
                let cols = t
                    .columns
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !on_idx.contains(i))
                    .map(|(i, c)| (format!("{}.{}", t.name, c), v[i]))
                    .collect();
                (on, cols)
            })
            .collect();
        side.sort();
        acc = Some(match acc {
            None => side,
            Some(prev) => prev
                .iter()
                .flat_map(|(on, cols)| {
                    side.iter()
                        .filter(move |(o, _)| o == on)
                        .map(move |(_, c)| {
                            let mut all = cols.clone();
                            all.extend(c.iter().cloned());
                            (on.clone(), all)
                        })
                })
                .collect(),
        });
    }
    acc.unwrap_or_default()
        .into_iter()
        .map(|(on, columns)| {
            let ratio = spec.ratio.as_ref().and_then(|r| {
                let get = |n: &str| columns.iter().find(|(c, _)| c == n).map(|(_, v)| *v);
                match (get(&r.numerator), get(&r.denominator)) {
                    (Some(n), Some(d)) if d != 0 => Some(n as f64 / d as f64),
                    _ => None,
                }
            });
            QueryRow { on, columns, ratio }
        })
        .collect()
}
