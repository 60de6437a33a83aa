//! The Topology mode's pure view-model (FLIP-276 timestamp barriers, SEMANTICS §5.1, seed 003):
//! the URL state, the left-to-right DAG layout of CDC, jobs and tables, the worlds of a run at
//! every step, the declared query's history, event texts, the delay chart (plotters, SVG) and
//! the lesson of each topology preset. The `web` crate only renders what these return.

use crate::url::{percent_decode, UrlError};
use batchscope_engine::barrier::{
    self, BarrierEvent, BarrierEventKind, Consistency, DelayReport, Fault, ReadLevel, TopologyRun,
    TopologySpec, TopologyWorld, CDC_SOURCE,
};
use std::collections::BTreeMap;

/// The topology loaded when the URL names none.
pub const DEFAULT_TOPOLOGY: &str = "shopping";
/// The seed used when the URL names none (the CLI's default).
pub const DEFAULT_TOPOLOGY_SEED: u64 = 1;
/// A run stops here whatever happens (browser safety; the presets need about 100 steps).
pub const MAX_STEPS: usize = 5_000;

// ---------------------------------------------------------------------------------------------
// URL state

/// What the URL hash holds in Topology mode:
/// `#mode=topology&topology=shopping&seed=1&fail=price_job@2&level=rc&consistency=strong&at=40`.
#[derive(Clone, Debug, PartialEq)]
pub struct TopoUrl {
    /// Topology preset name.
    pub topology: String,
    /// Seed of the generated CDC rows.
    pub seed: u64,
    /// The contrast without timestamp barriers (`nobarriers=1`).
    pub no_barriers: bool,
    /// Recorded faults, in canonical order (see [`canonical_faults`]).
    pub faults: Vec<Fault>,
    /// Reader level of the query panel.
    pub level: ReadLevel,
    /// Strong or Weak consistency of the query panel.
    pub consistency: Consistency,
    /// Steps shown (the cursor).
    pub at: u64,
    /// Whether the guided tour is on (`tour=1`): playback pauses at the lesson's stops.
    pub tour: bool,
}

impl TopoUrl {
    /// A fresh page of `topology`: default seed, barriers on, Repeatable Read + Strong, step 0.
    pub fn default_for(topology: &str) -> TopoUrl {
        TopoUrl {
            topology: topology.to_string(),
            seed: DEFAULT_TOPOLOGY_SEED,
            no_barriers: false,
            faults: vec![],
            level: ReadLevel::RepeatableRead,
            consistency: Consistency::Strong,
            at: 0,
            tour: false,
        }
    }

    /// The recorded run this state describes (`None` for an unknown topology).
    pub fn run(&self) -> Option<TopologyRun> {
        let mut spec = barrier::preset(&self.topology)?;
        spec.no_barriers = self.no_barriers;
        Some(TopologyRun {
            barriers: spec.barriers,
            spec,
            seed: self.seed,
            faults: self.faults.clone(),
        })
    }
}

/// Whether a hash asks for Topology mode (`mode=topology`).
pub fn is_topology_hash(hash: &str) -> bool {
    hash.trim_start_matches('#')
        .split('&')
        .any(|p| percent_decode(p) == "mode=topology")
}

/// Topology preset names, in the engine's order.
pub fn topology_names() -> Vec<&'static str> {
    barrier::presets().into_iter().map(|(n, _)| n).collect()
}

/// Faults sorted by kind (fail after PRECOMMIT, fail at a step, revise at a step, revise after
/// WRITTEN), stable within a kind: the order the URL writes them, so links round-trip.
pub fn canonical_faults(mut faults: Vec<Fault>) -> Vec<Fault> {
    faults.sort_by_key(|f| match f {
        Fault::FailBeforeWritten { .. } => 0,
        Fault::FailAtStep { .. } => 1,
        Fault::ReviseAtStep { .. } => 2,
        Fault::ReviseAfterWritten { .. } => 3,
    });
    faults
}

fn url_err(param: &str, reason: String) -> UrlError {
    UrlError {
        param: param.to_string(),
        reason,
    }
}

fn split_at(param: &str, item: &str, parts: usize, shape: &str) -> Result<Vec<String>, UrlError> {
    let v: Vec<String> = item.split('@').map(|s| s.trim().to_string()).collect();
    if v.len() != parts || v.iter().any(String::is_empty) {
        return Err(url_err(param, format!("`{item}` is not {shape}")));
    }
    Ok(v)
}

fn number(param: &str, value: &str, what: &str) -> Result<u64, UrlError> {
    value.trim().parse::<u64>().map_err(|_| {
        url_err(
            param,
            format!("`{value}` is not {what} (a whole number ≥ 0)"),
        )
    })
}

/// Parses a Topology-mode hash. Unknown parameters (and `preset`, the micro-batch mode's) are
/// ignored; every bad value is named — job and table names are checked against the topology.
pub fn parse_topology(hash: &str) -> Result<TopoUrl, Vec<UrlError>> {
    let known = topology_names();
    let mut state = TopoUrl::default_for(DEFAULT_TOPOLOGY);
    let mut errors = vec![];
    let mut raw_faults: Vec<(String, String)> = vec![];
    let hash = hash.strip_prefix('#').unwrap_or(hash);
    for pair in hash.split('&').filter(|p| !p.is_empty()) {
        let (key, raw) = pair.split_once('=').unwrap_or((pair, ""));
        let key = percent_decode(key);
        let value = percent_decode(raw);
        match key.as_str() {
            "mode" if value != "topology" && value != "micro" => errors.push(url_err(
                "mode",
                format!("unknown mode `{value}` (known: micro, topology)"),
            )),
            "topology" => {
                if known.contains(&value.as_str()) {
                    state.topology = value;
                } else {
                    errors.push(url_err(
                        "topology",
                        format!("unknown topology `{value}` (known: {})", known.join(", ")),
                    ));
                }
            }
            "seed" => match number("seed", &value, "a seed") {
                Ok(s) => state.seed = s,
                Err(e) => errors.push(e),
            },
            "at" => match number("at", &value, "a step count") {
                Ok(a) => state.at = a,
                Err(e) => errors.push(e),
            },
            "tour" => match value.as_str() {
                "1" | "true" | "on" => state.tour = true,
                "0" | "false" | "off" => state.tour = false,
                _ => errors.push(url_err("tour", format!("`{value}` is not 1 or 0"))),
            },
            "nobarriers" => match value.as_str() {
                "1" | "true" | "" => state.no_barriers = true,
                "0" | "false" => state.no_barriers = false,
                _ => errors.push(url_err("nobarriers", format!("`{value}` is not 0 or 1"))),
            },
            "level" => match value.as_str() {
                "ru" => state.level = ReadLevel::ReadUncommitted,
                "rc" => state.level = ReadLevel::ReadCommitted,
                "rr" => state.level = ReadLevel::RepeatableRead,
                _ => errors.push(url_err(
                    "level",
                    format!("unknown level `{value}` (known: ru, rc, rr)"),
                )),
            },
            "consistency" => match value.as_str() {
                "strong" => state.consistency = Consistency::Strong,
                "weak" => state.consistency = Consistency::Weak,
                _ => errors.push(url_err(
                    "consistency",
                    format!("unknown consistency `{value}` (known: strong, weak)"),
                )),
            },
            "fail" | "failat" | "revise" => {
                for item in value.split(',').filter(|s| !s.trim().is_empty()) {
                    raw_faults.push((key.clone(), item.trim().to_string()));
                }
            }
            _ => {}
        }
    }
    // Faults are checked against the topology once its name is known.
    let spec = barrier::preset(&state.topology).expect("a known topology");
    for (param, item) in raw_faults {
        match fault_of(&spec, state.no_barriers, &param, &item) {
            Ok(f) => state.faults.push(f),
            Err(e) => errors.push(e),
        }
    }
    state.faults = canonical_faults(state.faults);
    if errors.is_empty() {
        Ok(state)
    } else {
        Err(errors)
    }
}

