//! Judges of batchscope runs, apart from the engine: the exactly-once oracle, the crash-point explorer and the topology's consistency report.
//!
//! - [`liveness`]: the one loop that runs a world to its end ([`oracle::run`]) and its liveness rule;
//! - [`progress`]: the one count of what the sink holds so far;
//! - [`oracle`]: the expectation (every record the upstream produced) and the verdict;
//! - [`anomaly`]: the report's anomalies and moments (types);
//! - [`why`]: a bad run's anomalies with the events that prove them, and when it became
//!   inevitable;
//! - [`compare`]: two scenarios with the same seed and crashes, side by side;
//! - [`explore`]: every crash point (and pair) of a scenario, judged;
//! - [`topology`]: the FLIP-276 topology's consistency tally and report.

pub mod anomaly;
pub mod compare;
pub mod explore;
pub mod itf;
pub mod liveness;
pub mod oracle;
pub mod progress;
#[cfg(feature = "swarm")]
pub mod swarm;
pub mod topology;
pub mod why;

pub use oracle::{check, Report, Verdict};
