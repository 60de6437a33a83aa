//! End-to-end test of the scenario lab in the built dashboard (headless Chromium): a scenario of
//! one's own in the link (`#scenario=<base64url>`), a broken one, compare mode
//! (`#preset=A&vs=B`) and the scenario editor. Expected verdicts and the first divergence come from the engine's oracle
//! and `check::compare`, the same code `batchscope compare` prints.
//!
//! Needs `bash scripts/page.sh` (the release page, `dist/`) and `/usr/bin/chromedriver` + `/usr/bin/chromium`.

mod common;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use batchscope_check::compare::{compare, compare_matrices};
use batchscope_check::oracle::check;
use batchscope_engine::microbatch::scenario::{preset, Scenario, SinkKind};
use batchscope_view::microbatch::url::scenario::encode;
use common::browser::*;
use fantoccini::Client;
use serde_json::json;

/// A scenario that is no preset: five channels into an append sink.
fn five_channels() -> Scenario {
    let mut s = preset("kafka-append").expect("preset");
    s.name = "five-channels".into();
    s.description = "Kafka-like log with five channels into an append sink".into();
    s.upstream.channels = 5;
    s.sink.kind = SinkKind::Append;
    s
}

async fn custom_scenario(client: &Client, port: u16) -> TestResult {
    let scenario = five_channels();
    let mut crashed = scenario.clone();
    crashed
        .crashes
        .push("sink-commit@3".parse().expect("crash"));
    let expected = check(&crashed).verdict.name();
    let hash = format!(
        "#scenario={}&seed={}&crash=sink-commit@3&at=999999",
        encode(&scenario),
        scenario.seed
    );
    open(client, port, &hash).await?;
    let ch4 = wait_for(
        client,
        "document.querySelector('[data-testid=panel-channels]').textContent.includes('ch4')",
        20,
        "channel ch4 in the Channels tab",
    )
    .await;
    if let Err(e) = ch4 {
        let side = text(client, "[data-testid=panel-channels]").await?;
        return Err(format!("{e}: {side}"));
    }
    wait_for_verdict(client, expected, 20).await?;
    let picked = js(client, "return document.querySelector('#preset').value;").await?;
    if picked != json!("five-channels") {
        return Err(format!("the menu should name the scenario, shows {picked}"));
    }
    save_screenshot(client, "lab-scenario.png").await?;

    // Copy link puts a link with the scenario in it on the clipboard (the same as the address
    // bar), and says so in a few words that leave by themselves, over the page: the main area
    // does not move.
    js(
        client,
        "window.__copied = null; navigator.clipboard.writeText = t => { window.__copied = t; return Promise.resolve(); }; \
         window.__mainTop = document.querySelector('.main').getBoundingClientRect().top; return true;",
    )
    .await?;
    click(client, "[data-testid=copy-link]").await?;
    wait_for(
        client,
        "window.__copied && window.__copied.includes('#scenario=') && window.__copied === location.href \
         && [...document.querySelectorAll('[data-testid=notice]')].some(n => n.textContent.includes('Link copied'))",
        10,
        "the copied link (the address bar's) and its confirmation",
    )
    .await?;
    let echoed = js(
        client,
        "return [[...document.querySelectorAll('[data-testid=notice]')].map(n => n.textContent).join(' '), \
                 document.querySelector('.main').getBoundingClientRect().top - window.__mainTop];",
    )
    .await?;
    if echoed[0].as_str().unwrap_or_default().contains("scenario=")
        || echoed[1].as_f64() != Some(0.0)
    {
        return Err(format!(
            "the confirmation should not echo the link nor move the main area: [text, moved px] = {echoed}"
        ));
    }
    wait_for(
        client,
        "![...document.querySelectorAll('[data-testid=notice]')].some(n => n.textContent.includes('Link copied') \
            && getComputedStyle(n).visibility !== 'hidden')",
        10,
        "the confirmation to leave by itself",
    )
    .await?;
    // The comparison menu extends this run's link (its scenario too) at the moment of picking.
    pick_comparison(client, "vs:kafka-idempotent").await?;
    wait_for(
        client,
        "location.hash.startsWith('#scenario=') && location.hash.includes('&vs=kafka-idempotent') \
         && document.querySelector('[data-testid=compare]')",
        20,
        "this scenario compared with kafka-idempotent",
    )
    .await?;

    // A broken scenario: a message naming it, and the default preset.
    reopen(client, port, "#scenario=eyJub3QganNvbg&seed=3").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=notice]')",
        20,
        "the broken-scenario message",
    )
    .await?;
    let notice = text(client, "[data-testid=notice]").await?;
    if !notice.contains("scenario:") || !notice.contains("default") {
        return Err(format!("the message should name `scenario`: {notice}"));
    }
    let picked = js(client, "return document.querySelector('#preset').value;").await?;
    if picked != json!("tablestore") {
        return Err(format!("the default preset should load, got {picked}"));
    }
    // A field of the wrong type: the message names the field, as the engine's reader does.
    let broken = five_channels()
        .to_json()
        .replacen("\"channels\": 5", "\"channels\": \"five\"", 1);
    let want = Scenario::from_json(&broken)
        .expect_err("a wrong type")
        .to_string();
    if !want.contains("upstream.channels") {
        return Err(format!("the engine should name upstream.channels: {want}"));
    }
    reopen(
        client,
        port,
        &format!("#scenario={}&seed=3", URL_SAFE_NO_PAD.encode(broken)),
    )
    .await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=notice]')",
        20,
        "the wrong-type message",
    )
    .await?;
    let notice = text(client, "[data-testid=notice]").await?;
    if !notice.contains(&want) {
        return Err(format!("the message should say `{want}`: {notice}"));
    }
    Ok(())
}

