//! The pure view-model the dashboard draws, one folder per world: [`microbatch`] (lane geometry,
//! arrow interpolation, colours, labels, the live panels, the strip under the diagram, the link,
//! step notes, lessons and tours, the explorer's matrix, the Spark UI, exports) and [`topology`]
//! (the FLIP-276 graph, its text, link, lessons and delay chart).
//!
//! The spine both share: [`replay`] (`Timeline<S>`, a recorded run and its snapshots),
//! [`url`] (the pairs, numbers and errors of a link), [`tour_runner`] (which stop a cursor is
//! at), [`lesson_index`] (every lesson of both worlds), [`glossary_links`] (the terms of
//! the lessons and notes linked to the glossary), [`rows_in_view`] (long lists drawn in a
//! window), and [`upload`] (a real checkpoint folder handed to the Inspect tab).
//!
//! Everything here is a pure function of engine data, tested natively; the `web` crate only
//! renders what these functions return.

pub mod glossary_links;
pub mod lesson_index;
pub mod microbatch;
pub mod replay;
pub mod rows_in_view;
pub mod topology;
pub mod tour_runner;
pub mod upload;
pub mod url;
