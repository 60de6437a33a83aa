//! Benchmark: the release dashboard (`dist/`) in headless Chromium, measured inside the page.
//!
//! `cargo bench --bench browser` (after `bash scripts/page.sh`, the release page) opens the largest
//! preset (the most events in a failure-free run), then a scenario of 64 channels × 1,000
//! batches through a `#scenario=` link, and prints for each:
//! first load to the mounted app, the display's frame interval, step click → DOM updated and
//! laid out and → next painted frame (p50 / p95 over [`STEPS`] clicks), step back at the end of
//! the run (the same), and the JS heap after load and after the run; then, on every preset,
//! the time the danger band takes to be ready (`-- danger`: that figure alone). Times come from
//! `performance.now()` in the page (see [`CLICK_PROBE`]). Each figure is also
//! printed as a `browser KEY VALUE` line for scripts/bench.sh. Asserts nothing about speed.

#[path = "../suites/tests/common/browser.rs"]
mod browser;

use batchscope_check::oracle::{run, Limit};
use batchscope_engine::microbatch::scenario::presets;
use batchscope_engine::microbatch::World;
use browser::{dist_dir, goto_fresh, js, serve, start_chromedriver, tool, wait_for};
use fantoccini::wd::TimeoutConfiguration;
use fantoccini::{Client, ClientBuilder};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{json, Value};
use std::time::Duration;

/// Clicks measured for each of step and step back.
const STEPS: u64 = 60;

/// The page at scale: `kafka-idempotent` over `channels` channels and `batches` trigger intervals.
fn scaled(channels: u32, batches: u64) -> batchscope_engine::microbatch::scenario::Scenario {
    let mut s =
        batchscope_engine::microbatch::scenario::preset("kafka-idempotent").expect("preset");
    s.upstream.channels = channels;
    s.batches = batches;
    s.description = format!("{channels} channels × {batches} batches: the page at scale.");
    s
}

/// The `#scenario=` link of `s`.
fn scenario_hash(s: batchscope_engine::microbatch::scenario::Scenario) -> String {
    batchscope_view::microbatch::url::scenario::format_link(
        &batchscope_view::microbatch::url::scenario::Link {
            base: batchscope_view::microbatch::url::UrlState {
                seed: s.seed,
                ..batchscope_view::microbatch::url::UrlState::default_for("kafka-idempotent")
            },
            custom: Some(Box::new(s)),
            vs: None,
        },
    )
}

/// The preset whose failure-free run has the most events, and that count.
fn largest_preset() -> (String, usize) {
    presets()
        .into_iter()
        .map(|p| {
            let mut world = World::new(p.scenario);
            run(&mut world, Limit::SCREEN);
            (p.name.to_string(), world.events().len())
        })
        .max_by_key(|(_, events)| *events)
        .expect("at least one preset")
}

/// Waits for the app to mount (the verdict badge in the DOM), then reports when that was and
/// whether it had already happened at the first look (then the time is an upper bound).
const LOAD_PROBE: &str = r#"
    const done = arguments[arguments.length - 1];
    const mounted = () => document.querySelector('[data-testid=verdict]');
    const already = !!mounted();
    const tick = () => mounted() ? done({ mounted_ms: performance.now(), already }) : requestAnimationFrame(tick);
    tick();"#;

/// The page's frame interval: the median time between 61 animation frames, in ms.
const FRAME_PROBE: &str = r#"
    const done = arguments[arguments.length - 1];
    const stamps = [];
    const tick = t => { stamps.push(t); if (stamps.length < 61) requestAnimationFrame(tick); else {
        const d = stamps.slice(1).map((t, i) => t - stamps[i]).sort((a, b) => a - b);
        done(d[Math.floor(d.length / 2)]);
    } };
    requestAnimationFrame(tick);"#;

/// The JS heap in bytes after a full GC (`--js-flags=--expose-gc`), settled for 500 ms.
const HEAP_PROBE: &str = r#"
    const done = arguments[arguments.length - 1];
    setTimeout(() => { if (window.gc) window.gc(); done(performance.memory ? performance.memory.usedJSHeapSize : null); }, 500);"#;

