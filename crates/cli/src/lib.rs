//! The batchscope command-line tool as a library, so acceptance tests can call its commands.

pub mod inspect;
pub mod run;
pub mod topology;
