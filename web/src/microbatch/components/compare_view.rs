//! Compare mode: the page's run (A) and the run of `vs=` (B) side by side, stepping in lockstep
//! (by batch, and by event within the batch), each with its sequence diagram and verdict, and a
//! difference strip that marks where the traces first part and what the runs end up differing
//! in.
//!
//! The dashboard hands the link of both runs and the cursor (a [`CompareSlot`]) to a renderer it
//! is given: the page's is [`LazyCompare`], which has the second module (`batchscope-modes`,
//! fetched the first time compare mode is shown) draw the view inside the page's layout — the
//! two sides, the strip and the crash matrix stay out of the page's first load; the module
//! itself, and component tests, draw it in place with [`InlineCompare`]. A run is
//! deterministic, so the link gives back the very runs the page shows (the page keeps its own
//! for the header's verdict).

use super::module_layer::{use_module_layer, Load, Place};
use super::{SequenceDiagram, VerdictBadge};
use crate::microbatch::compare::Versus;
use crate::microbatch::run::Run;
use crate::microbatch::state::Micro;
use crate::shell::{Mode, ModulePart, Player, Shared};
use batchscope_check::compare::{compare_matrices, lockstep_cursor, CellDifference};
use batchscope_engine::microbatch::World;
use batchscope_view::microbatch::panels;
use batchscope_view::microbatch::url::scenario::{format_link, Link};
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::prelude::*;
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
    /// Being computed.
    Computing(String),
    /// The crash points judged differently.
    Done(String, Vec<CellDifference>),
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
        settled.as_ref().map(|r| r.verdict),
        report.expected,
        report.expected - report.lost - report.unread,
        report.duplicates,
        sink.lost_keys.len() as u64,
        report.unread,
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
            <SequenceDiagram events={window} cursor={at} animate_ms={animate_ms} source={run.scenario.source.kind} />
        </section>
    }
}