/// Clicks the button `#id` (arguments[0]) up to arguments[1] times, each time recording two
/// times from the click: to the DOM updated and laid out (the first change, one more task for
/// the rest of the render, then a forced style and layout: the step's own work), and to the end
/// of the first frame painted after that (which also waits for the display's next frame, so it
/// is never below one frame interval), and the time between that frame and the one before the
/// click (by their animation-frame timestamps: one frame interval when the change was painted in
/// the very next frame, two or more when the step made the page miss a frame). When
/// arguments[2] names another button, it is clicked (unmeasured) after each measured click, so
/// every measured click starts from the same place. Stops early when the button is disabled.
const CLICK_PROBE: &str = r#"
    const done = arguments[arguments.length - 1];
    const [id, n, undo] = [arguments[0], arguments[1], arguments[2]];
    const hop = () => new Promise(r => {
        const c = new MessageChannel(); c.port1.onmessage = () => r(); c.port2.postMessage(0);
    });
    const painted = () => new Promise(r => requestAnimationFrame(ts => hop().then(() => r(ts))));
    const mutation = () => new Promise(r => {
        const o = new MutationObserver(() => { o.disconnect(); r(true); });
        o.observe(document.body, { childList: true, characterData: true, subtree: true, attributes: true });
        setTimeout(() => { o.disconnect(); r(false); }, 2000);
    });
    const click = async (id, since) => {
        const b = document.querySelector('#' + id);
        if (!b || b.disabled) return null;
        const changed = mutation();
        const t0 = performance.now();
        b.click();
        if (!(await changed)) return null;
        await hop();
        void document.body.offsetHeight;
        const work = performance.now() - t0;
        const frame = await painted();
        return [work, performance.now() - t0, frame - since];
    };
    (async () => {
        const work = [], frames = [], gaps = [];
        let since = await painted();
        for (let i = 0; i < n; i++) {
            const t = await click(id, since);
            if (t === null) break;
            work.push(t[0]); frames.push(t[1]); gaps.push(t[2]);
            since = await painted();
            if (undo) { await click(undo, since); since = await painted(); }
        }
        done({ work, painted: frames, gaps });
    })();"#;

/// Clicks `#step` until it is disabled (the end of the run); returns the steps taken.
const TO_THE_END: &str = r#"
    const done = arguments[arguments.length - 1];
    (async () => {
        let n = 0;
        for (;;) {
            const b = document.querySelector('#step');
            if (!b || b.disabled) break;
            b.click(); n++;
            await new Promise(r => setTimeout(r, 0));
        }
        await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
        done(n);
    })();"#;

