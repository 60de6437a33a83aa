//! End-to-end test of the built dashboard in headless Chromium: serve `dist/`, pick the
//! kafka-append preset, arm `sink-commit@3`, play until the re-run of batch 3 commits, and check
//! that the page shows the duplicates the oracle expects — with no console errors.
//!
//! Needs `trunk build --release` (for `dist/`) and `/usr/bin/chromedriver` + `/usr/bin/chromium`
//! (`apt-get install -y chromium chromium-driver`); it fails, naming the missing piece, without them.
//! It also prints the release `.wasm` size and the time from a step click to the next frame.

use batchscope_engine::{preset, EventKind, World};
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

type TestResult = Result<(), String>;

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `dist/` with an `index.html` and a `.wasm`, or a failure that says how to build it.
fn dist_dir() -> PathBuf {
    let dist = repo_root().join("dist");
    let has_wasm = std::fs::read_dir(&dist)
        .map(|entries| {
            entries
                .flatten()
                .any(|e| e.path().extension().is_some_and(|x| x == "wasm"))
        })
        .unwrap_or(false);
    assert!(
        dist.join("index.html").is_file() && has_wasm,
        "{} has no built dashboard (index.html + .wasm): run `trunk build --release` at the repository root first",
        dist.display()
    );
    dist
}

fn tool(env: &str, default: &str, install: &str) -> PathBuf {
    let path = PathBuf::from(std::env::var(env).unwrap_or_else(|_| default.to_string()));
    assert!(
        path.is_file(),
        "{} not found (set {env} to override): install it with `{install}`",
        path.display()
    );
    path
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("css") => "text/css",
        Some("wasm") => "application/wasm",
        Some("png") => "image/png",
        Some("svg") => "image/svg+xml",
        _ => "application/octet-stream",
    }
}

fn handle(mut stream: TcpStream, dir: &Path) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone the connection"));
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    // Drain the headers.
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) if line == "\r\n" || line == "\n" => break,
            Ok(_) => {}
        }
    }
    let target = request_line.split_whitespace().nth(1).unwrap_or("/");
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let rel = path.trim_start_matches('/');
    let file = if rel.is_empty() {
        dir.join("index.html")
    } else {
        dir.join(rel)
    };
    let response = match (rel.contains(".."), std::fs::read(&file)) {
        (false, Ok(body)) => {
            let mut head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
                content_type(&file),
                body.len()
            )
            .into_bytes();
            head.extend_from_slice(&body);
            head
        }
        _ => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_vec(),
    };
    let _ = stream.write_all(&response);
}

/// Serves `dir` on 127.0.0.1 from a background thread; returns the port.
fn serve(dir: PathBuf) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a local port for dist/");
    let port = listener.local_addr().expect("local address").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let dir = dir.clone();
            std::thread::spawn(move || handle(stream, &dir));
        }
    });
    port
}

/// A child process killed when the test ends, however it ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("find a free port")
        .port()
}

fn start_chromedriver(path: &Path) -> (Killed, u16) {
    let port = free_port();
    let child = Command::new(path)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", path.display()));
    let guard = Killed(child);
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "chromedriver did not listen on port {port} within 20 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    (guard, port)
}

