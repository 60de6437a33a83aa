//! Scenarios: what is simulated (upstream, source, sink, trigger, faults), as validated JSON, and the presets.
//!
//! `spec` holds the types, `crash` the crash points, `fault` the faults inside a batch and who restarts, `validate` the checks serde cannot make, `derived` what a scenario implies beyond its fields (the limit in a run, the restart delay, the
//! failure-free twin), `budget` the work a
//! scenario asks for and its limits, `progress` asynchronous progress tracking, `presets` the
//! built-in scenarios.

mod budget;
mod crash;
mod derived;
mod fault;
mod presets;
mod progress;
mod spec;
mod validate;

pub use budget::{Work, MAX_EVENTS, MAX_LIST, MAX_RECORDS, MAX_TIME_MS};
pub use crash::{CrashKind, CrashPoint, CrashPointError};
pub use fault::{log_start, Fault, FaultError, FaultKind, OnRestart, Restart, StartingOffsets};
pub use presets::{preset, presets, Preset};
pub use progress::AsyncProgress;
pub use spec::{
    Burst, Execution, ReaderEnd, Scenario, ScenarioError, SeaTunnelDesign, SinkKind, SinkSpec,
    SinkValue, SourceApi, SourceKind, SourceSpec, SplitSpec, UpstreamSpec, Window, MAX_BATCHES,
    MAX_CHANNELS,
};
