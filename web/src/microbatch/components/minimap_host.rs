//! Where the minimap lives. The dashboard hands what the minimap needs (a [`MinimapSlot`]: the
//! run's link, the cursor, the tour's stops) to a renderer it is given: the page's is
//! [`LazyMinimap`], which has the second module (`batchscope-modes`, fetched as the page
//! mounts) draw it inside the page's layout, above the sequence diagram — the overview and its
//! marks (`batchscope_view::microbatch::overview`) stay out of the page's first load; the
//! module itself, and component tests, draw it in place with [`InlineMinimap`]. A run is
//! deterministic, so the link gives back the very run the page shows, as in compare mode.
//!
//! Until the module has drawn it, the minimap's place holds a placeholder of the same height:
//! its head and one faint box per batch, wrapping as the marks will (no layout shift when they
//! come). A click on a batch comes back as a `shell::ModuleReply::Seek`.

use super::minimap::Minimap;
use super::module_layer::{use_module_layer, Load, Place};
use crate::microbatch::run::Run;
use crate::microbatch::state::{Action, Micro};
use crate::shell::{Mode, ModulePart, ModuleReply, Player, PlayerCmd, Shared};
use batchscope_view::microbatch::strip::batch_starts;
use batchscope_view::microbatch::url::scenario::Link;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use yew::prelude::*;

/// At most this many boxes in the placeholder: more wrap past the two rows the marks' box
/// shows (it scrolls) on any screen.
const GHOSTS: usize = 300;

/// What the minimap is drawn from.
#[derive(Properties, Clone, PartialEq)]
pub struct MinimapSlot {
    /// The page's link without its cursor, tab, file, tour and comparison ([`run_link`]): the
    /// run is made again only when it changes.
    pub link: AttrValue,
    /// Events shown.
    pub cursor: usize,
    /// The guided tour's stops in this run (cursor, title); empty when the tour is off.
    pub stops: Vec<(usize, String)>,
    /// The run's batches, as the placeholder counts them (one box each while the module loads).
    pub batches: usize,
    /// Seek the page to this many events shown (a click on a batch).
    pub on_seek: Callback<usize>,
}

/// Draws the minimap for a slot.
pub type MinimapRender = Callback<MinimapSlot, Html>;

/// The renderer of [`InlineMinimap`].
pub fn inline_minimap() -> MinimapRender {
    Callback::from(|slot: MinimapSlot| html! { <InlineMinimap ..slot /> })
}

/// The renderer of [`LazyMinimap`].
pub fn lazy_minimap() -> MinimapRender {
    Callback::from(|slot: MinimapSlot| html! { <LazyMinimap ..slot /> })
}

/// The part of `link` its run is made from: without its cursor, tab, checkpoint file, tour
/// and comparison.
pub fn run_link(link: &Link) -> String {
    let mut l = link.clone();
    l.base.tour = false;
    l.vs = None;
    super::compare_view::runs_link(&l)
}

/// The dashboard's half of a [`MinimapSlot`], made once per run: its link ([`run_link`]), its
/// batches (distinct batch ids), and a seek that asks the player.
#[hook]
pub fn use_minimap_run(
    run: &Shared<Run>,
    link: &Link,
    on_action: &Callback<Action>,
) -> (AttrValue, usize, Callback<usize>) {
    let made = use_memo(run.clone(), |run| {
        let mut ids: Vec<u64> = batch_starts(run.events()).iter().map(|s| s.batch).collect();
        ids.sort_unstable();
        ids.dedup();
        (AttrValue::from(run_link(link)), ids.len())
    });
    let on_seek = use_callback(on_action.clone(), |to: usize, on_action| {
        on_action.emit(PlayerCmd::Seek(to).into())
    });
    (made.0.clone(), made.1, on_seek)
}

/// The run of `hash`, or what is wrong with it; the last one made is kept, so the minimap and
/// the step notes the second module gives for one run make it once.
pub fn run_of(hash: &str) -> Result<Shared<Run>, String> {
    /// A link and its run (or what is wrong with the link).
    type Made = (String, Result<Shared<Run>, String>);
    thread_local! {
        static LAST: std::cell::RefCell<Option<Made>> = const { std::cell::RefCell::new(None) };
    }
    if let Some(kept) = LAST.with(|l| {
        l.borrow()
            .as_ref()
            .filter(|(h, _)| h == hash)
            .map(|(_, r)| r.clone())
    }) {
        return kept;
    }
    let made = Micro::parse_link(hash)
        .map_err(|errors| errors.join("; "))
        .map(|link| Shared(Player::<Micro>::from_link(link).mode.run));
    LAST.with(|l| *l.borrow_mut() = Some((hash.to_string(), made.clone())));
    made
}

