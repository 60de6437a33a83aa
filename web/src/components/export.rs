//! The "Export" menu of the micro-batch dashboard: the sequence diagram as SVG or PNG, the
//! run's trace as JSON (what `batchscope run --trace --json` prints), and the simulated
//! checkpoint folder at the cursor as a `.zip` (at the end of the run: the bytes
//! `--checkpoint-out` writes). Files are made in the browser and saved by a download link.

use crate::export_file::ExportKind;
use crate::shell::export_in_module;
use batchscope_view::export::standalone_svg;
use batchscope_view::url::scenario::{format_link, Link};
use js_sys::{Array, Promise, Uint8Array};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    Blob, BlobPropertyBag, CanvasRenderingContext2d, CssStyleSheet, Element, HtmlAnchorElement,
    HtmlCanvasElement, HtmlImageElement, Url,
};
use yew::prelude::*;

/// The page's stylesheets as text, inlined into exported SVG so it looks as on screen. Read
/// from the loaded page (`document.styleSheets`) at export time rather than compiled into the
/// module: the page already holds them, and a copy in the `.wasm` cost ~12 KB gzipped of every
/// first load.
fn page_css() -> String {
    let sheets = gloo::utils::document().style_sheets();
    let mut css = String::new();
    for i in 0..sheets.length() {
        let Some(sheet) = sheets
            .item(i)
            .and_then(|s| s.dyn_into::<CssStyleSheet>().ok())
        else {
            continue;
        };
        // A sheet from another origin refuses to be read: it is left out, the rest kept.
        let Ok(rules) = sheet.css_rules() else {
            continue;
        };
        for j in 0..rules.length() {
            if let Some(rule) = rules.item(j) {
                css.push_str(&rule.css_text());
                css.push('\n');
            }
        }
    }
    css
}
/// PNG pixels per SVG unit (sharp on slides and high-density screens).
const PNG_SCALE: f64 = 2.0;

/// Saves `bytes` as a file named `name` of MIME type `mime`, and records what was saved on
/// `marker` (`data-export` = "name|type|size", `data-export-url` = the object URL, kept until
/// the next export so it can be read back).
pub(crate) fn save(marker: &Element, name: &str, mime: &str, bytes: &[u8]) -> Result<(), JsValue> {
    let parts = Array::of1(&Uint8Array::from(bytes));
    let bag = BlobPropertyBag::new();
    bag.set_type(mime);
    let blob = Blob::new_with_u8_array_sequence_and_options(&parts, &bag)?;
    let url = Url::create_object_url_with_blob(&blob)?;
    if let Some(previous) = marker.get_attribute("data-export-url") {
        let _ = Url::revoke_object_url(&previous);
    }
    marker.set_attribute("data-export", &format!("{name}|{mime}|{}", bytes.len()))?;
    marker.set_attribute("data-export-url", &url)?;
    let document = gloo::utils::document();
    let a: HtmlAnchorElement = document.create_element("a")?.unchecked_into();
    a.set_href(&url);
    a.set_download(name);
    a.click();
    Ok(())
}

/// The diagram on the page as a standalone SVG, with its width and height.
fn diagram_svg() -> Option<(String, f64, f64)> {
    let svg = gloo::utils::document().get_element_by_id("sequence")?;
    let view_box = svg.get_attribute("viewBox")?;
    // JavaScript's parseFloat reads the numbers: Rust's `f64` parser would bring its tables
    // (about 20 KB) into the page for these four numbers.
    let mut numbers = view_box
        .split_whitespace()
        .map(js_sys::parse_float)
        .filter(|n| n.is_finite());
    let (_, _, w, h) = (
        numbers.next()?,
        numbers.next()?,
        numbers.next()?,
        numbers.next()?,
    );
    // The page draws the SVG at its layout's size (`width` and `height` are set): the file
    // keeps that size.
    Some((standalone_svg(&svg.outer_html(), &page_css()), w, h))
}

