//! The micro-batch world: everything that exists in the simulation, the logical clock, the
//! PRNG, and `step()`.
//!
//! The driver is `MicroBatchExecution` as a state machine (SEMANTICS §1.3): trigger →
//! getOffset → `offsets/N` → `source.commit(end_{N-1})` → getBatch → addBatch (tasks) →
//! sink commit → `commits/N`, and on (re)start the recovery rules of §1.5. Each call to
//! `step()` performs exactly one observable action and returns its `Event`. What differs
//! between source kinds lives behind [`crate::microbatch::source::Source`], what differs between
//! sink kinds behind [`crate::microbatch::sink::Sink`].
//!
//! The modules, by concern: `phase` (where the driver is, and the batch in flight), `crash`
//! (crash points, what a crash loses), `recovery` (start, restart, `sources/0/0`), `batch`
//! (building and committing a batch), `tasks`, `continuous` (epochs, §2) and `seatunnel`
//! (readers, §4).
//!
//! Simplifications (said here and in the lessons): one source and one sink per query; tasks
//! of a batch are modelled as "all read, then finish one by one" (parallel tasks); a task
//! attempt fails only where the scenario's faults say (`task-fail@N`) or where the sink store
//! is down, and is retried up to `task_max_failures` (continuous mode and SeaTunnel readers
//! fail the query at once on a down store); Spark
//! never restarts a failed query — the scenario's `restart` says who does, or that nobody does;
//! the watermark stays 0 (no event-time operators); log purging keeps Spark's default of 100
//! batches.

pub mod event;
pub mod meta_table;
pub mod scenario;
pub mod sink;
pub mod source;
pub mod trace;
pub mod tunnel;
pub mod upstream;

mod batch;
mod continuous;
mod crash;
mod phase;
mod recovery;
mod seatunnel;
mod tasks;
mod world;

pub use phase::{BatchRun, Phase, ReaderStep, SeaTunnelReader};
use world::{cost, Damage, Stalled};
pub use world::{Driver, FiredCrash, World, EPOCH_BASE_MS, MIN_BATCHES_TO_RETAIN};
