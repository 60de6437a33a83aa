//! The "Export" menu of the micro-batch dashboard: the sequence diagram as SVG or PNG, the
//! run's trace as JSON (what `batchscope run --trace --json` prints), and the simulated
//! checkpoint folder at the cursor as a `.zip` (at the end of the run: the bytes
//! `--checkpoint-out` writes). The files are made by a [`FileMaker`] — on the page, the second
//! module (`crate::microbatch::export_file`) — and saved by a download link.

use crate::microbatch::export_file::{ExportKind, FileFuture, FileMaker};
use crate::shell::export_in_module;
use batchscope_view::microbatch::url::scenario::{format_link, Link};
use js_sys::{Array, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, BlobPropertyBag, Element, HtmlAnchorElement, Url};
use yew::prelude::*;

/// Has the second module make the files (fetched the first time one is asked for).
pub fn files_from_module() -> FileMaker {
    Callback::from(|(kind, hash): (ExportKind, String)| -> FileFuture {
        Box::pin(async move { export_in_module(kind.name(), &hash).await })
    })
}

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

/// Props of [`ExportMenu`].
#[derive(Properties, PartialEq)]
pub struct ExportMenuProps {
    /// The preset or scenario name, for file names.
    pub name: String,
    /// The link of the moment on screen: what the trace and the checkpoint folder are made
    /// from (written out only when one is asked for).
    pub link: Link,
    /// Events in the run.
    pub total: usize,
    /// Events shown (the world on screen is the run after this many).
    pub cursor: usize,
    /// What makes the files.
    pub files: FileMaker,
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
    // Every file is made by `props.files` (the page's: the second module, fetched the first
    // time), so the status says what is going on meanwhile.
    let export = |kind: ExportKind| {
        let (menu, status, files, link) = (
            menu.clone(),
            status.clone(),
            props.files.clone(),
            props.link.clone(),
        );
        let file = kind.file_name(&props.name, props.cursor, props.cursor >= props.total);
        Callback::from(move |_: MouseEvent| {
            let Some(el) = menu.cast::<Element>() else {
                return;
            };
            status.set(format!("Making {}…", kind.what()));
            let (made, status, file) = (
                files.emit((kind, format_link(&link))),
                status.clone(),
                file.clone(),
            );
            wasm_bindgen_futures::spawn_local(async move {
                let result = match made.await {
                    Ok(bytes) => save(&el, &file, kind.mime(), &bytes),
                    Err(why) => Err(JsValue::from_str(&why)),
                };
                status.set(saved_text(result, kind.what()));
            });
        })
    };
    let at = if props.cursor >= props.total {
        "at the end of the run".to_owned()
    } else {
        format!("after event {}", props.cursor)
    };
    html! {
        <details class="export-menu" ref={menu.clone()} data-testid="export-menu">
            <summary title="Save the diagram, the trace or the checkpoint folder">{ "Export" }</summary>
            <div class="menu" role="group" aria-label="Export">
                <button data-testid="export-svg" onclick={export(ExportKind::Svg)}>{ "Diagram as SVG" }</button>
                <button data-testid="export-png" onclick={export(ExportKind::Png)}>{ "Diagram as PNG" }</button>
                <button data-testid="export-trace" onclick={export(ExportKind::Trace)}
                        title="Every event and the verdict: what `batchscope run --trace --json` prints">{ "Trace as JSON" }</button>
                <button data-testid="export-itf" onclick={export(ExportKind::Itf)}
                        title="One state per event in the Informal Trace Format, which Apalache and Quint read">{ "Trace as ITF" }</button>
                <button data-testid="export-checkpoint" onclick={export(ExportKind::Checkpoint)}
                        title="The simulated Spark checkpoint folder, in Spark's exact format">{ format!("Checkpoint folder (.zip, {at})") }</button>
                <p class="muted export-status" role="status" aria-live="polite">{ (*status).clone() }</p>
            </div>
        </details>
    }
}
