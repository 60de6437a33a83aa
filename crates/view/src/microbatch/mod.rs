//! The micro-batch world's view-model: what the dashboard draws of a run of Spark's
//! micro-batches (and continuous mode, and SeaTunnel's readers).
//!
//! [`geometry`], [`labels`] and [`palette`]: the sequence diagram's lanes, arrows and colours;
//! [`strip`]: the strip of batches under it, and [`overview`] its minimap; [`panels`]: the live
//! side panels and the verdict badge; [`focus`]: which row a step outlines; [`explain`]: a step's
//! note; [`lessons`] and [`tour`]: lessons and guided tours; [`danger`]: the danger band;
//! [`life`]: one record's life, for its lane; [`claims`]: what each lesson
//! claims, as properties the explorer checks (CLI only); [`explore`]: the explorer's
//! matrix and lists; [`spark_ui`]: Spark's StreamingQueryProgress per batch; [`export`]: the
//! files the dashboard exports; [`url`]: the link; [`tab`]: the side panel's tabs.

pub mod backlog_notes;
pub mod claims;
pub mod danger;
pub mod explain;
pub mod explore;
pub mod export;
pub mod focus;
pub mod geometry;
pub mod labels;
pub mod lesson_text;
pub mod lessons;
pub mod life;
pub mod overview;
pub mod palette;
pub mod panels;
pub mod question_notes;
pub mod questions;
pub mod spark_ui;
pub mod strip;
pub mod tab;
pub mod tour;
pub mod tour_text;
pub mod url;
