//! The Topology and Inspect dashboards as a module of their own, loaded by the page
//! (`shell::LazyMode`) the first time one of them is opened: the micro-batch dashboard's first
//! load does not carry their code. The page calls [`mount`] with the element to draw in and
//! [`unmount`] when it switches away; the micro-batch dashboard has it draw its Explore dialog
//! ([`explore`]), its scenario editor ([`editor`]) and compare mode ([`compare`]), draw the
//! Spark UI tab's charts ([`spark_chart`]) and make its Export menu's files
//! ([`export_file`]).

use batchscope_engine::microbatch::scenario::Scenario;
use batchscope_web::inspect::InspectApp;
use batchscope_web::microbatch::components::compare_view::{CompareSlot, InlineCompare};
use batchscope_web::microbatch::components::explore_host::{ExploreSlot, InlineExplore};
use batchscope_web::microbatch::components::{ScenarioEditor, ScenarioEditorProps};
use batchscope_web::microbatch::export_file::ExportKind;
use batchscope_web::shell::{mode_event, Dashboard, ModeSwitch, Shared};
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

thread_local! {
    /// The app on screen, if any.
    static APP: RefCell<Option<yew::AppHandle<Mounted>>> = const { RefCell::new(None) };
}

/// Draws the dashboard `which` (`"topology"` or `"inspect"`) into `root`, replacing the one
/// this module drew before.
#[wasm_bindgen]
pub fn mount(root: web_sys::Element, which: &str) -> Result<(), JsValue> {
    let which = match which {
        "topology" => Dashboard::Topology,
        "inspect" => Dashboard::Inspect,
        other => {
            return Err(JsValue::from_str(&format!(
                "no dashboard named {other:?} in this module"
            )))
        }
    };
    unmount();
    numbered_apart();
    let app = yew::Renderer::<Mounted>::with_root_and_props(root, MountedProps { which }).render();
    APP.with(|a| *a.borrow_mut() = Some(app));
    Ok(())
}

/// Removes the dashboard this module drew, if any.
#[wasm_bindgen]
pub fn unmount() {
    if let Some(app) = APP.with(|a| a.borrow_mut().take()) {
        app.destroy();
    }
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
    /// The Explore dialog on screen, if any.
    static EXPLORE: Drawn<InlineExplore> = const { RefCell::new(None) };
    /// The scenario editor on screen, if any.
    static EDITOR: Drawn<ScenarioEditor> = const { RefCell::new(None) };
    /// Compare mode on screen, if any.
    static COMPARE: Drawn<InlineCompare> = const { RefCell::new(None) };
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
fn remove<C: BaseComponent>(slot: &'static LocalKey<Drawn<C>>) {
    if let Some((_, app)) = slot.with(|drawn| drawn.borrow_mut().take()) {
        app.destroy();
    }
}

/// Draws the micro-batch dashboard's Explore dialog into `root`, or gives the one drawn new
/// values: `preset` (its name), `scenario` and the page's own scenario `custom` (JSON), whether
/// it is `open`, and `close`, called when the dialog asks to close. A run it opens is written
/// into the address bar as its link (see `batchscope_web::microbatch::components::explore_host`).
#[wasm_bindgen]
pub fn explore(
    root: web_sys::Element,
    preset: &str,
    scenario: &str,
    custom: Option<String>,
    open: bool,
    close: js_sys::Function,
) -> Result<(), JsValue> {
    let parse = |text: &str| {
        Scenario::from_json(text)
            .map(|s| Shared(Rc::new(s)))
            .map_err(|e| JsValue::from_str(&format!("the scenario to explore: {e}")))
    };
    let slot = ExploreSlot {
        preset: preset.to_string(),
        scenario: parse(scenario)?,
        custom: custom.as_deref().map(parse).transpose()?,
        open,
        on_close: Callback::from(move |()| {
            let _ = close.call0(&JsValue::NULL);
        }),
    };
    draw_in(&EXPLORE, root, slot);
    Ok(())
}

/// Removes the Explore dialog this module drew, if any.
#[wasm_bindgen]
pub fn explore_unmount() {
    remove(&EXPLORE);
}

/// Draws the micro-batch dashboard's scenario editor into `root`, or gives the one drawn new
/// values: the `scenario` on screen (JSON, crash points included), whether it is `open`,
/// `apply`, called with a valid edit's scenario as JSON (the page runs it), and `close`, called
/// when the editor asks to close (see `batchscope_web::microbatch::components::editor_host`).
#[wasm_bindgen]
pub fn editor(
    root: web_sys::Element,
    scenario: &str,
    open: bool,
    apply: js_sys::Function,
    close: js_sys::Function,
) -> Result<(), JsValue> {
    let scenario = Scenario::from_json(scenario)
        .map_err(|e| JsValue::from_str(&format!("the scenario to edit: {e}")))?;
    let props = ScenarioEditorProps {
        scenario,
        open,
        on_close: Callback::from(move |()| {
            let _ = close.call0(&JsValue::NULL);
        }),
        on_apply: Callback::from(move |s: Scenario| {
            let json = serde_json::to_string(&s).expect("a scenario serializes");
            let _ = apply.call1(&JsValue::NULL, &JsValue::from_str(&json));
        }),
    };
    draw_in(&EDITOR, root, props);
    Ok(())
}

/// Removes the scenario editor this module drew, if any.
#[wasm_bindgen]
pub fn editor_unmount() {
    remove(&EDITOR);
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

/// Draws the micro-batch dashboard's compare mode into `root` (an element of the page's
/// layout), or gives the one drawn new values: `link`, the page's link of both runs without its
/// cursor (both runs are made from it again only when it changes), the `cursor` and the arrows'
/// `animate_ms` (see `batchscope_web::microbatch::components::compare_view`).
#[wasm_bindgen]
pub fn compare(root: web_sys::Element, link: &str, cursor: u32, animate_ms: f64) {
    let slot = CompareSlot {
        link: link.to_string().into(),
        cursor: cursor as usize,
        animate_ms,
    };
    draw_in(&COMPARE, root, slot);
}

/// Removes the compare mode this module drew, if any.
#[wasm_bindgen]
pub fn compare_unmount() {
    remove(&COMPARE);
}

/// Nothing runs at load: the page calls [`mount`].
fn main() {}
