//! The page's second module, loaded the first time one of its parts is needed: the micro-batch
//! dashboard's first load does not carry their code. The page has it draw any part — the
//! Topology dashboard, the Inspect page, and the micro-batch dashboard's Explore dialog,
//! scenario editor, compare mode and minimap — with one message (`shell::ModulePart`, as JSON) through
//! [`draw`], and remove it with [`remove`]; what a part says back is one message too
//! (`shell::ModuleReply`). Besides, it draws the Spark UI tab's charts ([`spark_chart`]) and
//! makes the Export menu's files ([`export_file`]).

use batchscope_engine::microbatch::scenario::Scenario;
use batchscope_view::url::Dashboard;
use batchscope_web::inspect::InspectApp;
use batchscope_web::microbatch::components::compare_view::{CompareSlot, InlineCompare};
use batchscope_web::microbatch::components::explore_host::{ExploreSlot, InlineExplore};
use batchscope_web::microbatch::components::minimap_host::{InlineMinimap, MinimapSlot};
use batchscope_web::microbatch::components::{ScenarioEditor, ScenarioEditorProps};
use batchscope_web::microbatch::export_file::ExportKind;
use batchscope_web::shell::{mode_event, ModeSwitch, ModulePart, ModuleReply, PartSlot, Shared};
use batchscope_web::topology::TopologyApp;
use std::cell::RefCell;
use std::rc::Rc;
use std::thread::LocalKey;
use wasm_bindgen::prelude::*;
use yew::prelude::*;

/// Props of [`Mounted`].
#[derive(Properties, PartialEq)]
struct MountedProps {
    /// Which dashboard.
    which: Dashboard,
}

/// The dashboard with the header's mode switch wired to the page: a tab asks the page (a
/// `batchscope:mode` event), which unmounts this module's app and shows the chosen one.
#[component]
fn Mounted(props: &MountedProps) -> Html {
    let switch = ModeSwitch(Callback::from(mode_event));
    html! {
        <ContextProvider<ModeSwitch> context={switch}>
            { match props.which {
                Dashboard::Topology => html! { <TopologyApp /> },
                _ => html! { <InspectApp /> },
            } }
        </ContextProvider<ModeSwitch>>
    }
}

/// Renders nothing: drawn once, then removed, by [`numbered_apart`].
#[component]
fn Nothing() -> Html {
    html! {}
}

/// Makes sure this module's apps are numbered apart from the page's, before it draws one.
///
/// Yew numbers each app it mounts (its event subtree) from 1, in each module alike, and marks
/// every element it draws with that number; an event goes to the app whose number the element
/// it happened on carries. The page's app is number 1 (it makes no portals); a Topology or
/// Inspect dashboard of this module is drawn inside it, so it must not be number 1 too, or the
/// page's app would take its events for its own and look them up among its own listeners. One
/// app drawn and removed here takes number 1 in this module; every later one is 2 or more.
fn numbered_apart() {
    static APART: std::sync::Once = std::sync::Once::new();
    APART.call_once(|| {
        let scratch = gloo::utils::document()
            .create_element("div")
            .expect("a div");
        yew::Renderer::<Nothing>::with_root(scratch)
            .render()
            .destroy();
    });
}

/// The Export menu's file `kind` (`"svg"`, `"png"`, `"trace"` or `"checkpoint"`): the diagram
/// on the page, or made from the micro-batch moment the link `hash` describes (see
/// `batchscope_web::microbatch::export_file`). A promise of its bytes, or of an error naming what is wrong.
#[wasm_bindgen]
pub async fn export_file(kind: String, hash: String) -> Result<js_sys::Uint8Array, JsValue> {
    let kind = ExportKind::from_name(&kind)
        .ok_or_else(|| JsValue::from_str(&format!("no file named {kind:?} to export")))?;
    match batchscope_web::microbatch::export_file::export_file(kind, &hash).await {
        Ok(bytes) => Ok(js_sys::Uint8Array::from(bytes.as_slice())),
        Err(why) => Err(JsValue::from_str(&why)),
    }
}

