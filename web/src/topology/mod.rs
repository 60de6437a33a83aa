//! The Topology mode of the dashboard (FLIP-276 timestamp barriers across an ETL topology):
//! a reducer of its own (`state`), the root component that switches between the micro-batch
//! and topology modes, and the topology components (DAG, barrier table, query panel, delay
//! chart, controls, lesson).

mod app;
mod barrier_table;
mod controls;
mod delay_chart;
mod faults;
mod graph;
mod lesson;
mod query_panel;
mod root;
pub mod state;

pub use app::{TopologyApp, TopologyAppProps};
pub use barrier_table::BarrierTable;
pub use controls::TopoControls;
pub use delay_chart::DelayChart;
pub use faults::TopoFaults;
pub use graph::TopologyGraph;
pub use lesson::TopoLessonBox;
pub use query_panel::QueryPanel;
pub use root::{Mode, ModeSwitch, ModeTabs, Root};