fn fault_of(
    spec: &TopologySpec,
    no_barriers: bool,
    param: &str,
    item: &str,
) -> Result<Fault, UrlError> {
    let jobs: Vec<&str> = spec.jobs.iter().map(|j| j.name.as_str()).collect();
    let tables: Vec<&str> = spec.tables.iter().map(|t| t.name.as_str()).collect();
    let job_ok = |job: &str| {
        if jobs.contains(&job) {
            Ok(())
        } else {
            Err(url_err(
                param,
                format!(
                    "unknown job `{job}` in topology `{}` (jobs: {})",
                    spec.name,
                    jobs.join(", ")
                ),
            ))
        }
    };
    match param {
        "fail" => {
            let v = split_at(param, item, 2, "JOB@BARRIER")?;
            job_ok(&v[0])?;
            let b = number(param, &v[1], "a barrier number")?;
            if b == 0 || b > spec.barriers {
                return Err(url_err(
                    param,
                    format!("barrier {b} must be between 1 and {}", spec.barriers),
                ));
            }
            Ok(Fault::FailBeforeWritten {
                job: v[0].clone(),
                barrier: b,
            })
        }
        "failat" => {
            let v = split_at(param, item, 2, "JOB@STEP")?;
            job_ok(&v[0])?;
            Ok(Fault::FailAtStep {
                job: v[0].clone(),
                step: number(param, &v[1], "a step number")?,
            })
        }
        _ => {
            let v = split_at(param, item, 3, "TABLE@BARRIER@STEP")?;
            if !tables.contains(&v[0].as_str()) {
                return Err(url_err(
                    param,
                    format!(
                        "unknown table `{}` in topology `{}` (tables: {})",
                        v[0],
                        spec.name,
                        tables.join(", ")
                    ),
                ));
            }
            if no_barriers {
                return Err(url_err(param, "revision needs timestamp barriers".into()));
            }
            Ok(Fault::ReviseAtStep {
                table: v[0].clone(),
                barrier: number(param, &v[1], "a barrier number")?,
                step: number(param, &v[2], "a step number")?,
            })
        }
    }
}

/// Formats the state as a hash (with the leading `#`); `parse_topology(format(s)) == s`.
pub fn format_topology(state: &TopoUrl) -> String {
    let mut s = format!(
        "#mode=topology&topology={}&seed={}",
        state.topology, state.seed
    );
    if state.no_barriers {
        s.push_str("&nobarriers=1");
    }
    let mut groups: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for f in &state.faults {
        let (k, v) = match f {
            Fault::FailBeforeWritten { job, barrier } => ("fail", format!("{job}@{barrier}")),
            Fault::FailAtStep { job, step } => ("failat", format!("{job}@{step}")),
            Fault::ReviseAtStep {
                table,
                barrier,
                step,
            } => ("revise", format!("{table}@{barrier}@{step}")),
            // Not produced by the dashboard (the CLI's `--revise`); not expressible in a link.
            Fault::ReviseAfterWritten { .. } => continue,
        };
        groups.entry(k).or_default().push(v);
    }
    for k in ["fail", "failat", "revise"] {
        if let Some(v) = groups.get(k) {
            s.push_str(&format!("&{k}={}", v.join(",")));
        }
    }
    if state.tour {
        s.push_str("&tour=1");
    }
    s.push_str(&format!(
        "&level={}&consistency={}&at={}",
        state.level.short(),
        consistency_short(state.consistency),
        state.at
    ));
    s
}

/// `strong` or `weak`.
pub fn consistency_short(c: Consistency) -> &'static str {
    match c {
        Consistency::Strong => "strong",
        Consistency::Weak => "weak",
    }
}

/// The level's name as the seed spells it.
pub fn level_title(l: ReadLevel) -> &'static str {
    match l {
        ReadLevel::ReadUncommitted => "Read Uncommitted",
        ReadLevel::ReadCommitted => "Read Committed",
        ReadLevel::RepeatableRead => "Repeatable Read",
    }
}

/// A fault in words (the list of recorded inputs).
pub fn fault_text(f: &Fault) -> String {
    match f {
        Fault::FailBeforeWritten { job, barrier } => {
            format!("{job} fails after barrier {barrier} is PRECOMMIT, before WRITTEN")
        }
        Fault::FailAtStep { job, step } => format!("{job} fails after step {step}"),
        Fault::ReviseAtStep {
            table,
            barrier,
            step,
        } => format!("{table} revised to barrier {barrier} after step {step}"),
        Fault::ReviseAfterWritten {
            table,
            barrier,
            written,
        } => format!("{table} revised to barrier {barrier} once barrier {written} is WRITTEN"),
    }
}

// ---------------------------------------------------------------------------------------------
// Frames and query history

/// The world after every step of a run: `frames[i]` has emitted `i` events.
pub fn frames(run: &TopologyRun) -> Result<Vec<TopologyWorld>, String> {
    let mut world = TopologyWorld::from_run(run.clone()).map_err(|e| e.to_string())?;
    let mut out = vec![world.clone()];
    while out.len() <= MAX_STEPS && world.step().is_some() {
        out.push(world.clone());
    }
    Ok(out)
}

/// The declared query's answer at one step.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryPoint {
    /// Steps emitted.
    pub step: u64,
    /// The ratio (avgPrice) of the first row (the seed's user 1 / item 1), if any.
    pub ratio: Option<f64>,
    /// Whether the answer was consistent.
    pub consistent: bool,
    /// Barrier each queried table was read at.
    pub barriers: Vec<u64>,
}