async fn compare_mode(client: &Client, port: u16) -> TestResult {
    let mut a = preset("kafka-append").expect("preset");
    a.crashes.push("sink-commit@3".parse().expect("crash"));
    let c = compare(&a, &preset("kafka-idempotent").expect("preset"));
    let index = c.first_divergence.as_ref().expect("the traces part").index;
    reopen(
        client,
        port,
        "#preset=kafka-append&vs=kafka-idempotent&crash=sink-commit@3",
    )
    .await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=compare-a]') && document.querySelector('[data-testid=compare-b]')",
        20,
        "both runs side by side",
    )
    .await?;
    // Drawn by the page's second module, in the diagram's place inside the page's layout.
    let placed = js(
        client,
        "const host = document.querySelector('[data-testid=compare-host]'); \
         return !!host && !!host.closest('.app') && !!host.querySelector('[data-testid=compare-a]') \
           && !document.querySelector('[data-testid=compare-loading]');",
    )
    .await?;
    if placed != json!(true) {
        return Err("compare mode should be drawn inside the page's layout, its host".into());
    }
    for (side, want) in [("a", c.a.verdict.name()), ("b", c.b.verdict.name())] {
        let fin = js(
            client,
            &format!(
                "return document.querySelector('[data-testid=compare-{side}]').dataset.final;"
            ),
        )
        .await?;
        if fin != json!(want) {
            return Err(format!("run {side} should end {want}, shows {fin}"));
        }
    }
    let finals = [c.a.verdict.name(), c.b.verdict.name()];
    if !(finals.contains(&"duplicates") && finals.contains(&"exactly-once")) {
        return Err(format!("one duplicates, one exactly-once: {finals:?}"));
    }
    let shown = js(
        client,
        "return document.querySelector('[data-testid=divergence]').dataset.index;",
    )
    .await?;
    if shown != json!(index.to_string()) {
        return Err(format!(
            "first divergence at {index}, the strip marks {shown}"
        ));
    }
    // Step past the divergence: both diagrams step in lockstep and the mark says it is behind.
    for _ in 0..=index {
        click(client, "#step").await?;
    }
    wait_for(
        client,
        "document.querySelector('[data-testid=divergence]').classList.contains('passed')",
        10,
        "the divergence behind the cursor",
    )
    .await?;
    let seqs = js(
        client,
        "return [...document.querySelectorAll('[data-testid=compare-a] [data-testid=current-event], [data-testid=compare-b] [data-testid=current-event]')].map(e => e.dataset.seq);",
    )
    .await?;
    if seqs != json!([index.to_string(), index.to_string()]) {
        return Err(format!("both runs at event {index}: {seqs}"));
    }
    let diffs = text(client, "[data-testid=differences]").await?;
    for d in &c.differences {
        if !diffs.contains(&d.what) {
            return Err(format!("the strip should list `{}`: {diffs}", d.what));
        }
    }
    // The crash matrix of both: the points judged differently, as `compare --matrix` lists them.
    let cells = compare_matrices(&a, &preset("kafka-idempotent").expect("preset"));
    click(client, "[data-testid=matrix-go]").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=matrix-differences]')",
        60,
        "the crash matrix of both",
    )
    .await?;
    let count = js(
        client,
        "return document.querySelector('[data-testid=matrix-differences]').dataset.count;",
    )
    .await?;
    if count != json!(cells.len().to_string()) {
        return Err(format!(
            "{} cells differ, the page lists {count}",
            cells.len()
        ));
    }
    save_screenshot(client, "lab-compare.png").await?;
    // Play to the end: each side's badge gives its verdict.
    select(client, "#speed", "4").await?;
    client
        .goto(&format!(
            "http://127.0.0.1:{port}/#preset=kafka-append&vs=kafka-idempotent&crash=sink-commit@3&at=999999"
        ))
        .await
        .map_err(|e| format!("open at the end: {e}"))?;
    js(client, ERROR_COLLECTOR).await?;
    for (side, want) in [("a", c.a.verdict.name()), ("b", c.b.verdict.name())] {
        wait_for(
            client,
            &format!("document.querySelector('[data-testid=compare-{side}] [data-testid=verdict]').dataset.verdict === '{want}'"),
            20,
            &format!("run {side}'s badge to say {want}"),
        )
        .await?;
    }
    no_overflow_no_errors(client).await
}

