//! batchscope's engine: a deterministic simulation of streaming fault tolerance.
//!
//! One [`World`] holds everything; [`World::step`] performs exactly one protocol action and
//! returns the [`Event`] describing it. Same scenario and seed → the same events, natively
//! and on wasm32. No I/O, no clock, no hashed iteration.

pub mod barrier;
pub mod checkpoint;
pub mod event;
pub mod meta_table;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod sink;
pub mod source;
pub mod trace;
pub mod tunnel;
pub mod upstream;
pub mod world;

pub use event::{Actor, Event, EventKind, Recovery};
pub use scenario::{
    preset, presets, CrashKind, CrashPoint, Scenario, ScenarioError, SinkKind, SourceKind,
};
pub use sim::Sim;
pub use world::World;
