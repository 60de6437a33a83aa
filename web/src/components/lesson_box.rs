//! The lesson of the preset and the note on the step on screen.

use batchscope_view::lessons::{Lesson, SIMPLIFICATIONS};
use yew::prelude::*;

/// Props of [`LessonBox`].
#[derive(Properties, PartialEq)]
pub struct LessonBoxProps {
    /// The preset's lesson.
    pub lesson: Lesson,
    /// Heading of the step note (`#57 · run 2 · 4216 ms`).
    pub step_head: String,
    /// What the step on screen did and why it matters.
    pub note: String,
    /// Whether the step on screen is a crash or failure (drawn in red).
    pub alarm: bool,
}

/// Lesson + step note.
#[component]
pub fn LessonBox(props: &LessonBoxProps) -> Html {
    let l = &props.lesson;
    html! {
        <section class="card lesson" aria-label="Lesson">
            <div class={classes!("now", props.alarm.then_some("now-alarm"))} data-testid="step-note">
                <div class="now-head">{ &props.step_head }</div>
                <div class="now-text">{ &props.note }</div>
            </div>
            <details class="lesson-body" open=true>
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
