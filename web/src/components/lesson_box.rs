//! The lesson of the preset, its guided tour (stops where playback pauses), and the note on the
//! step on screen.

use super::lesson_card::LessonCard;
use super::tour_box::{TourCmd, TourView};
use crate::state::Action;
use batchscope_view::lessons::{Lesson, SIMPLIFICATIONS};
use yew::prelude::*;

/// The micro-batch player's action for a tour command.
fn tour_action(cmd: TourCmd) -> Action {
    match cmd {
        TourCmd::Start => Action::TourStart,
        TourCmd::Next => Action::TourNext,
        TourCmd::Go(i) => Action::TourGo(i),
        TourCmd::Pause => Action::TogglePlay,
        TourCmd::Exit => Action::TourExit,
    }
}

/// Props of [`LessonBox`].
#[derive(Properties, PartialEq)]
pub struct LessonBoxProps {
    /// The preset on screen.
    pub preset: String,
    /// The preset's lesson.
    pub lesson: Lesson,
    /// The preset's tour and where the run is in it.
    pub tour: TourView,
    /// Heading of the step note (`#57 · run 2 · 4216 ms`).
    pub step_head: String,
    /// What the step on screen did and why it matters.
    pub note: String,
    /// Whether the step on screen is a crash or failure (drawn in red).
    pub alarm: bool,
    /// Every intent.
    pub on_action: Callback<Action>,
}

/// Lesson + tour + step note.
#[component]
pub fn LessonBox(props: &LessonBoxProps) -> Html {
    let l = &props.lesson;
    html! {
        <LessonCard tour={props.tour.clone()} on_cmd={props.on_action.reform(tour_action)}
            step_head={props.step_head.clone()} note={props.note.clone()} alarm={props.alarm}
            note_testid="step-note" title={l.title} title_testid="lesson-title" question={l.question}
            paragraphs={l.paragraphs.clone()} current={props.preset.clone()}>
            <p class="simplified">{ SIMPLIFICATIONS }</p>
        </LessonCard>
    }
}
