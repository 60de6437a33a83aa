//! A dashboard whose code is a second module (`batchscope-modes`: Topology and Inspect, and for
//! the micro-batch dashboard the Explore dialog, the scenario editor, compare mode, the Spark UI
//! tab's charts and the Export menu's files), loaded the first time it is needed, so the
//! micro-batch dashboard's first load does not carry it.
//! While the module loads the page says so; if it cannot be loaded the page names what failed
//! and offers to try again or go back, and the micro-batch dashboard is untouched.
//!
//! The module is built by Trunk (`data-type="worker"` in `index.html`, which builds a bin
//! without loading it); the build hook `scripts/modes.py` renames its files by their content
//! hash and writes their names and integrity hashes into a `<meta name="batchscope-modes">`
//! of `index.html`, which this component reads.

use super::module_part::{ModulePart, PartSlot};
use super::switch::ModeSwitch;
use batchscope_view::url::Dashboard;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use yew::prelude::*;

#[wasm_bindgen(inline_js = r#"
let loading = null;
let ready = false;
let begin = null;
export function load_modes(js, jsIntegrity, wasm, wasmIntegrity, idle) {
  if (!loading) {
    loading = new Promise((resolve, reject) => {
      begin = () => {
        begin = null;
        const s = document.createElement('script');
        s.src = js;
        if (jsIntegrity) s.integrity = jsIntegrity;
        s.onload = resolve;
        s.onerror = () => { s.remove(); reject(new Error('could not load ' + js)); };
        document.head.appendChild(s);
      };
      if (idle && window.requestIdleCallback) requestIdleCallback(() => begin && begin(), { timeout: 4000 });
      else begin();
    }).then(() => wasm_bindgen({ module_or_path: new Request(wasm, wasmIntegrity ? { integrity: wasmIntegrity } : {}) }))
      // A task of its own for what the module draws first: compiling it took one already.
      .then(() => new Promise(resolve => setTimeout(resolve, 0)))
      .then(() => { ready = true; });
    loading.catch(() => { loading = null; });
  } else if (!idle && begin) begin();
  return loading;
}
export function module_draw(root, part, reply) { wasm_bindgen.draw(root, part, reply || (() => {})); }
export function module_remove(slot) { if (ready) wasm_bindgen.remove(slot); }
export function module_export(kind, hash) { return wasm_bindgen.export_file(kind, hash); }
export function modes_ready() { return ready; }
export function module_spark_chart(numbers, chart, width, height, dark) { return wasm_bindgen.spark_chart(numbers, chart, width, height, dark); }
export function module_lesson_text(preset) { return wasm_bindgen.lesson_text(preset); }
export function module_step_note(link, seq) { return wasm_bindgen.step_note(link, seq); }
"#)]
extern "C" {
    /// Loads the module once (its bindings script, then its `.wasm`); a failed load may be
    /// tried again. `idle`: not before the browser is idle after the page's first paint
    /// (unless a call without it comes first).
    #[wasm_bindgen(catch)]
    fn load_modes(
        js: &str,
        js_integrity: &str,
        wasm: &str,
        wasm_integrity: &str,
        idle: bool,
    ) -> Result<js_sys::Promise, JsValue>;
    /// The module's `draw`: draws a part (JSON of a [`ModulePart`]) into `root`, or gives the
    /// one drawn there new values; `reply` is called with the text of each [`ModuleReply`](super::module_part::ModuleReply).
    #[wasm_bindgen(catch)]
    fn module_draw(
        root: &web_sys::Element,
        part: &str,
        reply: Option<&js_sys::Function>,
    ) -> Result<(), JsValue>;
    /// The module's `remove`: removes the part kept in the slot named `slot`, if any.
    fn module_remove(slot: &str);
    /// Whether the module is loaded.
    fn modes_ready() -> bool;
    /// The module's `lesson_text`: a preset's lesson paragraphs and tour stop texts
    /// (`batchscope_view::microbatch::lesson_text::lesson_text_wire`).
    #[wasm_bindgen(catch)]
    fn module_lesson_text(preset: &str) -> Result<String, JsValue>;
    /// The module's `step_note`: the note of event `seq` of the run `link` makes.
    #[wasm_bindgen(catch)]
    fn module_step_note(link: &str, seq: u32) -> Result<String, JsValue>;
    /// The module's `spark_chart`: one chart of the Spark UI tab as SVG.
    #[wasm_bindgen(catch)]
    fn module_spark_chart(
        numbers: &[f64],
        chart: &str,
        width: u32,
        height: u32,
        dark: bool,
    ) -> Result<String, JsValue>;
    /// The module's `export_file`: a promise of the bytes of an Export menu file.
    #[wasm_bindgen(catch)]
    fn module_export(kind: &str, hash: &str) -> Result<js_sys::Promise, JsValue>;
}

