//! The Explore panel: a dialog over the player that runs the crash-point explorer on the current
//! preset and seed (in slices, with progress and Cancel), then shows the verdict counts, the
//! crash point × batch matrix, the fault runs and the minimal counterexamples. A matrix cell or
//! a crash-only counterexample loads that run into the player at its crash.

use super::Shared;
use crate::hooks::{use_explorer, ExploreStatus};
use crate::state::Action;
use batchscope_check::explore::{Counterexample, Origin, Summary};
use batchscope_check::oracle::Verdict;
use batchscope_engine::{CrashPoint, Scenario};
use batchscope_view::explore::{
    self as view, crash_url, fault_rows, matrix_view, progress_text, verdict_color, verdict_title,
};
use wasm_bindgen::JsCast;
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

/// A coloured verdict chip: `● duplicates 6`.
fn verdict_chip(v: Verdict, count: Option<u64>) -> Html {
    html! {
        <span class={classes!("xp-chip", format!("xp-{}", v.name()))} data-verdict={v.name()}>
            <span class="xp-dot" style={format!("background:{}", verdict_color(v))}></span>
            { verdict_title(v) }
            if let Some(n) = count { <b>{ n }</b> }
        </span>
    }
}

fn copy_to_clipboard(text: &str) {
    let _ = gloo::utils::window()
        .navigator()
        .clipboard()
        .write_text(text);
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
    // Loads a run into the player at its first crash, and closes the dialog.
    let load = {
        let (on_action, on_close) = (props.on_action.clone(), props.on_close.clone());
        let (preset, scenario) = (props.preset.clone(), props.scenario.clone());
        Callback::from(move |crashes: Vec<CrashPoint>| {
            on_action.emit(Action::from(crash_url(&preset, &scenario, &crashes)));
            on_close.emit(());
        })
    };

    // Escape closes the dialog while it is open.
    {
        let on_close = props.on_close.clone();
        use_effect_with(props.open, move |open| {
            let listener = open.then(|| {
                gloo::events::EventListener::new(&gloo::utils::document(), "keydown", move |e| {
                    if let Some(k) = e.dyn_ref::<web_sys::KeyboardEvent>() {
                        if k.key() == "Escape" {
                            on_close.emit(());
                        }
                    }
                })
            });
            move || drop(listener)
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
    let results = st
        .summary
        .as_ref()
        .map(|s| results(s, &props.preset, &load))
        .unwrap_or_default();

    html! {
        <div class="xp-backdrop" hidden={!props.open} data-testid="explore"
             onclick={Callback::from({ let c = props.on_close.clone(); move |e: MouseEvent| {
                 // Only a click on the backdrop itself closes.
                 if e.target() == e.current_target() { c.emit(()) }
             } })}>
            <section class="xp-dialog" role="dialog" aria-modal="true" aria-labelledby="xp-title">
                <header class="xp-head">
                    <div>
                        <h2 id="xp-title">{ "Explore every crash point" }</h2>
                        <div class="muted small">
                            { "Runs " }<code>{ &props.preset }</code>{ format!(" (seed {}) once per crash point, sink outage and split, and judges each run against every record the upstream produced. Depth 2 also tries every ordered pair.", props.scenario.seed) }
                        </div>
                    </div>
                    <button class="ghost icon-btn" data-testid="explore-close" aria-label="Close" title="Close"
                            onclick={close}>{ "✕" }</button>
                </header>
                <div class="xp-run">
                    <label class="field">
                        <span class="field-label">{ "depth" }</span>
                        <select data-testid="explore-depth" onchange={on_depth} disabled={running}>
                            <option value="1" selected={*depth == 1}>{ "1 — every single fault" }</option>
                            <option value="2" selected={*depth == 2}>{ "2 — every pair of faults" }</option>
                        </select>
                    </label>
                    <button class="xp-go" data-testid="explore-run" disabled={running} onclick={on_run}>
                        { if st.summary.is_some() { "↻ Run again" } else { "▶ Run" } }
                    </button>
                    <button data-testid="explore-cancel" disabled={!running} onclick={on_cancel}>{ "Cancel" }</button>
                    <div class="xp-progress" role="progressbar" aria-valuemin="0" aria-valuemax={st.progress.total.to_string()}
                         aria-valuenow={st.progress.done.to_string()} data-testid="explore-progress"
                         data-done={st.progress.done.to_string()} data-total={st.progress.total.to_string()}>
                        <div class="xp-bar" style={format!("width:{:.1}%", fraction * 100.0)}></div>
                    </div>
                    <span class="xp-status muted small" data-testid="explore-status"
                          data-status={format!("{:?}", st.status).to_lowercase()}
                          data-elapsed-ms={format!("{:.0}", st.elapsed_ms)}>{ status }</span>
                </div>
                <div class="xp-body">{ results }</div>
            </section>
        </div>
    }
}

/// Counts, matrix with legend, fault runs, counterexamples.
fn results(s: &Summary, preset: &str, load: &Callback<Vec<CrashPoint>>) -> Html {
    let m = matrix_view(s);
    let origin = Origin::Preset(preset.to_string());
    html! {
        <>
            <div class="xp-counts" data-testid="explore-counts">
                <span class="muted small">{ format!("{} runs:", s.runs) }</span>
                { for view::verdict_counts(s).into_iter().map(|(v, n)| verdict_chip(v, Some(n))) }
            </div>
            <h3 class="xp-h">{ "Crash the driver at … (one crash per run)" }</h3>
            <div class="xp-matrix-wrap">
                <table class="xp-matrix" data-testid="explore-matrix">
                    <thead><tr>
                        <th class="xp-corner">{ "point \\ batch" }</th>
                        { for m.batches.iter().map(|b| html! { <th>{ b }</th> }) }
                    </tr></thead>
                    <tbody>
                        { for m.rows.iter().map(|row| html! {
                            <tr>
                                <th class="xp-point">{ &row.point }</th>
                                { for row.cells.iter().map(|c| {
                                    let point = c.point;
                                    let onclick = load.reform(move |_: MouseEvent| vec![point]);
                                    let verdict = c.verdict.map_or("none", |v| v.name());
                                    html! {
                                        <td>
                                            <button class={classes!("xp-cell", c.verdict.is_none().then_some("xp-empty"))}
                                                    data-testid={format!("cell-{}", c.point).replace('@', "-")}
                                                    data-verdict={verdict} title={c.tooltip.clone()}
                                                    aria-label={c.tooltip.clone()}
                                                    style={c.color.map(|col| format!("background:{col};border-color:{col}"))}
                                                    disabled={c.verdict.is_none()} onclick={onclick}>
                                                { &c.label }
                                            </button>
                                        </td>
                                    }
                                }) }
                            </tr>
                        }) }
                    </tbody>
                </table>
                <div class="xp-legend small">
                    <p>{ "Each cell is one run: the driver is killed at that point of that batch, restarts from the checkpoint and recovers. The colour is the oracle's verdict: every record the upstream produced, each exactly once?" }</p>
                    <div class="xp-keys">
                        { for Verdict::ALL.iter().map(|v| verdict_chip(*v, None)) }
                        <span class="xp-chip"><span class="xp-dot xp-dot-empty"></span>{ "not reached" }</span>
                    </div>
                    <p class="muted">{ "✓ exactly once · +n duplicates · −n lost · ± both · ■ stuck." }</p>
                    <p><b>{ "Click a cell" }</b>{ " to replay that run in the player, stopped at the crash." }</p>
                </div>
            </div>
            <div class="xp-lists">
                <section>
                    <h3 class="xp-h">{ format!("Sink outages, splits and failures inside a batch ({} runs, one fault each)", s.faults.len()) }</h3>
                    <ul class="xp-faults" data-testid="explore-faults">
                        { for fault_rows(s).into_iter().map(|f| html! {
                            <li title={view::run_tooltip(&f.label, f.verdict, f.duplicates, f.lost)}>
                                { verdict_chip(f.verdict, None) }<span>{ f.label }</span>
                            </li>
                        }) }
                        if s.faults.is_empty() { <li class="muted">{ "none for this scenario" }</li> }
                    </ul>
                </section>
                <section>
                    <h3 class="xp-h">{ "Smallest counterexample per bad verdict" }</h3>
                    <ul class="xp-cex" data-testid="explore-counterexamples">
                        { for s.counterexamples.iter().map(|c| counterexample(c, &origin, load)) }
                        if s.counterexamples.is_empty() {
                            <li class="muted">{ "none: every explored run is exactly once" }</li>
                        }
                    </ul>
                </section>
            </div>
        </>
    }
}

fn counterexample(c: &Counterexample, origin: &Origin, load: &Callback<Vec<CrashPoint>>) -> Html {
    let o = &c.outcome;
    let mut what: Vec<String> = o.crashes.iter().map(|p| p.to_string()).collect();
    if let Some(f) = &o.fault {
        what.push(f.to_string());
    }
    let command = c.command(origin);
    let copy = {
        let command = command.clone();
        Callback::from(move |_: MouseEvent| copy_to_clipboard(&command))
    };
    let show = (o.fault.is_none() && !o.crashes.is_empty()).then(|| {
        let crashes = o.crashes.clone();
        html! {
            <button class="xp-small" onclick={load.reform(move |_: MouseEvent| crashes.clone())}
                    title="Load this run in the player at its crash">{ "▶ show" }</button>
        }
    });
    html! {
        <li data-verdict={o.verdict.name()}>
            <div class="xp-cex-head">
                { verdict_chip(o.verdict, None) }
                <b class="mono">{ what.join(" + ") }</b>
                <span class="muted small">{ format!("{} dup, {} lost", o.duplicates, o.lost) }</span>
                { for show }
            </div>
            <div class="xp-cmd">
                <code class="xp-cmd-text" data-testid="counterexample-command" title="Reproduces this run">{ command }</code>
                <button class="xp-small" onclick={copy} title="Copy the command">{ "Copy" }</button>
            </div>
        </li>
    }
}
