//! Operators of an ETL job: stateless ones (filter, project, forward) applied record by record,
//! and the one stateful operator per job (group-by sum or join) that aligns on barriers and
//! computes barrier N from the result of N-1 (SEMANTICS §5.1).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::spec::{is_cdc_source, JobSpec, OperatorSpec, TopologySpec, CDC_COLUMNS};

/// A record flowing through a job or stored in a table: a key and the values of all columns.
/// Tables upsert by key; a root table's key is the CDC offset, so it only appends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Record {
    /// Upsert key (CDC offset for root tables, group key for sums, left key for joins).
    pub key: Vec<i64>,
    /// One value per column of the table.
    pub values: Vec<i64>,
}

#[derive(Clone, Debug)]
enum Stateless {
    Filter { index: usize, at_least: i64 },
    Project { indexes: Vec<usize> },
}

impl Stateless {
    fn apply(&self, rec: Record) -> Option<Record> {
        match self {
            Stateless::Filter { index, at_least } => {
                (rec.values[*index] >= *at_least).then_some(rec)
            }
            Stateless::Project { indexes } => Some(Record {
                key: rec.key,
                values: indexes.iter().map(|i| rec.values[*i]).collect(),
            }),
        }
    }
}

#[derive(Clone, Debug)]
enum Stateful {
    GroupSum {
        keys: Vec<usize>,
        sum: usize,
    },
    Join {
        left_on: Vec<usize>,
        right_on: Vec<usize>,
        right_extra: Vec<usize>,
    },
}

/// State of a job's stateful operator; cloned into every checkpoint (one per WRITTEN barrier).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct OperatorState {
    /// Group sum: the last row seen per input key (so an upsert retracts its old contribution);
    /// join: the left rows by key.
    pub rows: BTreeMap<Vec<i64>, Vec<i64>>,
    /// Group sum: the sum per group.
    pub sums: BTreeMap<Vec<i64>, i64>,
    /// Join: the right row per join-column values.
    pub right: BTreeMap<Vec<i64>, Vec<i64>>,
}

/// A job's operator chain with column names resolved to indexes.
#[derive(Clone, Debug)]
pub(crate) struct Pipeline {
    pre: Vec<Stateless>,
    stateful: Option<Stateful>,
    post: Vec<Stateless>,
}

fn index_of(cols: &[String], c: &str) -> usize {
    cols.iter().position(|x| x == c).expect("validated column")
}

impl Pipeline {
    /// Resolves a validated job's operators.
    pub(crate) fn new(spec: &TopologySpec, job: &JobSpec) -> Self {
        let input_cols = |s: &str| -> Vec<String> {
            if is_cdc_source(s) {
                CDC_COLUMNS.iter().map(|c| c.to_string()).collect()
            } else {
                spec.tables
                    .iter()
                    .find(|t| t.name == s)
                    .map(|t| t.columns.clone())
                    .unwrap_or_default()
            }
        };
        let mut cols = input_cols(&job.sources[0]);
        let mut p = Pipeline {
            pre: Vec::new(),
            stateful: None,
            post: Vec::new(),
        };
        for op in &job.operators {
            let stage = if p.stateful.is_some() {
                &mut p.post
            } else {
                &mut p.pre
            };
            match op {
                OperatorSpec::Forward => {}
                OperatorSpec::Filter { column, at_least } => stage.push(Stateless::Filter {
                    index: index_of(&cols, column),
                    at_least: *at_least,
                }),
                OperatorSpec::Project { columns } => {
                    stage.push(Stateless::Project {
                        indexes: columns.iter().map(|c| index_of(&cols, c)).collect(),
                    });
                    cols = columns.clone();
                }
                OperatorSpec::GroupSum { keys, sum, into } => {
                    p.stateful = Some(Stateful::GroupSum {
                        keys: keys.iter().map(|c| index_of(&cols, c)).collect(),
                        sum: index_of(&cols, sum),
                    });
                    cols = keys.clone();
                    cols.push(into.clone());
                }
                OperatorSpec::Join { on } => {
                    let right = input_cols(&job.sources[1]);
                    let extra: Vec<usize> = (0..right.len())
                        .filter(|i| !cols.contains(&right[*i]))
                        .collect();
                    p.stateful = Some(Stateful::Join {
                        left_on: on.iter().map(|c| index_of(&cols, c)).collect(),
                        right_on: on.iter().map(|c| index_of(&right, c)).collect(),
                        right_extra: extra.clone(),
                    });
                    cols.extend(extra.iter().map(|i| right[*i].clone()));
                }
            }
        }
        p
    }