/// The module's files: bindings script, its integrity, `.wasm`, its integrity. From the
/// `<meta name="batchscope-modes">` the build writes; without it (a build without the hook),
/// the unhashed names Trunk gives the files.
fn module_files() -> [String; 4] {
    let content = gloo::utils::document()
        .query_selector("meta[name=batchscope-modes]")
        .ok()
        .flatten()
        .and_then(|m| m.get_attribute("content"))
        .unwrap_or_default();
    let mut parts = content.split_whitespace().map(str::to_string);
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(js), Some(js_sri), Some(wasm), Some(wasm_sri)) => [js, js_sri, wasm, wasm_sri],
        _ => [
            "batchscope-modes.js".into(),
            String::new(),
            "batchscope-modes_bg.wasm".into(),
            String::new(),
        ],
    }
}

/// Loads the module, once (a failed load may be tried again); `idle`, for what the page can
/// show without it for a moment (the minimap): once the browser is idle after the page's first
/// paint, so the page's own start does not share the network and the processor with it.
pub async fn load_module(idle: bool) -> Result<(), String> {
    let [js, js_sri, wasm, wasm_sri] = module_files();
    let promise = load_modes(&js, &js_sri, &wasm, &wasm_sri, idle).map_err(describe)?;
    JsFuture::from(promise).await.map_err(describe)?;
    Ok(())
}

/// The Export menu's file named `kind` (`"svg"`, `"png"`, `"trace"`, `"checkpoint"`) of the
/// moment `hash` describes, made by the module (loaded first if it is not yet): see
/// `crate::microbatch::export_file`.
pub async fn export_in_module(kind: &str, hash: &str) -> Result<Vec<u8>, String> {
    load_module(false).await?;
    let made = JsFuture::from(module_export(kind, hash).map_err(describe)?)
        .await
        .map_err(describe)?;
    Ok(js_sys::Uint8Array::new(&made).to_vec())
}

/// A preset's lesson paragraphs and tour stop texts, from the loaded module ([`load_module`]
/// first): the page's first load carries none of them.
pub fn lesson_text_in_module(preset: &str) -> Result<String, String> {
    module_lesson_text(preset).map_err(describe)
}

/// The step note of event `seq` of the run the link `link` makes, from the loaded module
/// ([`load_module`] first): the page's first load carries no note.
pub fn step_note_in_module(link: &str, seq: u64) -> Result<String, String> {
    module_step_note(link, seq as u32).map_err(describe)
}

/// Whether the module is loaded (then [`chart_in_module`] draws at once).
pub fn module_loaded() -> bool {
    modes_ready()
}

/// The Spark UI tab's chart named `chart` (`batchscope_view::microbatch::spark_ui::Chart::name`) of the
/// batch attempts `numbers` (`spark_ui::pack`), `width` × `height`, as SVG, drawn by the loaded
/// module ([`load_module`] first).
pub fn chart_in_module(
    numbers: &[f64],
    chart: &str,
    width: u32,
    height: u32,
    dark: bool,
) -> Result<String, String> {
    module_spark_chart(numbers, chart, width, height, dark).map_err(describe)
}

