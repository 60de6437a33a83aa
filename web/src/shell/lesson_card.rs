//! The lesson card both modes show: the guided tour (or the call to start it), the note on the
//! step on screen, the lesson itself (title, question, paragraphs, and what each mode adds
//! below them as children), and the index of every lesson, each a link that opens its tour.
//! The first use of each glossary term in the note, and in the lesson's paragraphs, links to
//! its line in the glossary.

use super::glossary::glossary_linked;
use super::player::PlayerCmd;
use super::tour::TourView;
use super::tour_block::TourBlock;
use super::tour_invite::TourInvite;
use batchscope_view::lesson_index::lesson_index;
use yew::prelude::*;

/// Props of [`LessonCard`].
#[derive(Properties, PartialEq)]
pub struct LessonCardProps {
    /// Extra class of the card (`topo-lesson`).
    #[prop_or_default]
    pub class: Classes,
    /// The tour and where the run is in it.
    pub tour: TourView,
    /// The tour's buttons.
    pub on_cmd: Callback<PlayerCmd>,
    /// Heading of the step note.
    pub step_head: String,
    /// What the step on screen did and why it matters.
    pub note: String,
    /// Whether the step on screen is a crash or failure (drawn in red).
    pub alarm: bool,
    /// `data-testid` of the step note.
    pub note_testid: &'static str,
    /// The lesson's heading.
    pub title: &'static str,
    /// `data-testid` of the heading.
    pub title_testid: &'static str,
    /// The question it answers.
    pub question: &'static str,
    /// What to watch, and why.
    pub paragraphs: Vec<&'static str>,
    /// The preset (or topology) on screen, marked in the lesson index.
    pub current: String,
    /// What follows the paragraphs (simplifications, a link).
    #[prop_or_default]
    pub children: Html,
}

/// Tour + step note + lesson. The lesson folds away while the tour is on, to leave room.
#[component]
pub fn LessonCard(props: &LessonCardProps) -> Html {
    let t = &props.tour;
    // Static text: built once per mount, not on every step.
    let index = use_memo((), |_| lesson_index());
    let mut linked = vec![];
    html! {
        <section class={classes!("card", "lesson", props.class.clone())} aria-label="Lesson">
            if t.on { <TourBlock tour={t.clone()} on_cmd={props.on_cmd.clone()} /> }
            <div class={classes!("now", props.alarm.then_some("now-alarm"))} data-testid={props.note_testid} aria-live="polite">
                <div class="now-head">{ &props.step_head }</div>
                <div class="now-text">{ glossary_linked(&props.note, &mut vec![]) }</div>
            </div>
            // A bad run's "sealed at" sentence, written here by the second module's danger band
            // (`danger_marks::SealedLine`) once the run reaches that moment; hidden while empty.
            <p class="lesson-when" data-testid="lesson-when" aria-live="polite"></p>
            if !t.on { <TourInvite tour={t.clone()} on_cmd={props.on_cmd.clone()} /> }
            <details class="lesson-body" open={!t.on}>
                <summary>
                    <span class="lesson-title" data-testid={props.title_testid}>{ props.title }</span>
                    <span class="lesson-q">{ props.question }</span>
                </summary>
                <ul>
                    { for props.paragraphs.iter().map(|p| html! { <li>{ glossary_linked(p, &mut linked) }</li> }) }
                </ul>
                { props.children.clone() }
            </details>
            <details class="lesson-index" data-testid="lesson-index">
                <summary>{ format!("Every lesson: the questions this project answers ({})", index.len()) }</summary>
                <ol>
                    { for index.iter().map(|l| html! {
                        <li class={classes!((l.name == props.current).then_some("lesson-index-current"))}>
                            <a href={l.href.clone()} title={format!("Open {} with its guided tour", l.name)}>{ l.question }</a>
                            <span class="lesson-index-name">{ format!(" · {}", l.name) }</span>
                        </li>
                    }) }
                </ol>
            </details>
        </section>
    }
}
