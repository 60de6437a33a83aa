//! Component test of the Export menu in a real browser, its files made in place: the diagram
//! is saved as SVG and PNG, each a non-empty file of its type, and the trace and the checkpoint
//! folder are the files the link of the moment on screen makes. The page has its second module
//! make them, which only the built page has: `tests/e2e_modes.rs` goes through that one.
#![cfg(target_arch = "wasm32")]

use batchscope_web::microbatch::export_file::{run_file, ExportKind};
use wasm_bindgen_test::*;

mod common;

use common::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn the_diagram_exports_as_svg_and_png() {
    // The page's stylesheet is loaded, as on the page: the SVG export copies its rules.
    use_stylesheet();
    let (r, _app) = mount("#preset=kafka-append&seed=7&crash=sink-commit@3&at=40");
    settle().await;

    click(&r, "[data-testid=export-svg]");
    let (name, mime, bytes) = last_saved(&r, "[data-testid=export-menu]", ".svg").await;
    assert_eq!(
        (name.as_str(), mime.as_str()),
        ("kafka-append-diagram.svg", "image/svg+xml")
    );
    let svg = String::from_utf8(bytes).unwrap();
    assert!(
        svg.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{}",
        &svg[..200]
    );
    assert!(svg.contains("<style>") && svg.contains("</svg>"));
    // The page's rules travel with the file (read from the loaded stylesheet): a lane's title
    // keeps its size and colour.
    assert!(
        svg.contains(".lane-title { font-size: 12.5px;"),
        "no lane style in the exported SVG"
    );

    click(&r, "[data-testid=export-png]");
    let (_, mime, png) = last_saved(&r, "[data-testid=export-menu]", ".png").await;
    assert_eq!(mime, "image/png");
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 1000,
        "{} bytes",
        png.len()
    );
}

#[wasm_bindgen_test]
async fn the_trace_and_the_folder_are_those_of_the_moment_on_screen() {
    let hash = "#preset=kafka-append&seed=7&crash=sink-commit@3&at=40";
    let (r, _app) = mount(hash);
    settle().await;

    click(&r, "[data-testid=export-trace]");
    let (name, mime, trace) = last_saved(&r, "[data-testid=export-menu]", ".json").await;
    assert_eq!(
        (name.as_str(), mime.as_str()),
        ("kafka-append-trace.json", "application/json")
    );
    assert!(
        trace == run_file(ExportKind::Trace, hash).unwrap(),
        "another trace"
    );

    click(&r, "[data-testid=export-checkpoint]");
    let (name, mime, zip) = last_saved(&r, "[data-testid=export-menu]", ".zip").await;
    assert_eq!(
        (name.as_str(), mime.as_str()),
        ("kafka-append-checkpoint-at-40.zip", "application/zip")
    );
    assert!(zip.starts_with(b"PK\x03\x04"), "not a zip");
    assert!(
        zip == run_file(ExportKind::Checkpoint, hash).unwrap(),
        "another folder"
    );
}
