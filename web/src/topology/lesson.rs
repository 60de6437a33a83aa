//! The Topology lesson (seed 003's questions answered) and the note on the step on screen.

use batchscope_view::topology::{simplifications, TopoLesson};
use yew::prelude::*;

/// Props of [`TopoLessonBox`].
#[derive(Properties, PartialEq)]
pub struct TopoLessonBoxProps {
    /// The topology's lesson.
    pub lesson: TopoLesson,
    /// Heading of the step note (`#12 · 1100 ms`).
    pub step_head: String,
    /// What the step on screen did.
    pub note: String,
    /// Whether the step is a failure or revision.
    pub alarm: bool,
}

/// Lesson + step note.
#[component]
pub fn TopoLessonBox(props: &TopoLessonBoxProps) -> Html {
    let l = &props.lesson;
    html! {
        <section class="card lesson topo-lesson" aria-label="Lesson">
            <div class={classes!("now", props.alarm.then_some("now-alarm"))} data-testid="topo-step-note">
                <div class="now-head">{ &props.step_head }</div>
                <div class="now-text">{ &props.note }</div>
            </div>
            <details class="lesson-body" open=true>
                <summary>
                    <span class="lesson-title" data-testid="topo-lesson-title">{ l.title }</span>
                    <span class="lesson-q">{ l.question }</span>
                </summary>
                <ul>
                    { for l.paragraphs.iter().map(|p| html! { <li>{ *p }</li> }) }
                </ul>
                <p class="try">{ "Try: " }<a href={l.try_hash} data-testid="topo-try">{ l.try_text }</a></p>
                <details class="simplified">
                    <summary>{ "Where the model simplifies FLIP-276" }</summary>
                    <ul>{ for simplifications().into_iter().map(|s| html! { <li>{ s }</li> }) }</ul>
                </details>
            </details>
        </section>
    }
}
