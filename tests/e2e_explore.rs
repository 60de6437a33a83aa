//! End-to-end test of the Explore dialog in headless Chromium: pick kafka-append, explore every
//! single fault (depth 1) to completion, check the matrix shows duplicates at `task` and
//! `sink-commit` and no data loss, click `sink-commit@3` and check the player shows that crash,
//! then play to the end and check the verdict. Saves `target/e2e/explore.png` (and a dark one)
//! and prints how long depth 1 of `tablestore` takes in the browser (not asserted).
//!
//! Needs `trunk build --release` (for `dist/`) and `/usr/bin/chromedriver` + `/usr/bin/chromium`.

mod common;

use common::browser::*;
use fantoccini::Client;
use serde_json::Value;

/// Opens the dialog, runs depth 1 and waits until it is done; returns the elapsed ms shown.
async fn explore_depth_1(client: &Client, secs: u64) -> Result<f64, String> {
    click(client, "[data-testid=explore-open]").await?;
    wait_for(
        client,
        "!document.querySelector('[data-testid=explore]').hidden",
        10,
        "the Explore dialog",
    )
    .await?;
    select(client, "[data-testid=explore-depth]", "1").await?;
    click(client, "[data-testid=explore-run]").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=explore-status]').dataset.status === 'done'",
        secs,
        "the exploration to finish",
    )
    .await?;
    let elapsed = js(
        client,
        "return Number(document.querySelector('[data-testid=explore-status]').dataset.elapsedMs);",
    )
    .await?;
    Ok(elapsed.as_f64().unwrap_or(0.0))
}

async fn cell_verdicts(client: &Client, point: &str) -> Result<Vec<String>, String> {
    let v = js(
        client,
        &format!(
            "return [...document.querySelectorAll('[data-testid^=cell-{point}-]')].map(c => c.dataset.verdict);"
        ),
    )
    .await?;
    Ok(v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default())
}

async fn drive(client: &Client, port: u16) -> TestResult {
    open(client, port, "").await?;
    pick_preset(client, "kafka-append", "plain append").await?;

    let elapsed = explore_depth_1(client, 120).await?;
    let progress = js(
        client,
        "const p = document.querySelector('[data-testid=explore-progress]'); return [p.dataset.done, p.dataset.total];",
    )
    .await?;
    println!("kafka-append depth 1 in the browser: {elapsed:.0} ms (done/total {progress})");

    for point in ["task", "sink-commit"] {
        let verdicts = cell_verdicts(client, point).await?;
        if !verdicts.iter().any(|v| v == "duplicates") {
            return Err(format!(
                "the {point} row should show duplicates cells: {verdicts:?}"
            ));
        }
    }
    let bad = js(
        client,
        "return [...document.querySelectorAll('[data-testid=explore-matrix] .xp-cell')].filter(c => c.dataset.verdict.includes('loss')).map(c => c.title);",
    )
    .await?;
    if bad.as_array().is_none_or(|a| !a.is_empty()) {
        return Err(format!("kafka-append should lose no data: {bad}"));
    }
    let tooltip = js(
        client,
        "return document.querySelector('[data-testid=cell-sink-commit-3]').title;",
    )
    .await?;
    if tooltip.as_str() != Some("sink-commit@3: duplicates (6 dup, 0 lost)") {
        return Err(format!("sink-commit@3 tooltip: {tooltip}"));
    }
    let commands = text(client, "[data-testid=explore-counterexamples]").await?;
    let command = js(
        client,
        "return [...document.querySelectorAll('[data-testid=counterexample-command]')].map(c => c.textContent);",
    )
    .await?;
    if !command
        .to_string()
        .contains("batchscope run --preset kafka-append")
    {
        return Err(format!(
            "a counterexample command should be listed: {command} ({commands})"
        ));
    }
    no_overflow_no_errors(client).await?;
    save_screenshot(client, "explore.png").await?;
    js(
        client,
        "document.documentElement.setAttribute('data-theme', 'dark'); return true;",
    )
    .await?;
    save_screenshot(client, "explore-dark.png").await?;
    js(
        client,
        "document.documentElement.setAttribute('data-theme', 'system'); return true;",
    )
    .await?;

    // A cell loads its run into the player, at the crash.
    click(client, "[data-testid=cell-sink-commit-3]").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=explore]').hidden",
        10,
        "the dialog to close",
    )
    .await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=current-event] .crash')",
        10,
        "the player at the CRASH event",
    )
    .await?;
    let note = text(client, "[data-testid=step-note]").await?;
    println!("step note at the crash: {note}");
    let armed = text(client, "[data-testid=armed-crash]").await?;
    if !armed.contains("sink-commit@3") {
        return Err(format!("sink-commit@3 should be armed: {armed}"));
    }
    wait_for(
        client,
        "location.hash.includes('crash=sink-commit@3') && /at=\\d+/.test(location.hash)",
        10,
        "a shareable link to the crash",
    )
    .await?;
    save_screenshot(client, "explore-loaded.png").await?;

    select(client, "#speed", "4").await?;
    click(client, "#play").await?;
    wait_for_verdict(client, "duplicates", 90).await?;
    no_overflow_no_errors(client).await?;

    // Depth 1 of tablestore (timing printed, not asserted).
    select(client, "#preset", "tablestore").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=explore-status]').dataset.status === 'idle'",
        10,
        "the explorer to reset for the new preset",
    )
    .await?;
    let elapsed = explore_depth_1(client, 600).await?;
    let runs = js(
        client,
        "return document.querySelector('[data-testid=explore-progress]').dataset.done;",
    )
    .await?;
    println!(
        "tablestore depth 1 in the browser: {:.1} s for {runs} runs",
        elapsed / 1000.0
    );
    save_screenshot(client, "explore-tablestore.png").await?;

    // Depth 2 of tablestore (timing printed, not asserted); the total grows while it runs.
    select(client, "[data-testid=explore-depth]", "2").await?;
    click(client, "[data-testid=explore-run]").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=explore-status]').dataset.status === 'done'",
        900,
        "the depth-2 exploration to finish",
    )
    .await?;
    let (elapsed, runs) = (
        js(
            client,
            "return Number(document.querySelector('[data-testid=explore-status]').dataset.elapsedMs);",
        )
        .await?,
        js(
            client,
            "return document.querySelector('[data-testid=explore-progress]').dataset.done;",
        )
        .await?,
    );
    println!(
        "tablestore depth 2 in the browser: {:.1} s for {runs} runs",
        elapsed.as_f64().unwrap_or(0.0) / 1000.0
    );
    no_overflow_no_errors(client).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explore_kafka_append_finds_duplicates_and_a_cell_replays_its_crash() {
    let session = Session::start("e2e-explore").await;
    let result = drive(&session.client, session.port).await;
    session.close().await;
    if let Err(message) = result {
        panic!("{message}");
    }
}
