//! Compare mode: the page's run (A) and the run of `vs=` (B) side by side, stepping in lockstep
//! (by batch, and by event within the batch), each with its sequence diagram and verdict, and a difference strip
//! that marks where the traces first part and what the runs end up differing in.

use super::{SequenceDiagram, VerdictBadge};
use crate::compare::Versus;
use crate::run::Run;
use crate::shell::{matrix_in_module, Shared};
use batchscope_check::compare::{lockstep_cursor, CellDifference};
use batchscope_engine::World;
use batchscope_view::panels;
use yew::prelude::*;

/// Rows of each sequence diagram.
const WINDOW: usize = 12;

/// Props of [`CompareView`].
#[derive(Properties, PartialEq)]
pub struct CompareViewProps {
    /// A's name.
    pub name_a: String,
    /// A's run.
    pub a: Shared<Run>,
    /// A's world at the cursor (the page's player).
    pub world_a: Shared<World>,
    /// B and the comparison.
    pub versus: Shared<Versus>,
    /// Events shown.
    pub cursor: usize,
    /// Arrow animation length.
    pub animate_ms: f64,
    /// The link's keys but `crash=` and `at=` (`preset=…&seed=…&vs=…`): a matrix cell's link adds its crash.
    pub hash_alone: String,
}

/// The crash matrix of both, for the designs it was asked for (a key of A, B and the seed).
#[derive(Clone, PartialEq)]
enum Matrix {
    /// Being computed (by the page's second module, fetched the first time).
    Computing(String),
    /// The crash points judged differently.
    Done(String, Vec<CellDifference>),
    /// Could not be computed: why.
    Failed(String, String),
}

/// One side: name, live badge, final verdict, diagram.
fn side(
    tag: &str,
    name: &str,
    run: &Run,
    world: &World,
    cursor: usize,
    animate_ms: f64,
    fin: &str,
) -> Html {
    let at = cursor.min(run.len());
    let (settled, report) = run.verdict_at(world, at);
    let sink = panels::sink_view(world, &run.expected);
    let badge = panels::badge(
        settled.as_ref().map(|r| r.verdict.name()),
        report.expected,
        report.expected - report.lost,
        report.duplicates,
        sink.lost_keys.len() as u64,
    );
    let start = at.saturating_sub(WINDOW);
    let window = world.events()[start..].to_vec();
    html! {
        <section class="cmp-side" data-testid={format!("compare-{tag}")} data-final={fin.to_string()}>
            <header class="cmp-head">
                <span class="cmp-tag">{ tag.to_ascii_uppercase() }</span>
                <strong class="cmp-name" data-testid={format!("compare-name-{tag}")}>{ name }</strong>
                <span class="cmp-final" data-testid={format!("compare-final-{tag}")}
                      title="The oracle's verdict on this run at its end">{ format!("at the end: {fin}") }</span>
            </header>
            <VerdictBadge badge={badge} />
            <SequenceDiagram events={window} cursor={at} animate_ms={animate_ms} />
        </section>
    }
}