/// The declared query evaluated after every step.
pub fn query_history(
    frames: &[TopologyWorld],
    level: ReadLevel,
    consistency: Consistency,
) -> Vec<HistoryPoint> {
    frames
        .iter()
        .map(|w| {
            let r = w.query(&w.declared_query(level, consistency));
            HistoryPoint {
                step: w.steps(),
                ratio: r.rows.first().and_then(|row| row.ratio),
                consistent: r.consistent,
                barriers: r.reads.iter().map(|t| t.barrier).collect(),
            }
        })
        .collect()
}

/// The points where the value or its consistency changed, up to and including `cursor`: the
/// short story the query panel tells (10 → 25 ✗ → 8.333 …).
pub fn value_changes(history: &[HistoryPoint], cursor: usize) -> Vec<HistoryPoint> {
    let mut out: Vec<HistoryPoint> = vec![];
    for p in history.iter().take(cursor + 1) {
        let same = out
            .last()
            .is_some_and(|l| l.ratio == p.ratio && l.consistent == p.consistent);
        if !same && p.ratio.is_some() {
            out.push(p.clone());
        }
    }
    out
}

/// Whether a change went back to an earlier version (a table read at a lower barrier).
pub fn rolled_back(prev: &HistoryPoint, next: &HistoryPoint) -> bool {
    prev.barriers.len() == next.barriers.len()
        && prev.barriers.iter().zip(&next.barriers).any(|(a, b)| b < a)
}

