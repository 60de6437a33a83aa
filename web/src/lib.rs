//! The batchscope dashboard (Yew, client-side rendered): the engine runs in the browser as a
//! Rust crate. `shell` is what both modes share — the one player reducer over a recorded run,
//! its controls, the tour and lesson card, the page root; `state`, `run` and `components` are
//! the micro-batch mode; `topology` is the FLIP-276 Topology mode; `hooks` own timers,
//! listeners and animation frames.
//!
//! Imports point one way: `components`, `topology` → `hooks` → `shell`; the entry point
//! (`main.rs`) hands both dashboards to [`shell::Root`].

pub mod compare;
pub mod components;
pub mod export_file;
pub mod hooks;
pub mod inspect;
pub mod run;
pub mod shell;
pub mod state;
pub mod topology;

pub use components::App;
pub use shell::Root;
