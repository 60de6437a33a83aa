//! The dashboard's components, one a file. Props derive `Properties + PartialEq`; big engine
//! values travel as `Shared` (compared by pointer: a new world is a new `Rc`).

mod app;
mod channels_panel;
mod checkpoint_panel;
mod controls;
mod crash_controls;
mod explore_panel;
mod lesson_box;
mod lesson_card;
mod meta_panel;
mod notices;
mod player_controls;
mod sequence_diagram;
mod side_tabs;
mod sink_panel;
mod timeline;
mod tour_box;
mod verdict_badge;

pub use app::{App, AppProps};
pub use channels_panel::ChannelsPanel;
pub use checkpoint_panel::CheckpointPanel;
pub use controls::Controls;
pub use crash_controls::{ArmedCrash, CrashControls};
pub use explore_panel::ExplorePanel;
pub use lesson_box::LessonBox;
pub use lesson_card::LessonCard;
pub use meta_panel::MetaPanel;
pub use notices::Notices;
pub use player_controls::{
    icon, select_value, Icon, PlayerCmd, SeedInput, SpeedAndCount, ThemeButton, Transport,
};
pub use sequence_diagram::SequenceDiagram;
pub use side_tabs::SideTabs;
pub use sink_panel::SinkPanel;
pub use timeline::Timeline;
pub use tour_box::{TourBlock, TourCmd, TourInvite, TourView};
pub use verdict_badge::VerdictBadge;

use std::ops::Deref;
use std::rc::Rc;

/// An `Rc` that compares by pointer, for props that carry engine state.
#[derive(Debug)]
pub struct Shared<T>(pub Rc<T>);

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}
