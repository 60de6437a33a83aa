//! Judges of batchscope runs, apart from the engine: the exactly-once oracle and the crash-point explorer.

pub mod oracle;

pub use oracle::{check, Report, Verdict};
