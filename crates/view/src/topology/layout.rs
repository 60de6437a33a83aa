//! The left-to-right DAG layout of CDC, jobs and tables (pure geometry, tested natively).

use batchscope_engine::barrier::TopologySpec;
use std::collections::BTreeMap;

/// What a node of the DAG is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// A CDC source (a topology may have several).
    Cdc,
    /// An ETL job.
    Job,
    /// A Table Store table.
    Table,
}

/// A placed node (top-left corner and size, in SVG units).
#[derive(Clone, Debug, PartialEq)]
pub struct TopoNode {
    /// A CDC source's, a job's or a table's name.
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

/// Each node's column: the CDC sources 0, a job one right of its rightmost source, a table
/// one right of its writer.
fn node_columns(spec: &TopologySpec) -> BTreeMap<String, u32> {
    let mut column: BTreeMap<String, u32> = BTreeMap::new();
    for c in &spec.cdc {
        column.insert(c.name.clone(), 0);
    }
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
    column
}

/// Every node in spec order: the CDC sources, the jobs, the tables.
fn node_order(spec: &TopologySpec) -> Vec<(String, NodeKind)> {
    let cdc = spec.cdc.iter().map(|c| (c.name.clone(), NodeKind::Cdc));
    let jobs = spec.jobs.iter().map(|j| (j.name.clone(), NodeKind::Job));
    let tables = spec
        .tables
        .iter()
        .map(|t| (t.name.clone(), NodeKind::Table));
    cdc.chain(jobs).chain(tables).collect()
}

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

/// Lays the topology out left to right: the CDC sources, then each job one column right of its rightmost
/// source, each table one column right of its writer. Rows within a column keep spec order and
/// are centred. Edges that skip columns arc above the nodes between.
pub fn layout(spec: &TopologySpec, width: f64) -> TopoLayout {
    let column = node_columns(spec);
    let order = node_order(spec);
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
