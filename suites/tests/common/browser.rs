//! Browser helpers shared by the end-to-end tests: serve `dist/`, start chromedriver and a
//! headless Chromium session, poll the page, click, select, save screenshots.
//!
//! Each e2e test uses a different subset, hence `dead_code` is allowed here.
#![allow(dead_code)]

use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub type TestResult = Result<(), String>;

pub fn repo_root() -> PathBuf {
    // `suites/` (the browser suites) or the repository itself (benches/browser.rs includes this
    // file): the folder with `Trunk.toml`, where the page's `dist/` is built.
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .find(|dir| dir.join("Trunk.toml").is_file())
        .expect("the repository holds Trunk.toml")
        .to_path_buf()
}

/// `dist/` with an `index.html` and a `.wasm`, or a failure that says how to build it.
pub fn dist_dir() -> PathBuf {
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
        "{} has no built dashboard (index.html + .wasm): run `bash scripts/page.sh` at the repository root first",
        dist.display()
    );
    dist
}

pub fn tool(env: &str, default: &str, install: &str) -> PathBuf {
    let path = PathBuf::from(std::env::var(env).unwrap_or_else(|_| default.to_string()));
    assert!(
        path.is_file(),
        "{} not found (set {env} to override): install it with `{install}`",
        path.display()
    );
    path
}

pub fn content_type(path: &Path) -> &'static str {
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

/// How a test server hosts `dist/`: under which path, and whether it compresses.
#[derive(Clone, Debug)]
pub struct Hosting {
    /// The path the folder is served under: `/` at the root, `/batchscope/` under a sub-path,
    /// as GitHub Pages serves a project.
    pub base: String,
    /// Whether a text or `.wasm` file goes out gzipped to a browser that accepts it, as a static
    /// host (GitHub Pages among them) sends it.
    pub gzip: bool,
}

impl Hosting {
    /// At the root, uncompressed: what the suites use unless they test hosting.
    pub fn plain() -> Hosting {
        Hosting {
            base: "/".into(),
            gzip: false,
        }
    }
}

/// Answers one request for a file of `dir` as `hosting` says; a request outside its base, or
/// for a file that is not there, gets a 404 and is written to `missed`.
pub fn handle(mut stream: TcpStream, dir: &Path, hosting: &Hosting, missed: &Missed) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone the connection"));
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    let mut accepts_gzip = false;
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) if line == "\r\n" || line == "\n" => break,
            Ok(_) => {
                let lower = line.to_ascii_lowercase();
                accepts_gzip |= lower.starts_with("accept-encoding:") && lower.contains("gzip");
            }
        }
    }
    let target = request_line.split_whitespace().nth(1).unwrap_or("/");
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let found = path.strip_prefix(hosting.base.as_str()).and_then(|rel| {
        let file = if rel.is_empty() {
            dir.join("index.html")
        } else {
            dir.join(rel)
        };
        (!rel.contains("..")).then(|| std::fs::read(&file).ok().map(|body| (file, body)))?
    });
    let response = match found {
        Some((file, body)) => {
            let kind = content_type(&file);
            let squeeze = hosting.gzip && accepts_gzip && kind != "image/png";
            let (body, encoding) = if squeeze {
                (
                    gzip(&body),
                    "Content-Encoding: gzip\r\nVary: Accept-Encoding\r\n",
                )
            } else {
                (body, "")
            };
            let mut head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\n{encoding}Content-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
                body.len()
            )
            .into_bytes();
            head.extend_from_slice(&body);
            head
        }
        None => {
            missed
                .lock()
                .expect("the missed list")
                .push(path.to_string());
            b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_vec()
        }
    };
    let _ = stream.write_all(&response);
}

/// `bytes` gzipped at flate2's default level (a static host's usual setting).
fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).expect("gzip in memory");
    encoder.finish().expect("gzip in memory")
}

/// The paths a server answered with a 404, in the order asked.
pub type Missed = std::sync::Arc<std::sync::Mutex<Vec<String>>>;

/// Serves `dir` on 127.0.0.1 from a background thread; returns the port.
pub fn serve(dir: PathBuf) -> u16 {
    serve_as(dir, Hosting::plain()).0
}