/// A ratio as the seed prints it: `10`, `25`, `8.333`.
pub fn ratio_text(r: Option<f64>) -> String {
    match r {
        None => "–".into(),
        Some(v) if (v - v.round()).abs() < 1e-9 => format!("{}", v.round() as i64),
        Some(v) => {
            let s = format!("{v:.3}");
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Layout

/// What a node of the DAG is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// The CDC source.
    Cdc,
    /// An ETL job.
    Job,
    /// A Table Store table.
    Table,
}

/// A placed node (top-left corner and size, in SVG units).
#[derive(Clone, Debug, PartialEq)]
pub struct TopoNode {
    /// `cdc`, a job or a table name.
    pub name: String,
    /// Kind.
    pub kind: NodeKind,
    /// Column, left to right (CDC is 0).
    pub column: u32,
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

/// A placed edge: an SVG path and the point for its barrier label.
#[derive(Clone, Debug, PartialEq)]
pub struct TopoEdge {
    /// From node.
    pub from: String,
    /// To node.
    pub to: String,
    /// SVG path `d`.
    pub path: String,
    /// Label position x.
    pub lx: f64,
    /// Label position y.
    pub ly: f64,
}

/// The whole DAG.
#[derive(Clone, Debug, PartialEq)]
pub struct TopoLayout {
    /// viewBox width.
    pub width: f64,
    /// viewBox height.
    pub height: f64,
    /// Nodes.
    pub nodes: Vec<TopoNode>,
    /// Edges (source → job, job → sink table).
    pub edges: Vec<TopoEdge>,
}

impl TopoLayout {
    /// A node by name.
    pub fn node(&self, name: &str) -> Option<&TopoNode> {
        self.nodes.iter().find(|n| n.name == name)
    }
}

/// Height of a table node (name, barrier squares, snapshot line).
pub const TABLE_H: f64 = 74.0;
const JOB_H: f64 = 50.0;
const CDC_H: f64 = 44.0;
const ROW_PITCH: f64 = 96.0;
const MARGIN: f64 = 8.0;
/// Room above the rows for edges that skip columns (they arc over the nodes between).
const ARC_ROOM: f64 = 46.0;
/// Room below for the legend.
pub const LEGEND_H: f64 = 26.0;

/// The viewBox width that gives every node room for its labels (at least 900).
pub fn layout_width(spec: &TopologySpec) -> f64 {
    let columns = layout(spec, 900.0)
        .nodes
        .iter()
        .map(|n| n.column)
        .max()
        .unwrap_or(0)
        + 1;
    (f64::from(columns) * 165.0).max(900.0)
}

/// Lays the topology out left to right: CDC, then each job one column right of its rightmost
/// source, each table one column right of its writer. Rows within a column keep spec order and
/// are centred. Edges that skip columns arc above the nodes between.
pub fn layout(spec: &TopologySpec, width: f64) -> TopoLayout {
    let mut column: BTreeMap<String, u32> = BTreeMap::new();
    column.insert(CDC_SOURCE.to_string(), 0);
    // The spec is a DAG (validated); a few passes settle every column.
    for _ in 0..=spec.jobs.len() {
        for j in &spec.jobs {
            let c = 1 + j
                .sources
                .iter()
                .map(|s| column.get(s).copied().unwrap_or(0))
                .max()
                .unwrap_or(0);
            column.insert(j.name.clone(), c);
            column.insert(j.sink.clone(), c + 1);
        }
    }
    let mut order: Vec<(String, NodeKind)> = vec![(CDC_SOURCE.to_string(), NodeKind::Cdc)];
    for j in &spec.jobs {
        order.push((j.name.clone(), NodeKind::Job));
    }
    for t in &spec.tables {
        order.push((t.name.clone(), NodeKind::Table));
    }
    let columns = column.values().copied().max().unwrap_or(0) + 1;
    let per_col = |c: u32| order.iter().filter(|(n, _)| column[n] == c).count();
    let rows = (0..columns).map(per_col).max().unwrap_or(1).max(1);
    let skips = spec.jobs.iter().any(|j| {
        j.sources
            .iter()
            .any(|s| column[&j.name] > column.get(s).copied().unwrap_or(0) + 1)
    });
    let top = MARGIN + if skips { ARC_ROOM } else { 0.0 };
    let body_h = rows as f64 * ROW_PITCH;
    let pitch = (width - 2.0 * MARGIN) / columns as f64;
    let node_w = (pitch - 44.0).min(150.0);
    let mut nodes = vec![];
    let mut seen: BTreeMap<u32, usize> = BTreeMap::new();
    for (name, kind) in &order {
        let c = column[name];
        let i = *seen.entry(c).and_modify(|i| *i += 1).or_insert(0);
        let n = per_col(c);
        let h = match kind {
            NodeKind::Cdc => CDC_H,
            NodeKind::Job => JOB_H,
            NodeKind::Table => TABLE_H,
        };
        let w = if *kind == NodeKind::Cdc {
            node_w.min(70.0)
        } else {
            node_w
        };
        let centre_y = top + body_h / 2.0 + (i as f64 - (n as f64 - 1.0) / 2.0) * ROW_PITCH;
        let centre_x = MARGIN + pitch * (c as f64 + 0.5);
        nodes.push(TopoNode {
            name: name.clone(),
            kind: *kind,
            column: c,
            x: centre_x - w / 2.0,
            y: centre_y - h / 2.0,
            w,
            h,
        });
    }
    let find = |n: &str| nodes.iter().find(|x| x.name == n).expect("placed");
    let mut edges = vec![];
    let mut edge = |from: &TopoNode, to: &TopoNode| {
        let (x1, y1) = (from.x + from.w, from.y + from.h / 2.0);
        let (x2, y2) = (to.x, to.y + to.h / 2.0);
        let (path, lx, ly) = if to.column > from.column + 1 {
            let arc = from.y.min(to.y) - ARC_ROOM + 6.0;
            (
                format!("M{x1:.1},{y1:.1} C{x1:.1},{arc:.1} {x2:.1},{arc:.1} {x2:.1},{y2:.1}"),
                (x1 + x2) / 2.0,
                // A cubic with both control points at `arc` passes 3/4 of the way there.
                y1.min(y2) + 0.75 * (arc - y1.min(y2)),
            )
        } else {
            let mx = (x1 + x2) / 2.0;
            (
                format!("M{x1:.1},{y1:.1} C{mx:.1},{y1:.1} {mx:.1},{y2:.1} {x2:.1},{y2:.1}"),
                mx,
                (y1 + y2) / 2.0,
            )
        };
        edges.push(TopoEdge {
            from: from.name.clone(),
            to: to.name.clone(),
            path,
            lx,
            ly,
        });
    };
    for j in &spec.jobs {
        for s in &j.sources {
            edge(find(s), find(&j.name));
        }
        edge(find(&j.name), find(&j.sink));
    }
    TopoLayout {
        width,
        height: top + body_h + LEGEND_H,
        nodes,
        edges,
    }
}

// ---------------------------------------------------------------------------------------------
// What the graph shows at a step

/// The barrier label of an edge at a step: source → job shows the last barrier the job read
/// from that input (its checkpoint id / CDC offset without barriers), job → table the last
/// barrier PROCESSED in the table.
pub fn edge_label(world: &TopologyWorld, from: &str, to: &str) -> String {
    let nb = world.spec().no_barriers;
    if let Some(job) = world.jobs().iter().find(|j| j.spec.name == to) {
        let consumed = job
            .inputs
            .iter()
            .find(|i| i.source == from)
            .map_or(0, |i| i.consumed);
        return match (nb, from == CDC_SOURCE) {
            (false, _) => format!("b{consumed}"),
            (true, true) => format!("off {consumed}"),
            (true, false) => format!("ckpt {consumed}"),
        };
    }
    let processed = world.table(to).map_or(0, |t| t.processed());
    if nb {
        format!("ckpt {processed}")
    } else {
        format!("b{processed}")
    }
}

/// Edges and nodes the event on screen involves (drawn highlighted).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Active {
    /// (from, to) edges.
    pub edges: Vec<(String, String)>,
    /// Node names.
    pub nodes: Vec<String>,
    /// Whether the event is a failure or a revision (drawn red).
    pub alarm: bool,
}

/// What the event touches, for highlighting.
pub fn active(world: &TopologyWorld, event: Option<&BarrierEvent>) -> Active {
    let Some(e) = event else {
        return Active::default();
    };
    let writer = |t: &str| world.meta().writer_of(t).unwrap_or("").to_string();
    let mut a = Active::default();
    match &e.kind {
        BarrierEventKind::CdcRecord { written, .. } => {
            a.nodes.push(CDC_SOURCE.into());
            for w in written {
                let j = writer(&w.table);
                a.edges.push((CDC_SOURCE.into(), j.clone()));
                a.edges.push((j, w.table.clone()));
            }
        }
        BarrierEventKind::BarrierIssued { .. } => a.nodes.push(CDC_SOURCE.into()),
        BarrierEventKind::SourceEmit { job, input, .. } => {
            a.edges.push((input.clone(), job.clone()));
            a.nodes.push(job.clone());
        }
        BarrierEventKind::CheckpointTriggered { job, .. } => a.nodes.push(job.clone()),
        BarrierEventKind::Processed { job, table, .. } => {
            a.edges.push((job.clone(), table.clone()));
            a.nodes.push(table.clone());
        }
        BarrierEventKind::SnapshotHeld { job, .. } => a.nodes.push(job.clone()),
        BarrierEventKind::SnapshotWritten { table, .. } => a.nodes.push(table.clone()),
        BarrierEventKind::Precommit { .. } | BarrierEventKind::Commit { .. } => {
            a.nodes = world.tables().iter().map(|t| t.name.clone()).collect();
        }
        BarrierEventKind::JobFailed { job, table, .. } => {
            a.nodes.push(job.clone());
            a.nodes.push(table.clone());
            a.alarm = true;
        }
        BarrierEventKind::JobRecovered { job, .. } => a.nodes.push(job.clone()),
        BarrierEventKind::Revised { tables, jobs, .. } => {
            a.nodes.extend(tables.iter().cloned());
            a.nodes.extend(jobs.iter().cloned());
            a.alarm = true;
        }
    }
    a
}

/// One step in words, for the step note.
pub fn event_text(kind: &BarrierEventKind) -> String {
    use BarrierEventKind as K;
    match kind {
        K::CdcRecord { record, written } => {
            let [u, i, a, p] = record.row;
            let to: Vec<String> = written
                .iter()
                .map(|w| format!("{} (open barrier {})", w.table, w.barrier))
                .collect();
            format!(
                "CDC record #{} (userId {u}, itemId {i}, amount {a}, price {p}) streams into {}.",
                record.offset,
                if to.is_empty() { "the ingest job".into() } else { to.join(", ") }
            )
        }
        K::BarrierIssued {
            barrier,
            cdc_offset_start,
            cdc_offset_end,
        } => format!(
            "MetaService issues timestamp barrier {barrier}: it closes CDC offsets {cdc_offset_start}..{cdc_offset_end}, one bounded transaction."
        ),
        K::SourceEmit {
            job,
            input,
            barrier,
            records,
            waiting_for,
        } => {
            let mut s = format!(
                "{job} reads barrier {barrier} of {input} ({records} records) and passes the barrier on."
            );
            if !waiting_for.is_empty() {
                s.push_str(&format!(
                    " Its stateful operator aligns: it buffers this input until barrier {barrier} of {} arrives.",
                    waiting_for.join(", ")
                ));
            }
            s
        }
        K::CheckpointTriggered {
            job,
            checkpoint,
            records,
        } => format!(
            "No barriers: {job} cuts its own checkpoint {checkpoint} and reads whatever upstream has written so far ({records} records)."
        ),
        K::Processed {
            job,
            table,
            barrier,
            records,
        } => format!(
            "{job} finished barrier {barrier}: PROCESSED in {table} ({records} records) — visible to Read Uncommitted / Read Committed, not yet in a snapshot."
        ),
        K::SnapshotHeld { job, barrier } => format!(
            "{job} holds its snapshot of barrier {barrier} until the barrier is PRECOMMIT (the armed failure waits for that point)."
        ),
        K::SnapshotWritten {
            table,
            barrier,
            snapshot_id,
            total_record_count,
            ..
        } => format!(
            "{table} commits snapshot {snapshot_id} for barrier {barrier} ({total_record_count} rows): WRITTEN — Repeatable Read can now read it, and it never rolls back."
        ),
        K::Precommit { barrier } => format!(
            "Barrier {barrier} is PRECOMMIT: PROCESSED in every table. Read Committed now returns its data."
        ),
        K::Commit { barrier } => format!(
            "Barrier {barrier} is COMMIT: WRITTEN in every table, a globally consistent set of snapshots."
        ),
        K::JobFailed {
            job,
            table,
            restored_barrier,
            lost_barriers,
        } => {
            let lost: Vec<String> = lost_barriers.iter().map(u64::to_string).collect();
            format!(
                "{job} FAILED. {table} loses what it had not WRITTEN{}; the job restarts from the checkpoint of barrier {restored_barrier}. Read Committed rolls back, Repeatable Read does not.",
                if lost.is_empty() { String::new() } else { format!(" (barriers {} roll back)", lost.join(", ")) }
            )
        }
        K::JobRecovered {
            job,
            from_barrier,
            replay,
        } => {
            let r: Vec<String> = replay
                .iter()
                .map(|r| format!("b{} = CDC {}..{}", r.barrier, r.cdc_offset_start, r.cdc_offset_end))
                .collect();
            format!(
                "{job} restarted from barrier {from_barrier}{}: the same barriers, the same data, nothing lost or repeated.",
                if r.is_empty() { String::new() } else { format!(" and replays {}", r.join(", ")) }
            )
        }
        K::Revised {
            table,
            barrier,
            tables,
            jobs,
        } => format!(
            "{table} revised to barrier {barrier}: {} roll back to it and {} restart from there and replay.",
            tables.join(", "),
            jobs.join(", ")
        ),
    }
}

/// The step note: [`event_text`], speaking of the jobs' own checkpoints where the run has no
/// timestamp barriers (the engine then numbers snapshots by checkpoint).
pub fn step_text(kind: &BarrierEventKind, no_barriers: bool) -> String {
    let text = event_text(kind);
    let per_checkpoint = matches!(
        kind,
        BarrierEventKind::Processed { .. }
            | BarrierEventKind::SnapshotWritten { .. }
            | BarrierEventKind::JobFailed { .. }
            | BarrierEventKind::JobRecovered { .. }
    );
    if no_barriers && per_checkpoint {
        text.replace("barriers ", "checkpoints ")
            .replace("barrier ", "checkpoint ")
    } else {
        text
    }
}

// ---------------------------------------------------------------------------------------------
// Delay chart

/// Colours of the chart's series (jobs first, then tables), distinct on both themes.
pub const SERIES_COLORS: [(u8, u8, u8); 8] = [
    (91, 108, 240),
    (217, 130, 11),
    (31, 157, 85),
    (214, 51, 132),
    (13, 154, 152),
    (139, 92, 246),
    (107, 122, 144),
    (229, 72, 77),
];

/// The chart's legend: (label, CSS colour, is a job) per drawn series, in drawing order (the
/// legend is HTML next to the chart, so it never hides a line).
pub fn delay_legend(report: &DelayReport) -> Vec<(String, String, bool)> {
    report
        .jobs
        .iter()
        .map(|s| (s, true))
        .chain(report.tables.iter().map(|s| (s, false)))
        .filter(|(s, _)| !s.samples.is_empty())
        .enumerate()
        .map(|(i, (s, job))| {
            let (r, g, b) = SERIES_COLORS[i % SERIES_COLORS.len()];
            let kind = if job { "job" } else { "table" };
            (
                format!("{kind} {}", s.name),
                format!("#{r:02x}{g:02x}{b:02x}"),
                job,
            )
        })
        .collect()
}

/// The delay chart as an SVG string: one line per job (thick) and per table (thin), x = when
/// the snapshot was written, y = its delay. Empty series are skipped; colours follow
/// [`delay_legend`].
pub fn delay_chart_svg(report: &DelayReport, width: u32, height: u32, dark: bool) -> String {
    use plotters::prelude::*;
    let mut svg = String::new();
    let all: Vec<(&barrier::DelaySeries, bool)> = report
        .jobs
        .iter()
        .map(|s| (s, true))
        .chain(report.tables.iter().map(|s| (s, false)))
        .filter(|(s, _)| !s.samples.is_empty())
        .collect();
    let x_max = all
        .iter()
        .flat_map(|(s, _)| s.samples.iter().map(|p| p.at_ms))
        .max()
        .unwrap_or(1000)
        .max(1000);
    let y_max = all
        .iter()
        .map(|(s, _)| s.max_ms())
        .max()
        .unwrap_or(100)
        .max(100);
    let (fg, grid) = if dark {
        (RGBColor(200, 208, 220), RGBColor(45, 56, 72))
    } else {
        (RGBColor(70, 80, 98), RGBColor(228, 232, 240))
    };
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        let font = |px: u32| ("sans-serif", px).into_font().color(&fg);
        let chart = ChartBuilder::on(&root)
            .margin(6)
            .x_label_area_size(26)
            .y_label_area_size(44)
            .build_cartesian_2d(0u64..x_max + x_max / 20, 0u64..y_max + y_max / 8);
        let Ok(mut chart) = chart else {
            return String::new();
        };
        let _ = chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .bold_line_style(grid)
            .axis_style(fg)
            .x_desc("simulated time (ms)")
            .y_desc("delay (ms)")
            .label_style(font(11))
            .axis_desc_style(font(11))
            .x_labels(6)
            .y_labels(5)
            .draw();
        for (i, (s, is_job)) in all.iter().enumerate() {
            let (r, g, b) = SERIES_COLORS[i % SERIES_COLORS.len()];
            let color = RGBColor(r, g, b);
            let style = color.stroke_width(if *is_job { 3 } else { 1 });
            let points: Vec<(u64, u64)> = s.samples.iter().map(|p| (p.at_ms, p.delay_ms)).collect();
            let _ = chart.draw_series(LineSeries::new(points.clone(), style));
            let _ = chart.draw_series(
                points
                    .iter()
                    .map(|p| Circle::new(*p, if *is_job { 3 } else { 2 }, color.filled())),
            );
        }
        let _ = root.present();
    }
    svg
}

// ---------------------------------------------------------------------------------------------
// Lessons

/// A topology preset's lesson: the seed's questions, answered with what is on screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopoLesson {
    /// Heading.
    pub title: &'static str,
    /// The seed question it answers.
    pub question: &'static str,
    /// Short paragraphs: what to watch and why.
    pub paragraphs: Vec<&'static str>,
    /// A link (hash) that shows the point of the lesson, and what it shows.
    pub try_hash: &'static str,
    /// What that link shows.
    pub try_text: &'static str,
}

