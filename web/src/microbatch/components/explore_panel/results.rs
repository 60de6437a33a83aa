//! What the Explore dialog shows once runs are judged: the verdict counts, the lesson's claims
//! checked against the runs, the crash point ×
//! batch matrix (with SVG and PNG export), the runs with two faults, the fault runs and the
//! smallest counterexamples, each with the `batchscope run` line that reproduces it.

use super::chip::{verdict_chip, OpenRun};
use super::pairs::PairList;
use crate::microbatch::components::export::{save, saved_text};
use crate::microbatch::export_file::{svg_to_png, PNG_SCALE};
use batchscope_check::explore::{Counterexample, Fault, Origin, Status, Summary};
use batchscope_check::oracle::Verdict;
use batchscope_engine::microbatch::scenario::{CrashPoint, Scenario};
use batchscope_view::microbatch::claims::claims;
use batchscope_view::microbatch::explore::{self as view, fault_rows, matrix_view};
use batchscope_view::microbatch::explore::{matrix_svg, reproduce, MatrixSvg};
use std::rc::Rc;
use wasm_bindgen::JsValue;
use web_sys::Element;
use yew::prelude::*;

/// Props of [`Results`].
#[derive(Properties, PartialEq)]
pub struct ResultsProps {
    /// What the exploration found.
    pub summary: Rc<Summary>,
    /// The preset (or scenario name) explored.
    pub preset: String,
    /// The explored scenario.
    pub scenario: Rc<Scenario>,
    /// Opens a run in the player.
    pub on_open: OpenRun,
}

fn copy_to_clipboard(text: &str) {
    let _ = gloo::utils::window()
        .navigator()
        .clipboard()
        .write_text(text);
}

/// The drawn matrix of `s` for the preset and seed.
fn drawn(s: &Summary, preset: &str) -> MatrixSvg {
    matrix_svg(
        &matrix_view(s),
        &format!("{preset} · seed {} · one driver crash per run", s.seed),
        "One run per cell: the driver is killed at that point (row) of that batch (column) and recovers.",
    )
}

/// Props of [`Claims`].
#[derive(Properties, PartialEq)]
struct ClaimsProps {
    summary: Rc<Summary>,
    preset: String,
}

