//! The Explore panel's view-model: the crash point × batch verdict matrix and the fault rows
//! (`matrix`), the runs with two faults as a list sorted by how bad they are (`pairs`), the
//! player state that shows any explored run and the one-line `batchscope run` command that
//! reproduces it (`links`), and the matrix as an SVG file (`matrix_svg`).

mod links;
mod matrix;
mod matrix_svg;
mod pairs;

pub use links::{reproduce, run_link, trouble_moment, Reproduce, SCENARIO_FILE};
pub use matrix::{
    cell_label, extra_faults, extra_of, fault_rows, matrix_view, progress_text, run_tooltip,
    verdict_color, verdict_counts, verdict_title, Cell, FaultRow, MatrixView, Row,
};
pub use matrix_svg::{matrix_svg, MatrixSvg};
pub use pairs::{filter_title, pair_counts, pair_rows, severity, PairRow, BAD_ORDER};

#[cfg(test)]
mod tests;
