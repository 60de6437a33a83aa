//! Judges of batchscope runs, apart from the engine: the exactly-once oracle and the crash-point explorer.

pub mod explore;
pub mod oracle;
pub mod topology;

pub use oracle::{check, Report, Verdict};
