//! Judges of batchscope runs, apart from the engine: the exactly-once oracle and the crash-point explorer.
//!
//! - [`liveness`]: the one loop that runs a world to its end ([`oracle::run`]) and its liveness rule;
//! - [`progress`]: the one count of what the sink holds so far;
//! - [`oracle`]: the failure-free expectation and the verdict;
//! - [`explore`]: every crash point (and pair) of a scenario, judged.

pub mod explore;
pub mod liveness;
pub mod oracle;
pub mod progress;

pub use oracle::{check, Report, Verdict};