/// The lesson of a topology preset (an unknown name gets the general one).
pub fn topology_lesson(name: &str) -> TopoLesson {
    match name {
        "chain" => TopoLesson {
            title: "Table1 → Table2 → Table3: alignment across jobs",
            question: "Seed 003: how do barriers flow across ETL jobs, how is E2E delay from CDC to Table3 defined, and which job to optimise?",
            paragraphs: vec![
                "The MetaService issues a global timestamp barrier every second; it travels through the tables: a job reads barrier N of an upstream table only once that table WROTE a snapshot of N.",
                "join_job reads table1 and table2 (= sum of table1). Watch its input edges: when barrier N of table1 arrives first, the join buffers it (\"aligns\") until barrier N of table2 arrives, so it never joins two different versions of the data.",
                "The query reads table2 and table3 together (amountShare). With Strong consistency every table is read at the minimum barrier over them and the tables they are computed from, so the share is always a true fraction.",
                "End-to-end delay of a table = when its snapshot of barrier N was written − CDC time of the newest record N covers. A job's delay = its snapshot time − the time all its inputs of N were available. The chart names the job with the largest mean delay: optimise it first, since every downstream table inherits its delay.",
                "Revise: pick table1 and a WRITTEN barrier — table1 and everything downstream roll back to it and replay the same CDC range, nothing lost or repeated.",
            ],
            try_hash: "#mode=topology&topology=chain&seed=1&fail=sum_job@2&level=rc&consistency=strong&at=0",
            try_text: "sum_job fails at barrier 2: watch join_job wait and table3 stay consistent",
        },
        _ => TopoLesson {
            title: "avgPrice across two tables: timestamp barriers",
            question: "Seed 003: how do timestamp barriers make a query across tables consistent, and what does each consistency level return?",
            paragraphs: vec![
                "CDC → ingest_shopping → shopping → amount_job / price_job → user_item_amount / user_item_price. avgPrice = totalPrice / totalAmount joins the two tables: it is only right if both reflect the same CDC records.",
                "Each barrier is one transaction: PROCESSED in a table when its records are written, WRITTEN when a snapshot holds it; PRECOMMIT once PROCESSED in all tables, COMMIT once WRITTEN in all.",
                "Read Uncommitted reads the latest data: price_job is faster, so user_item_price already holds 2500 while user_item_amount still holds 100 — avgPrice 25, a result that mixes barriers.",
                "Read Committed reads PRECOMMIT barriers: 10, then 8.333 once barrier 2 is PROCESSED everywhere. If a job fails after PRECOMMIT but before WRITTEN, its table loses barrier 2 and the answer rolls back to 10.",
                "Repeatable Read reads WRITTEN snapshots only: 10 until the snapshots of barrier 2 exist, then 8.333 for ever — snapshots are never rolled back. Strong reads every table at the same (minimum) barrier; Weak reads each at its latest, fresher but may mix barriers until COMMIT.",
                "Delay: per table, snapshot time − CDC time of the newest record it covers; per job, snapshot time − when its inputs were ready. The chart names the job to optimise. Revise a table: it and everything downstream roll back to a WRITTEN barrier and replay the same CDC data.",
            ],
            try_hash: "#mode=topology&topology=shopping&seed=1&fail=price_job@2&level=rc&consistency=strong&at=0",
            try_text: "price_job fails after barrier 2 is PRECOMMIT: Read Committed goes 10 → 8.333 → 10",
        },
    }
}

