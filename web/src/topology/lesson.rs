//! The Topology lesson (seed 003's questions answered), its guided tour, and the note on the
//! step on screen.

use super::state::TopoAction;
use crate::components::{LessonCard, TourCmd, TourView};
use batchscope_view::topology::{simplifications, TopoLesson};
use yew::prelude::*;

/// The topology player's action for a tour command.
fn tour_action(cmd: TourCmd) -> TopoAction {
    match cmd {
        TourCmd::Start => TopoAction::TourStart,
        TourCmd::Next => TopoAction::TourNext,
        TourCmd::Go(i) => TopoAction::TourGo(i),
        TourCmd::Pause => TopoAction::TogglePlay,
        TourCmd::Exit => TopoAction::TourExit,
    }
}

/// Props of [`TopoLessonBox`].
#[derive(Properties, PartialEq)]
pub struct TopoLessonBoxProps {
    /// The topology on screen.
    pub topology: String,
    /// The topology's lesson.
    pub lesson: TopoLesson,
    /// The topology's tour and where the run is in it.
    pub tour: TourView,
    /// Heading of the step note (`#12 · 1100 ms`).
    pub step_head: String,
    /// What the step on screen did.
    pub note: String,
    /// Whether the step is a failure or revision.
    pub alarm: bool,
    /// Every intent.
    pub on_action: Callback<TopoAction>,
}

/// Lesson + tour + step note.
#[component]
pub fn TopoLessonBox(props: &TopoLessonBoxProps) -> Html {
    let l = &props.lesson;
    html! {
        <LessonCard class="topo-lesson" tour={props.tour.clone()} on_cmd={props.on_action.reform(tour_action)}
            step_head={props.step_head.clone()} note={props.note.clone()} alarm={props.alarm}
            note_testid="topo-step-note" title={l.title} title_testid="topo-lesson-title"
            question={l.question} paragraphs={l.paragraphs.clone()} current={props.topology.clone()}>
            <p class="try">{ "Try: " }<a href={l.try_hash} data-testid="topo-try">{ l.try_text }</a></p>
            <details class="simplified">
                <summary>{ "Where the model simplifies FLIP-276" }</summary>
                <ul>{ for simplifications().into_iter().map(|s| html! { <li>{ s }</li> }) }</ul>
            </details>
        </LessonCard>
    }
}