/// Serves `dir` as `hosting` says on 127.0.0.1 from a background thread; returns the port and
/// the paths it could not serve (anything outside the base among them).
pub fn serve_as(dir: PathBuf, hosting: Hosting) -> (u16, Missed) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a local port for dist/");
    let port = listener.local_addr().expect("local address").port();
    let missed = Missed::default();
    let log = missed.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (dir, hosting, log) = (dir.clone(), hosting.clone(), log.clone());
            std::thread::spawn(move || handle(stream, &dir, &hosting, &log));
        }
    });
    (port, missed)
}

/// A child process killed when the test ends, however it ends.
pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("find a free port")
        .port()
}

pub fn start_chromedriver(path: &Path) -> (Killed, u16) {
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

pub fn target_dir() -> PathBuf {
    std::env::var("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| repo_root().join("target"))
}

pub async fn js(client: &Client, script: &str) -> Result<Value, String> {
    client
        .execute(script, vec![])
        .await
        .map_err(|e| format!("script failed: {e}\n{script}"))
}

/// Polls `condition` (a JS expression) until it is true, at most `secs` seconds.
pub async fn wait_for(client: &Client, condition: &str, secs: u64, what: &str) -> TestResult {
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

pub async fn text(client: &Client, css: &str) -> Result<String, String> {
    let el = client
        .find(Locator::Css(css))
        .await
        .map_err(|e| format!("no element {css}: {e}"))?;
    el.text().await.map_err(|e| format!("text of {css}: {e}"))
}

pub async fn click(client: &Client, css: &str) -> TestResult {
    client
        .find(Locator::Css(css))
        .await
        .map_err(|e| format!("no element {css}: {e}"))?
        .click()
        .await
        .map_err(|e| format!("click {css}: {e}"))
}

pub async fn select(client: &Client, css: &str, value: &str) -> TestResult {
    client
        .find(Locator::Css(css))
        .await
        .map_err(|e| format!("no element {css}: {e}"))?
        .select_by_value(value)
        .await
        .map_err(|e| format!("select {value} in {css}: {e}"))
}

/// Picks `value` (`vs:kafka-idempotent`) in the comparison menu, as a reader's choice does: the
/// value set and a `change` event sent.
pub async fn pick_comparison(client: &Client, value: &str) -> TestResult {
    js(
        client,
        &format!(
            "const s = document.querySelector('[data-testid=compare-pick]'); \
             s.value = '{value}'; s.dispatchEvent(new Event('change')); return true;"
        ),
    )
    .await
    .map(|_| ())
}

pub const ERROR_COLLECTOR: &str = r#"
    if (!window.__errors) {
        window.__errors = [];
        window.addEventListener('error', e => window.__errors.push('error: ' + e.message));
        window.addEventListener('unhandledrejection', e => window.__errors.push('rejection: ' + e.reason));
        const original = console.error;
        console.error = function (...args) { window.__errors.push('console.error: ' + args.join(' ')); original.apply(console, args); };
    }
    return true;"#;

/// In the open Explore dialog: picks `depth`, runs it and waits up to `secs` for it to finish.
pub async fn run_exploration(client: &Client, depth: &str, secs: u64, what: &str) -> TestResult {
    select(client, "[data-testid=explore-depth]", depth).await?;
    click(client, "[data-testid=explore-run]").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=explore-status]').dataset.status === 'done'",
        secs,
        what,
    )
    .await
}

/// Saves a screenshot of the page under `target/e2e/`.
pub async fn save_screenshot(client: &Client, name: &str) -> TestResult {
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

pub fn print_wasm_size(dist: &Path) {
    for entry in std::fs::read_dir(dist).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|x| x == "wasm") {
            let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
            println!("{}: {size} bytes", path.display());
        }
    }
}

/// A headless Chromium session on the served `dist/`; `close` ends it and removes its profile.
pub struct Session {
    /// The WebDriver client.
    pub client: Client,
    /// The port `dist/` is served on.
    pub port: u16,
    _driver: Killed,
    profile: PathBuf,
}

impl Session {
    /// Serves `dist/`, starts chromedriver and Chromium (1366×768); fails naming what is missing.
    pub async fn start(name: &str) -> Session {
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
        let (driver, driver_port) = start_chromedriver(&chromedriver);
        let (client, profile) = open_session(&chromium, driver_port, name).await;
        Session {
            client,
            port,
            _driver: driver,
            profile,
        }
    }