/// Where a topology tour stop pauses: the first step after the previous stop that matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopoMoment {
    /// The MetaService issues barrier N.
    Issued(u64),
    /// A join buffers one input until the other's barrier arrives (alignment).
    Aligning,
    /// The first table to PROCESS barrier N after its root table (a job's output).
    JobProcessed(u64),
    /// Barrier N is PRECOMMIT (PROCESSED in every table).
    Precommit(u64),
    /// Barrier N is COMMIT (WRITTEN in every table).
    Commit(u64),
    /// A job fails.
    JobFailed,
    /// A job restarts from its checkpoint.
    JobRecovered,
    /// The end of the run.
    End,
}

impl TopoMoment {
    /// Whether this step is the moment (never true for [`TopoMoment::End`]).
    pub fn matches(&self, event: &BarrierEvent) -> bool {
        use BarrierEventKind as K;
        match (*self, &event.kind) {
            (TopoMoment::Issued(n), K::BarrierIssued { barrier, .. }) => *barrier == n,
            (TopoMoment::Aligning, K::SourceEmit { waiting_for, .. }) => !waiting_for.is_empty(),
            (TopoMoment::JobProcessed(n), K::Processed { barrier, job, .. }) => {
                *barrier == n && !job.starts_with("ingest")
            }
            (TopoMoment::Precommit(n), K::Precommit { barrier }) => *barrier == n,
            (TopoMoment::Commit(n), K::Commit { barrier }) => *barrier == n,
            (TopoMoment::JobFailed, K::JobFailed { .. }) => true,
            (TopoMoment::JobRecovered, K::JobRecovered { .. }) => true,
            _ => false,
        }
    }
}

/// One pause of a topology tour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopoStop {
    /// Where playback pauses.
    pub at: TopoMoment,
    /// A few words.
    pub title: &'static str,
    /// What to look at, and why.
    pub text: &'static str,
}

/// A topology preset's guided tour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopoTour {
    /// The link the tour starts from (the lesson's `try_hash`: its fault, level, consistency).
    pub hash: &'static str,
    /// The pauses, in the order they happen.
    pub stops: Vec<TopoStop>,
}

/// For each stop, the cursor (steps shown) where playback pauses; `None` if never reached.
pub fn topo_stop_cursors(stops: &[TopoStop], trace: &[BarrierEvent]) -> Vec<Option<usize>> {
    crate::tour::resolve_in_order(
        stops.len(),
        trace,
        |i| stops[i].at == TopoMoment::End,
        |i, e| stops[i].at.matches(e),
    )
}

const fn topo_stop(at: TopoMoment, title: &'static str, text: &'static str) -> TopoStop {
    TopoStop { at, title, text }
}

