//! The topology as an SVG DAG: CDC → ingest job → root table → jobs → tables, left to right.
//! Each edge carries the barrier that last passed it; each table shows its barriers as squares
//! (pending / PROCESSED / WRITTEN) and its latest snapshot; the step on screen is highlighted.

use crate::shell::Shared;
use batchscope_engine::barrier::{OperatorSpec, TableTxnState, TopologyWorld, CDC_SOURCE};
use batchscope_view::topology::{
    active, edge_label, layout, layout_width, NodeKind, TopoNode, LEGEND_H,
};
use yew::prelude::*;

/// Props of [`TopologyGraph`].
#[derive(Properties, PartialEq)]
pub struct TopologyGraphProps {
    /// The world on screen.
    pub world: Shared<TopologyWorld>,
}

fn state_class(s: TableTxnState) -> &'static str {
    match s {
        TableTxnState::Pending => "tx-pending",
        TableTxnState::Processed => "tx-processed",
        TableTxnState::Written => "tx-written",
    }
}

fn job_node(w: &TopologyWorld, n: &TopoNode, on: bool) -> Html {
    let Some(job) = w.jobs().iter().find(|j| j.spec.name == n.name) else {
        return html! {};
    };
    let nb = w.spec().no_barriers;
    let (status, class) = if job.gave_up() {
        ("FAILED · gave up".to_string(), "job-down")
    } else if !job.up {
        ("FAILED · restarting".to_string(), "job-down")
    } else if let Some(b) = job.held {
        (format!("holds snapshot b{b}"), "job-held")
    } else if !job.buffered.is_empty() {
        let list: Vec<String> = job.buffered.iter().map(|b| format!("b{b}")).collect();
        (format!("aligning {}", list.join(",")), "job-aligning")
    } else if nb {
        (format!("checkpoint {}", job.written), "")
    } else {
        (
            format!("aligned b{}·wrote b{}", job.processed, job.written),
            "",
        )
    };
    let op = job
        .spec
        .operators
        .iter()
        .find_map(|o| match o {
            OperatorSpec::GroupSum { sum, .. } => Some(format!("sum({sum})")),
            OperatorSpec::Join { on } => Some(format!("join({})", on.join(","))),
            _ => None,
        })
        .unwrap_or_else(|| "stateless".into());
    html! {
        <g class={classes!("topo-node", "topo-job", class, on.then_some("node-on"))} data-node={n.name.clone()}>
            <title>{ format!("ETL job {} ({op}); reads {}; writes {}", n.name, job.spec.sources.join(", "), job.spec.sink) }</title>
            <rect x={n.x.to_string()} y={n.y.to_string()} width={n.w.to_string()} height={n.h.to_string()} rx="9" />
            <text class="node-name" x={(n.x + 8.0).to_string()} y={(n.y + 18.0).to_string()}>{ &n.name }</text>
            <text class="node-sub" x={(n.x + 8.0).to_string()} y={(n.y + 34.0).to_string()}>{ op }</text>
            <text class="node-status" x={(n.x + 8.0).to_string()} y={(n.y + 46.0).to_string()}>{ status }</text>
        </g>
    }
}

fn table_node(w: &TopologyWorld, n: &TopoNode, on: bool, barriers: u64) -> Html {
    let Some(t) = w.table(&n.name) else {
        return html! {};
    };
    let nb = w.spec().no_barriers;
    let views = w.barriers();
    let size = ((n.w - 16.0) / barriers.max(1) as f64 - 3.0).clamp(8.0, 20.0);
    let squares = (1..=barriers).map(|b| {
        let s = views
            .iter()
            .find(|v| v.barrier == b)
            .and_then(|v| v.tables.iter().find(|(name, _)| *name == n.name).map(|(_, s)| *s));
        let class = match s {
            Some(s) => state_class(s),
            None => "tx-none",
        };
        let x = n.x + 8.0 + (b - 1) as f64 * (size + 3.0);
        let y = n.y + 26.0;
        let label = match s {
            Some(TableTxnState::Written) => "WRITTEN",
            Some(TableTxnState::Processed) => "PROCESSED",
            Some(TableTxnState::Pending) => "pending",
            None => "not issued",
        };
        html! {
            <g class={classes!("tx", class)}>
                <title>{ format!("barrier {b} in {}: {label}", n.name) }</title>
                <rect x={x.to_string()} y={y.to_string()} width={size.to_string()} height={size.to_string()} rx="3" />
                <text x={(x + size / 2.0).to_string()} y={(y + size / 2.0 + 3.5).to_string()} text-anchor="middle">{ b }</text>
            </g>
        }
    });
    let snap = t.snapshots.last().map_or_else(
        || "no snapshot yet".to_string(),
        |s| {
            if nb {
                format!("snapshot {} → ckpt {}", s.snapshot.id, s.barrier)
            } else {
                format!("snapshot {} → b{}", s.snapshot.id, s.barrier)
            }
        },
    );
    let all: Vec<String> = t
        .snapshots
        .iter()
        .map(|s| format!("#{}→b{}", s.snapshot.id, s.barrier))
        .collect();
    html! {
        <g class={classes!("topo-node", "topo-table", t.root.then_some("table-root"), on.then_some("node-on"))} data-node={n.name.clone()}>
            <title>{ format!("table {}{}; written by {}; snapshots {}", n.name, if t.root { " (root table)" } else { "" }, t.writer, if all.is_empty() { "none".into() } else { all.join(" ") }) }</title>
            <rect x={n.x.to_string()} y={n.y.to_string()} width={n.w.to_string()} height={n.h.to_string()} rx="6" />
            <text class="node-name" x={(n.x + 8.0).to_string()} y={(n.y + 17.0).to_string()}>{ &n.name }</text>
            if !nb { { for squares } }
            else {
                <text class="node-sub" x={(n.x + 8.0).to_string()} y={(n.y + 40.0).to_string()}>{ format!("{} records", t.log.len()) }</text>
            }
            <text class="node-status" x={(n.x + 8.0).to_string()} y={(n.y + n.h - 9.0).to_string()}>{ snap }</text>
        </g>
    }
}

