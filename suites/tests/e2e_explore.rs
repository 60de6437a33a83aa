//! End-to-end test of the Explore dialog in headless Chromium: pick kafka-append, explore every
//! single fault (depth 1) to completion, check the matrix shows duplicates at `task` and
//! `sink-commit` and no data loss, click `sink-commit@3` and check the player shows that crash,
//! then play to the end and check the verdict. Saves `target/e2e/explore.png` (and a dark one)
//! and prints how long depth 1 of `tablestore` takes in the browser (not asserted).
//!
//! A second test explores every pair of faults of `tablestore-two-phase` (expected values from the
//! explorer run natively): the pair list puts data loss first and filters by verdict, a pair opens
//! in the player with both crashes, a split run opens in the player, every reproducing line is a
//! short `batchscope run` line whose verdict the CLI's own scenario loader confirms, the matrix
//! exports as SVG and PNG under the page's Content-Security-Policy, and the dialog keeps focus
//! (Escape gives it back to the Explore button). Saves `target/e2e/explore-pairs.png`.
//!
//! Needs `bash scripts/page.sh` (the release page, `dist/`) and `/usr/bin/chromedriver` + `/usr/bin/chromium`.

mod common;

use common::browser::*;
use fantoccini::Client;
use serde_json::Value;

/// Opens the Explore dialog — drawn by the page's second module, fetched the first time — and
/// waits until it is shown with the focus inside it.
async fn open_dialog(client: &Client) -> TestResult {
    click(client, "[data-testid=explore-open]").await?;
    wait_for(
        client,
        "(d => d && !d.hidden)(document.querySelector('[data-testid=explore]')) \
         && document.activeElement && document.activeElement.closest('[role=dialog]')",
        20,
        "the Explore dialog, with the focus inside it",
    )
    .await
}

