//! Scenarios: what is simulated (upstream, source, sink, trigger, faults), as validated JSON, and the presets.
//!
//! `spec` holds the types, `validate` the checks serde cannot make, `presets` the
//! built-in scenarios.

mod presets;
mod spec;
mod validate;

pub use presets::{preset, presets, Preset};
pub use spec::{
    Burst, CrashKind, CrashPoint, CrashPointError, Execution, ReaderEnd, Scenario, ScenarioError,
    SinkKind, SinkSpec, SourceKind, SourceSpec, SplitSpec, UpstreamSpec, Window, MAX_BATCHES,
    MAX_CHANNELS,
};
