//! End-to-end test of the page's two modules in headless Chromium: the micro-batch dashboard
//! loads without the second module (`batchscope-modes`: Topology and Inspect); opening Topology
//! loads it once, Inspect reuses it, and the tabs of a dashboard drawn by it switch back to the
//! micro-batch dashboard, which removes what it drew. A module that cannot be fetched is named
//! in a message with "Try again", which loads it once the file is there.
//!
//! Needs `trunk build --release` (for `dist/`) and `/usr/bin/chromedriver` + `/usr/bin/chromium`;
//! it fails, naming the missing piece, without them.

mod common;

use common::browser::*;
use fantoccini::Client;
use serde_json::Value;

/// How many times the page fetched a file whose URL contains `needle` (Resource Timing).
async fn fetched(client: &Client, needle: &str) -> Result<u64, String> {
    let n = js(
        client,
        &format!(
            "return performance.getEntriesByType('resource').filter(e => e.name.includes('{needle}')).length;"
        ),
    )
    .await?;
    n.as_u64().ok_or_else(|| format!("a count, not {n}"))
}

async fn drive(client: &Client, port: u16) -> TestResult {
    open(client, port, "#preset=kafka-append").await?;
    let wasm = fetched(client, ".wasm").await?;
    let modes = fetched(client, "batchscope-modes").await?;
    if wasm != 1 || modes != 0 {
        return Err(format!(
            "the micro-batch dashboard should load one .wasm and not the second module: {wasm} .wasm, {modes} of batchscope-modes"
        ));
    }

    // Topology: the second module is fetched (its script and its .wasm) and draws the page.
    click(client, "[data-testid=mode-topology]").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=topology-svg]')",
        30,
        "the Topology dashboard from the second module",
    )
    .await?;
    if fetched(client, "batchscope-modes").await? != 2 {
        return Err("opening Topology should fetch the module's script and .wasm once each".into());
    }
    // Its own mode tabs switch back: the micro-batch dashboard, and nothing of Topology left.
    click(client, "[data-testid=mode-micro]").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=verdict]') && !document.querySelector('[data-testid=topology-svg]') && !document.querySelector('[data-testid=lazy-mode]')",
        10,
        "the micro-batch dashboard, Topology removed",
    )
    .await?;
    wait_for(
        client,
        "!location.hash.includes('mode=topology')",
        10,
        "the address to leave Topology",
    )
    .await?;
    // Inspect reuses the module already loaded.
    click(client, "[data-testid=mode-inspect]").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=inspect-sample]')",
        20,
        "the Inspect page from the second module",
    )
    .await?;
    if fetched(client, "batchscope-modes").await? != 2 {
        return Err("Inspect should reuse the module Topology loaded".into());
    }
    no_overflow_no_errors(client).await
}

/// A module that cannot be fetched: the message names the file, the micro-batch dashboard's
/// tab still works, and "Try again" loads it once it is there.
async fn broken_then_retried(client: &Client, port: u16) -> TestResult {
    reopen(client, port, "#preset=kafka-append").await?;
    let meta = js(
        client,
        "const m = document.querySelector('meta[name=batchscope-modes]'); const c = m.content; m.content = c.replace(/batchscope-modes-/g, 'missing-modes-'); return c;",
    )
    .await?;
    let Value::String(meta) = meta else {
        return Err(format!(
            "the page should name its second module in a meta tag: {meta}"
        ));
    };
    click(client, "[data-testid=mode-topology]").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=lazy-mode-error]')",
        20,
        "a message that the module could not be loaded",
    )
    .await?;
    let message = text(client, "[data-testid=lazy-mode-error]").await?;
    if !message.contains("Topology dashboard could not be loaded")
        || !message.contains("missing-modes-")
    {
        return Err(format!("the message should name what failed: {message}"));
    }
    js(
        client,
        &format!(
            "document.querySelector('meta[name=batchscope-modes]').content = {}; return true;",
            serde_json::to_string(&meta).expect("a string")
        ),
    )
    .await?;
    click(client, "[data-testid=lazy-mode-error] button").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=topology-svg]') && !document.querySelector('[data-testid=lazy-mode-error]')",
        30,
        "the Topology dashboard after trying again",
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_second_module_loads_when_topology_or_inspect_opens_and_not_before() {
    let session = Session::start("e2e-modes").await;
    let mut result = drive(&session.client, session.port).await;
    if result.is_ok() {
        result = broken_then_retried(&session.client, session.port).await;
    }
    session.close().await;
    if let Err(message) = result {
        panic!("{message}");
    }
}