    /// Ends the browser session and removes its profile.
    pub async fn close(self) {
        let _ = self.client.close().await;
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// Navigates to the page served on `port` at `hash` in a fresh document (a hash change alone
/// keeps the page and its state).
pub async fn goto_fresh(client: &Client, port: u16, hash: &str) -> TestResult {
    client
        .goto("about:blank")
        .await
        .map_err(|e| format!("blank: {e}"))?;
    let url = format!("http://127.0.0.1:{port}/{hash}");
    client
        .goto(&url)
        .await
        .map_err(|e| format!("open {url}: {e}"))
}

/// Makes the viewport (not the window) `w`×`h`.
pub async fn set_viewport(client: &Client, w: u32, h: u32) -> TestResult {
    let chrome = js(client, "return window.outerHeight - window.innerHeight;").await?;
    let extra = chrome.as_u64().unwrap_or(0) as u32;
    client
        .set_window_size(w, h + extra)
        .await
        .map_err(|e| format!("resize to {w}×{h}: {e}"))
}

/// Opens the dashboard at `hash`, waits for it to mount, installs the error collector and makes
/// the viewport 1366×768.
pub async fn open(client: &Client, port: u16, hash: &str) -> TestResult {
    open_url(client, &format!("http://127.0.0.1:{port}/{hash}")).await
}

/// [`open`] at a whole address (the page served under a sub-path, say).
pub async fn open_url(client: &Client, url: &str) -> TestResult {
    client
        .goto(url)
        .await
        .map_err(|e| format!("open {url}: {e}"))?;
    wait_for(
        client,
        "document.querySelector('[data-testid=verdict]')",
        30,
        "the app to mount",
    )
    .await?;
    js(client, ERROR_COLLECTOR).await?;
    set_viewport(client, 1366, 768).await
}

/// Opens the dashboard at `hash` in a fresh document (a hash change alone keeps the page and
/// its state), as [`open`] does.
pub async fn reopen(client: &Client, port: u16, hash: &str) -> TestResult {
    client
        .goto("about:blank")
        .await
        .map_err(|e| format!("blank: {e}"))?;
    open(client, port, hash).await
}

/// Picks `preset` in the header, as a user would, and waits until the lesson whose title
/// contains `title_words` is on screen.
pub async fn pick_preset(client: &Client, preset: &str, title_words: &str) -> TestResult {
    select(client, "#preset", preset).await?;
    wait_for(
        client,
        &format!(
            "document.querySelector('[data-testid=lesson-title]').textContent.includes('{title_words}')"
        ),
        10,
        &format!("the {preset} lesson"),
    )
    .await
}

/// Opens the Topology mode at `hash` in a fresh document (a hash change alone keeps the page),
/// installs the error collector and waits for the topology graph.
pub async fn open_topology(client: &Client, port: u16, hash: &str) -> TestResult {
    goto_fresh(client, port, hash).await?;
    js(client, ERROR_COLLECTOR).await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=topology-svg]')",
        20,
        "the topology view",
    )
    .await
}

/// Waits (at most `secs` s) until the badge gives the final `verdict` (`duplicates`) and says so
/// in its text.
pub async fn wait_for_verdict(client: &Client, verdict: &str, secs: u64) -> TestResult {
    wait_for(
        client,
        &format!("document.querySelector('[data-testid=verdict]').dataset.verdict === '{verdict}'"),
        secs,
        "the final verdict",
    )
    .await?;
    let badge = text(client, "[data-testid=verdict]").await?;
    let shown = badge.to_lowercase();
    if !(shown.contains(verdict) || shown.contains(&verdict.replace('-', " "))) {
        return Err(format!("final badge: {badge}"));
    }
    Ok(())
}

/// Fails if the page scrolls horizontally or the console recorded errors.
pub async fn no_overflow_no_errors(client: &Client) -> TestResult {
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
    Ok(())
}

/// A Chromium session (1366×768, headless) on a fresh profile; returns the client and the
/// profile directory to remove afterwards.
pub async fn open_session(chromium: &Path, driver_port: u16, tag: &str) -> (Client, PathBuf) {
    let profile = std::env::temp_dir().join(format!("batchscope-{tag}-{}", std::process::id()));
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
    (client, profile)
}
