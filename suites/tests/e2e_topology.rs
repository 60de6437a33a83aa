//! End-to-end test of the dashboard's Topology mode in headless Chromium: open
//! `#mode=topology&topology=shopping`, play to the end, and check the topology SVG, the query
//! panel (Repeatable Read + Strong is consistent) and the delay chart; then load the seed's
//! failure (`fail=price_job@2`) and check that Read Committed shows the roll-back, and that the
//! checkpoint panel counts the restore as the engine does (also on `notify-twice`, whose
//! committer loops); switch modes.
//! Saves `target/e2e/topology.png` (and a dark one).
//!
//! Needs `bash scripts/page.sh` (the release page, `dist/`) and `/usr/bin/chromedriver` + `/usr/bin/chromium`;
//! it fails, naming the missing piece, without them.

mod common;

use batchscope_engine::barrier::{self, Fault, TopologyRun, TopologyWorld};
use common::browser::*;
use fantoccini::Client;
use serde_json::Value;

/// The drained world of a preset's run with `faults` (besides its own), from the engine itself.
fn drained(preset: &str, seed: u64, faults: Vec<Fault>) -> TopologyWorld {
    let spec = barrier::preset(preset).expect("preset");
    let mut w = TopologyWorld::from_run(TopologyRun {
        barriers: spec.barriers,
        spec,
        seed,
        faults,
    })
    .expect("a valid run");
    w.run_to_end();
    w
}

/// Steps of the shopping run with `price_job` failing at barrier 2, from the engine itself.
fn failure_run() -> TopologyWorld {
    drained(
        "shopping",
        1,
        vec![Fault::FailBeforeWritten {
            job: "price_job".into(),
            barrier: 2,
        }],
    )
}

/// The checkpoint panel's row of `job` shows the engine's counts and latest restore.
async fn check_checkpoints(client: &Client, world: &TopologyWorld, job: &str) -> TestResult {
    let stats = batchscope_check::topology::checkpoint_history(world);
    let want = stats
        .get(job)
        .ok_or(format!("{job} has checkpoint statistics"))?;
    for (key, n) in [
        ("total", want.counts.total),
        ("completed", want.counts.completed),
        ("failed", want.counts.failed),
        ("restored", want.counts.restored),
    ] {
        let shown = text(client, &format!("[data-testid=ckpt-{job}-{key}]")).await?;
        if shown.trim() != n.to_string() {
            return Err(format!(
                "{job}'s {key} should be {n}, the panel shows {shown}"
            ));
        }
    }
    let restore = text(client, &format!("[data-testid=ckpt-{job}-restore]")).await?;
    let r = want
        .latest
        .restored
        .as_ref()
        .ok_or(format!("{job} was restored"))?;
    let needle = format!("{} · {} ms", r.id, r.at_ms);
    if restore.trim() != needle {
        return Err(format!(
            "{job}'s latest restore should read `{needle}`: {restore}"
        ));
    }
    Ok(())
}