/// Opens the dialog, runs depth 1 and waits until it is done; returns the elapsed ms shown.
async fn explore_depth_1(client: &Client, secs: u64) -> Result<f64, String> {
    open_dialog(client).await?;
    run_exploration(client, "1", secs, "the exploration to finish").await?;
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
    // What the oracle says of that one run.
    let mut crashed =
        batchscope_engine::microbatch::scenario::preset("kafka-append").expect("preset");
    crashed
        .crashes
        .push("sink-commit@3".parse().expect("crash point"));
    let report = batchscope_check::oracle::check(&crashed);
    let want = format!(
        "sink-commit@3: duplicates ({} dup, {} lost)",
        report.duplicates, report.lost
    );
    if report.duplicates == 0 || tooltip.as_str() != Some(want.as_str()) {
        return Err(format!("sink-commit@3 tooltip: {tooltip}, want {want}"));
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
    run_exploration(client, "2", 900, "the depth-2 exploration to finish").await?;
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

/// The attribute `name` of every element `css` selects.
async fn attrs(client: &Client, css: &str, name: &str) -> Result<Vec<String>, String> {
    let v = js(
        client,
        &format!("return [...document.querySelectorAll('{css}')].map(e => e.getAttribute('{name}') || '');"),
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

/// The `data-testid` of the focused element.
async fn focused(client: &Client) -> Result<String, String> {
    let v = js(client, "const a = document.activeElement; return (a && (a.dataset.testid || a.closest('[role=dialog]') && 'in-dialog')) || '';").await?;
    Ok(v.as_str().unwrap_or_default().to_string())
}

/// The verdict of a `batchscope run` line, through the CLI's own scenario loader.
fn verdict_of_line(line: &str) -> String {
    let words: Vec<&str> = line.split_whitespace().collect();
    let flag = |name: &str| -> Vec<String> {
        words
            .windows(2)
            .filter(|w| w[0] == name)
            .map(|w| w[1].to_string())
            .collect()
    };
    let preset = flag("--preset");
    let seed = flag("--seed").first().map(|s| s.parse().unwrap());
    let scenario = batchscope_cli::run::load_scenario(
        preset.first().map(String::as_str),
        None,
        seed,
        None,
        &flag("--crash"),
        &flag("--fault"),
    )
    .unwrap();
    batchscope_check::oracle::check_world(&scenario, false)
        .0
        .verdict
        .name()
        .to_string()
}

async fn drive_pairs(client: &Client, port: u16) -> TestResult {
    const PRESET: &str = "tablestore-two-phase";
    let base = batchscope_engine::microbatch::scenario::preset(PRESET).unwrap();
    let summary = batchscope_check::explore::Explorer::new(base.clone(), 2).run_to_completion();
    let want = batchscope_view::microbatch::explore::pair_rows(&summary, None);
    open(client, port, &format!("#preset={PRESET}&seed=7")).await?;
    open_dialog(client).await?;
    let inside = focused(client).await?;
    if inside != "explore-run" && inside != "in-dialog" {
        return Err(format!("focus should move into the dialog, not {inside:?}"));
    }
    run_exploration(client, "2", 900, "the depth-2 exploration to finish").await?;
    let verdicts = attrs(client, "[data-testid=pair-row]", "data-verdict").await?;
    let crashes = attrs(client, "[data-testid=pair-row]", "data-crashes").await?;
    if verdicts.first().map(String::as_str) != Some(want[0].verdict.name())
        || verdicts.first().map(String::as_str) != Some("data-loss")
        || crashes.first() != Some(&want[0].crash_list())
    {
        return Err(format!(
            "the worst pair should come first: {:?} {:?}, want {} {}",
            verdicts.first(),
            crashes.first(),
            want[0].verdict.name(),
            want[0].crash_list()
        ));
    }
    js(
        client,
        "document.querySelector('[data-testid=explore-pairs]').scrollIntoView(); return true;",
    )
    .await?;
    save_screenshot(client, "explore-pairs.png").await?;
    click(client, "[data-testid=pair-filter-stuck]").await?;
    let stuck = attrs(client, "[data-testid=pair-row]", "data-verdict").await?;
    if stuck.is_empty() || stuck.iter().any(|v| v != "stuck") {
        return Err(format!("the stuck filter shows {stuck:?}"));
    }
    click(client, "[data-testid=pair-filter-all]").await?;

    // Every reproducing line is one short `batchscope run` line; the CLI agrees on its verdict.
    let texts = js(client, "return [...document.querySelectorAll('[data-testid=counterexample-command], [data-testid=fault-command]')].map(e => e.textContent);").await?;
    for line in texts
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !line.starts_with("batchscope run ") || line.contains('{') || line.len() > 160 {
            return Err(format!("not a short batchscope run line: {line}"));
        }
    }
    let cex = js(client, "return [...document.querySelectorAll('[data-testid=explore-counterexamples] li')].map(li => [li.dataset.verdict, li.querySelector('[data-testid=counterexample-command]').textContent]);").await?;
    let mut checked = 0;
    for pair in cex.as_array().into_iter().flatten() {
        let (verdict, line) = (
            pair[0].as_str().unwrap_or(""),
            pair[1].as_str().unwrap_or(""),
        );
        if line.contains("--preset") {
            let got = verdict_of_line(line);
            if got != verdict {
                return Err(format!("`{line}` gives {got}, the dialog says {verdict}"));
            }
            checked += 1;
        }
    }
    if checked == 0 {
        return Err(format!("no counterexample line to check: {cex}"));
    }

    // The matrix exports under the page's Content-Security-Policy.
    for (button, ends) in [
        ("export-matrix-svg", ".svg|image/svg+xml|"),
        ("export-matrix-png", ".png|image/png|"),
    ] {
        click(client, &format!("[data-testid={button}]")).await?;
        wait_for(
            client,
            &format!("(document.querySelector('[data-testid=explore-export]').dataset.export || '').includes('{ends}')"),
            10,
            button,
        )
        .await?;
        // The page's policy keeps a test from reading blob: URLs back; the size is recorded.
        let size = js(
            client,
            "return Number(document.querySelector('[data-testid=explore-export]').dataset.export.split('|')[2]);",
        )
        .await?;
        if size.as_u64().unwrap_or(0) < 1000 {
            return Err(format!("{button}: {size} bytes"));
        }
    }
    js(
        client,
        "document.querySelector('[data-testid=explore-faults]').scrollIntoView(); return true;",
    )
    .await?;
    save_screenshot(client, "explore-faults.png").await?;

    // A pair opens in the player with both crashes armed.
    let pair = want.iter().find(|w| w.fault.is_none()).unwrap();
    let list = pair.crash_list();
    js(
        client,
        &format!("const r = [...document.querySelectorAll('[data-testid=pair-row]')].find(r => r.dataset.crashes === '{list}' && !r.dataset.fault); r.querySelector('[data-testid=pair-open]').click(); return true;"),
    )
    .await?;
    wait_for(
        client,
        &format!("document.querySelector('[data-testid=explore]').hidden && location.hash.includes('crash={list}')"),
        10,
        "the pair in the player",
    )
    .await?;
    let armed = js(
        client,
        "return [...document.querySelectorAll('[data-testid=armed-crash] b')].map(b => b.textContent).join(',');",
    )
    .await?;
    let armed = armed.as_str().unwrap_or_default();
    if armed != list {
        return Err(format!("armed {armed}, want {list}"));
    }
    if focused(client).await? != "explore-open" {
        return Err("closing should give focus back to the Explore button".into());
    }

    // A split run opens in the player (its own scenario in the link), where the split happens.
    open_dialog(client).await?;
    let split = summary
        .faults
        .iter()
        .find(|f| matches!(f, batchscope_check::explore::Fault::PartitionSplit { .. }))
        .copied()
        .unwrap();
    let link = batchscope_view::microbatch::explore::run_link(PRESET, &base, &[], Some(&split));
    js(
        client,
        &format!("const r = [...document.querySelectorAll('[data-testid=fault-row]')].find(r => r.dataset.fault === '{split}'); r.querySelector('[data-testid=fault-open]').click(); return true;"),
    )
    .await?;
    wait_for(
        client,
        &format!(
            "location.hash.startsWith('#scenario=') && location.hash.includes('at={}')",
            link.base.at
        ),
        10,
        "the split run in the player",
    )
    .await?;

    // Escape closes the dialog and gives focus back.
    open_dialog(client).await?;
    client
        .active_element()
        .await
        .map_err(|e| format!("active element: {e}"))?
        .send_keys("\u{e00c}")
        .await
        .map_err(|e| format!("Escape: {e}"))?;
    wait_for(
        client,
        "document.querySelector('[data-testid=explore]').hidden",
        5,
        "Escape to close the dialog",
    )
    .await?;
    if focused(client).await? != "explore-open" {
        return Err("Escape should give focus back to the Explore button".into());
    }
    no_overflow_no_errors(client).await?;

    // On a phone the dialog fits the screen (its body scrolls, the page does not).
    client
        .set_window_size(390, 844)
        .await
        .map_err(|e| format!("resize: {e}"))?;
    open_dialog(client).await?;
    js(
        client,
        "document.querySelector('[data-testid=explore-pairs]').scrollIntoView(); return true;",
    )
    .await?;
    save_screenshot(client, "explore-phone.png").await?;
    no_overflow_no_errors(client).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explore_pairs_faults_export_and_focus() {
    let session = Session::start("e2e-explore-pairs").await;
    let result = drive_pairs(&session.client, session.port).await;
    session.close().await;
    if let Err(message) = result {
        panic!("{message}");
    }
}
