//! End-to-end test of the built dashboard in headless Chromium: serve `dist/`, pick the
//! kafka-append preset, arm `sink-commit@3`, play until the re-run of batch 3 commits, and check
//! that the page shows the duplicates the oracle expects — with no console errors.
//!
//! Needs `bash scripts/page.sh` (the release page, `dist/`) and `/usr/bin/chromedriver` + `/usr/bin/chromium`
//! (`apt-get install -y chromium chromium-driver`); it fails, naming the missing piece, without them.
//! It also prints the release `.wasm` size and the time from a step click to the next frame.
//! And the glossary: opened from the "?" button in a tab of its own, and from the terms the
//! lesson card and the step note use, each a link to its own line.

mod common;

use batchscope_engine::microbatch::event::EventKind;
use batchscope_engine::microbatch::scenario::preset;
use batchscope_engine::microbatch::World;
use common::browser::*;
use fantoccini::{Client, Locator};
use serde_json::{json, Value};

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

/// Records, for each click on the step button, the time from the click to the first animation
/// frame after the DOM changed (the frame that paints the new step).
const PAINT_PROBE: &str = r#"
    window.__paint = [];
    // On the window, capturing: before the page's own listeners, which render the step at
    // once (a listener on the button itself runs after them and would miss the step's
    // changes).
    window.addEventListener('click', e => {
        if (!e.target.closest || !e.target.closest('#step')) return;
        const t0 = performance.now();
        const observer = new MutationObserver(() => {
            observer.disconnect();
            requestAnimationFrame(() => window.__paint.push(performance.now() - t0));
        });
        observer.observe(document.body, { childList: true, characterData: true, subtree: true, attributes: true });
    }, { capture: true });
    return true;"#;

