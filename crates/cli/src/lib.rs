//! The batchscope command-line tool as a library, so acceptance tests can call its commands.

pub mod compare;
pub mod explore;
pub mod inspect;
pub mod inspect_input;
pub mod lesson;
pub mod run;
pub mod schema;
pub mod store;
pub mod swarm;
pub mod topology;
