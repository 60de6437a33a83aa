//! The pure view-model the dashboard draws: lane geometry, arrow interpolation, colours, labels,
//! the live panels, the timeline, the URL state, step notes and lessons.
//!
//! Everything here is a pure function of engine data, tested natively; the `web` crate only
//! renders what these functions return.

pub mod explain;
pub mod explore;
pub mod explore_view;
pub mod export;
pub mod focus;
pub mod geometry;
pub mod labels;
pub mod lesson_index;
pub mod lessons;
pub mod overview;
pub mod palette;
pub mod panels;
pub mod replay;
pub mod rows_in_view;
pub mod spark_ui;
pub mod timeline;
pub mod topology;
pub mod tour;
pub mod tour_runner;
pub mod upload;
pub mod url;

pub use explain::explain;
pub use geometry::{Arrow, Layout};
pub use lessons::{lesson, Lesson};