/// The tour of a topology preset (an unknown name gets the shopping one).
pub fn topology_tour(name: &str) -> TopoTour {
    use TopoMoment::*;
    let hash = topology_lesson(name).try_hash;
    let stops = match name {
        "chain" => vec![
            topo_stop(Issued(1), "A global barrier",
                "The MetaService issues barrier 1: CDC offsets up to here belong to transaction 1. It travels through table1, table2 and table3 in turn."),
            topo_stop(Aligning, "The join aligns",
                "join_job got barrier 1 of table1 first. It buffers that input until barrier 1 of table2 arrives, so it never joins two versions of the data."),
            topo_stop(Precommit(1), "PRECOMMIT",
                "Barrier 1 is PROCESSED in every table: Read Committed can read it now."),
            topo_stop(Commit(1), "COMMIT",
                "Every table has a snapshot of barrier 1 (WRITTEN): Repeatable Read reads it, and it is never rolled back."),
            topo_stop(JobFailed, "sum_job fails",
                "table2 loses barrier 2, which it had PROCESSED but not WRITTEN. join_job keeps waiting for table2's barrier 2: table3 never mixes versions."),
            topo_stop(JobRecovered, "Restart from the checkpoint",
                "sum_job restarts from its snapshot of barrier 1 and replays barrier 2 from table1 — the same records."),
            topo_stop(Commit(2), "Barrier 2 commits",
                "Late, but complete: the failure cost delay, not consistency."),
            topo_stop(End, "Where the delay goes",
                "The chart gives each table's end-to-end delay and names the job with the largest mean delay: optimise it first."),
        ],
        _ => vec![
            topo_stop(Issued(1), "A global barrier",
                "The MetaService issues barrier 1: the first CDC offsets form transaction 1. Every table will hold it in the same state."),
            topo_stop(JobProcessed(1), "PROCESSED, not yet everywhere",
                "price_job is faster: user_item_price has barrier 1 while user_item_amount does not. Read Uncommitted would already mix them."),
            topo_stop(Precommit(1), "PRECOMMIT",
                "Barrier 1 is PROCESSED in all tables: Read Committed reads it (avgPrice 10)."),
            topo_stop(Commit(1), "COMMIT",
                "Snapshots of barrier 1 exist in all tables (WRITTEN): Repeatable Read reads them."),
            topo_stop(Precommit(2), "Barrier 2 PRECOMMIT",
                "Read Committed moves to barrier 2: avgPrice 8.333. price_job has not written its snapshot yet."),
            topo_stop(JobFailed, "price_job fails",
                "user_item_price loses barrier 2 (PROCESSED, not WRITTEN): Read Committed rolls back to 10. Repeatable Read never saw barrier 2 — snapshots are never rolled back."),
            topo_stop(JobRecovered, "Replay from the checkpoint",
                "price_job restarts from barrier 1 and replays barrier 2 from the same shopping snapshot."),
            topo_stop(Commit(2), "Barrier 2 commits",
                "All tables hold barrier 2: every level reads 8.333 now."),
            topo_stop(End, "Where the delay goes",
                "The chart gives each table's end-to-end delay and names the job to optimise."),
        ],
    };
    TopoTour { hash, stops }
}

