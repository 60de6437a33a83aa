//! The batchscope dashboard (Yew, client-side rendered): the engine runs in the browser as a
//! Rust crate; `state` is the pure player reducer, `components` render it, `hooks` own timers,
//! listeners and animation frames.

pub mod components;
pub mod hooks;
pub mod run;
pub mod state;

pub use components::App;
