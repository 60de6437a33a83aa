//! The lesson of the preset, its guided tour (stops where playback pauses), and the note on the
//! step on screen.

use super::tour_box::{TourBlock, TourCmd, TourInvite, TourView};
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
    let t = &props.tour;
    let on_cmd = props.on_action.reform(tour_action);
    html! {
        <section class="card lesson" aria-label="Lesson">
            if t.on { <TourBlock tour={t.clone()} on_cmd={on_cmd.clone()} /> }
            <div class={classes!("now", props.alarm.then_some("now-alarm"))} data-testid="step-note">
                <div class="now-head">{ &props.step_head }</div>
                <div class="now-text">{ &props.note }</div>
            </div>
            if !t.on { <TourInvite tour={t.clone()} on_cmd={on_cmd} /> }
            <details class="lesson-body" open={!t.on}>
                <summary>
                    <span class="lesson-title" data-testid="lesson-title">{ l.title }</span>
                    <span class="lesson-q">{ l.question }</span>
                </summary>
                <ul>
                    { for l.paragraphs.iter().map(|p| html! { <li>{ *p }</li> }) }
                </ul>
                <p class="simplified">{ SIMPLIFICATIONS }</p>
            </details>
        </section>
    }
}