async fn drive(client: &Client, port: u16) -> TestResult {
    open_topology(client, port, "#mode=topology&topology=shopping").await?;
    let nodes = js(
        client,
        "return document.querySelectorAll('[data-testid=topology-svg] [data-node]').length;",
    )
    .await?;
    if nodes != 7 {
        return Err(format!(
            "shopping has CDC, 3 jobs and 3 tables: 7 nodes, got {nodes}"
        ));
    }
    // Play to the end at the highest speed.
    select(client, "#topo-speed", "4").await?;
    click(client, "#topo-play").await?;
    wait_for(
        client,
        "(() => { const t = document.querySelector('[data-testid=topo-step-count]').textContent.split(' / '); return t[0] === t[1]; })()",
        60,
        "the run to reach its end",
    )
    .await?;
    for (css, what) in [
        ("[data-testid=query-panel]", "the query panel"),
        ("[data-testid=delay-chart] svg", "the delay chart"),
        ("[data-testid=barrier-table]", "the barrier table"),
    ] {
        wait_for(client, &format!("document.querySelector('{css}')"), 5, what).await?;
    }
    let chart = text(client, "[data-testid=delay-chart]").await?;
    for needle in [
        "job amount_job",
        "job price_job",
        "Job to optimise: amount_job",
    ] {
        if !chart.contains(needle) {
            return Err(format!("the delay chart should show `{needle}`: {chart}"));
        }
    }
    let txn = text(client, "[data-testid=barrier-table]").await?;
    if txn.matches("COMMIT").count() < 5 {
        return Err(format!("all 5 barriers should be COMMIT at the end: {txn}"));
    }
    click(client, "[data-testid=level-rr]").await?;
    click(client, "[data-testid=consistency-strong]").await?;
    let badge = text(client, "[data-testid=query-badge]").await?;
    if !badge.contains("consistent") || badge.contains("mixes") {
        return Err(format!(
            "Repeatable Read + Strong should be consistent: {badge}"
        ));
    }

    // The seed's failure after PRECOMMIT: Read Committed goes back to 10.
    let failed = failure_run();
    let steps = failed.steps();
    js(
        client,
        &format!("location.hash = '#mode=topology&topology=shopping&seed=1&fail=price_job@2&level=rc&consistency=strong&at={steps}'; return true;"),
    )
    .await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=topo-fault]')",
        10,
        "the recorded failure",
    )
    .await?;
    let history = text(client, "[data-testid=query-history]").await?;
    for needle in ["10", "8.333", "rolled back"] {
        if !history.contains(needle) {
            return Err(format!("the RC history should show `{needle}`: {history}"));
        }
    }
    check_checkpoints(client, &failed, "price_job").await?;
    let untouched = text(client, "[data-testid=ckpt-amount_job-restore]").await?;
    if untouched.trim() != "–" {
        return Err(format!("amount_job never failed: {untouched}"));
    }
    let scrolls = js(
        client,
        "return document.documentElement.scrollWidth > window.innerWidth;",
    )
    .await?;
    if scrolls != Value::Bool(false) {
        return Err("the page scrolls horizontally at 1366×768".into());
    }
    save_screenshot(client, "topology.png").await?;
    click(client, "[data-testid=topo-theme]").await?;
    wait_for(
        client,
        "document.documentElement.dataset.theme === 'dark'",
        5,
        "the dark theme",
    )
    .await?;
    save_screenshot(client, "topology-dark.png").await?;

    // notify-twice: the throwing committer's restarts, counted as Flink counts them.
    let looped = drained("notify-twice", 1, vec![]);
    js(
        client,
        &format!("location.hash = '#mode=topology&topology=notify-twice&seed=1&level=rc&consistency=strong&at={}'; return true;", looped.steps()),
    )
    .await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=ckpt-row-custom_job]')",
        10,
        "notify-twice's checkpoint panel",
    )
    .await?;
    check_checkpoints(client, &looped, "custom_job").await?;
    check_checkpoints(client, &looped, "paimon_job").await?;
    js(
        client,
        "document.querySelector('[data-testid=checkpoint-panel]').scrollIntoView(); return true;",
    )
    .await?;
    save_screenshot(client, "topology-checkpoints.png").await?;

    // group-offset-lag: the progress markers drawn, the group's offset behind the checkpoint's.
    let lag = drained("group-offset-lag", 1, vec![]);
    js(
        client,
        &format!("location.hash = '#mode=topology&topology=group-offset-lag&seed=1&level=rc&consistency=strong&at={}'; return true;", lag.steps()),
    )
    .await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=ckpt-markers-fast_job] svg polyline')",
        10,
        "fast_job's progress markers",
    )
    .await?;
    js(
        client,
        "document.querySelector('[data-testid=ckpt-markers-fast_job]').scrollIntoView(); return true;",
    )
    .await?;
    save_screenshot(client, "topology-markers.png").await?;

    // A bad value is named.
    js(
        client,
        "location.hash = '#mode=topology&topology=shopping&fail=ghost@2'; return true;",
    )
    .await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=notice]')",
        10,
        "a message about the link",
    )
    .await?;
    let notice = text(client, "[data-testid=notice]").await?;
    if !notice.contains("unknown job `ghost`") {
        return Err(format!("the message should name the bad job: {notice}"));
    }

    // The mode tabs switch to the micro-batch dashboard and back.
    click(client, "[data-testid=mode-micro]").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=verdict]')",
        10,
        "the micro-batch dashboard",
    )
    .await?;
    click(client, "[data-testid=mode-topology]").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=topology-svg]')",
        10,
        "the topology view again",
    )
    .await?;

    let errors = js(client, "return window.__errors || [];").await?;
    if errors.as_array().is_some_and(|e| !e.is_empty()) {
        return Err(format!("console errors: {errors}"));
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn topology_mode_plays_shopping_and_shows_consistent_and_rolled_back_queries() {
    let session = Session::start("e2e-topology").await;
    let result = drive(&session.client, session.port).await;
    session.close().await;
    if let Err(message) = result {
        panic!("{message}");
    }
}