/// The two runs and the difference strip.
#[component]
pub fn CompareView(props: &CompareViewProps) -> Html {
    let v = &props.versus;
    let c = &v.comparison;
    // The crash matrix of both, on demand (every single crash point, twice: a second or two),
    // made by the page's second module, which carries the explorer.
    let key = format!("{}|{}|{}", props.name_a, v.name, c.seed);
    let cells = use_state(|| Option::<Matrix>::None);
    let on_matrix = {
        let (cells, key) = (cells.clone(), key.clone());
        // Both runs by reference: the scenarios are written as JSON on a click, not at every
        // step drawn in compare mode.
        let (run_a, versus) = (props.a.clone(), props.versus.clone());
        Callback::from(move |_: MouseEvent| {
            cells.set(Some(Matrix::Computing(key.clone())));
            let (a, b) = (run_a.scenario.to_json(), versus.run.scenario.to_json());
            let (cells, key) = (cells.clone(), key.clone());
            wasm_bindgen_futures::spawn_local(async move {
                cells.set(Some(match matrix_in_module(&a, &b).await {
                    Ok(list) => Matrix::Done(key, list),
                    Err(why) => Matrix::Failed(key, why),
                }));
            });
        })
    };
    let go = |label: &str| {
        html! {
            <button class="cmp-matrix-go" data-testid="matrix-go" onclick={on_matrix.clone()}
                title="Crash both at every single crash point and list where their verdicts differ">
                { label.to_string() }</button>
        }
    };
    let matrix = match &*cells {
        Some(Matrix::Computing(k)) if *k == key => html! {
            <p class="cmp-matrix" role="status" data-testid="matrix-computing">
                { "Crashing both at every single crash point…" }</p>
        },
        Some(Matrix::Failed(k, why)) if *k == key => html! {
            <div class="cmp-matrix" role="alert" data-testid="matrix-error">
                { format!("The crash matrix could not be made: {why}. ") }
                { go("Try again") }
            </div>
        },
        Some(Matrix::Done(k, list)) if *k == key => {
            let name = |v: Option<batchscope_check::Verdict>| {
                v.map_or("not reached".to_string(), |v| v.to_string())
            };
            html! {
                <div class="cmp-matrix" data-testid="matrix-differences" data-count={list.len().to_string()}>
                    if list.is_empty() {
                        { "Every single crash point: the same verdict for both." }
                    } else {
                        <strong>{ format!("{} crash points judged differently: ", list.len()) }</strong>
                        { for list.iter().map(|d| html! {
                            <a class="cmp-cell" href={format!("#{}&crash={}", props.hash_alone, d.crash)}
                               title={format!("A {} · B {}", name(d.a), name(d.b))}>{ &d.crash }</a>
                        }) }
                    }
                </div>
            }
        }
        _ => go("Crash matrix: where do they differ?"),
    };
    // Lockstep by batch, and by event within the batch.
    let cursor_b = lockstep_cursor(props.a.events(), props.cursor, v.run.events());
    let world_b = v.run.timeline.world_at(cursor_b);
    let (fa, fb) = (c.a.verdict.name(), c.b.verdict.name());
    let divergence = match &c.first_divergence {
        None => {
            html! { <p data-testid="divergence">{ "The two traces are equal: the designs behave alike here." }</p> }
        }
        Some(d) => {
            let passed = props.cursor > d.index as usize;
            let end = "(trace ended)".to_string();
            html! {
                <div class={classes!("cmp-divergence", passed.then_some("passed"))} data-testid="divergence"
                     data-index={d.index.to_string()}>
                    <strong>{ format!("First divergence at event #{}", d.index) }</strong>
                    { if passed { " (behind the cursor)" } else { " (ahead)" } }
                    <code class="cmp-line">{ format!("A {}", d.a.as_ref().unwrap_or(&end)) }</code>
                    <code class="cmp-line">{ format!("B {}", d.b.as_ref().unwrap_or(&end)) }</code>
                </div>
            }
        }
    };
    html! {
        <div class="compare" data-testid="compare">
            <div class="cmp-strip" data-testid="diff-strip">
                <span class="cmp-seed">{ format!("same seed {} · {}", c.seed,
                    if c.crashes.is_empty() { "no crashes".to_string() } else { c.crashes.join(", ") }) }</span>
                { divergence }
                <table class="cmp-diffs" data-testid="differences">
                    <tr><th>{ "differs at the end" }</th><th>{ "A" }</th><th>{ "B" }</th></tr>
                    { for c.differences.iter().map(|d| html! {
                        <tr data-what={d.what.clone()}><td>{ &d.what }</td><td>{ &d.a }</td><td>{ &d.b }</td></tr>
                    }) }
                </table>
                { matrix }
            </div>
            <div class="cmp-sides">
                { side("a", &props.name_a, &props.a, &props.world_a, props.cursor, props.animate_ms, fa) }
                { side("b", &v.name, &v.run, &world_b, cursor_b, props.animate_ms, fb) }
            </div>
        </div>
    }
}