/// The minimap drawn in place: the run made from the slot's link (once per link).
#[component]
pub fn InlineMinimap(props: &MinimapSlot) -> Html {
    let run = use_memo(props.link.clone(), |link| run_of(link));
    // One seek for the minimap's life, asking the latest slot's: a new callback at each draw
    // would draw every mark again at every step.
    let latest = use_mut_ref(|| props.on_seek.clone());
    *latest.borrow_mut() = props.on_seek.clone();
    let on_seek = use_memo((), move |()| {
        Callback::from(move |to| latest.borrow().emit(to))
    });
    match &*run {
        Ok(run) => html! {
            <Minimap run={run.clone()} cursor={props.cursor} stops={props.stops.clone()}
                on_seek={(*on_seek).clone()} />
        },
        Err(why) => html! {
            <p class="cmp-error" role="alert" data-testid="minimap-error">
                { format!("The run's overview could not be drawn: {why}.") }</p>
        },
    }
}

/// Props of [`Placeholder`].
#[derive(Properties, PartialEq)]
struct PlaceholderProps {
    /// Boxes to draw (one per batch, at most [`GHOSTS`]).
    batches: usize,
    /// Why the module could not be loaded, and a retry; `None` while it loads.
    failed: Option<(String, Callback<MouseEvent>)>,
}

/// The minimap's place until the module draws it: as high as the minimap will be.
#[component]
fn Placeholder(props: &PlaceholderProps) -> Html {
    let ghosts =
        (0..props.batches.min(GHOSTS)).map(|_| html! { <span class="mm-mark mm-ghost"></span> });
    html! {
        <section class="minimap mm-waiting" data-testid="minimap-placeholder"
            aria-label="The whole run, batch by batch" aria-busy="true">
            <div class="mm-head">
                <span class="mm-title">{ "Whole run" }</span>
                { match &props.failed {
                    None => html! { <span class="mm-sum">{ "…" }</span> },
                    Some((why, retry)) => html! {
                        <>
                            <span class="mm-sum" role="alert" data-testid="minimap-load-error">
                                { format!("The overview could not be loaded: {why}.") }</span>
                            <button class="mm-toggle" onclick={retry.clone()}>{ "Try again" }</button>
                        </>
                    },
                } }
                if props.failed.is_none() {
                    <button class="mm-toggle" disabled=true>{ "☰ Table" }</button>
                }
            </div>
            <div class="dg dg-waiting" aria-hidden="true"></div>
            <div class="mm-marks" aria-hidden="true">{ for ghosts }</div>
        </section>
    }
}

/// The minimap drawn by the second module inside the page's layout (the module is fetched as
/// the page mounts). Until it is drawn its place holds a [`Placeholder`].
#[component]
pub fn LazyMinimap(props: &MinimapSlot) -> Html {
    let host = use_node_ref();
    // How to draw these props, made anew when they change (at every step: the cursor).
    let part = use_memo(
        (props.link.clone(), props.cursor, props.stops.clone()),
        |(link, cursor, stops)| ModulePart::Minimap {
            link: link.to_string(),
            cursor: *cursor,
            stops: stops.clone(),
        },
    );
    // What the minimap says back, kept while mounted: a click on a batch seeks.
    let reply = use_memo(props.on_seek.clone(), |seek| {
        let seek = seek.clone();
        Rc::new(Closure::<dyn Fn(String)>::new(move |text: String| {
            if let Some(ModuleReply::Seek { to }) = ModuleReply::read(&text) {
                seek.emit(to);
            }
        }))
    });
    let (load, retry) = use_module_layer(
        Shared(part),
        (*reply).clone(),
        true,
        Place::Inside(host.clone()),
    );
    html! {
        <>
            { match load {
                Load::Drawn => html! {},
                Load::Failed(why) => html! {
                    <Placeholder batches={props.batches} failed={Some((why, retry))} />
                },
                _ => html! { <Placeholder batches={props.batches} failed={None} /> },
            } }
            <div class="minimap-host" ref={host} data-testid="minimap-host"></div>
        </>
    }
}