async fn drive(client: &Client, port: u16) -> TestResult {
    let base = format!("http://127.0.0.1:{port}/");
    open(client, port, "").await?;
    let size = js(client, "return [window.innerWidth, window.innerHeight];").await?;
    println!("viewport: {size}");

    // Pick the preset and arm the crash through the controls, as a user would.
    pick_preset(client, "kafka-append", "plain append").await?;
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
    // The re-run of batch 3 makes every duplicate of the run (the oracle's count).
    let mut crashed = preset("kafka-append").expect("preset");
    crashed
        .crashes
        .push("sink-commit@3".parse().expect("crash point"));
    let duplicates = batchscope_check::oracle::check(&crashed).duplicates;
    if duplicates == 0 || !badge.contains(&format!("{duplicates} duplicates")) {
        return Err(format!(
            "after the re-run of batch 3 the badge should count {duplicates} duplicates, shows: {badge}"
        ));
    }
    click(client, "[data-testid=tab-sink]").await?;
    let chips = format!(
        "document.querySelectorAll('[data-testid=duplicate-keys] .key-chip.dup').length === {duplicates}"
    );
    wait_for(client, &chips, 10, "each duplicated key in the Sink tab").await?;
    save_screenshot(client, "rerun.png").await?;
    click(client, "#play").await?;
    wait_for_verdict(client, "duplicates", 60).await?;

    // The sink tab still names each duplicated key.
    wait_for(client, &chips, 10, "each duplicated key in the Sink tab").await?;

    // Readable at 1366×768 without horizontal scrolling, and no console errors.
    no_overflow_no_errors(client).await?;

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

    // One bad field (a typo in `seed=`) is left out; the rest of the link opens.
    client
        .goto("about:blank")
        .await
        .map_err(|e| format!("blank: {e}"))?;
    client
        .goto(&format!(
            "{base}#preset=kafka-append&seed=7x&crash=sink-commit@3"
        ))
        .await
        .map_err(|e| format!("open a link with a bad seed: {e}"))?;
    wait_for(
        client,
        "document.querySelector('[data-testid=notice]') && document.querySelector('#preset').value === 'kafka-append' \
         && [...document.querySelectorAll('[data-testid=armed-crash]')].some(c => c.textContent.includes('sink-commit@3'))",
        30,
        "kafka-append with sink-commit@3 armed and a notice",
    )
    .await?;
    let notice = text(client, "[data-testid=notice]").await?;
    if !notice.contains("seed") || !notice.contains("left out") {
        return Err(format!(
            "the message should name `seed` as left out: {notice}"
        ));
    }
    // The notice is drawn over the page: the main area is where it is without it. Another run
    // (a new seed) leaves the link it talked about behind, and the notice with it.
    let with = js(
        client,
        "return document.querySelector('.main').getBoundingClientRect().top;",
    )
    .await?;
    js(
        client,
        "const s = document.querySelector('#seed'); s.value = '8'; s.dispatchEvent(new Event('change')); return true;",
    )
    .await?;
    wait_for(
        client,
        "!document.querySelector('[data-testid=notice]') && location.hash.includes('seed=8')",
        10,
        "the notice about the old link to leave with it",
    )
    .await?;
    let without = js(
        client,
        "return document.querySelector('.main').getBoundingClientRect().top;",
    )
    .await?;
    if with != without {
        return Err(format!(
            "a notice moved the main area: {with} px with it, {without} px without"
        ));
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_append_with_a_crash_at_sink_commit_shows_duplicates() {
    let session = Session::start("e2e").await;
    let result = drive(&session.client, session.port).await;
    session.close().await;
    if let Err(message) = result {
        panic!("{message}");
    }
}

/// The glossary from the "?" button: focused (as a keyboard user reaches it), the help shows
/// its link; the link opens the glossary in a tab of its own, with a line for the Tunnel
/// server, a token and the oracle, and the dashboard stays where it was.
async fn glossary_from_help(client: &Client, port: u16) -> TestResult {
    open(client, port, "#preset=tablestore&seed=7&at=40").await?;
    let link_shown = "(() => { const a = document.querySelector('[data-testid=glossary-link]'); \
                      const r = a && a.getBoundingClientRect(); return !!r && r.width > 0 && r.height > 0; })()";
    if js(client, &format!("return {link_shown};")).await? != json!(false) {
        return Err("the glossary link should show only with the help".into());
    }
    js(
        client,
        "document.querySelector('[data-testid=help]').focus(); return true;",
    )
    .await?;
    wait_for(client, link_shown, 5, "the help with the glossary's link").await?;
    let home = client.window().await.map_err(|e| format!("window: {e}"))?;
    click(client, "[data-testid=glossary-link]").await?;
    let mut opened = None;
    for _ in 0..50 {
        let all = client
            .windows()
            .await
            .map_err(|e| format!("windows: {e}"))?;
        if let Some(w) = all.into_iter().find(|w| *w != home) {
            opened = Some(w);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let glossary = opened.ok_or("the glossary should open in a tab of its own")?;
    client
        .switch_to_window(glossary)
        .await
        .map_err(|e| format!("switch: {e}"))?;
    wait_for(
        client,
        "location.pathname.endsWith('/glossary.html') && document.querySelector('[data-testid=glossary]')",
        10,
        "the glossary page",
    )
    .await?;
    let words = js(client, "return document.body.textContent;").await?;
    let words = words.as_str().unwrap_or_default();
    for term in ["Tunnel server", "t:4", "the oracle", "PRECOMMIT / COMMIT"] {
        if !words.contains(term) {
            return Err(format!("the glossary should explain `{term}`"));
        }
    }
    let placed = js(
        client,
        "return [...document.querySelectorAll('dd')].every(d => d.querySelector('.where') && d.querySelector('a[href^=\"https://\"]'));",
    )
    .await?;
    if placed != json!(true) {
        return Err("every line should say where it shows and link a public source".into());
    }
    client
        .close_window()
        .await
        .map_err(|e| format!("close: {e}"))?;
    client
        .switch_to_window(home)
        .await
        .map_err(|e| format!("back: {e}"))?;
    if !js(client, "return location.hash;")
        .await?
        .as_str()
        .unwrap_or_default()
        .contains("at=40")
    {
        return Err("the dashboard should stay at its moment".into());
    }
    no_overflow_no_errors(client).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_glossary_opens_from_the_help_button() {
    let session = Session::start("glossary").await;
    let result = glossary_from_help(&session.client, session.port).await;
    session.close().await;
    if let Err(message) = result {
        panic!("{message}");
    }
}

/// The glossary links in `scope` (a CSS selector): each link's text, its `href` as written,
/// and whether it opens a tab of its own without handing it the page.
async fn term_links(client: &Client, scope: &str) -> Result<Vec<Value>, String> {
    let links = js(
        client,
        &format!(
            "return [...document.querySelectorAll('{scope} a.term')].map(a => \
             [a.textContent, a.getAttribute('href'), a.target === '_blank' && a.rel === 'noopener']);"
        ),
    )
    .await?;
    Ok(links.as_array().cloned().unwrap_or_default())
}

/// Checks that `links` (of [`term_links`]) are relative links to the glossary's line of each
/// term, as the view's term list names it, each term once; returns the first link's id.
fn check_term_links(links: &[Value], where_: &str) -> Result<String, String> {
    let mut ids = vec![];
    for link in links {
        let (text, href) = (
            link[0].as_str().unwrap_or(""),
            link[1].as_str().unwrap_or(""),
        );
        let id = batchscope_view::glossary_links::link_terms(text, &mut vec![])
            .first()
            .and_then(|(_, id)| *id)
            .ok_or(format!(
                "{where_}: `{text}` is linked but is no glossary term"
            ))?;
        if href != format!("glossary.html#{id}") || link[2] != json!(true) {
            return Err(format!(
                "{where_}: `{text}` links {link}, not a new tab of glossary.html#{id}"
            ));
        }
        if ids.contains(&id) {
            return Err(format!("{where_}: `{id}` is linked twice"));
        }
        ids.push(id);
    }
    ids.first()
        .map(|id| id.to_string())
        .ok_or(format!("{where_}: no term linked to the glossary"))
}

/// The terms of the lesson card and of the step note link to their glossary lines: each term
/// once, relative links opening a tab of their own; following one shows its line, targeted.
async fn glossary_from_terms(client: &Client, port: u16) -> TestResult {
    open(client, port, "#preset=tablestore&seed=7&at=40").await?;
    let lesson = term_links(client, ".lesson-body").await?;
    check_term_links(&lesson, "the lesson")?;
    // Step on until the note uses a term (most notes do).
    let mut note = term_links(client, "[data-testid=step-note]").await?;
    for _ in 0..20 {
        if !note.is_empty() {
            break;
        }
        click(client, "#step").await?;
        note = term_links(client, "[data-testid=step-note]").await?;
    }
    let id = check_term_links(&note, "the step note")?;
    let home = client.window().await.map_err(|e| format!("window: {e}"))?;
    click(
        client,
        &format!("[data-testid=step-note] a.term[href='glossary.html#{id}']"),
    )
    .await?;
    let mut opened = None;
    for _ in 0..50 {
        let all = client
            .windows()
            .await
            .map_err(|e| format!("windows: {e}"))?;
        if let Some(w) = all.into_iter().find(|w| *w != home) {
            opened = Some(w);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let glossary = opened.ok_or("the term's link should open the glossary in a tab of its own")?;
    client
        .switch_to_window(glossary)
        .await
        .map_err(|e| format!("switch: {e}"))?;
    wait_for(
        client,
        &format!(
            "location.pathname.endsWith('/glossary.html') && location.hash === '#{id}' && \
             (t => t && t.id === '{id}' && t.querySelector('dt') && \
              (r => r.bottom > 0 && r.top < innerHeight)(t.getBoundingClientRect()))(document.querySelector(':target'))"
        ),
        10,
        &format!("the glossary's line `{id}`, targeted and in view"),
    )
    .await?;
    let _ = save_screenshot(client, "glossary-term.png").await;
    client
        .close_window()
        .await
        .map_err(|e| format!("close: {e}"))?;
    client
        .switch_to_window(home)
        .await
        .map_err(|e| format!("back: {e}"))?;
    no_overflow_no_errors(client).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terms_in_the_lesson_and_the_step_note_link_to_the_glossary() {
    let session = Session::start("glossary-terms").await;
    let result = glossary_from_terms(&session.client, session.port).await;
    if result.is_err() {
        let _ = save_screenshot(&session.client, "glossary-terms-failure.png").await;
    }
    session.close().await;
    if let Err(message) = result {
        panic!("{message}");
    }
}
