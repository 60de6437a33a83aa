//! The micro-batch dashboard's components, one a file. Props derive `Properties + PartialEq`;
//! big engine values travel as `Shared` (compared by pointer: a new world is a new `Rc`).

mod app;
mod channels_panel;
pub mod chart_host;
mod checkpoint_panel;
pub mod compare_view;
mod controls;
mod crash_controls;
pub mod danger_band;
mod editor;
pub mod editor_host;
pub mod explore_host;
mod explore_panel;
pub mod export;
mod lab;
pub mod lesson_text;
mod meta_panel;
pub mod minimap;
pub mod minimap_host;
mod module_layer;
mod progress_panel;
pub mod record_lane;
mod sequence_diagram;
mod side_tabs;
mod sink_panel;
mod strip;
mod verdict_badge;

pub use app::{App, AppProps};
pub use channels_panel::{ChannelsPanel, WINDOWED_FROM};
pub use checkpoint_panel::CheckpointPanel;
pub use compare_view::CompareView;
pub use controls::Controls;
pub use crash_controls::{ArmedCrash, CrashControls};
pub use editor::{ScenarioEditor, ScenarioEditorProps};
pub use explore_panel::ExplorePanel;
pub use export::{ExportMenu, ExportMenuProps};
pub use lab::LabButtons;
pub use meta_panel::MetaPanel;
pub use progress_panel::{ProgressPanel, ProgressPanelProps};
pub use sequence_diagram::SequenceDiagram;
pub use side_tabs::SideTabs;
pub use sink_panel::SinkPanel;
pub use strip::BatchStrip;
pub use verdict_badge::VerdictBadge;

pub use crate::shell::Shared;
