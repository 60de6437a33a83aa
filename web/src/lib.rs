//! The batchscope dashboard (Yew, client-side rendered): the engine runs in the browser as a
//! Rust crate; `state` is the pure player reducer, `components` render it, `hooks` own timers,
//! listeners and animation frames; `topology` is the FLIP-276 Topology mode and the page root.

pub mod components;
pub mod hooks;
pub mod playback;
pub mod run;
pub mod state;
pub mod topology;

pub use components::App;
pub use topology::Root;
