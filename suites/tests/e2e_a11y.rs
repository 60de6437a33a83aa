//! Accessibility check of the built dashboard in headless Chromium: axe-core (the engine behind
//! Lighthouse's and Chrome DevTools' accessibility audits, pinned in `suites/a11y/`) runs the
//! WCAG 2.1 A and AA rules on every screen a class meets — a guided tour paused at a crash, the
//! Explore dialog, the scenario editor, compare mode, present mode, the dark theme, Topology and
//! Inspect — and no serious or critical violation may remain. Also checks by hand what axe
//! cannot judge: one `<h1>`, the verdict and the step note announced (`aria-live`), focus
//! moved into the Explore dialog.
//!
//! Needs `bash scripts/page.sh` (the release page, `dist/`), Chromium and chromedriver, and axe-core
//! (`bash scripts/setup.sh` installs it); it fails, naming the missing piece, without them.

mod common;

use common::browser::*;
use fantoccini::Client;
use serde_json::Value;

/// axe-core's script, installed by `scripts/setup.sh` from `suites/a11y/package-lock.json`.
fn axe_source() -> String {
    let path = repo_root().join("suites/a11y/node_modules/axe-core/axe.min.js");
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "axe-core is missing ({}: {e}); `bash scripts/setup.sh` installs it",
            path.display()
        )
    })
}

/// Runs axe on the page; the serious and critical WCAG 2.1 A/AA violations, as readable lines.
async fn violations(client: &Client, axe: &str, screen: &str) -> Result<Vec<String>, String> {
    if js(client, "return typeof window.axe;").await? != "object" {
        js(client, &format!("{axe}\n;return true;")).await?;
    }
    let found = client
        .execute_async(
            r#"const done = arguments[arguments.length - 1];
               axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
                                   resultTypes: ['violations'] })
                 .then(r => done(r.violations
                   .filter(v => v.impact === 'serious' || v.impact === 'critical')
                   .map(v => `${v.impact} ${v.id}: ${v.help} — ` + v.nodes.slice(0, 4)
                     .map(n => n.target.join(' ') + ' (' + (n.failureSummary || '').replace(/\s+/g, ' ') + ')')
                     .join('; '))))
                 .catch(e => done(['axe failed: ' + e]));"#,
            vec![],
        )
        .await
        .map_err(|e| format!("{screen}: axe did not run: {e}"))?;
    Ok(found
        .as_array()
        .map(|a| {
            a.iter()
                .map(|v| format!("{screen}: {}", v.as_str().unwrap_or_default()))
                .collect()
        })
        .unwrap_or_default())
}

/// Opens `hash` in a fresh document at 1366×768 and waits for `ready` (a JS expression).
async fn show(client: &Client, port: u16, hash: &str, ready: &str) -> TestResult {
    set_viewport(client, 1366, 768).await?;
    goto_fresh(client, port, hash).await?;
    wait_for(client, ready, 30, hash).await?;
    // Let the diagram's arrows finish their animation.
    tokio::time::sleep(std::time::Duration::from_millis(700)).await;
    Ok(())
}

const MICRO_READY: &str = "document.querySelector('[data-testid=verdict]')";

async fn drive(client: &Client, port: u16) -> TestResult {
    let axe = axe_source();
    let mut found = vec![];

    // A tour paused at a crash, the Meta table open.
    let stop = "#preset=tablestore&crash=sink-commit@2&tour=1&tab=meta&at=46";
    show(client, port, stop, MICRO_READY).await?;
    found.extend(violations(client, &axe, "tour stop").await?);
    let manual = js(
        client,
        "return [document.querySelectorAll('h1').length, \
                 !!document.querySelector('[data-testid=verdict][aria-live], [aria-live] [data-testid=verdict]'), \
                 !!document.querySelector('[data-testid=step-note][aria-live], [aria-live] [data-testid=step-note]')];",
    )
    .await?;
    if manual != serde_json::json!([1, true, true]) {
        found.push(format!(
            "tour stop: one <h1>, a live verdict and a live step note expected: [h1 count, verdict live, note live] = {manual}"
        ));
    }

    // The Explore dialog: focus inside it.
    click(client, "[data-testid=explore-open]").await?;
    // Drawn by the second module, fetched and compiled now: the same hang guard as the other
    // tests' first loads of it (a loaded CI machine takes more than 10 s).
    wait_for(
        client,
        "document.querySelector('[role=dialog]')",
        30,
        "the Explore dialog",
    )
    .await?;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let inside = js(
        client,
        "const d = document.querySelector('[role=dialog]'); return !!d && d.contains(document.activeElement);",
    )
    .await?;
    if inside != Value::Bool(true) {
        found.push("Explore: focus should move into the dialog".into());
    }
    found.extend(violations(client, &axe, "Explore dialog").await?);

    // The scenario editor, compare mode, present mode and the dark theme.
    show(client, port, "#preset=kafka-append", MICRO_READY).await?;
    click(client, "[data-testid=editor-open]").await?;
    // Drawn by the page's second module once it is in.
    wait_for(
        client,
        "(e => e && !e.hidden)(document.querySelector('[data-testid=editor]'))",
        30,
        "the scenario editor",
    )
    .await?;
    found.extend(violations(client, &axe, "scenario editor").await?);
    show(
        client,
        port,
        "#preset=kafka-append&vs=kafka-idempotent&crash=sink-commit@2&at=60",
        // Both sides, drawn by the page's second module once it is in.
        "document.querySelector('[data-testid=compare-b] [data-testid=verdict]')",
    )
    .await?;
    found.extend(violations(client, &axe, "compare").await?);
    show(
        client,
        port,
        "#preset=tablestore&tour=1&at=60&present=1",
        MICRO_READY,
    )
    .await?;
    found.extend(violations(client, &axe, "present mode").await?);
    show(client, port, "#preset=tablestore&at=60", MICRO_READY).await?;
    js(
        client,
        "document.documentElement.setAttribute('data-theme', 'dark'); return true;",
    )
    .await?;
    found.extend(violations(client, &axe, "dark theme").await?);

    // Topology and Inspect.
    show(
        client,
        port,
        "#mode=topology&preset=shopping&at=30",
        "document.querySelector('[data-testid=topology-app], .topology')",
    )
    .await?;
    found.extend(violations(client, &axe, "topology").await?);
    show(
        client,
        port,
        "#mode=inspect&sample=1",
        "document.querySelector('[data-testid=restart-decision]')",
    )
    .await?;
    found.extend(violations(client, &axe, "inspect").await?);

    if found.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} accessibility problems:\n{}",
            found.len(),
            found.join("\n")
        ))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_screen_passes_the_accessibility_check() {
    let session = Session::start("a11y").await;
    let result = drive(&session.client, session.port).await;
    session.close().await;
    if let Err(e) = result {
        panic!("{e}");
    }
}