/// A headless Chromium session like the end-to-end tests', with precise heap figures and `gc()`.
async fn session(chromium: &std::path::Path, driver_port: u16) -> (Client, std::path::PathBuf) {
    let profile = std::env::temp_dir().join(format!("batchscope-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&profile);
    std::fs::create_dir_all(&profile).expect("create the browser profile directory");
    let capabilities = json!({
        "browserName": "chrome",
        "goog:chromeOptions": {
            "binary": chromium.display().to_string(),
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--hide-scrollbars", "--window-size=1366,768", "--enable-precise-memory-info",
                "--js-flags=--expose-gc",
                format!("--user-data-dir={}", profile.display()),
            ]
        }
    });
    let Value::Object(capabilities) = capabilities else {
        unreachable!("a JSON object")
    };
    let client = ClientBuilder::new(HttpConnector::new())
        .capabilities(capabilities)
        .connect(&format!("http://127.0.0.1:{driver_port}"))
        .await
        .expect("open a Chromium session through chromedriver");
    (client, profile)
}

/// p-th percentile (nearest rank) of `times`.
fn percentile(times: &[f64], p: f64) -> f64 {
    let mut sorted = times.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The `key` list of a click probe's result.
fn times(value: &Value, key: &str) -> Vec<f64> {
    value[key]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default()
}

async fn async_js(client: &Client, script: &str, args: Vec<Value>) -> Result<Value, String> {
    client
        .execute_async(script, args)
        .await
        .map_err(|e| format!("script failed: {e}"))
}

/// Prints a figure for people and as `browser KEY VALUE` for the script.
fn figure(key: &str, value: String, label: &str) {
    println!("  {label}: {value}");
    println!("browser {key} {value}");
}

fn click_figures(key: &str, label: &str, samples: &[f64]) {
    if samples.is_empty() {
        figure(key, "none".into(), label);
        return;
    }
    let value = format!(
        "p50 {:.1} ms / p95 {:.1} ms ({} clicks)",
        percentile(samples, 50.0),
        percentile(samples, 95.0),
        samples.len()
    );
    figure(key, value, label);
}

/// The painted times of a click probe's result, with how many clicks made the page miss a
/// frame: their change was painted more than one and a half frame intervals (`frame`, ms) after
/// the frame before the click.
fn painted_figures(key: &str, label: &str, probe: &Value, frame: f64) {
    let samples = times(probe, "painted");
    let gaps = times(probe, "gaps");
    if samples.is_empty() || gaps.len() != samples.len() || !frame.is_finite() {
        figure(key, "none".into(), label);
        return;
    }
    let late = gaps.iter().filter(|&&gap| gap > 1.5 * frame).count();
    let value = format!(
        "p50 {:.1} ms / p95 {:.1} ms ({} clicks; {} painted in the next frame, {late} a frame or more later)",
        percentile(&samples, 50.0),
        percentile(&samples, 95.0),
        samples.len(),
        samples.len() - late,
    );
    figure(key, value, label);
}

/// Measures the page at `hash`; figures are keyed `{prefix}KEY` and labelled with `what`.
async fn measure(
    client: &Client,
    port: u16,
    hash: &str,
    prefix: &str,
    what: &str,
) -> Result<(), String> {
    client
        .update_timeouts(TimeoutConfiguration::new(
            Some(Duration::from_secs(300)),
            Some(Duration::from_secs(60)),
            None,
        ))
        .await
        .map_err(|e| format!("timeouts: {e}"))?;
    goto_fresh(client, port, hash).await?;
    let load = async_js(client, LOAD_PROBE, vec![]).await?;
    let mounted = load["mounted_ms"].as_f64().unwrap_or(f64::NAN);
    let bound = if load["already"] == json!(true) {
        "≤ "
    } else {
        ""
    };
    figure(
        &format!("{prefix}load"),
        format!("{bound}{mounted:.0} ms from navigation start to the mounted app"),
        &format!("first load → app mounted (navigation start = 0), {what}"),
    );
    // The frame interval, for whether a step made the page miss a frame.
    let frame = async_js(client, FRAME_PROBE, vec![])
        .await?
        .as_f64()
        .unwrap_or(f64::NAN);
    if prefix.is_empty() {
        figure(
            "frame",
            format!("{frame:.1} ms"),
            "the display's frame interval (median of 60)",
        );
    }
    let heap = async_js(client, HEAP_PROBE, vec![]).await?;
    figure(
        &format!("{prefix}heap_load"),
        heap.to_string(),
        &format!("JS heap after load, bytes, {what}"),
    );

    wait_for(
        client,
        "document.querySelector('#step') && !document.querySelector('#step').disabled",
        300,
        "the step button",
    )
    .await?;
    let step = async_js(
        client,
        CLICK_PROBE,
        vec![json!("step"), json!(STEPS), json!(null)],
    )
    .await?;
    click_figures(
        &format!("{prefix}step_work"),
        &format!("step click → DOM updated and laid out, {what}"),
        &times(&step, "work"),
    );
    painted_figures(
        &format!("{prefix}step"),
        &format!("step click → painted frame, {what}"),
        &step,
        frame,
    );
    if prefix.is_empty() {
        async_js(client, TO_THE_END, vec![]).await?;
    } else {
        // Too many steps to click through: open the same link at its end (`at=` past the end
        // shows the end).
        goto_fresh(client, port, &format!("{hash}&at=1000000000")).await?;
        wait_for(
            client,
            "document.querySelector('#back') && !document.querySelector('#back').disabled",
            300,
            "the run's end",
        )
        .await?;
    }
    let count = js(
        client,
        "return document.querySelector('[data-testid=step-count]').textContent;",
    )
    .await?;
    figure(
        &format!("{prefix}events"),
        count.as_str().unwrap_or("?").trim().to_string(),
        &format!("steps shown / steps in the run, {what}"),
    );
    let back = async_js(
        client,
        CLICK_PROBE,
        vec![json!("back"), json!(STEPS), json!("step")],
    )
    .await?;
    click_figures(
        &format!("{prefix}back_work"),
        &format!("step back at the end of the run → DOM updated and laid out, {what}"),
        &times(&back, "work"),
    );
    painted_figures(
        &format!("{prefix}back"),
        &format!("step back at the end of the run → painted frame, {what}"),
        &back,
        frame,
    );
    let heap = async_js(client, HEAP_PROBE, vec![]).await?;
    figure(
        &format!("{prefix}heap_end"),
        heap.to_string(),
        &format!("JS heap at the end of the run, bytes, {what}"),
    );
    Ok(())
}

/// The danger band's making on every preset: each preset's page opened, its band waited for,
/// and the time the band took (from its first slice to its last, paints between slices
/// included, read from the band's `data-ms`).
async fn danger_figures(client: &Client, port: u16) -> Result<(), String> {
    let mut times: Vec<(f64, String)> = vec![];
    for p in presets() {
        goto_fresh(client, port, &format!("#preset={}", p.name)).await?;
        wait_for(
            client,
            "document.querySelector('[data-testid=danger][data-ms]')",
            120,
            &format!("the danger band of {}", p.name),
        )
        .await?;
        let ms = js(
            client,
            "return document.querySelector('[data-testid=danger]').dataset.ms;",
        )
        .await?;
        let ms: f64 = ms.as_str().and_then(|t| t.parse().ok()).unwrap_or(f64::NAN);
        times.push((ms, p.name.to_string()));
    }
    times.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (max, slowest) = times.last().cloned().unwrap_or((f64::NAN, String::new()));
    let samples: Vec<f64> = times.iter().map(|t| t.0).collect();
    figure(
        "danger",
        format!(
            "max {max:.0} ms (`{slowest}`) / p50 {:.0} ms over {} presets",
            percentile(&samples, 50.0),
            samples.len()
        ),
        "the danger band ready (a crash verdict after every event), every preset",
    );
    Ok(())
}

/// The page's own figures: the largest preset's, then the scaled scenarios' (each measured
/// only while the ones before it succeeded).
async fn page_figures(client: &Client, port: u16, preset: &str) -> Result<(), String> {
    let mut result = measure(
        client,
        port,
        &format!("#preset={preset}"),
        "",
        &format!("preset {preset}"),
    )
    .await;
    // The issue's scale, 64 × 1,000, then the largest the dashboard plays.
    for (prefix, channels, batches) in [("large_", 64, 1000), ("scale_", 16, 200)] {
        let what = format!("{channels} channels × {batches} batches");
        let s = scaled(channels, batches);
        if let Err(reason) = batchscope_view::microbatch::url::scenario::fits_dashboard(&s) {
            for key in [
                "load",
                "step_work",
                "step",
                "back_work",
                "back",
                "events",
                "heap_load",
                "heap_end",
            ] {
                figure(
                    &format!("{prefix}{key}"),
                    format!("refused: {reason}"),
                    &what,
                );
            }
            continue;
        }
        if result.is_ok() {
            result = measure(client, port, &scenario_hash(s), prefix, &what).await;
        }
    }
    result
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    // `-- links`: print the `#scenario=` links of the scaled pages (to open or profile them).
    if std::env::args().any(|a| a == "links") {
        for (channels, batches) in [(64, 1000), (16, 200)] {
            println!(
                "{channels}x{batches} {}",
                scenario_hash(scaled(channels, batches))
            );
        }
        return;
    }
    // `-- danger`: only the danger band's figure (every preset), for work on the band.
    let only_danger = std::env::args().any(|a| a == "danger");
    let (preset, events) = largest_preset();
    println!("batchscope browser: release dist/, largest preset `{preset}` ({events} events failure-free)");
    println!("browser preset {preset}");
    let dist = dist_dir();
    let chromedriver = tool(
        "CHROMEDRIVER",
        "/usr/bin/chromedriver",
        "apt-get install -y chromium chromium-driver",
    );
    let chromium = tool(
        "CHROMIUM",
        "/usr/bin/chromium",
        "apt-get install -y chromium chromium-driver",
    );
    let port = serve(dist);
    let (_driver, driver_port) = start_chromedriver(&chromedriver);
    let (client, profile) = session(&chromium, driver_port).await;
    let mut result = if only_danger {
        Ok(())
    } else {
        page_figures(&client, port, &preset).await
    };
    if result.is_ok() {
        result = danger_figures(&client, port).await;
    }
    let _ = client.close().await;
    let _ = std::fs::remove_dir_all(&profile);
    if let Err(message) = result {
        eprintln!("browser benchmark failed: {message}");
        std::process::exit(1);
    }
}
