//! batchscope's engine: a deterministic simulation of streaming fault tolerance.

pub mod barrier;
pub mod checkpoint;