/// What the preset's lesson claims, each checked against the runs: held, violated or never
/// reached (a claim no run exercises shows as such). Nothing for one's own scenario.
#[component]
fn Claims(props: &ClaimsProps) -> Html {
    let origin = Origin::Preset(props.preset.clone());
    let checked: Vec<(&'static str, Status, String)> = claims(&props.preset)
        .into_iter()
        .map(|c| {
            let check = c.property.check(&props.summary, &origin);
            (c.words, check.status, check.evidence.text)
        })
        .collect();
    if checked.is_empty() {
        return html! {};
    }
    let mark = |s: Status| match s {
        Status::Held => "✓ held",
        Status::Violated => "✕ violated",
        Status::NeverReached => "○ never reached",
    };
    html! {
        <section class="xp-claims" data-testid="explore-claims">
            <h3 class="xp-h">{ "What the lesson claims, checked against these runs" }</h3>
            <ul>
                { for checked.into_iter().map(|(words, status, why)| html! {
                    <li data-testid="claim" data-status={status.name()}>
                        <b class={format!("xp-claim-{}", status.name())}>{ mark(status) }</b>
                        { format!(" {words} ") }<span class="muted small">{ format!("({why})") }</span>
                    </li>
                }) }
            </ul>
        </section>
    }
}

/// The results.
#[component]
pub fn Results(props: &ResultsProps) -> Html {
    let marker = use_node_ref();
    let status = use_state(String::new);
    let s = &props.summary;
    let done = {
        let status = status.clone();
        move |result: Result<(), JsValue>, what: &str| status.set(saved_text(result, what))
    };
    let file_name = format!("{}-seed{}-explore-matrix", props.preset, s.seed);
    let on_svg = {
        let (marker, done, s, preset, name) = (
            marker.clone(),
            done.clone(),
            s.clone(),
            props.preset.clone(),
            file_name.clone(),
        );
        Callback::from(move |_: MouseEvent| {
            let Some(el) = marker.cast::<Element>() else {
                return;
            };
            let svg = drawn(&s, &preset).svg;
            let saved = save(&el, &format!("{name}.svg"), "image/svg+xml", svg.as_bytes());
            done(saved, "the matrix as SVG");
        })
    };
    let on_png = {
        let (marker, done, s, preset, name) = (
            marker.clone(),
            done.clone(),
            s.clone(),
            props.preset.clone(),
            file_name,
        );
        Callback::from(move |_: MouseEvent| {
            let Some(el) = marker.cast::<Element>() else {
                return;
            };
            let m = drawn(&s, &preset);
            let (done, name) = (done.clone(), name.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let saved = match svg_to_png(&m.svg, m.width, m.height, PNG_SCALE).await {
                    Ok(png) => save(&el, &format!("{name}.png"), "image/png", &png),
                    Err(error) => Err(error),
                };
                done(saved, "the matrix as PNG");
            });
        })
    };
    // Saves the scenario a reproducing line names.
    let save_file = {
        let (marker, done) = (marker.clone(), done.clone());
        Callback::from(move |(name, json): (String, String)| {
            if let Some(el) = marker.cast::<Element>() {
                done(save(&el, &name, "application/json", json.as_bytes()), &name);
            }
        })
    };
    let line = |crashes: &[CrashPoint], fault: Option<&Fault>, testid| {
        let run = reproduce(&props.preset, &props.scenario, crashes, fault);
        command(&run, &save_file, testid)
    };
    let m = matrix_view(s);
    html! {
        <>
            <div class="xp-counts" data-testid="explore-counts">
                <span class="muted small">{ format!("{} runs:", s.runs) }</span>
                { for view::verdict_counts(s).into_iter().map(|(v, n)| verdict_chip(v, Some(n))) }
            </div>
            <Claims summary={s.clone()} preset={props.preset.clone()} />
            <div class="xp-h-row">
                <h3 class="xp-h">{ "Crash the driver at … (one crash per run)" }</h3>
                <div class="xp-export" ref={marker} data-testid="explore-export" role="group" aria-label="Export the matrix">
                    <button class="xp-small" data-testid="export-matrix-svg" onclick={on_svg}
                            title="The matrix as an SVG file, for slides and papers">{ "⤓ SVG" }</button>
                    <button class="xp-small" data-testid="export-matrix-png" onclick={on_png}
                            title="The matrix as a PNG image">{ "⤓ PNG" }</button>
                    <span class="muted small" role="status" aria-live="polite">{ (*status).clone() }</span>
                </div>
            </div>
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
                                    let onclick = props.on_open.reform(move |_: MouseEvent| (vec![point], None));
                                    let verdict = c.verdict.map_or("none", |v| v.name());
                                    html! {
                                        <td>
                                            <button class={classes!("xp-cell", c.verdict.is_none().then_some("xp-empty"))}
                                                    data-testid={format!("cell-{}", c.point).replace('@', "-")}
                                                    data-verdict={verdict} title={c.tooltip.clone()}
                                                    aria-label={format!("{} {}", c.label, c.tooltip).trim().to_string()}
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
            if s.depth >= 2 {
                <PairList summary={s.clone()} on_open={props.on_open.clone()} />
            }
            <section>
                <h3 class="xp-h">{ format!("Sink outages, splits and failures inside a batch ({} runs, one fault each)", s.faults.len()) }</h3>
                <ul class="xp-faults" data-testid="explore-faults">
                    { for s.faults.iter().zip(fault_rows(s)).map(|(fault, f)| {
                        let fault = *fault;
                        let open = props.on_open.reform(move |_: MouseEvent| (vec![], Some(fault)));
                        html! {
                            <li data-testid="fault-row" data-verdict={f.verdict.name()} data-fault={f.label.clone()}
                                title={view::run_tooltip(&f.label, f.verdict, f.duplicates, f.lost)}>
                                { verdict_chip(f.verdict, None) }
                                <span class="xp-fault-label">{ f.label.clone() }</span>
                                { line(&[], Some(&fault), "fault-command") }
                                <button class="xp-small" data-testid="fault-open" onclick={open}
                                        aria-label={format!("Open the run with {} in the player", f.label)}>{ "▶ open" }</button>
                            </li>
                        }
                    }) }
                    if s.faults.is_empty() { <li class="muted">{ "none for this scenario" }</li> }
                </ul>
            </section>
            <section>
                <h3 class="xp-h">{ "Smallest counterexample per bad verdict" }</h3>
                <ul class="xp-cex" data-testid="explore-counterexamples">
                    { for s.counterexamples.iter().map(|c| counterexample(c, &props.on_open, line(&c.outcome.crashes, c.outcome.fault.as_ref(), "counterexample-command"))) }
                    if s.counterexamples.is_empty() {
                        <li class="muted">{ "none: every explored run is exactly once" }</li>
                    }
                </ul>
            </section>
        </>
    }
}

/// A reproducing line with its Copy button (and the button that saves the file it names).
fn command(
    r: &batchscope_view::microbatch::explore::Reproduce,
    save_file: &Callback<(String, String)>,
    testid: &'static str,
) -> Html {
    let copy = {
        let text = r.line.clone();
        Callback::from(move |_: MouseEvent| copy_to_clipboard(&text))
    };
    let file = r.file.as_ref().map(|(what, json)| {
        let (what, json) = (what.clone(), json.clone());
        let name = batchscope_view::microbatch::explore::SCENARIO_FILE.to_string();
        let onclick = save_file.reform(move |_: MouseEvent| (name.clone(), json.clone()));
        html! {
            <button class="xp-small" data-testid="save-scenario" onclick={onclick} title={what.clone()}
                    aria-label={format!("Save {what}")}>{ "⤓ file" }</button>
        }
    });
    html! {
        <span class="xp-cmd">
            <code class="xp-cmd-text" data-testid={testid} title="Reproduces this run">{ &r.line }</code>
            <button class="xp-small" onclick={copy} title="Copy the command" aria-label={format!("Copy the command {}", r.line)}>{ "Copy" }</button>
            { for file }
        </span>
    }
}

fn counterexample(c: &Counterexample, on_open: &OpenRun, line: Html) -> Html {
    let o = &c.outcome;
    let mut what: Vec<String> = o.crashes.iter().map(|p| p.to_string()).collect();
    if let Some(f) = &o.fault {
        what.push(f.to_string());
    }
    let (crashes, fault) = (o.crashes.clone(), o.fault);
    let show = on_open.reform(move |_: MouseEvent| (crashes.clone(), fault));
    html! {
        <li data-verdict={o.verdict.name()}>
            <div class="xp-cex-head">
                { verdict_chip(o.verdict, None) }
                <b class="mono">{ what.join(" + ") }</b>
                <span class="muted small">{ format!("{} dup, {} lost", o.duplicates, o.lost) }</span>
                <button class="xp-small" data-testid="counterexample-open" onclick={show}
                        title="Load this run in the player where it goes wrong">{ "▶ show" }</button>
            </div>
            { line }
        </li>
    }
}