/// The DAG.
#[component]
pub fn TopologyGraph(props: &TopologyGraphProps) -> Html {
    let w = &*props.world;
    let l = layout(w.spec(), layout_width(w.spec()));
    let event = w.trace().last();
    let act = active(w, event);
    let barriers = w.run().barriers;
    let edges = l.edges.iter().map(|e| {
        let on = act.edges.iter().any(|(f, t)| *f == e.from && *t == e.to);
        let label = edge_label(w, &e.from, &e.to);
        let lw = 8.0 + 6.2 * label.chars().count() as f64;
        html! {
            <g class={classes!("topo-edge", on.then_some("edge-on"), (on && act.alarm).then_some("edge-alarm"))}>
                <path d={e.path.clone()} marker-end="url(#topo-arrow)" />
                <g class="edge-label">
                    <title>{ format!("{} → {}: {}", e.from, e.to, if label.starts_with('b') { "last barrier passed" } else { "last position passed" }) }</title>
                    <rect x={(e.lx - lw / 2.0).to_string()} y={(e.ly - 9.0).to_string()} width={lw.to_string()} height="18" rx="9" />
                    <text x={e.lx.to_string()} y={(e.ly + 4.0).to_string()} text-anchor="middle">{ label }</text>
                </g>
            </g>
        }
    });
    let nodes = l.nodes.iter().map(|n| {
        let on = act.nodes.contains(&n.name);
        match n.kind {
            NodeKind::Cdc => {
                let issued = w.meta().last_issued();
                let arrived = w.cdc().iter().filter(|r| r.source == n.name).count();
                // One source keeps its short label; several are told apart by name.
                let label = if w.spec().cdc.len() == 1 && n.name == CDC_SOURCE { "CDC".to_string() } else { n.name.to_uppercase() };
                html! {
                    <g class={classes!("topo-node", "topo-cdc", on.then_some("node-on"))} data-node={n.name.clone()}>
                        <title>{ format!("The CDC source {}: shopping rows as they happen upstream", n.name) }</title>
                        <rect x={n.x.to_string()} y={n.y.to_string()} width={n.w.to_string()} height={n.h.to_string()} rx="22" />
                        <text class="node-name" x={(n.x + n.w / 2.0).to_string()} y={(n.y + 18.0).to_string()} text-anchor="middle">{ label }</text>
                        <text class="node-sub" x={(n.x + n.w / 2.0).to_string()} y={(n.y + 33.0).to_string()} text-anchor="middle">
                            { if w.spec().no_barriers { format!("{arrived} rec") } else { format!("{arrived} rec · b{issued}") } }
                        </text>
                    </g>
                }
            }
            NodeKind::Job => job_node(w, n, on),
            NodeKind::Table => table_node(w, n, on, barriers),
        }
    });
    let ly = l.height - LEGEND_H + 14.0;
    let legend = if w.spec().no_barriers {
        html! {
            <g class="topo-legend" transform={format!("translate(10,{ly})")}>
                <text class="legend-warn">{ "No timestamp barriers: each job checkpoints on its own — ckpt N of one table means nothing in another." }</text>
            </g>
        }
    } else {
        html! {
            <g class="topo-legend" transform={format!("translate(10,{ly})")}>
                <g class="tx tx-none"><rect x="0" y="-9" width="11" height="11" rx="2" /></g><text x="15">{ "not issued" }</text>
                <g class="tx tx-pending"><rect x="88" y="-9" width="11" height="11" rx="2" /></g><text x="103">{ "issued, pending" }</text>
                <g class="tx tx-processed"><rect x="205" y="-9" width="11" height="11" rx="2" /></g><text x="220">{ "PROCESSED (data in the table)" }</text>
                <g class="tx tx-written"><rect x="405" y="-9" width="11" height="11" rx="2" /></g><text x="420">{ "WRITTEN (in a snapshot)" }</text>
                <g class="edge-label"><rect x="580" y="-11" width="26" height="16" rx="8" /><text x="593" y="1" text-anchor="middle">{ "b3" }</text></g>
                <text x="612">{ "last barrier through the edge" }</text>
            </g>
        }
    };
    html! {
        <svg class="topo-svg" data-testid="topology-svg" viewBox={format!("0 0 {:.0} {:.0}", l.width, l.height)}
             role="img" aria-label={format!("Topology {}: jobs and tables", w.spec().name)}>
            <defs>
                <marker id="topo-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                    <path d="M0,0 L10,5 L0,10 z" class="arrow-head" />
                </marker>
            </defs>
            { for edges }
            { for nodes }
            { legend }
        </svg>
    }
}
