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

use super::switch::{Dashboard, ModeSwitch};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use yew::prelude::*;

#[wasm_bindgen(inline_js = r#"
let loading = null;
let ready = false;
export function load_modes(js, jsIntegrity, wasm, wasmIntegrity) {
  if (!loading) {
    loading = new Promise((resolve, reject) => {
      const s = document.createElement('script');
      s.src = js;
      if (jsIntegrity) s.integrity = jsIntegrity;
      s.onload = resolve;
      s.onerror = () => { s.remove(); reject(new Error('could not load ' + js)); };
      document.head.appendChild(s);
    }).then(() => wasm_bindgen({ module_or_path: new Request(wasm, wasmIntegrity ? { integrity: wasmIntegrity } : {}) }))
      .then(() => { ready = true; });
    loading.catch(() => { loading = null; });
  }
  return loading;
}
export function mount_mode(root, which) { wasm_bindgen.mount(root, which); }
export function module_export(kind, hash) { return wasm_bindgen.export_file(kind, hash); }
export function module_explore(root, preset, scenario, custom, open, close) { wasm_bindgen.explore(root, preset, scenario, custom, open, close); }
export function modes_ready() { return ready; }
export function module_spark_chart(numbers, chart, width, height, dark) { return wasm_bindgen.spark_chart(numbers, chart, width, height, dark); }
export function module_compare(root, link, cursor, animateMs) { wasm_bindgen.compare(root, link, cursor, animateMs); }
export function module_compare_unmount() { if (ready) wasm_bindgen.compare_unmount(); }
export function module_explore_unmount() { if (ready) wasm_bindgen.explore_unmount(); }
export function module_editor(root, scenario, open, apply, close) { wasm_bindgen.editor(root, scenario, open, apply, close); }
export function module_editor_unmount() { if (ready) wasm_bindgen.editor_unmount(); }
export function unmount_mode() { if (ready) wasm_bindgen.unmount(); }
"#)]
extern "C" {
    /// Loads the module once (its bindings script, then its `.wasm`); a failed load may be
    /// tried again.
    #[wasm_bindgen(catch)]
    fn load_modes(
        js: &str,
        js_integrity: &str,
        wasm: &str,
        wasm_integrity: &str,
    ) -> Result<js_sys::Promise, JsValue>;
    /// Draws `which` into `root` (the module's `mount`).
    #[wasm_bindgen(catch)]
    fn mount_mode(root: &web_sys::Element, which: &str) -> Result<(), JsValue>;
    /// Removes what the module drew (its `unmount`).
    fn unmount_mode();
    /// The module's `explore`: draws (or updates) the Explore dialog.
    #[wasm_bindgen(catch)]
    fn module_explore(
        root: &web_sys::Element,
        preset: &str,
        scenario: &str,
        custom: Option<String>,
        open: bool,
        close: &js_sys::Function,
    ) -> Result<(), JsValue>;
    /// Whether the module is loaded.
    fn modes_ready() -> bool;
    /// The module's `spark_chart`: one chart of the Spark UI tab as SVG.
    #[wasm_bindgen(catch)]
    fn module_spark_chart(
        numbers: &[f64],
        chart: &str,
        width: u32,
        height: u32,
        dark: bool,
    ) -> Result<String, JsValue>;
    /// The module's `compare`: draws (or updates) compare mode.
    #[wasm_bindgen(catch)]
    fn module_compare(
        root: &web_sys::Element,
        link: &str,
        cursor: u32,
        animate_ms: f64,
    ) -> Result<(), JsValue>;
    /// The module's `compare_unmount`: removes the compare mode it drew, if any.
    fn module_compare_unmount();
    /// The module's `explore_unmount`: removes the Explore dialog it drew, if any.
    fn module_explore_unmount();
    /// The module's `editor`: draws (or updates) the scenario editor.
    #[wasm_bindgen(catch)]
    fn module_editor(
        root: &web_sys::Element,
        scenario: &str,
        open: bool,
        apply: &js_sys::Function,
        close: &js_sys::Function,
    ) -> Result<(), JsValue>;
    /// The module's `editor_unmount`: removes the scenario editor it drew, if any.
    fn module_editor_unmount();
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

/// Loads the module, once (a failed load may be tried again).
pub async fn load_module() -> Result<(), String> {
    let [js, js_sri, wasm, wasm_sri] = module_files();
    let promise = load_modes(&js, &js_sri, &wasm, &wasm_sri).map_err(describe)?;
    JsFuture::from(promise).await.map_err(describe)?;
    Ok(())
}

/// The Export menu's file named `kind` (`"svg"`, `"png"`, `"trace"`, `"checkpoint"`) of the
/// moment `hash` describes, made by the module (loaded first if it is not yet): see
/// `crate::microbatch::export_file`.
pub async fn export_in_module(kind: &str, hash: &str) -> Result<Vec<u8>, String> {
    load_module().await?;
    let made = JsFuture::from(module_export(kind, hash).map_err(describe)?)
        .await
        .map_err(describe)?;
    Ok(js_sys::Uint8Array::new(&made).to_vec())
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

/// Draws compare mode with the loaded module ([`load_module`] first) into `root`, or gives the
/// one it drew new values: the link of both runs (`components::compare_view::runs_link`), the
/// cursor and the arrows' animation length.
pub fn compare_in_module(
    root: &web_sys::Element,
    link: &str,
    cursor: usize,
    animate_ms: f64,
) -> Result<(), String> {
    let cursor = u32::try_from(cursor).unwrap_or(u32::MAX);
    module_compare(root, link, cursor, animate_ms).map_err(describe)
}

/// Removes the compare mode the module drew, if it is loaded and drew one.
pub fn compare_unmount() {
    module_compare_unmount();
}

/// Draws the Explore dialog with the loaded module ([`load_module`] first) into `root`, or
/// gives the one it drew new values: the preset's name, its scenario and the page's own
/// scenario (`scenario=`, if any) as JSON, whether it is open, and what closes it.
pub fn explore_in_module(
    root: &web_sys::Element,
    preset: &str,
    scenario: &str,
    custom: Option<&str>,
    open: bool,
    close: &js_sys::Function,
) -> Result<(), String> {
    module_explore(
        root,
        preset,
        scenario,
        custom.map(str::to_string),
        open,
        close,
    )
    .map_err(describe)
}

/// Removes the Explore dialog the module drew, if it is loaded and drew one.
pub fn explore_unmount() {
    module_explore_unmount();
}

/// Draws the scenario editor with the loaded module ([`load_module`] first) into `root`, or
/// gives the one it drew new values: the scenario on screen as JSON, whether it is open, what
/// runs a valid edit (called with the scenario's JSON) and what closes it.
pub fn editor_in_module(
    root: &web_sys::Element,
    scenario: &str,
    open: bool,
    apply: &js_sys::Function,
    close: &js_sys::Function,
) -> Result<(), String> {
    module_editor(root, scenario, open, apply, close).map_err(describe)
}

/// Removes the scenario editor the module drew, if it is loaded and drew one.
pub fn editor_unmount() {
    module_editor_unmount();
}

/// Loads the module and draws `which` into `root`, unless `still` says the page has moved on
/// meanwhile (another dashboard chosen while the module loaded).
async fn load_and_mount(
    root: web_sys::Element,
    which: &'static str,
    still: impl Fn() -> bool,
) -> Result<(), String> {
    load_module().await?;
    if still() {
        mount_mode(&root, which).map_err(describe)?;
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
    let which = match props.mode {
        Dashboard::Inspect => "inspect",
        _ => "topology",
    };
    // Which effect run is current: a load that ends after the page moved on draws nothing.
    let generation = use_mut_ref(|| 0u64);
    {
        let (host, load) = (host.clone(), load.clone());
        use_effect_with((which, *attempt), move |_| {
            *generation.borrow_mut() += 1;
            let mine = *generation.borrow();
            if let Some(root) = host.cast::<web_sys::Element>() {
                load.set(Load::Loading);
                let current = generation.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let still = || *current.borrow() == mine;
                    match load_and_mount(root, which, still).await {
                        Ok(()) if still() => load.set(Load::Shown),
                        Err(e) if still() => load.set(Load::Failed(e)),
                        _ => {}
                    }
                });
            }
            move || {
                *generation.borrow_mut() += 1;
                unmount_mode();
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