/// Draws an SVG document into a PNG, `scale` pixels per unit.
pub(crate) async fn svg_to_png(svg: &str, w: f64, h: f64, scale: f64) -> Result<Vec<u8>, JsValue> {
    let parts = Array::of1(&JsValue::from_str(svg));
    let bag = BlobPropertyBag::new();
    bag.set_type("image/svg+xml");
    let blob = Blob::new_with_str_sequence_and_options(&parts, &bag)?;
    let url = Url::create_object_url_with_blob(&blob)?;
    let image = HtmlImageElement::new()?;
    let loaded = Promise::new(&mut |resolve, reject| {
        image.set_onload(Some(&resolve));
        image.set_onerror(Some(&reject));
    });
    image.set_src(&url);
    let waited = JsFuture::from(loaded).await;
    let _ = Url::revoke_object_url(&url);
    waited?;
    let canvas: HtmlCanvasElement = gloo::utils::document()
        .create_element("canvas")?
        .unchecked_into();
    canvas.set_width((w * scale).round() as u32);
    canvas.set_height((h * scale).round() as u32);
    let context: CanvasRenderingContext2d = canvas
        .get_context("2d")?
        .ok_or("no 2d context")?
        .unchecked_into();
    context.scale(scale, scale)?;
    context.draw_image_with_html_image_element_and_dw_and_dh(&image, 0.0, 0.0, w, h)?;
    let png = Promise::new(&mut |resolve, _reject| {
        let callback = Closure::once_into_js(move |blob: JsValue| {
            let _ = resolve.call1(&JsValue::NULL, &blob);
        });
        let _ = canvas.to_blob(callback.unchecked_ref());
    });
    let blob: Blob = JsFuture::from(png).await?.dyn_into()?;
    let buffer = JsFuture::from(blob.array_buffer()).await?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

/// Props of [`ExportMenu`].
#[derive(Properties, PartialEq)]
pub struct ExportMenuProps {
    /// The preset or scenario name, for file names.
    pub name: String,
    /// The link of the moment on screen: what the trace and the checkpoint folder are made
    /// from, in the lazily loaded module (written out only when one is asked for).
    pub link: Link,
    /// Events in the run.
    pub total: usize,
    /// Events shown (the world on screen is the run after this many).
    pub cursor: usize,
}

/// What an export's status line says: saved, or why not.
pub(crate) fn saved_text(result: Result<(), JsValue>, what: &str) -> String {
    match result {
        Ok(()) => format!("Saved {what}."),
        Err(error) => format!("Could not export {what}: {error:?}"),
    }
}

/// The Export menu.
#[component]
pub fn ExportMenu(props: &ExportMenuProps) -> Html {
    let menu = use_node_ref();
    let status = use_state(String::new);
    let name = props.name.clone();
    let done = {
        let status = status.clone();
        move |result: Result<(), JsValue>, what: &str| status.set(saved_text(result, what))
    };
    let marker = {
        let menu = menu.clone();
        move || menu.cast::<Element>()
    };
    let on_svg = {
        let (marker, done, name) = (marker.clone(), done.clone(), name.clone());
        Callback::from(move |_: MouseEvent| {
            let Some(el) = marker() else { return };
            let result = match diagram_svg() {
                Some((svg, _, _)) => save(
                    &el,
                    &format!("{name}-diagram.svg"),
                    "image/svg+xml",
                    svg.as_bytes(),
                ),
                None => Err("no diagram on the page".into()),
            };
            done(result, "the diagram as SVG");
        })
    };
    let on_png = {
        let (marker, done, name) = (marker.clone(), done.clone(), name.clone());
        Callback::from(move |_: MouseEvent| {
            let Some(el) = marker() else { return };
            let (done, name) = (done.clone(), name.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let result = match diagram_svg() {
                    Some((svg, w, h)) => match svg_to_png(&svg, w, h, PNG_SCALE).await {
                        Ok(png) => save(&el, &format!("{name}-diagram.png"), "image/png", &png),
                        Err(error) => Err(error),
                    },
                    None => Err("no diagram on the page".into()),
                };
                done(result, "the diagram as PNG");
            });
        })
    };
    // The trace and the folder are made by the second module from the link (see
    // `crate::export_file`): it is fetched the first time, so the status says what is going on.
    let from_run = |kind: ExportKind, what: &'static str| {
        let (marker, done, name, link, status) = (
            marker.clone(),
            done.clone(),
            name.clone(),
            props.link.clone(),
            status.clone(),
        );
        let cursor = props.cursor;
        let at_end = cursor >= props.total;
        Callback::from(move |_: MouseEvent| {
            let Some(el) = marker() else { return };
            let (done, hash) = (done.clone(), format_link(&link));
            let file = match (kind, at_end) {
                (ExportKind::Trace, _) => format!("{name}-trace.json"),
                (ExportKind::Checkpoint, true) => format!("{name}-checkpoint.zip"),
                (ExportKind::Checkpoint, false) => format!("{name}-checkpoint-at-{cursor}.zip"),
            };
            let mime = match kind {
                ExportKind::Trace => "application/json",
                ExportKind::Checkpoint => "application/zip",
            };
            status.set(format!("Making {what}…"));
            wasm_bindgen_futures::spawn_local(async move {
                let result = match export_in_module(kind.name(), &hash).await {
                    Ok(bytes) => save(&el, &file, mime, &bytes),
                    Err(why) => Err(JsValue::from_str(&why)),
                };
                done(result, what);
            });
        })
    };
    let on_trace = from_run(ExportKind::Trace, "the trace");
    let on_checkpoint = from_run(ExportKind::Checkpoint, "the checkpoint folder");
    let at = if props.cursor >= props.total {
        "at the end of the run".to_owned()
    } else {
        format!("after event {}", props.cursor)
    };
    html! {
        <details class="export-menu" ref={menu} data-testid="export-menu">
            <summary title="Save the diagram, the trace or the checkpoint folder">{ "Export" }</summary>
            <div class="menu" role="group" aria-label="Export">
                <button data-testid="export-svg" onclick={on_svg}>{ "Diagram as SVG" }</button>
                <button data-testid="export-png" onclick={on_png}>{ "Diagram as PNG" }</button>
                <button data-testid="export-trace" onclick={on_trace}
                        title="Every event and the verdict: what `batchscope run --trace --json` prints">{ "Trace as JSON" }</button>
                <button data-testid="export-checkpoint" onclick={on_checkpoint}
                        title="The simulated Spark checkpoint folder, in Spark's exact format">{ format!("Checkpoint folder (.zip, {at})") }</button>
                <p class="muted export-status" role="status" aria-live="polite">{ (*status).clone() }</p>
            </div>
        </details>
    }
}
