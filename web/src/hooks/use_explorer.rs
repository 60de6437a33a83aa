//! Runs the crash-point explorer in the browser without freezing the page: slices of runs of
//! about one frame's budget, each followed by a zero timeout that lets the page paint and take
//! input. Cancelled by the Cancel button, by a new run, when the scenario changes, and on unmount.

use crate::shell::now_ms;
use batchscope_check::explore::{Explorer, Progress, Summary};
use batchscope_engine::microbatch::scenario::Scenario;
use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;
use yew::prelude::*;

/// How a running exploration is told to stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    /// Keep going.
    Go,
    /// Stop and show what was found so far (the Cancel button).
    Cancel,
    /// Stop silently (a new run, another scenario, unmount).
    Abandon,
}

/// Work per slice before yielding to the browser.
const SLICE_MS: f64 = 30.0;

/// Where an exploration is.
#[derive(Clone, Debug, PartialEq)]
pub enum ExploreStatus {
    /// Nothing run yet for this scenario.
    Idle,
    /// Running (progress so far).
    Running,
    /// Every run judged.
    Done,
    /// Stopped by the user; the summary covers the runs judged so far.
    Cancelled,
}

/// What the Explore panel shows.
#[derive(Clone, Debug, PartialEq)]
pub struct ExploreState {
    /// Status.
    pub status: ExploreStatus,
    /// Depth of the current or last run.
    pub depth: u32,
    /// Runs judged / known.
    pub progress: Progress,
    /// Results (when done or cancelled).
    pub summary: Option<Rc<Summary>>,
    /// Wall-clock time of the exploration so far, in ms.
    pub elapsed_ms: f64,
}

impl ExploreState {
    fn idle() -> ExploreState {
        ExploreState {
            status: ExploreStatus::Idle,
            depth: 1,
            progress: Progress {
                done: 0,
                total: 0,
                finished: false,
            },
            summary: None,
            elapsed_ms: 0.0,
        }
    }
}

/// The explorer's state and its two commands.
#[derive(Clone)]
pub struct UseExplorer {
    /// What to show.
    pub state: ExploreState,
    /// Starts an exploration at this depth (cancelling one in progress).
    pub run: Callback<u32>,
    /// Stops the exploration in progress.
    pub cancel: Callback<()>,
}

/// The explorer of `scenario`; `key` names it (preset and seed): a new key cancels and resets.
#[hook]
pub fn use_explorer(key: String, scenario: Rc<Scenario>) -> UseExplorer {
    let state = use_state(ExploreState::idle);
    // The running exploration's stop flag.
    let stop = use_mut_ref(|| Rc::new(Cell::new(Stop::Abandon)));
    {
        let (state, stop) = (state.clone(), stop.clone());
        use_effect_with(key, move |_| {
            state.set(ExploreState::idle());
            move || stop.borrow().set(Stop::Abandon)
        });
    }
    let run = {
        let (state, stop) = (state.clone(), stop.clone());
        Callback::from(move |depth: u32| {
            stop.borrow().set(Stop::Abandon);
            let flag = Rc::new(Cell::new(Stop::Go));
            *stop.borrow_mut() = flag.clone();
            let state = state.clone();
            let scenario = (*scenario).clone();
            yew::platform::spawn_local(async move {
                let started = now_ms();
                let mut explorer = Explorer::new(scenario, depth);
                explorer.set_parallel(false);
                let mut progress = explorer.progress();
                let mut chunk: u64 = 4;
                let show = |status, progress, summary: Option<Summary>| {
                    state.set(ExploreState {
                        status,
                        depth,
                        progress,
                        summary: summary.map(Rc::new),
                        elapsed_ms: now_ms() - started,
                    })
                };
                show(ExploreStatus::Running, progress, None);
                loop {
                    // Yield first: the page paints the progress before the next slice.
                    yew::platform::time::sleep(Duration::ZERO).await;
                    match flag.get() {
                        Stop::Go => {}
                        Stop::Cancel => {
                            show(ExploreStatus::Cancelled, progress, Some(explorer.summary()));
                            return;
                        }
                        Stop::Abandon => return,
                    }
                    let slice = now_ms();
                    while !progress.finished && now_ms() - slice < SLICE_MS {
                        let t = now_ms();
                        progress = explorer.run_chunk(chunk);
                        // Larger chunks fork more cheaply; keep one near a third of the slice.
                        let took = now_ms() - t;
                        if took < SLICE_MS / 6.0 {
                            chunk = (chunk * 2).min(256);
                        } else if took > SLICE_MS / 2.0 {
                            chunk = (chunk / 2).max(1);
                        }
                    }
                    if progress.finished {
                        show(ExploreStatus::Done, progress, Some(explorer.summary()));
                        return;
                    }
                    show(ExploreStatus::Running, progress, None);
                }
            });
        })
    };
    let cancel = Callback::from(move |_| {
        let flag = stop.borrow();
        if flag.get() == Stop::Go {
            flag.set(Stop::Cancel);
        }
    });
    UseExplorer {
        state: (*state).clone(),
        run,
        cancel,
    }
}