/// The editor (drawn by the page's second module): change the sink kind, see the verdict
/// change; a broken JSON edit names the field and keeps the last valid run.
async fn editor(client: &Client, port: u16) -> TestResult {
    let mut before = preset("kafka-append").expect("preset");
    before.crashes.push("sink-commit@3".parse().expect("crash"));
    let mut after = before.clone();
    after.sink.kind = SinkKind::File;
    let (was, now) = (check(&before).verdict.name(), check(&after).verdict.name());
    if was == now {
        return Err(format!("the file sink should change the verdict ({was})"));
    }
    reopen(
        client,
        port,
        "#preset=kafka-append&crash=sink-commit@3&at=999999",
    )
    .await?;
    wait_for_verdict(client, was, 20).await?;
    click(client, "[data-testid=editor-open]").await?;
    // The page has its second module draw the editor, in a layer of its own.
    wait_for(
        client,
        "document.querySelector('[data-testid=editor-host] [data-testid=ed-sink]')",
        20,
        "the editor drawn by the second module",
    )
    .await?;
    select(client, "[data-testid=ed-sink]", "file").await?;
    wait_for_verdict(client, now, 20).await?;
    let picked = js(client, "return document.querySelector('#preset').value;").await?;
    if picked != json!("kafka-append-edited") {
        return Err(format!(
            "the edit is a scenario of its own, the menu shows {picked}"
        ));
    }
    // The JSON tab: a wrong type names the field; the run on screen stays.
    click(client, "[data-testid=ed-tab-json]").await?;
    js(
        client,
        r#"const t = document.querySelector('[data-testid=ed-json]');
           t.value = t.value.replace(/"channels": \d+/, '"channels": "two"');
           t.dispatchEvent(new Event('input', { bubbles: true }));
           return true;"#,
    )
    .await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=ed-error]')",
        10,
        "the editor's error",
    )
    .await?;
    let error = text(client, "[data-testid=ed-error]").await?;
    if !error.contains("upstream.channels") {
        return Err(format!("the error should name upstream.channels: {error}"));
    }
    wait_for_verdict(client, now, 5).await?;
    save_screenshot(client, "lab-editor.png").await?;
    no_overflow_no_errors(client).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scenario_of_ones_own_and_compare_mode_in_the_browser() {
    let session = Session::start("e2e-lab").await;
    let mut result = custom_scenario(&session.client, session.port).await;
    if result.is_ok() {
        result = compare_mode(&session.client, session.port).await;
    }
    if result.is_ok() {
        result = editor(&session.client, session.port).await;
    }
    session.close().await;
    if let Err(message) = result {
        panic!("{message}");
    }
}
