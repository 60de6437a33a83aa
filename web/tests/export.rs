//! Component test of the Export menu in a real browser: each button saves a non-empty file of
//! the right type — the diagram as SVG and PNG, the trace as JSON (every event of the run),
//! the checkpoint folder as a `.zip` that reads back as the simulated folder.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

mod common;

use common::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn every_export_saves_a_file_of_its_type() {
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

    click(&r, "[data-testid=export-trace]");
    let (_, mime, json) = last_saved(&r, "[data-testid=export-menu]", "-trace.json").await;
    assert_eq!(mime, "application/json");
    let report: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let mut scenario = batchscope_engine::preset("kafka-append").unwrap();
    scenario.crashes = vec!["sink-commit@3".parse().unwrap()];
    let (expected, world) = batchscope_check::oracle::check_world(&scenario, false);
    assert_eq!(
        report["events"].as_array().unwrap().len(),
        world.events().len()
    );
    assert_eq!(report["verdict"], expected.verdict.name());

    click(&r, "[data-testid=export-checkpoint]");
    let (name, mime, zip) = last_saved(&r, "[data-testid=export-menu]", ".zip").await;
    assert_eq!(mime, "application/zip");
    assert!(name.contains("checkpoint"), "{name}");
    let folder = batchscope_view::upload::from_zip(&zip).unwrap().folder;
    assert!(folder.read("metadata").is_some());
    assert!(folder.offset_log_ids().len() > 1);
}
