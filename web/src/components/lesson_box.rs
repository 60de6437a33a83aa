//! The lesson of the preset, its guided tour (stops where playback pauses), and the note on the
//! step on screen.

use crate::state::Action;
use batchscope_view::lessons::{Lesson, SIMPLIFICATIONS};
use batchscope_view::tour::{current_stop, next_stop, Stop};
use yew::prelude::*;

/// What the tour block shows.
#[derive(Clone, Debug, PartialEq)]
pub struct TourView {
    /// Whether the tour is on.
    pub on: bool,
    /// The crash the tour arms.
    pub crash: Option<&'static str>,
    /// The stops.
    pub stops: Vec<Stop>,
    /// Where each stop pauses in this run (`None`: never reached).
    pub cursors: Vec<Option<usize>>,
    /// Events shown.
    pub cursor: usize,
    /// Whether playback runs.
    pub playing: bool,
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

fn act(cb: &Callback<Action>, a: Action) -> Callback<MouseEvent> {
    let cb = cb.clone();
    Callback::from(move |_| cb.emit(a.clone()))
}

/// The call to start the tour, when it is off.
fn tour_invite(t: &TourView, on_action: &Callback<Action>) -> Html {
    let what = match t.crash {
        Some(c) => format!("arms {c}, plays, and pauses at"),
        None => "plays and pauses at".to_string(),
    };
    html! {
        <div class="tour-invite">
            <button class="tour-start" data-testid="tour-start" onclick={act(on_action, Action::TourStart)}>
                { "▶ Guided tour" }
            </button>
            <span class="tour-invite-text">{ format!("{} stops: {what} each moment that matters", t.stops.len()) }</span>
        </div>
    }
}

/// The tour block: progress, the stop on screen, and the way on.
fn tour_block(t: &TourView, on_action: &Callback<Action>) -> Html {
    let current = current_stop(&t.cursors, t.cursor);
    let next = next_stop(&t.cursors, t.cursor);
    let at_stop = current.is_some_and(|i| t.cursors[i] == Some(t.cursor));
    let n = t.stops.len();
    let progress = match current {
        Some(i) => format!("stop {} of {n}", i + 1),
        None => format!("{n} stops"),
    };
    let dots = t.stops.iter().enumerate().map(|(i, s)| {
        let reached = t.cursors[i].is_some_and(|c| c <= t.cursor);
        let class = classes!(
            "tour-dot",
            reached.then_some("tour-dot-reached"),
            (Some(i) == current && at_stop).then_some("tour-dot-here"),
            t.cursors[i].is_none().then_some("tour-dot-missing"),
        );
        let title = match t.cursors[i] {
            Some(_) => format!("{}. {}", i + 1, s.title),
            None => format!("{}. {} — not reached in this run", i + 1, s.title),
        };
        html! {
            <button class={class} title={title.clone()} aria-label={title} disabled={t.cursors[i].is_none()}
                onclick={act(on_action, Action::TourGo(i))} />
        }
    });
    let (title, text) = match (current, next) {
        (Some(i), _) if at_stop || !t.playing => (t.stops[i].title.to_string(), t.stops[i].text),
        (_, Some(j)) => (
            format!("Playing to stop {}: {}…", j + 1, t.stops[j].title),
            "Playback pauses there. Step with → or pause any time; Continue plays on.",
        ),
        (None, None) => (
            "Nothing to see in this run".to_string(),
            "None of the stops happens with this seed and these crashes. Restart the tour to arm its crash.",
        ),
        (Some(i), None) => (t.stops[i].title.to_string(), t.stops[i].text),
    };
    let action = match next {
        _ if t.playing => html! {
            <button class="tour-next" data-testid="tour-next" onclick={act(on_action, Action::TogglePlay)}>{ "❚❚ Pause" }</button>
        },
        Some(j) => html! {
            <button class="tour-next" data-testid="tour-next" onclick={act(on_action, Action::TourNext)}
                title={format!("Play on to stop {}: {}", j + 1, t.stops[j].title)}>
                { if current.is_none() { "▶ Play to the first stop" } else { "Continue ▸" } }
            </button>
        },
        None => html! {
            <>
                <span class="tour-done" data-testid="tour-done">{ "✓ Tour complete" }</span>
                <button class="ghost" onclick={act(on_action, Action::TourStart)}>{ "↺ Again" }</button>
            </>
        },
    };
    html! {
        <div class={classes!("tour", at_stop.then_some("tour-at-stop"))} data-testid="tour">
            <div class="tour-head">
                <span class="tour-label">{ "Guided tour" }</span>
                <span class="tour-progress" data-testid="tour-progress">{ progress }</span>
                <span class="tour-dots">{ for dots }</span>
                <button class="ghost tour-exit" data-testid="tour-exit" title="Leave the tour: playback no longer pauses"
                    onclick={act(on_action, Action::TourExit)}>{ "✕" }</button>
            </div>
            <div class="tour-title" data-testid="tour-stop-title">{ title }</div>
            <div class="tour-text" data-testid="tour-stop-text">{ text }</div>
            <div class="tour-actions">{ action }</div>
        </div>
    }
}

/// Lesson + tour + step note.
#[component]
pub fn LessonBox(props: &LessonBoxProps) -> Html {
    let l = &props.lesson;
    let t = &props.tour;
    html! {
        <section class="card lesson" aria-label="Lesson">
            if t.on { { tour_block(t, &props.on_action) } }
            <div class={classes!("now", props.alarm.then_some("now-alarm"))} data-testid="step-note">
                <div class="now-head">{ &props.step_head }</div>
                <div class="now-text">{ &props.note }</div>
            </div>
            if !t.on { { tour_invite(t, &props.on_action) } }
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
