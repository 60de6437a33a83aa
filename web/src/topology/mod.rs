//! The Topology mode of the dashboard (FLIP-276 timestamp barriers across an ETL topology):
//! its part of the shared player (`state`), its page and its components (DAG, barrier table,
//! query panel, delay chart, checkpoint panel, controls, faults).

mod app;
mod barrier_table;
mod checkpoints;
mod controls;
mod delay_chart;
mod faults;
mod graph;
mod query_panel;
pub mod state;

pub use app::{TopologyApp, TopologyAppProps};
pub use barrier_table::BarrierTable;
pub use checkpoints::CheckpointPanel;
pub use controls::TopoControls;
pub use delay_chart::DelayChart;
pub use faults::TopoFaults;
pub use graph::TopologyGraph;
pub use query_panel::QueryPanel;