/// The engine's list of simplifications, one item a line.
pub fn simplifications() -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for line in barrier::SIMPLIFICATIONS.lines() {
        if let Some(item) = line.strip_prefix("- ") {
            out.push(item.to_string());
        } else if let Some(last) = out.last_mut() {
            last.push(' ');
            last.push_str(line.trim());
        } else {
            out.push(line.trim().to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames_of(hash: &str) -> Vec<TopologyWorld> {
        let url = parse_topology(hash).unwrap();
        frames(&url.run().unwrap()).unwrap()
    }

    #[test]
    fn every_topology_tour_reaches_its_stops_in_order() {
        for (name, _) in barrier::presets() {
            let t = topology_tour(name);
            assert!(
                t.hash.contains(&format!("topology={name}")),
                "{name}: {}",
                t.hash
            );
            let frames = frames_of(t.hash);
            let trace = frames.last().unwrap().trace();
            let cursors = topo_stop_cursors(&t.stops, trace);
            for (stop, c) in t.stops.iter().zip(&cursors) {
                assert!(
                    c.is_some(),
                    "{name}: stop `{}` is never reached",
                    stop.title
                );
            }
            let reached: Vec<usize> = cursors.iter().flatten().copied().collect();
            assert!(
                reached.windows(2).all(|w| w[0] < w[1]),
                "{name}: {reached:?}"
            );
            assert_eq!(
                reached.last(),
                Some(&(frames.len() - 1)),
                "{name} ends at the end"
            );
        }
        // The tour's text is about what happens: price_job fails right after PRECOMMIT 2.
        let t = topology_tour("shopping");
        let trace = frames_of(t.hash).last().unwrap().trace().to_vec();
        let c = topo_stop_cursors(&t.stops, &trace);
        assert_eq!(
            c[5],
            c[4].map(|p| p + 1),
            "the failure follows PRECOMMIT 2 at once"
        );
    }

    #[test]
    fn a_full_hash_round_trips_and_bad_values_are_named() {
        let text = "#mode=topology&topology=chain&seed=3&nobarriers=1&fail=sum_job@2&failat=join_job@40&tour=1&level=rc&consistency=weak&at=12";
        let s = parse_topology(text).unwrap();
        assert_eq!(s.topology, "chain");
        assert!(s.no_barriers);
        assert_eq!(s.faults.len(), 2);
        assert!(s.tour);
        assert_eq!(format_topology(&s), text);
        let with_revise = "#mode=topology&topology=shopping&seed=1&revise=shopping@1@30&level=rr&consistency=strong&at=0";
        assert_eq!(
            format_topology(&parse_topology(with_revise).unwrap()),
            with_revise
        );

        let errors = parse_topology(
            "#mode=topology&topology=nope&seed=x&fail=ghost@2&level=serializable&at=-1",
        )
        .unwrap_err();
        let params: Vec<&str> = errors.iter().map(|e| e.param.as_str()).collect();
        assert_eq!(params, ["topology", "seed", "level", "at", "fail"]);
        assert!(errors[0]
            .reason
            .contains("unknown topology `nope` (known: shopping, chain)"));
        assert!(errors[4].reason.contains("unknown job `ghost`"));
        assert!(errors[4].reason.contains("price_job"));
        let e = parse_topology("#mode=topology&fail=price_job@9").unwrap_err();
        assert!(e[0].reason.contains("between 1 and 5"));
        let e = parse_topology("#mode=topology&fail=price_job").unwrap_err();
        assert!(e[0].reason.contains("JOB@BARRIER"));
        let e = parse_topology("#mode=topology&nobarriers=1&revise=shopping@1@3").unwrap_err();
        assert!(e[0].reason.contains("needs timestamp barriers"));
    }

    #[test]
    fn the_mode_is_read_from_the_hash() {
        assert!(is_topology_hash("#mode=topology&topology=chain"));
        assert!(!is_topology_hash("#preset=tablestore&seed=7"));
        assert!(!is_topology_hash(""));
    }

    #[test]
    fn the_layout_goes_left_to_right_without_overlaps() {
        for (name, _) in barrier::presets() {
            let spec = barrier::preset(name).unwrap();
            let l = layout(&spec, 900.0);
            assert_eq!(l.node("cdc").unwrap().column, 0);
            for j in &spec.jobs {
                let job = l.node(&j.name).unwrap();
                let sink = l.node(&j.sink).unwrap();
                assert_eq!(
                    sink.column,
                    job.column + 1,
                    "{name}: {} → {}",
                    j.name,
                    j.sink
                );
                for s in &j.sources {
                    assert!(l.node(s).unwrap().x + l.node(s).unwrap().w < job.x);
                }
            }
            for a in &l.nodes {
                assert!(a.x >= 0.0 && a.x + a.w <= l.width && a.y >= 0.0 && a.y + a.h <= l.height);
                for b in &l.nodes {
                    let apart = a.x + a.w <= b.x
                        || b.x + b.w <= a.x
                        || a.y + a.h <= b.y
                        || b.y + b.h <= a.y;
                    assert!(
                        a.name == b.name || apart,
                        "{name}: {} overlaps {}",
                        a.name,
                        b.name
                    );
                }
            }
            let edges = spec.jobs.iter().map(|j| j.sources.len() + 1).sum::<usize>();
            assert_eq!(l.edges.len(), edges);
        }
        // shopping: CDC, ingest, shopping, the two jobs, the two tables.
        let l = layout(&barrier::preset("shopping").unwrap(), 900.0);
        assert_eq!(l.node("user_item_price").unwrap().column, 4);
        // chain: table1 → join_job skips two columns and arcs above them; its seven columns
        // get a wider canvas so every node keeps room for its name.
        let chain = barrier::preset("chain").unwrap();
        let l = layout(&chain, layout_width(&chain));
        assert!(l
            .nodes
            .iter()
            .all(|n| n.kind == NodeKind::Cdc || n.w >= 115.0));
        let skip = l
            .edges
            .iter()
            .find(|e| e.from == "table1" && e.to == "join_job")
            .unwrap();
        assert!(skip.ly < l.node("table2").unwrap().y);
    }

    #[test]
    fn read_uncommitted_shows_25_and_read_committed_rolls_back_after_a_failure() {
        let f = frames_of("#mode=topology&topology=shopping&fail=price_job@2");
        let values = |level| -> Vec<(String, bool)> {
            let h = query_history(&f, level, Consistency::Strong);
            value_changes(&h, h.len())
                .iter()
                .map(|p| (ratio_text(p.ratio), p.consistent))
                .collect()
        };
        let ru = values(ReadLevel::ReadUncommitted);
        assert!(ru.contains(&("25".to_string(), false)), "{ru:?}");
        let rc = values(ReadLevel::ReadCommitted);
        let pos = |v: &[(String, bool)], x: &str| v.iter().position(|(r, _)| r == x);
        let first_8 = pos(&rc, "8.333").expect("RC reaches 8.333");
        assert!(
            rc[first_8..].iter().any(|(r, _)| r == "10"),
            "RC should roll back to 10 after the failure: {rc:?}"
        );
        let rr = values(ReadLevel::RepeatableRead);
        assert_eq!(rr[0].0, "10");
        let first_8 = pos(&rr, "8.333").expect("RR reaches 8.333");
        assert!(!rr[first_8..].iter().any(|(r, _)| r == "10"), "{rr:?}");
        assert!(
            rr.iter().all(|(_, c)| *c),
            "RR + Strong is always consistent"
        );
        // The rolled-back step is flagged.
        let h = query_history(&f, ReadLevel::ReadCommitted, Consistency::Strong);
        assert!(h.windows(2).any(|w| rolled_back(&w[0], &w[1])));
    }

    #[test]
    fn step_texts_and_highlights_follow_the_events() {
        let f = frames_of("#mode=topology&topology=shopping&fail=price_job@2");
        let last = f.last().unwrap();
        let texts: Vec<String> = last.trace().iter().map(|e| event_text(&e.kind)).collect();
        assert!(texts.iter().any(|t| t.contains("price_job FAILED")));
        assert!(texts.iter().any(|t| t.contains("is PRECOMMIT")));
        let fail = last
            .trace()
            .iter()
            .find(|e| matches!(e.kind, BarrierEventKind::JobFailed { .. }))
            .unwrap();
        let a = active(last, Some(fail));
        assert!(a.alarm && a.nodes.contains(&"price_job".to_string()));
        assert_eq!(edge_label(last, "shopping", "price_job"), "b5");
        assert_eq!(edge_label(last, "price_job", "user_item_price"), "b5");
        assert_eq!(edge_label(&f[0], "cdc", "ingest_shopping"), "b0");
        // Without barriers the notes speak of each job's own checkpoints.
        let nb = frames_of("#mode=topology&topology=shopping&nobarriers=1");
        let last = nb.last().unwrap();
        let processed = last
            .trace()
            .iter()
            .find(|e| matches!(e.kind, BarrierEventKind::Processed { .. }))
            .unwrap();
        let note = step_text(&processed.kind, true);
        assert!(
            note.contains("finished checkpoint") && !note.contains("barrier "),
            "{note}"
        );
        assert_eq!(
            edge_label(last, "shopping", "price_job").split(' ').next(),
            Some("ckpt")
        );
    }

    #[test]
    fn the_delay_chart_names_every_series() {
        let f = frames_of("#mode=topology&topology=shopping");
        let report = f.last().unwrap().delays();
        let svg = delay_chart_svg(&report, 480, 220, false);
        assert!(svg.starts_with("<svg") && svg.contains("delay (ms)"));
        let legend = delay_legend(&report);
        let names: Vec<&str> = legend.iter().map(|(n, _, _)| n.as_str()).collect();
        for name in ["job amount_job", "job price_job", "table user_item_amount"] {
            assert!(names.contains(&name), "{name} missing from {names:?}");
        }
        // Every legend colour is drawn.
        for (_, color, _) in &legend {
            assert!(
                svg.to_lowercase().contains(&color.to_lowercase()),
                "{color} not drawn"
            );
        }
        assert_eq!(report.job_to_optimise.as_deref(), Some("amount_job"));
        // Before any snapshot there is nothing to draw but the axes.
        assert!(delay_legend(&f[0].delays()).is_empty());
        assert!(delay_chart_svg(&f[0].delays(), 480, 220, true).starts_with("<svg"));
    }

    #[test]
    fn every_preset_has_its_lesson_and_the_simplifications_are_listed() {
        for (name, _) in barrier::presets() {
            let l = topology_lesson(name);
            assert!(l.question.contains("Seed 003"));
            assert!(parse_topology(l.try_hash).is_ok(), "{name}");
        }
        let shopping = topology_lesson("shopping").paragraphs.join(" ");
        for n in [
            "25",
            "8.333",
            "rolls back to 10",
            "never rolled back",
            "optimise",
            "Revise",
        ] {
            assert!(shopping.contains(n), "{n}");
        }
        let s = simplifications();
        assert!(s.len() >= 8);
        assert!(s.iter().any(|x| x.contains("Revision replays")));
    }

    #[test]
    fn ratios_print_like_the_seed() {
        assert_eq!(ratio_text(Some(10.0)), "10");
        assert_eq!(ratio_text(Some(2500.0 / 300.0)), "8.333");
        assert_eq!(ratio_text(Some(2.5)), "2.5");
        assert_eq!(ratio_text(None), "–");
    }
}