/// A part of the micro-batch dashboard this module draws in an element the page gives it: the
/// element, and the app drawn there.
type Drawn<C> = RefCell<Option<(web_sys::Element, yew::AppHandle<C>)>>;

thread_local! {
    /// The Topology dashboard or the Inspect page on screen, if any.
    static DASHBOARD: Drawn<Mounted> = const { RefCell::new(None) };
    /// The Explore dialog on screen, if any.
    static EXPLORE: Drawn<InlineExplore> = const { RefCell::new(None) };
    /// The scenario editor on screen, if any.
    static EDITOR: Drawn<ScenarioEditor> = const { RefCell::new(None) };
    /// Compare mode on screen, if any.
    static COMPARE: Drawn<InlineCompare> = const { RefCell::new(None) };
    /// The minimap on screen, if any.
    static MINIMAP: Drawn<InlineMinimap> = const { RefCell::new(None) };
}

/// Draws `props` into `root` with the app kept in `slot`: new values for the app drawn there
/// before, or (another element: the page drew its dashboard again) an app drawn anew.
fn draw_in<C>(slot: &'static LocalKey<Drawn<C>>, root: web_sys::Element, props: C::Properties)
where
    C: BaseComponent,
{
    slot.with(|drawn| {
        let mut drawn = drawn.borrow_mut();
        match drawn.as_mut() {
            Some((drawn_in, app)) if *drawn_in == root => app.update(props),
            _ => {
                if let Some((_, app)) = drawn.take() {
                    app.destroy();
                }
                numbered_apart();
                let app = yew::Renderer::<C>::with_root_and_props(root.clone(), props).render();
                *drawn = Some((root, app));
            }
        }
    });
}

/// Removes the app kept in `slot`, if any.
fn remove_in<C: BaseComponent>(slot: &'static LocalKey<Drawn<C>>) {
    if let Some((_, app)) = slot.with(|drawn| drawn.borrow_mut().take()) {
        app.destroy();
    }
}

/// The Spark UI tab's chart named `chart` (`rates`, `durations`, `rows`) of the batch attempts
/// `numbers` (`batchscope_view::microbatch::spark_ui::pack`), `width` × `height` px, as SVG.
#[wasm_bindgen]
pub fn spark_chart(
    numbers: &[f64],
    chart: &str,
    width: u32,
    height: u32,
    dark: bool,
) -> Result<String, JsValue> {
    use batchscope_view::microbatch::spark_ui::{chart_svg, unpack, Chart};
    let which = Chart::from_name(chart)
        .ok_or_else(|| JsValue::from_str(&format!("no chart named {chart:?}")))?;
    let progress = unpack(numbers).map_err(|e| JsValue::from_str(&e))?;
    Ok(chart_svg(&progress, which, width, height, dark))
}

/// A preset's lesson paragraphs and tour stop texts, which the page's first load does not
/// carry (`batchscope_view::microbatch::lesson_text::lesson_text_wire`).
#[wasm_bindgen]
pub fn lesson_text(preset: &str) -> String {
    batchscope_view::microbatch::lesson_text::lesson_text_wire(preset)
}

/// The note of event `seq` of the run the link `link` makes
/// (`batchscope_view::microbatch::explain`), which the page's first load does not carry; the
/// run is made once per link (the minimap's).
#[wasm_bindgen]
pub fn step_note(link: &str, seq: u32) -> Result<String, JsValue> {
    let run = batchscope_web::microbatch::components::minimap_host::run_of(link)
        .map_err(|e| JsValue::from_str(&format!("the run's link: {e}")))?;
    let event = run
        .events()
        .get(seq as usize)
        .ok_or_else(|| JsValue::from_str(&format!("the run has no event #{seq}")))?;
    Ok(batchscope_view::microbatch::explain::explain(
        event,
        run.last().scenario(),
    ))
}

/// Draws the minimap of the run `link` makes at `cursor`, with the tour's `stops`, into
/// `root`; a click on a batch says `seek` (a `shell::ModuleReply::Seek`).
fn draw_minimap(
    root: web_sys::Element,
    link: String,
    cursor: usize,
    stops: Vec<(usize, String)>,
    say: impl Fn(ModuleReply) + 'static,
) {
    let slot = MinimapSlot {
        link: link.into(),
        cursor,
        stops,
        // The placeholder's count: the page's alone.
        batches: 0,
        on_seek: Callback::from(move |to| say(ModuleReply::Seek { to })),
    };
    draw_in(&MINIMAP, root, slot);
}

/// Draws `part` (the JSON of a `shell::ModulePart`) into `root`, or gives the part drawn there
/// before its new values; `reply` is called with the text of each `shell::ModuleReply` the part
/// says back (the Explore dialog and the editor ask to close; the editor hands back a valid
/// edit; the minimap asks to seek). An error names what could not be read.
#[wasm_bindgen]
pub fn draw(root: web_sys::Element, part: &str, reply: js_sys::Function) -> Result<(), JsValue> {
    let part: ModulePart = serde_json::from_str(part)
        .map_err(|e| JsValue::from_str(&format!("not a part this module draws: {e}")))?;
    let say = move |r: ModuleReply| {
        let _ = reply.call1(&JsValue::NULL, &JsValue::from_str(&r.text()));
    };
    let scenario = |text: &str, what: &str| {
        Scenario::from_json(text)
            .map_err(|e| JsValue::from_str(&format!("the scenario {what}: {e}")))
    };
    match part {
        ModulePart::Topology | ModulePart::Inspect => {
            let which = if part == ModulePart::Topology {
                Dashboard::Topology
            } else {
                Dashboard::Inspect
            };
            // A dashboard replaces the one drawn before, wherever it was.
            remove_in(&DASHBOARD);
            draw_in(&DASHBOARD, root, MountedProps { which });
        }
        ModulePart::Explore {
            preset,
            scenario: text,
            custom,
            open,
        } => {
            let shared = |s: Scenario| Shared(Rc::new(s));
            let slot = ExploreSlot {
                preset,
                scenario: shared(scenario(&text, "to explore")?),
                custom: match custom {
                    Some(text) => Some(shared(scenario(&text, "to explore")?)),
                    None => None,
                },
                open,
                on_close: Callback::from(move |()| say(ModuleReply::Close)),
            };
            draw_in(&EXPLORE, root, slot);
        }
        ModulePart::Editor {
            scenario: text,
            open,
        } => {
            let say = Rc::new(say);
            let (close, apply) = (say.clone(), say);
            let props = ScenarioEditorProps {
                scenario: scenario(&text, "to edit")?,
                open,
                on_close: Callback::from(move |()| close(ModuleReply::Close)),
                on_apply: Callback::from(move |s: Scenario| {
                    let scenario = serde_json::to_string(&s).expect("a scenario serializes");
                    apply(ModuleReply::Apply { scenario });
                }),
            };
            draw_in(&EDITOR, root, props);
        }
        ModulePart::Compare {
            link,
            cursor,
            animate_ms,
        } => {
            let slot = CompareSlot {
                link: link.into(),
                cursor,
                animate_ms: f64::from(animate_ms),
            };
            draw_in(&COMPARE, root, slot);
        }
        ModulePart::Minimap {
            link,
            cursor,
            stops,
        } => draw_minimap(root, link, cursor, stops, say),
    }
    Ok(())
}

/// Removes the part kept in the slot named `slot` (`dashboard`, `explore`, `editor`,
/// `compare`, `minimap`), if any.
#[wasm_bindgen]
pub fn remove(slot: &str) {
    match PartSlot::from_name(slot) {
        Some(PartSlot::Dashboard) => remove_in(&DASHBOARD),
        Some(PartSlot::Explore) => remove_in(&EXPLORE),
        Some(PartSlot::Editor) => remove_in(&EDITOR),
        Some(PartSlot::Compare) => remove_in(&COMPARE),
        Some(PartSlot::Minimap) => remove_in(&MINIMAP),
        None => {}
    }
}

/// Nothing runs at load: the page calls [`mount`].
fn main() {}
