//! batchscope's engine: a deterministic simulation of streaming fault tolerance.
//!
//! Two worlds, each in its own folder, on one shared spine. [`microbatch`] is Spark Structured
//! Streaming's micro-batches (and continuous mode, and SeaTunnel's readers) over a simulated CDC
//! stream: its `World`, events, scenarios, upstream, Tunnel server, Meta table, sources and
//! sinks. [`barrier`] is FLIP-276's timestamp barriers across a topology of jobs and tables.
//! Both implement [`sim::Sim`]: `next_event()` performs exactly one observable action and
//! returns the event describing it. Same input and seed → the same events, natively and on
//! wasm32. No I/O, no clock, no hashed iteration.
//!
//! The spine both worlds share: [`sim`], [`rng`], [`history`], [`chunked`], [`trace`] (the
//! hash of a trace), [`spec_json`] (reading a scenario's or topology's text, naming the field
//! in error), [`schema`] (the JSON Schemas of both inputs), [`heap`] (wasm32 memory), and
//! [`checkpoint`]: Spark's on-disk formats, which the micro-batch world writes and `inspect`
//! reads from real folders.

pub mod barrier;
pub mod checkpoint;
pub mod chunked;
pub mod heap;
pub mod history;
pub mod microbatch;
pub mod rng;
pub mod schema;
pub mod sim;
pub mod spec_json;
pub mod trace;
