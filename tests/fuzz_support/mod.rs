//! Helpers of the fuzz targets (`tests/fuzz.rs`): mutations of real inputs.

pub mod mutate;
