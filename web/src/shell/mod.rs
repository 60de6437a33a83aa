//! The page shell both dashboard modes share: the one player (`player`: the reducer over a
//! recorded run, `tour`: the guided tour's runner), the control bar, the lesson card with its
//! tour block, notices, theme, the mode tabs, the page root, and the overlay a trap leaves.
//!
//! The shell knows neither mode: each mode implements [`Mode`] and renders these parts; the
//! entry point hands both dashboards to [`Root`].

mod browser;
mod controls;
mod glossary;
mod lazy_mode;
mod lesson_card;
mod mode_tabs;
mod module_part;
mod notices;
mod panic;
mod player;
mod present;
mod root;
mod shared;
mod switch;
mod theme;
mod tour;
mod tour_block;
mod tour_invite;

pub use browser::{media_matches, now_ms};
pub use controls::{icon, release_focus, Icon, PlayerControls, PlayerControlsProps};
pub use lazy_mode::{
    chart_in_module, draw_in_module, export_in_module, lesson_text_in_module, load_module,
    module_loaded, remove_from_module, step_note_in_module, LazyMode,
};
pub use lesson_card::{LessonCard, LessonCardProps};
pub use mode_tabs::{ModeTabs, ModeTabsProps};
pub use module_part::{ModulePart, ModuleReply, PartSlot};
pub use notices::{Notice, Notices, NoticesProps};
pub use panic::{after_paint, catch_traps};
pub use player::{
    dropped_fields, Mode, Opened, Player, PlayerCmd, BASE_STEP_MS, MAX_NOTICES, SPEEDS, TOUR_LEG_MS,
};
pub use present::{use_presentation, EmbedLink};
pub use root::{Root, RootProps};
pub use shared::Shared;
pub use switch::{
    mode_event, replace_hash, with_presentation, without_flag, ModeSwitch, MODE_EVENT,
};
pub use theme::Theme;
pub use tour::TourView;
pub use tour_block::{TourBlock, TourProps};
pub use tour_invite::TourInvite;