fn target_dir() -> PathBuf {
    std::env::var("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| repo_root().join("target"))
}

/// The sequence number of the `commits/3` written by the re-run, from the engine itself.
fn rerun_commit_seq() -> u64 {
    let mut scenario = preset("kafka-append").expect("preset");
    scenario
        .crashes
        .push("sink-commit@3".parse().expect("crash point"));
    let mut world = World::new(scenario);
    for _ in 0..10_000 {
        let e = world.step();
        if e.run == 2 && matches!(e.kind, EventKind::CommitLogWritten { batch_id: 3, .. }) {
            return e.seq;
        }
    }
    panic!("the engine never re-ran batch 3 of kafka-append with sink-commit@3");
}

async fn js(client: &Client, script: &str) -> Result<Value, String> {
    client
        .execute(script, vec![])
        .await
        .map_err(|e| format!("script failed: {e}\n{script}"))
}

/// Polls `condition` (a JS expression) until it is true, at most `secs` seconds.
async fn wait_for(client: &Client, condition: &str, secs: u64, what: &str) -> TestResult {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if js(client, &format!("return !!({condition});")).await? == Value::Bool(true) {
            return Ok(());
        }
        if Instant::now() > deadline {
            let state = js(
                client,
                "const q = s => (document.querySelector(s) || {}).textContent; \
                 return [q('[data-testid=step-count]'), q('[data-testid=verdict]'), q('[data-testid=step-note]'), q('[data-testid=notice]')];",
            )
            .await?;
            return Err(format!(
                "timed out after {secs} s waiting for {what} ({condition}); page: {state}"
            ));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn text(client: &Client, css: &str) -> Result<String, String> {
    let el = client
        .find(Locator::Css(css))
        .await
        .map_err(|e| format!("no element {css}: {e}"))?;
    el.text().await.map_err(|e| format!("text of {css}: {e}"))
}

async fn click(client: &Client, css: &str) -> TestResult {
    client
        .find(Locator::Css(css))
        .await
        .map_err(|e| format!("no element {css}: {e}"))?
        .click()
        .await
        .map_err(|e| format!("click {css}: {e}"))
}

async fn select(client: &Client, css: &str, value: &str) -> TestResult {
    client
        .find(Locator::Css(css))
        .await
        .map_err(|e| format!("no element {css}: {e}"))?
        .select_by_value(value)
        .await
        .map_err(|e| format!("select {value} in {css}: {e}"))
}

const ERROR_COLLECTOR: &str = r#"
    if (!window.__errors) {
        window.__errors = [];
        window.addEventListener('error', e => window.__errors.push('error: ' + e.message));
        window.addEventListener('unhandledrejection', e => window.__errors.push('rejection: ' + e.reason));
        const original = console.error;
        console.error = function (...args) { window.__errors.push('console.error: ' + args.join(' ')); original.apply(console, args); };
    }
    return true;"#;

/// Records, for each click on the step button, the time from the click to the first animation
/// frame after the DOM changed (the frame that paints the new step).
const PAINT_PROBE: &str = r#"
    window.__paint = [];
    const button = document.querySelector('#step');
    button.addEventListener('click', () => {
        const t0 = performance.now();
        const observer = new MutationObserver(() => {
            observer.disconnect();
            requestAnimationFrame(() => window.__paint.push(performance.now() - t0));
        });
        observer.observe(document.body, { childList: true, characterData: true, subtree: true, attributes: true });
    }, { capture: true });
    return true;"#;

/// Saves a screenshot of the page under `target/e2e/`.
async fn save_screenshot(client: &Client, name: &str) -> TestResult {
    let png = client
        .screenshot()
        .await
        .map_err(|e| format!("screenshot: {e}"))?;
    let out = target_dir().join("e2e");
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let file = out.join(name);
    std::fs::write(&file, png).map_err(|e| format!("{}: {e}", file.display()))?;
    println!("screenshot: {}", file.display());
    Ok(())
}

async fn drive(client: &Client, port: u16) -> TestResult {
    let base = format!("http://127.0.0.1:{port}/");
    client
        .goto(&base)
        .await
        .map_err(|e| format!("open {base}: {e}"))?;
    wait_for(
        client,
        "document.querySelector('[data-testid=verdict]')",
        30,
        "the app to mount",
    )
    .await?;
    js(client, ERROR_COLLECTOR).await?;
    // Make the viewport (not the window) 1366×768.
    let chrome = js(client, "return window.outerHeight - window.innerHeight;").await?;
    let extra = chrome.as_u64().unwrap_or(0) as u32;
    client
        .set_window_size(1366, 768 + extra)
        .await
        .map_err(|e| format!("resize: {e}"))?;
    let size = js(client, "return [window.innerWidth, window.innerHeight];").await?;
    println!("viewport: {size}");

    // Pick the preset and arm the crash through the controls, as a user would.
    select(client, "#preset", "kafka-append").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=lesson-title]').textContent.includes('plain append')",
        10,
        "the kafka-append lesson",
    )
    .await?;
    select(client, "[data-testid=arm-kind]", "sink-commit").await?;
    let batch = client
        .find(Locator::Css("[data-testid=arm-batch]"))
        .await
        .map_err(|e| format!("arm-batch: {e}"))?;
    batch.clear().await.map_err(|e| format!("clear: {e}"))?;
    batch
        .send_keys("3")
        .await
        .map_err(|e| format!("type: {e}"))?;
    click(client, "[data-testid=arm]").await?;
    wait_for(
        client,
        "[...document.querySelectorAll('[data-testid=armed-crash]')].some(c => c.textContent.includes('sink-commit@3'))",
        10,
        "sink-commit@3 in the armed list",
    )
    .await?;

    // Step-to-paint latency over 20 clicks (printed, not asserted).
    js(client, PAINT_PROBE).await?;
    for i in 1..=20 {
        click(client, "#step").await?;
        wait_for(
            client,
            &format!("window.__paint.length >= {i}"),
            10,
            "a frame after a step",
        )
        .await?;
    }
    let samples = js(client, "return window.__paint;").await?;
    let times: Vec<f64> = samples
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default();
    let mean = times.iter().sum::<f64>() / times.len().max(1) as f64;
    println!(
        "step click → next frame: mean {mean:.1} ms over {} clicks (min {:.1}, max {:.1})",
        times.len(),
        times.iter().cloned().fold(f64::INFINITY, f64::min),
        times.iter().cloned().fold(0.0, f64::max)
    );
    click(client, "#reset").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=step-count]').textContent.trim().startsWith('0 /')",
        10,
        "the reset",
    )
    .await?;

    // Play at the fastest speed until the re-run of batch 3 has written commits/3.
    let seq = rerun_commit_seq();
    select(client, "#speed", "4").await?;
    click(client, "#play").await?;
    wait_for(
        client,
        &format!(
            "(() => {{ const c = document.querySelector('[data-testid=current-event]'); return c && Number(c.dataset.seq) >= {seq}; }})()"
        ),
        60,
        "the re-run of batch 3 to commit",
    )
    .await?;
    // Pause on the re-run: the diagram shows the crash, the restart and the re-run.
    click(client, "#play").await?;
    let badge = text(client, "[data-testid=verdict]").await?;
    if !badge.contains("6 duplicates") {
        return Err(format!(
            "after the re-run of batch 3 the badge should count 6 duplicates, shows: {badge}"
        ));
    }
    click(client, "[data-testid=tab-sink]").await?;
    wait_for(
        client,
        "document.querySelectorAll('[data-testid=duplicate-keys] .key-chip.dup').length === 6",
        10,
        "six duplicated keys in the Sink tab",
    )
    .await?;
    save_screenshot(client, "rerun.png").await?;
    click(client, "#play").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=verdict]').dataset.verdict === 'duplicates'",
        60,
        "the final verdict",
    )
    .await?;
    let badge = text(client, "[data-testid=verdict]").await?;
    if !badge.to_lowercase().contains("duplicates") {
        return Err(format!("final badge: {badge}"));
    }

    // The sink tab still names the six duplicated keys.
    wait_for(
        client,
        "document.querySelectorAll('[data-testid=duplicate-keys] .key-chip.dup').length === 6",
        10,
        "six duplicated keys in the Sink tab",
    )
    .await?;

    // Readable at 1366×768 without horizontal scrolling.
    let overflow = js(
        client,
        "return document.documentElement.scrollWidth - window.innerWidth;",
    )
    .await?;
    if overflow.as_f64().unwrap_or(0.0) > 0.0 {
        return Err(format!("the page scrolls horizontally by {overflow} px"));
    }

    let errors = js(client, "return window.__errors;").await?;
    if errors.as_array().is_some_and(|a| !a.is_empty()) {
        return Err(format!("browser console errors: {errors}"));
    }

    save_screenshot(client, "dashboard.png").await?;

    // A broken link names what is wrong and loads the default scenario.
    client
        .goto("about:blank")
        .await
        .map_err(|e| format!("blank: {e}"))?;
    client
        .goto(&format!("{base}#preset=nope&seed=x&crash=boom@1"))
        .await
        .map_err(|e| format!("open bad link: {e}"))?;
    wait_for(
        client,
        "document.querySelector('[data-testid=notice]')",
        30,
        "the bad-link message",
    )
    .await?;
    let notice = text(client, "[data-testid=notice]").await?;
    for needle in ["unknown preset `nope`", "seed", "boom"] {
        if !notice.contains(needle) {
            return Err(format!("the message should name `{needle}`: {notice}"));
        }
    }
    let preset_value = js(client, "return document.querySelector('#preset').value;").await?;
    if preset_value != json!("tablestore") {
        return Err(format!(
            "the default preset should load, got {preset_value}"
        ));
    }
    click(client, "[data-testid=notice-dismiss]").await?;
    wait_for(
        client,
        "!document.querySelector('[data-testid=notice]')",
        10,
        "the message to go away",
    )
    .await?;
    Ok(())
}

fn print_wasm_size(dist: &Path) {
    for entry in std::fs::read_dir(dist).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|x| x == "wasm") {
            let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
            println!("{}: {size} bytes", path.display());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_append_with_a_crash_at_sink_commit_shows_duplicates() {
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
    print_wasm_size(&dist);
    let port = serve(dist);
    let (_driver, driver_port) = start_chromedriver(&chromedriver);
    let profile = std::env::temp_dir().join(format!("batchscope-e2e-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&profile);
    std::fs::create_dir_all(&profile).expect("create the browser profile directory");
    let capabilities = json!({
        "browserName": "chrome",
        "goog:chromeOptions": {
            "binary": chromium.display().to_string(),
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--hide-scrollbars", "--window-size=1366,768",
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
    let result = drive(&client, port).await;
    let _ = client.close().await;
    let _ = std::fs::remove_dir_all(&profile);
    if let Err(message) = result {
        panic!("{message}");
    }
}
