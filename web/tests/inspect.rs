//! Component test of the Inspect page in a real browser: a real Spark checkpoint folder,
//! zipped, is dropped on the page (a `drop` event carrying the file, as a user's drag does);
//! the page shows its batches and the restart Spark makes, each file's bytes on click, and
//! walks the restart step by step. A bad drop is a named error that keeps the folder shown.
#![cfg(target_arch = "wasm32")]

use batchscope_web::inspect::InspectApp;
use std::time::Duration;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{DataTransfer, DragEvent, DragEventInit, Element, File, FilePropertyBag};

mod common;

use common::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A real checkpoint written by pyspark 4.3.0, killed in batch 2 (see the fixtures' README).
const ZIP: &[u8] = include_bytes!(
    "../../tests/fixtures/spark-checkpoints/zip/checkpoint-version-4.3.0-stateful-aggregation-killed-in-batch-2.zip"
);

fn mount_inspect() -> (Element, yew::AppHandle<InspectApp>) {
    let r = root();
    let handle = yew::Renderer::<InspectApp>::with_root(r.clone()).render();
    (r, handle)
}

/// Drops a file named `name` holding `bytes` on the page's drop zone.
fn drop_file(root: &Element, name: &str, bytes: &[u8]) {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let bag = FilePropertyBag::new();
    bag.set_type("application/zip");
    let file = File::new_with_u8_array_sequence_and_options(&parts, name, &bag).unwrap();
    let data = DataTransfer::new().unwrap();
    data.items().add_with_file(&file).unwrap();
    let init = DragEventInit::new();
    init.set_bubbles(true);
    init.set_cancelable(true);
    init.set_data_transfer(Some(&data));
    let event = DragEvent::new_with_event_init_dict("drop", &init).unwrap();
    find(root, "[data-testid=drop-zone]")
        .dispatch_event(&event)
        .unwrap();
}

/// Waits (yielding to the browser) until `css` matches an element, at most 60 s: reading and
/// inspecting a zip in a debug build on a busy CI machine has taken over 20 s (a hang guard,
/// not a speed check).
async fn wait_for(root: &Element, css: &str) -> Element {
    for _ in 0..3000 {
        if let Some(found) = root.query_selector(css).unwrap() {
            return found;
        }
        yew::platform::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("nothing matched {css}");
}

#[wasm_bindgen_test]
async fn a_dropped_zip_shows_its_batches_and_restart() {
    let (r, _app) = mount_inspect();
    settle().await;
    assert!(text(&r, "[data-testid=drop-zone]").contains("Drop a Spark checkpoint folder"));
    drop_file(&r, "checkpoint.zip", ZIP);
    wait_for(&r, "[data-testid=restart-decision]").await;
    // The engine's own inspection of the same bytes is the expectation.
    let upload = batchscope_view::upload::from_zip(ZIP).unwrap();
    let expected = batchscope_engine::checkpoint::inspect(&upload.folder, &Default::default());
    let rows = r
        .query_selector_all("[data-testid=inspect-batches] tbody tr")
        .unwrap();
    assert_eq!(rows.length() as usize, expected.batches.len());
    let batch = expected.restart.batch.unwrap();
    assert_eq!(expected.restart.action, "rerun");
    let decision = text(&r, "[data-testid=restart-decision]");
    assert!(
        decision.contains(&format!("Re-runs batch {batch}")),
        "{decision}"
    );
    assert!(decision.contains(&expected.restart.reason), "{decision}");
    assert!(text(&r, "[data-testid=inspect-state]").contains("latest version"));

    // A file's bytes on click.
    let offsets = format!("offsets/{batch}");
    let button = r
        .query_selector_all("[data-testid=inspect-files] button")
        .unwrap();
    let target = (0..button.length())
        .filter_map(|i| button.get(i))
        .find(|b| b.text_content().unwrap_or_default().starts_with(&offsets))
        .expect("the offsets file is listed");
    target.dyn_into::<web_sys::HtmlElement>().unwrap().click();
    let shown = wait_for(&r, "[data-testid=file-view]")
        .await
        .text_content()
        .unwrap_or_default();
    let bytes = std::str::from_utf8(upload.folder.read(&offsets).unwrap()).unwrap();
    assert!(shown.contains(bytes.lines().last().unwrap()), "{shown}");

    // Simulating the restart marks the re-run batch and its first step.
    click(&r, "[data-testid=simulate-restart]");
    let hot = wait_for(&r, "[data-testid=inspect-batches] tr.hot").await;
    assert_eq!(hot.get_attribute("data-batch"), Some(batch.to_string()));
    assert_eq!(text(&r, ".restart-steps li.hot"), expected.restart.steps[0]);
}

#[wasm_bindgen_test]
async fn a_bad_drop_is_named_and_keeps_the_folder() {
    let (r, _app) = mount_inspect();
    settle().await;
    drop_file(&r, "checkpoint.zip", ZIP);
    wait_for(&r, "[data-testid=restart-decision]").await;
    drop_file(&r, "notes.zip", b"these are not the bytes of a zip");
    let error = wait_for(&r, "[data-testid=inspect-error]").await;
    let message = error.text_content().unwrap_or_default();
    assert!(
        message.contains("notes.zip: not a .zip archive"),
        "{message}"
    );
    assert!(message.contains("unchanged"), "{message}");
    assert!(r
        .query_selector("[data-testid=restart-decision]")
        .unwrap()
        .is_some());
}