    /// Whether the job has a stateful operator (and so must align before emitting).
    pub(crate) fn is_stateful(&self) -> bool {
        self.stateful.is_some()
    }

    /// Stateless operators before the stateful one: applied as records are read.
    pub(crate) fn apply_pre(&self, recs: Vec<Record>) -> Vec<Record> {
        apply_all(&self.pre, recs)
    }

    /// Stateless operators after the stateful one.
    pub(crate) fn apply_post(&self, recs: Vec<Record>) -> Vec<Record> {
        apply_all(&self.post, recs)
    }

    /// Computes one barrier from the previous barrier's state and this barrier's input deltas
    /// (`inputs[i]` = records of input `i`); returns the changed output rows, by key.
    pub(crate) fn compute(&self, state: &mut OperatorState, inputs: &[Vec<Record>]) -> Vec<Record> {
        let out = match &self.stateful {
            None => inputs.iter().flatten().cloned().collect(),
            Some(Stateful::GroupSum { keys, sum }) => group_sum(state, keys, *sum, &inputs[0]),
            Some(Stateful::Join {
                left_on,
                right_on,
                right_extra,
            }) => join(
                state,
                left_on,
                right_on,
                right_extra,
                &inputs[0],
                &inputs[1],
            ),
        };
        self.apply_post(out)
    }
}

fn apply_all(ops: &[Stateless], recs: Vec<Record>) -> Vec<Record> {
    recs.into_iter()
        .filter_map(|r| ops.iter().try_fold(r, |r, op| op.apply(r)))
        .collect()
}

fn pick(values: &[i64], idx: &[usize]) -> Vec<i64> {
    idx.iter().map(|i| values[*i]).collect()
}

fn group_sum(
    state: &mut OperatorState,
    keys: &[usize],
    sum: usize,
    delta: &[Record],
) -> Vec<Record> {
    let mut changed = BTreeSet::new();
    for rec in delta {
        if let Some(old) = state.rows.insert(rec.key.clone(), rec.values.clone()) {
            // An upsert of an input key retracts the old row's contribution first.
            let g = pick(&old, keys);
            *state.sums.entry(g.clone()).or_insert(0) -= old[sum];
            changed.insert(g);
        }
        let g = pick(&rec.values, keys);
        *state.sums.entry(g.clone()).or_insert(0) += rec.values[sum];
        changed.insert(g);
    }
    changed
        .into_iter()
        .map(|g| {
            let mut values = g.clone();
            values.push(state.sums[&g]);
            Record { key: g, values }
        })
        .collect()
}

fn join(
    state: &mut OperatorState,
    left_on: &[usize],
    right_on: &[usize],
    right_extra: &[usize],
    left: &[Record],
    right: &[Record],
) -> Vec<Record> {
    let mut changed_left = BTreeSet::new();
    for rec in left {
        state.rows.insert(rec.key.clone(), rec.values.clone());
        changed_left.insert(rec.key.clone());
    }
    let mut changed_on = BTreeSet::new();
    for rec in right {
        let on = pick(&rec.values, right_on);
        state.right.insert(on.clone(), rec.values.clone());
        changed_on.insert(on);
    }
    let mut out = Vec::new();
    for (key, values) in &state.rows {
        let on = pick(values, left_on);
        if !changed_left.contains(key) && !changed_on.contains(&on) {
            continue;
        }
        if let Some(r) = state.right.get(&on) {
            let mut v = values.clone();
            v.extend(pick(r, right_extra));
            out.push(Record {
                key: key.clone(),
                values: v,
            });
        }
    }
    out
}
