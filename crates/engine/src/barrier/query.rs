//! OLAP queries against the tables at the seed's consistency levels (Read Uncommitted, Read
//! Committed, Repeatable Read) with Strong or Weak consistency. The judge that tallies
//! inconsistent and rolled-back results over a run lives apart, in `batchscope_check::topology`.

use std::collections::{BTreeMap, BTreeSet};

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
    /// Data of PRECOMMIT transactions only (PROCESSED in every related table the query
    /// depends on; under Strong, in every related table any query depends on); rolls back when
    /// a job fails before WRITTEN.
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
    /// FLIP-276: "Query gets the minimum version of all the related tables according to the
    /// source tables and the dependencies between them". Our reading: the tables all the
    /// queries depend on fall into groups of related tables (computed from a common CDC source,
    /// [`related_groups`]); every query reads each table at its group's minimum version, so
    /// queries asked at one moment agree, and a group never waits for an unrelated one.
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

/// The tables of `scope` in groups of related tables (FLIP-276's Strong rule: "the related
/// tables according to the source tables and the dependencies between them"): two tables are
/// related when they are computed from a common CDC source, and relation is transitive; tables
/// of different groups share no source. With one CDC source every table is in one group.
/// Groups in order of their first table in `scope`; tables in `scope` order.
pub fn related_groups(meta: &MetaService, scope: &[String]) -> Vec<Vec<String>> {
    let mut groups: Vec<(BTreeSet<String>, Vec<String>)> = Vec::new();
    for t in scope {
        let mut sources: BTreeSet<String> = meta.cdc_sources_of(t).iter().cloned().collect();
        let mut members = Vec::new();
        // Every group sharing a source with `t` joins it (keeping the first one's place).
        let mut at = None;
        let mut i = 0;
        while i < groups.len() {
            if groups[i].0.is_disjoint(&sources) {
                i += 1;
                continue;
            }
            let (s, m) = groups.remove(i);
            at.get_or_insert(i);
            sources.extend(s);
            members.extend(m);
        }
        if !members.contains(t) {
            members.push(t.clone());
        }
        members.sort_by_key(|m| scope.iter().position(|x| x == m));
        groups.insert(at.unwrap_or(groups.len()), (sources, members));
    }
    groups.into_iter().map(|(_, m)| m).collect()
}

/// The barrier each table of `scope` is read at: per group of related tables
/// ([`related_groups`]), the newest barrier PROCESSED in every table of the group (Read
/// Committed) or WRITTEN in every one (Repeatable Read).
fn pins(
    tables: &[Table],
    meta: &MetaService,
    scope: &[String],
    level: ReadLevel,
) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for group in related_groups(meta, scope) {
        let pin = group
            .iter()
            .filter_map(|n| tables.iter().find(|t| &t.name == n))
            .map(|t| visible(t, level))
            .min()
            .unwrap_or(0);
        out.extend(group.into_iter().map(|n| (n, pin)));
    }
    out
}

/// Evaluates a query over the tables (see [`ReadLevel`] and [`Consistency`]). `strong_scope`
/// is the lineage of all the topology's queries together. Under Strong every query reads each
/// table at the barrier complete over that table's group of related tables in the scope
/// ([`related_groups`]), so queries asked at one moment agree; under Weak the groups are those
/// of the query's own lineage. Read Committed and Repeatable Read never mix transactions of
/// related tables within one query, whatever the consistency.
pub(crate) fn evaluate(
    tables: &[Table],
    meta: &MetaService,
    q: &Query,
    strong_scope: &[String],
) -> QueryResult {
    let table = |n: &str| tables.iter().find(|t| t.name == n);
    let queried: Vec<&Table> = q.spec.tables.iter().filter_map(|n| table(n)).collect();
    let mut scope = lineage(meta, &q.spec);
    if q.consistency == Consistency::Strong {
        scope.extend(strong_scope.iter().cloned());
        scope.sort();
        scope.dedup();
    }
    let pinned = pins(tables, meta, &scope, q.level);
    let mut reads = Vec::new();
    let mut data = Vec::new();
    for t in &queried {
        let (barrier, rows, partial) = match q.level {
            // Uncommitted data is not addressable by barrier: neither Strong nor Weak pins it.
            ReadLevel::ReadUncommitted => (t.processed(), t.rows_latest(), t.partial_records()),
            _ => {
                let pin = pinned.get(&t.name).copied().unwrap_or(0);
                (pin, t.rows_at(pin), 0)
            }
        };
        reads.push(TableRead {
            table: t.name.clone(),
            barrier,
            cdc_offset: t.cdc_offset_at(barrier),
            partial_records: partial,
        });
        data.push((*t, rows));
    }
    QueryResult {
        name: q.spec.name.clone(),
        level: q.level,
        consistency: q.consistency,
        rows: join_rows(&q.spec, &data),
        consistent: consistent(meta, &reads),
        reads,
    }
}

/// No data of unfinished barriers, and every two tables read that share a CDC source reflect
/// the same prefix of it (tables of unrelated sources may stand at different barriers: the
/// FLIP's "Min(table3 version) for table3").
fn consistent(meta: &MetaService, reads: &[TableRead]) -> bool {
    let sources: Vec<&[String]> = reads
        .iter()
        .map(|r| meta.cdc_sources_of(&r.table))
        .collect();
    reads.iter().all(|r| r.partial_records == 0)
        && reads.iter().enumerate().all(|(i, a)| {
            reads[i + 1..].iter().enumerate().all(|(k, b)| {
                let shared = sources[i].iter().any(|s| sources[i + 1 + k].contains(s));
                !shared || a.cdc_offset == b.cdc_offset
            })
        })
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
