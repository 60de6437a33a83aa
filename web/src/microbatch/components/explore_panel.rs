//! The Explore panel: a modal dialog over the player that runs the crash-point explorer on the
//! current preset and seed (in slices, with progress and Cancel), then shows the verdict counts,
//! the crash point × batch matrix (exportable as SVG and PNG), the runs with two faults worst
//! first, the fault runs and the minimal counterexamples. Any run listed opens in the player
//! where it goes wrong, and has a one-line `batchscope run` command that reproduces it.

mod chip;
mod focus;
mod pairs;
mod results;

use super::Shared;
use crate::hooks::{use_explorer, ExploreStatus};
use crate::microbatch::state::Action;
use batchscope_check::explore::Fault;
use batchscope_engine::microbatch::scenario::{CrashPoint, Scenario};
use batchscope_view::microbatch::explore::progress_text;
use batchscope_view::microbatch::explore::run_link;
use chip::OpenRun;
use focus::{refocus, use_dialog_focus};
use results::Results;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// Props of [`ExplorePanel`].
#[derive(Properties, PartialEq)]
pub struct ExplorePanelProps {
    /// The preset on screen.
    pub preset: String,
    /// Its scenario (seed included; crash inputs are ignored by the explorer).
    pub scenario: Shared<Scenario>,
    /// Whether the dialog is shown (it stays mounted, so a run continues while it is hidden).
    pub open: bool,
    /// Close the dialog.
    pub on_close: Callback<()>,
    /// Player intents (loading a run).
    pub on_action: Callback<Action>,
}

/// The dialog.
#[component]
pub fn ExplorePanel(props: &ExplorePanelProps) -> Html {
    let key = format!("{}#{}", props.preset, props.scenario.seed);
    let explorer = use_explorer(key, props.scenario.0.clone());
    let depth = use_state(|| 1_u32);
    let st = &explorer.state;
    let running = st.status == ExploreStatus::Running;

    let on_depth = {
        let depth = depth.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            depth.set(v.parse().unwrap_or(1));
        })
    };
    let on_run = {
        let (run, d) = (explorer.run.clone(), *depth);
        Callback::from(move |_| run.emit(d))
    };
    let on_cancel = explorer.cancel.reform(|_| ());
    let close = props.on_close.reform(|_| ());
    // Loads a run into the player where it goes wrong, and closes the dialog.
    let open_run: OpenRun = {
        let (on_action, on_close) = (props.on_action.clone(), props.on_close.clone());
        let (preset, scenario) = (props.preset.clone(), props.scenario.clone());
        Callback::from(move |(crashes, fault): (Vec<CrashPoint>, Option<Fault>)| {
            on_action.emit(Action::from(run_link(
                &preset,
                &scenario,
                &crashes,
                fault.as_ref(),
            )));
            on_close.emit(());
        })
    };
    let dialog = use_node_ref();
    use_dialog_focus(
        props.open,
        dialog.clone(),
        props.on_close.clone(),
        "[data-testid=explore-open]",
    );
    // Run is disabled while the explorer runs, which drops focus: it comes back when done.
    {
        let (dialog, open) = (dialog.clone(), props.open);
        use_effect_with(st.status.clone(), move |status| {
            if open && *status != ExploreStatus::Running {
                refocus(&dialog);
            }
        });
    }

    let (progress_label, fraction) = progress_text(&st.progress);
    let status = match st.status {
        ExploreStatus::Idle => "Not run yet for this preset and seed.".to_string(),
        ExploreStatus::Running => format!(
            "Running depth {} · {progress_label} · {:.1} s",
            st.depth,
            st.elapsed_ms / 1000.0
        ),
        ExploreStatus::Done => format!(
            "Done: depth {} · {} runs in {:.1} s",
            st.depth,
            st.progress.done,
            st.elapsed_ms / 1000.0
        ),
        ExploreStatus::Cancelled => format!(
            "Cancelled after {progress_label} · {:.1} s (partial results)",
            st.elapsed_ms / 1000.0
        ),
    };
    let results = st.summary.as_ref().map(|s| {
        html! {
            <Results summary={s.clone()} preset={props.preset.clone()}
                     scenario={props.scenario.0.clone()} on_open={open_run.clone()} />
        }
    });

    html! {
        <div class="xp-backdrop" hidden={!props.open} data-testid="explore"
             onclick={Callback::from({ let c = props.on_close.clone(); move |e: MouseEvent| {
                 // Only a click on the backdrop itself closes.
                 if e.target() == e.current_target() { c.emit(()) }
             } })}>
            <section class="xp-dialog" role="dialog" aria-modal="true" aria-labelledby="xp-title"
                     aria-describedby="xp-about" tabindex="-1" ref={dialog}>
                <div class="xp-head">
                    <div>
                        <h2 id="xp-title">{ "Explore every crash point" }</h2>
                        <div class="muted small" id="xp-about">
                            { "Runs " }<code>{ &props.preset }</code>{ format!(" (seed {}) once per crash point, sink outage and split, and judges each run against every record the upstream produced. Depth 2 also tries every ordered pair.", props.scenario.seed) }
                        </div>
                    </div>
                    <button class="ghost icon-btn" data-testid="explore-close" aria-label="Close the Explore dialog" title="Close (Esc)"
                            onclick={close}>{ "✕" }</button>
                </div>
                <div class="xp-run">
                    <label class="field">
                        <span class="field-label">{ "depth" }</span>
                        <select data-testid="explore-depth" onchange={on_depth} disabled={running}>
                            <option value="1" selected={*depth == 1}>{ "1 — every single fault" }</option>
                            <option value="2" selected={*depth == 2}>{ "2 — every pair of faults" }</option>
                        </select>
                    </label>
                    <button class="xp-go" data-testid="explore-run" data-autofocus="" disabled={running} onclick={on_run}>
                        { if st.summary.is_some() { "↻ Run again" } else { "▶ Run" } }
                    </button>
                    <button data-testid="explore-cancel" disabled={!running} onclick={on_cancel}>{ "Cancel" }</button>
                    <div class="xp-progress" role="progressbar" aria-label="Runs judged" aria-valuemin="0" aria-valuemax={st.progress.total.to_string()}
                         aria-valuenow={st.progress.done.to_string()} data-testid="explore-progress"
                         data-done={st.progress.done.to_string()} data-total={st.progress.total.to_string()}>
                        <div class="xp-bar" style={format!("width:{:.1}%", fraction * 100.0)}></div>
                    </div>
                    <span class="xp-status muted small" data-testid="explore-status"
                          data-status={format!("{:?}", st.status).to_ascii_lowercase()}
                          data-elapsed-ms={format!("{:.0}", st.elapsed_ms)}>{ status }</span>
                </div>
                <div class="xp-body">{ for results }</div>
            </section>
        </div>
    }
}
