//! batchscope's engine: a deterministic simulation of streaming fault tolerance.
//!
//! One [`World`] holds everything; [`World::step`] performs exactly one protocol action and
//! returns the [`Event`] describing it. Same scenario and seed → the same events, natively
//! and on wasm32. No I/O, no clock, no hashed iteration.
//!
//! The micro-batch driver lives in [`microbatch`], the source contract and its kinds in
//! [`source`], the FLIP-276 topology world in [`barrier`].

pub mod barrier;
pub mod checkpoint;
pub mod chunked;
pub mod event;
pub mod heap;
pub mod history;
pub mod meta_table;
pub mod microbatch;
pub mod rng;
pub mod scenario;
pub mod schema;
pub mod sim;
pub mod sink;
pub mod source;
pub mod trace;
pub mod tunnel;
pub mod upstream;

/// The micro-batch world under its former path (`batchscope_engine::world::World`).
pub mod world {
    pub use crate::microbatch::{
        BatchRun, Driver, FiredCrash, Phase, ReaderStep, SeaTunnelReader, World, EPOCH_BASE_MS,
        MIN_BATCHES_TO_RETAIN,
    };
}

pub use event::{Actor, Event, EventKind, Recovery, SinkEffect};
pub use scenario::{
    preset, presets, CrashKind, CrashPoint, Scenario, ScenarioError, SinkKind, SourceKind,
};
pub use sim::Sim;
pub use upstream::{Record, RowKey};
pub use world::World;
