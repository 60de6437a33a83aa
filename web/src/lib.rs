//! The batchscope dashboard (Yew, client-side rendered): the engine runs in the browser as a
//! Rust crate. One folder per mode: `microbatch` (the micro-batch player: its state, its
//! recorded run, its components), `topology` (FLIP-276's Topology tab) and `inspect` (a real
//! checkpoint folder). What they share is at the root: `shell` — the one player reducer over a
//! recorded run, its controls, the tour and lesson card, the page root, the loader of the
//! second module —, and `hooks`, which own timers, listeners and animation frames.
//!
//! Imports point one way: `microbatch`, `topology`, `inspect` → `hooks` → `shell`; the entry
//! point (`main.rs`) hands every dashboard to [`shell::Root`].

pub mod hooks;
pub mod inspect;
pub mod microbatch;
pub mod shell;
pub mod topology;
