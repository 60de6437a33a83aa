//! Hooks that own timers, listeners and animation frames (with cleanup on unmount), so the
//! reducer stays pure.

mod use_dot_travel;
mod use_element_size;
mod use_explorer;
mod use_keyboard;
mod use_play_timer;
mod use_player;
mod use_stop_focus;
mod use_url_sync;

pub use use_dot_travel::{use_dot_travel, use_travel_ms, TRAVEL_SAMPLES};
pub use use_element_size::use_element_size;
pub use use_explorer::{use_explorer, ExploreState, ExploreStatus, UseExplorer};
pub use use_keyboard::{key_action, use_keyboard, Shortcut, SHORTCUTS};
pub use use_play_timer::use_play_timer;
pub use use_player::{use_player, use_theme};
pub use use_stop_focus::use_stop_focus;
pub use use_url_sync::use_url_sync;
