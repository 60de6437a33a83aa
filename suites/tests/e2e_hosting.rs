//! End-to-end tests of the page as a host serves it. Under a sub-path, as GitHub Pages serves a project
//! (`https://someone.github.io/batchscope/`): `dist/` is served under `/batchscope/` alone, and
//! anything the page asks for outside it is a 404 the test names. There the page loads, a guided
//! tour runs from its first stop to its second, the scenario editor and compare mode (both drawn
//! by the second module) open, and the Topology tab draws its graph. And when its code traps (a
//! panic in the release page is a WebAssembly trap): an overlay says so, with a report naming the
//! link, the build and the browser, and "Reload this moment" opens the same link again.
//!
//! Needs `bash scripts/page.sh` (the release page, `dist/`) and `/usr/bin/chromedriver` + `/usr/bin/chromium`;
//! it fails, naming the missing piece, without them.

mod common;

use common::browser::*;
use fantoccini::Client;

/// Where the page is hosted in this test.
const BASE: &str = "/batchscope/";

/// Opens the page under [`BASE`] at `hash` in a fresh document and waits for it to mount.
async fn open_under(client: &Client, port: u16, hash: &str) -> TestResult {
    client
        .goto("about:blank")
        .await
        .map_err(|e| format!("blank: {e}"))?;
    open_url(client, &format!("http://127.0.0.1:{port}{BASE}{hash}")).await
}

async fn drive(client: &Client, port: u16) -> TestResult {
    // A guided tour: the lesson offers it, its first stop shows, the next one follows.
    open_under(client, port, "#preset=kafka-append").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=tour-start]')",
        10,
        "the guided-tour button in the lesson",
    )
    .await?;
    click(client, "[data-testid=tour-start]").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=tour-stop-text]')",
        30,
        "the tour's first stop",
    )
    .await?;
    let first = text(client, "[data-testid=tour-stop-text]").await?;
    click(client, "[data-testid=tour-next]").await?;
    wait_for(
        client,
        &format!(
            "(e => e && e.textContent !== {first:?})(document.querySelector('[data-testid=tour-stop-text]'))"
        ),
        60,
        "the tour's second stop",
    )
    .await?;
    let link = js(client, "return location.pathname + location.hash;").await?;
    if !link.as_str().unwrap_or("").starts_with(BASE) {
        return Err(format!("the tour's link left the sub-path: {link}"));
    }

    // The scenario editor, drawn by the second module fetched from under the sub-path.
    open_under(client, port, "#preset=kafka-append").await?;
    click(client, "[data-testid=editor-open]").await?;
    wait_for(
        client,
        "(e => e && !e.hidden)(document.querySelector('[data-testid=editor-host] [data-testid=editor]'))",
        30,
        "the scenario editor from the second module",
    )
    .await?;

    // Compare mode, the same module.
    open_under(client, port, "#preset=kafka-append").await?;
    pick_comparison(client, "vs:kafka-idempotent").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=compare-host] [data-testid=compare-b]')",
        30,
        "compare mode's second run",
    )
    .await?;

    // The Topology tab.
    click(client, "[data-testid=mode-topology]").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=topology-svg]')",
        30,
        "the Topology dashboard under the sub-path",
    )
    .await?;
    let errors = js(client, "return window.__errors || [];").await?;
    if errors.as_array().is_some_and(|e| !e.is_empty()) {
        return Err(format!("the page logged errors: {errors}"));
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_page_works_hosted_under_a_sub_path() {
    let session = Session::start("subpath").await;
    let hosting = Hosting {
        base: BASE.into(),
        gzip: true,
    };
    let (port, missed) = serve_as(dist_dir(), hosting);
    let result = drive(&session.client, port).await;
    if result.is_err() {
        let _ = save_screenshot(&session.client, "subpath-failure.png").await;
    }
    session.close().await;
    result.unwrap();
    let missed = missed.lock().expect("the missed list").clone();
    // A browser asks for /favicon.ico by itself when a page names none; the page names one.
    assert!(
        missed.is_empty(),
        "the page asked for files outside {BASE} or not in dist/: {missed:?}"
    );
}

/// The build's id as the overlay names it: the content hash in the page's `.wasm` file name.
fn build_id() -> String {
    std::fs::read_dir(dist_dir())
        .expect("dist/")
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .find_map(|n| {
            n.strip_prefix("batchscope-web-")
                .and_then(|n| n.strip_suffix("_bg.wasm"))
                .map(str::to_string)
        })
        .expect("the page's .wasm in dist/")
}

async fn trap_and_reload(client: &Client, port: u16) -> TestResult {
    open(client, port, "#preset=kafka-append&seed=7&at=12").await?;
    // The moment: the link as the page keeps it, and the step it shows.
    let hash = js(client, "return location.hash;").await?;
    let step = text(client, "[data-testid=step-count]").await?;
    let armed = js(
        client,
        "if (!window.wasmBindings || !window.wasmBindings.deliberate_trap_for_tests) return false; \
         setTimeout(() => window.wasmBindings.deliberate_trap_for_tests(), 0); return true;",
    )
    .await?;
    if armed != serde_json::Value::Bool(true) {
        return Err(
            "the page's exports (window.wasmBindings) have no deliberate_trap_for_tests".into(),
        );
    }
    wait_for(
        client,
        "document.querySelector('[data-testid=panic-overlay]')",
        10,
        "the overlay after a trap",
    )
    .await?;
    let _ = save_screenshot(client, "panic-overlay.png").await;
    let report = js(
        client,
        "return document.querySelector('[data-testid=panic-report]').value;",
    )
    .await?;
    let report = report.as_str().unwrap_or("").to_string();
    let link = format!(
        "link: http://127.0.0.1:{port}/{}",
        hash.as_str().unwrap_or("")
    );
    let build = format!("build: {}", build_id());
    for want in [
        link.as_str(),
        build.as_str(),
        "browser: Mozilla",
        "RuntimeError",
    ] {
        if !report.contains(want) {
            return Err(format!("the report lacks {want:?}:\n{report}"));
        }
    }
    let focused = js(
        client,
        "return document.activeElement && document.activeElement.dataset.testid;",
    )
    .await?;
    if focused != "panic-reload" {
        return Err(format!(
            "focus should be on Reload this moment, is on {focused}"
        ));
    }
    // Reload this moment: the same link, a live page, no overlay.
    click(client, "[data-testid=panic-reload]").await?;
    wait_for(
        client,
        "!document.querySelector('[data-testid=panic-overlay]') && document.querySelector('[data-testid=verdict]')",
        30,
        "the page reloaded without the overlay",
    )
    .await?;
    let at = js(client, "return location.hash;").await?;
    let step_after = text(client, "[data-testid=step-count]").await?;
    if at != hash || step_after != step {
        return Err(format!(
            "the reload opened {at} at {step_after:?}, not {hash} at {step:?}"
        ));
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_trap_shows_an_overlay_with_a_report_and_a_reload_of_the_moment() {
    let session = Session::start("panic").await;
    let result = trap_and_reload(&session.client, session.port).await;
    if result.is_err() {
        let _ = save_screenshot(&session.client, "panic-failure.png").await;
    }
    session.close().await;
    result.unwrap();
}