/// The two runs and the difference strip.
#[component]
pub fn CompareView(props: &CompareViewProps) -> Html {
    let v = &props.versus;
    let c = &v.comparison;
    // The crash matrix of both, on demand (every single crash point, twice: a second or two).
    let key = format!("{}|{}|{}", props.name_a, v.name, c.seed);
    let cells = use_state(|| Option::<Matrix>::None);
    let on_matrix = {
        let (cells, key) = (cells.clone(), key.clone());
        let (run_a, versus) = (props.a.clone(), props.versus.clone());
        Callback::from(move |_: MouseEvent| {
            cells.set(Some(Matrix::Computing(key.clone())));
            let (run_a, versus) = (run_a.clone(), versus.clone());
            let (cells, key) = (cells.clone(), key.clone());
            wasm_bindgen_futures::spawn_local(async move {
                // Let the status be drawn before the page is busy.
                yew::platform::time::sleep(Duration::from_millis(30)).await;
                let list = compare_matrices(&run_a.scenario, &versus.run.scenario);
                cells.set(Some(Matrix::Done(key, list)));
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
    let cursor_a = props.cursor.min(props.a.len());
    let world_a = props.a.timeline.world_at(cursor_a);
    let cursor_b = lockstep_cursor(props.a.events(), cursor_a, v.run.events());
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
                { side("a", &props.name_a, &props.a, &world_a, cursor_a, props.animate_ms, fa) }
                { side("b", &v.name, &v.run, &world_b, cursor_b, props.animate_ms, fb) }
            </div>
        </div>
    }
}

/// What compare mode is drawn from.
#[derive(Properties, Clone, PartialEq)]
pub struct CompareSlot {
    /// The page's link with both runs (`vs=`), its cursor, tab and file left out
    /// ([`runs_link`]): the runs are made again only when it changes.
    pub link: AttrValue,
    /// Events shown of A.
    pub cursor: usize,
    /// Arrow animation length.
    pub animate_ms: f64,
}

/// Draws compare mode for a slot.
pub type CompareRender = Callback<CompareSlot, Html>;

/// The renderer of [`InlineCompare`].
pub fn inline_compare() -> CompareRender {
    Callback::from(|slot: CompareSlot| html! { <InlineCompare ..slot /> })
}

/// The renderer of [`LazyCompare`].
pub fn lazy_compare() -> CompareRender {
    Callback::from(|slot: CompareSlot| html! { <LazyCompare ..slot /> })
}

/// The part of `link` both runs are made from: without its cursor, tab and checkpoint file.
pub fn runs_link(link: &Link) -> String {
    let mut l = link.clone();
    l.base.at = 0;
    l.base.tab = None;
    l.base.file = None;
    format_link(&l)
}

/// Both runs of a compare link: the first as the page's player makes it, the second made here
/// with the first's seed and crash inputs (the page itself makes only the first).
struct Runs {
    /// A's name.
    name_a: String,
    /// A's run.
    a: Shared<Run>,
    /// B and the comparison.
    versus: Shared<Versus>,
    /// The link's keys but `crash=` and `at=`: a matrix cell's link adds its crash.
    hash_alone: String,
}

/// Both runs of `hash`, or what is wrong with it.
fn runs_of(hash: &str) -> Result<Runs, String> {
    let link = Micro::parse_link(hash).map_err(|errors| errors.join("; "))?;
    let mut cells = link.clone();
    cells.base.crashes.clear();
    cells.base.crash_after_events.clear();
    cells.base.tour = false;
    let hash_alone = format_link(&cells)
        .trim_start_matches('#')
        .replace("&at=0", "");
    let player = Player::<Micro>::from_link(link);
    let vs = player
        .mode
        .versus
        .clone()
        .ok_or_else(|| "the link compares no second run (vs=)".to_string())?;
    Ok(Runs {
        name_a: player.mode.preset.clone(),
        versus: Shared(Rc::new(Versus::compute(&player.mode.run, vs))),
        a: Shared(player.mode.run.clone()),
        hash_alone,
    })
}

/// Compare mode drawn in place: both runs made from the slot's link (once per link).
#[component]
pub fn InlineCompare(props: &CompareSlot) -> Html {
    let runs = use_memo(props.link.clone(), |link| runs_of(link));
    match &*runs {
        Ok(r) => html! {
            <CompareView name_a={r.name_a.clone()} a={r.a.clone()} versus={r.versus.clone()}
                cursor={props.cursor} animate_ms={props.animate_ms} hash_alone={r.hash_alone.clone()} />
        },
        Err(why) => html! {
            <p class="cmp-error" role="alert" data-testid="compare-error">
                { format!("Compare mode could not be drawn: {why}.") }</p>
        },
    }
}

/// Compare mode drawn by the second module inside the page's layout, fetched the first time
/// it is shown. While it loads, and if it cannot be loaded, its place says so (with *Try
/// again*).
#[component]
pub fn LazyCompare(props: &CompareSlot) -> Html {
    let host = use_node_ref();
    // How to draw these props, made anew when they change.
    let part = use_memo(props.clone(), |values| ModulePart::Compare {
        link: values.link.to_string(),
        cursor: values.cursor,
        // Whole milliseconds: a fraction is not seen, and a float would need its own writer.
        animate_ms: values.animate_ms.round() as u32,
    });
    // Compare mode says nothing back.
    let reply = use_memo((), |()| {
        Rc::new(Closure::<dyn Fn(String)>::new(|_: String| {}))
    });
    let (load, retry) = use_module_layer(
        Shared(part),
        (*reply).clone(),
        true,
        Place::Inside(host.clone()),
    );
    html! {
        <>
            { match &load {
                Load::Failed(why) => html! {
                    <div class="notice notice-error" role="alert" data-testid="compare-load-error">
                        <span class="notice-text">{ format!("Compare mode could not be loaded: {why}.") }</span>
                        <button onclick={retry}>{ "Try again" }</button>
                    </div>
                },
                Load::Drawn => html! {},
                _ => html! {
                    <p class="lazy-mode-status" role="status" data-testid="compare-loading">
                        { "Loading compare mode…" }</p>
                },
            } }
            <div class="compare-host" ref={host} data-testid="compare-host"></div>
        </>
    }
}