/// Draws `part` with the loaded module ([`load_module`] first) into `root`, or gives the part
/// drawn there its new values; `reply` hears what the part says back (the text of a
/// [`ModuleReply`](super::module_part::ModuleReply)); `None` for a part that says nothing back.
pub fn draw_in_module(
    root: &web_sys::Element,
    part: &ModulePart,
    reply: Option<&js_sys::Function>,
) -> Result<(), String> {
    let json = serde_json::to_string(part).expect("a module part serializes");
    module_draw(root, &json, reply).map_err(describe)
}

/// Removes what the module drew in `slot`, if it is loaded and drew something there.
pub fn remove_from_module(slot: PartSlot) {
    module_remove(slot.name());
}

/// Loads the module and draws `part` into `root`, unless `still` says the page has moved on
/// meanwhile (another dashboard chosen while the module loaded).
async fn load_and_mount(
    root: web_sys::Element,
    part: ModulePart,
    still: impl Fn() -> bool,
) -> Result<(), String> {
    load_module(false).await?;
    if still() {
        // A dashboard says nothing back. (No function is made from text here: the page's
        // Content-Security-Policy forbids it.)
        draw_in_module(&root, &part, None)?;
    }
    Ok(())
}

/// A JavaScript error as one line.
fn describe(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}

/// Props of [`LazyMode`].
#[derive(Properties, PartialEq)]
pub struct LazyModeProps {
    /// Topology or Inspect.
    pub mode: Dashboard,
}

/// Where the module is.
#[derive(Clone, PartialEq)]
enum Load {
    /// Being fetched and compiled.
    Loading,
    /// Drawn.
    Shown,
    /// Could not be loaded: why.
    Failed(String),
}

/// A dashboard of the lazily loaded module.
#[component]
pub fn LazyMode(props: &LazyModeProps) -> Html {
    let host = use_node_ref();
    let load = use_state(|| Load::Loading);
    let attempt = use_state(|| 0u32);
    let mode = props.mode;
    // Which effect run is current: a load that ends after the page moved on draws nothing.
    let generation = use_mut_ref(|| 0u64);
    {
        let (host, load) = (host.clone(), load.clone());
        use_effect_with((mode, *attempt), move |_| {
            *generation.borrow_mut() += 1;
            let mine = *generation.borrow();
            if let Some(root) = host.cast::<web_sys::Element>() {
                load.set(Load::Loading);
                let current = generation.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let still = || *current.borrow() == mine;
                    let part = match mode {
                        Dashboard::Inspect => ModulePart::Inspect,
                        _ => ModulePart::Topology,
                    };
                    match load_and_mount(root, part, still).await {
                        Ok(()) if still() => load.set(Load::Shown),
                        Err(e) if still() => load.set(Load::Failed(e)),
                        _ => {}
                    }
                });
            }
            move || {
                *generation.borrow_mut() += 1;
                remove_from_module(PartSlot::Dashboard);
            }
        });
    }
    let switch = use_context::<ModeSwitch>();
    let back = Callback::from(move |_: MouseEvent| {
        if let Some(s) = &switch {
            s.0.emit(Dashboard::Micro);
        }
    });
    let retry = {
        let attempt = attempt.clone();
        Callback::from(move |_: MouseEvent| attempt.set(*attempt + 1))
    };
    let name = match props.mode {
        Dashboard::Inspect => "Inspect page",
        _ => "Topology dashboard",
    };
    html! {
        <>
            { match &*load {
                Load::Loading => html! {
                    <p class="lazy-mode-status" role="status" data-testid="lazy-mode-loading">
                        { format!("Loading the {name}…") }
                    </p>
                },
                Load::Shown => html! {},
                Load::Failed(why) => html! {
                    <div class="notice notice-error lazy-mode-status" role="alert" data-testid="lazy-mode-error">
                        <span class="notice-text">{ format!("The {name} could not be loaded: {why}.") }</span>
                        <button onclick={retry}>{ "Try again" }</button>
                        <button onclick={back}>{ "Back to the micro-batch dashboard" }</button>
                    </div>
                },
            } }
            <div class="lazy-mode" ref={host} data-testid="lazy-mode"></div>
        </>
    }
}
