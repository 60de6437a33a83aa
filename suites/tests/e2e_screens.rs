//! End-to-end test of the built dashboard on every screen a class meets, in headless Chromium:
//! a 1024×768 laptop and a 1280×720 projector (header controls never overlap, the page never
//! scrolls sideways, every side tab in view, each Spark UI chart whole in its box), a 390×844
//! phone (one column, the transport on screen), present mode (`present=1`: larger text, only
//! what a class needs; after a reload at 1280×720 nothing clipped, saved as
//! `target/e2e/present-1280x720-reload.png`) and the embed form (`embed=1`: no header, a link
//! back to the full page).

mod common;

use common::browser::*;
use fantoccini::Client;

/// Pairs of visible header controls whose boxes overlap (none is inside the other).
const OVERLAPS: &str = r#"
    const all = [...document.querySelectorAll(
        '.topbar .brand, .topbar button, .topbar select, .topbar input:not([type=file]), .topbar summary, .topbar .step-count, .topbar .help, .topbar [data-testid=verdict]')]
      .filter(e => { const r = e.getBoundingClientRect(); const s = getComputedStyle(e);
                     const folded = e.tagName !== 'SUMMARY' && e.closest('details:not([open])');
                     return !folded && r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; });
    const out = [];
    for (let i = 0; i < all.length; i++) for (let j = i + 1; j < all.length; j++) {
      const a = all[i], b = all[j];
      if (a.contains(b) || b.contains(a)) continue;
      const r = a.getBoundingClientRect(), q = b.getBoundingClientRect();
      const w = Math.min(r.right, q.right) - Math.max(r.left, q.left);
      const h = Math.min(r.bottom, q.bottom) - Math.max(r.top, q.top);
      if (w > 1 && h > 1) out.push((a.dataset.testid || a.id || a.className) + ' × ' + (b.dataset.testid || b.id || b.className));
    }
    return out;"#;

async fn resize(client: &Client, w: u32, h: u32) -> TestResult {
    set_viewport(client, w, h).await?;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    Ok(())
}

/// The sequence diagram's text at its size on screen: the smallest, in px (font size × the
/// scale the SVG is drawn at), and whether the diagram fits its pane (or scrolls sideways
/// because the pane is narrower than the narrowest layout).
const DIAGRAM_TEXT: &str = r#"
    const svg = document.querySelector('#sequence');
    const wrap = svg.parentElement;
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    let min = Infinity, what = '';
    for (const t of svg.querySelectorAll('text')) {
      const px = parseFloat(getComputedStyle(t).fontSize) * scale;
      if (px < min) { min = px; what = t.textContent; }
    }
    const fits = svg.getBoundingClientRect().width <= wrap.clientWidth + 1 || svg.viewBox.baseVal.width <= 500;
    return [min, what, fits, wrap.clientWidth, svg.viewBox.baseVal.width];"#;

async fn diagram_text_readable(client: &Client, what: &str) -> TestResult {
    let found = js(client, DIAGRAM_TEXT).await?;
    let min = found[0].as_f64().unwrap_or(0.0);
    if min < 11.0 || found[2] != serde_json::Value::Bool(true) {
        return Err(format!(
            "{what}: the diagram's smallest text should be ≥ 11 px and the diagram fit its pane: [px, text, fits, pane, layout] = {found}"
        ));
    }
    Ok(())
}

/// The side panel's tab buttons that are not wholly inside the panel's visible box (a strip
/// that scrolls sideways hides its last tabs), with the number of tabs.
const TABS_OUT_OF_VIEW: &str = r#"
    const strip = document.querySelector('.panels .tabs');
    const box = strip.getBoundingClientRect();
    const tabs = [...strip.querySelectorAll('[role=tab]')];
    const out = tabs.filter(t => { const r = t.getBoundingClientRect();
      return r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5
          || r.bottom > box.bottom + 0.5 || r.width === 0; })
      .map(t => t.textContent);
    if (strip.scrollWidth > strip.clientWidth + 1) out.push(`the strip scrolls: ${strip.scrollWidth} > ${strip.clientWidth}`);
    return [tabs.length, out];"#;

/// The Spark UI tab's scrolling box and its charts: [box height, every chart (caption and
/// all) fits in it, each chart's height].
const CHARTS_FIT: &str = r#"
    const ui = document.querySelector('[data-testid=spark-ui]');
    let box = ui;
    while (box && !/(auto|scroll)/.test(getComputedStyle(box).overflowY)) box = box.parentElement;
    const room = box.clientHeight;
    const tall = [...ui.querySelectorAll('.spark-chart')].map(f => f.getBoundingClientRect().height);
    return [room, tall.every(t => t > 50 && t <= room), tall];"#;

/// Every side tab (the Tablestore presets have five) is on screen without sideways scrolling.
async fn every_tab_in_view(client: &Client, what: &str) -> TestResult {
    let seen = js(client, TABS_OUT_OF_VIEW).await?;
    if seen[0] != serde_json::json!(5) || seen[1].as_array().is_none_or(|a| !a.is_empty()) {
        return Err(format!("{what}: [tabs, tabs out of view] = {seen}"));
    }
    Ok(())
}

async fn nothing_overlaps(client: &Client, what: &str) -> TestResult {
    let overlaps = js(client, OVERLAPS).await?;
    if overlaps.as_array().is_some_and(|a| !a.is_empty()) {
        return Err(format!("{what}: header controls overlap: {overlaps}"));
    }
    no_overflow_no_errors(client)
        .await
        .map_err(|e| format!("{what}: {e}"))
}

async fn drive(client: &Client, port: u16) -> TestResult {
    open(client, port, "#preset=tablestore&seed=7&at=60").await?;
    // Export works under the page's Content-Security-Policy (the PNG is drawn from a blob: URL).
    js(
        client,
        "document.querySelector('[data-testid=export-menu]').open = true; return true;",
    )
    .await?;
    click(client, "[data-testid=export-png]").await?;
    wait_for(
        client,
        "(document.querySelector('[data-testid=export-menu]').dataset.export || '').includes('.png|image/png|')",
        10,
        "the PNG export",
    )
    .await?;
    js(
        client,
        "document.querySelector('[data-testid=export-menu]').open = false; return true;",
    )
    .await?;
    for (w, h) in [
        (1024, 768),
        (1280, 720),
        (1366, 768),
        (1480, 900),
        (1600, 900),
    ] {
        resize(client, w, h).await?;
        nothing_overlaps(client, &format!("{w}×{h}")).await?;
        diagram_text_readable(client, &format!("{w}×{h}")).await?;
        every_tab_in_view(client, &format!("{w}×{h}")).await?;
    }

    // A phone: the transport stays on screen, the page does not scroll sideways.
    resize(client, 390, 844).await?;
    nothing_overlaps(client, "390×844").await?;
    diagram_text_readable(client, "390×844").await?;
    let play = js(
        client,
        "const r = document.querySelector('[data-testid=play]').getBoundingClientRect(); \
         return r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth;",
    )
    .await?;
    if play != serde_json::Value::Bool(true) {
        return Err("on a phone the play button is off screen".into());
    }
    js(
        client,
        "window.scrollTo(0, document.body.scrollHeight); return true;",
    )
    .await?;
    let play_after_scroll = js(
        client,
        "const r = document.querySelector('[data-testid=play]').getBoundingClientRect(); \
         return r.top >= 0 && r.bottom <= window.innerHeight;",
    )
    .await?;
    if play_after_scroll != serde_json::Value::Bool(true) {
        return Err("on a phone the play button scrolls away".into());
    }

    // The Spark UI tab: each chart, caption and all, fits the box it scrolls in.
    reopen(
        client,
        port,
        "#preset=kafka-append&seed=7&crash=sink-commit@3&at=80&tab=progress",
    )
    .await?;
    for (w, h) in [(1024, 768), (1280, 720), (1366, 768)] {
        resize(client, w, h).await?;
        wait_for(
            client,
            "document.querySelectorAll('.spark-chart svg').length === 3",
            20,
            "the Spark UI charts",
        )
        .await?;
        let fit = js(client, CHARTS_FIT).await?;
        if fit[1] != serde_json::json!(true) {
            return Err(format!("{w}×{h}: a Spark UI chart is taller than its box: [box px, fits, charts px] = {fit}"));
        }
    }

    // Present mode from the URL, on a projector.
    reopen(
        client,
        port,
        "#preset=tablestore&seed=7&tour=1&at=60&present=1",
    )
    .await?;
    resize(client, 1280, 720).await?;
    wait_for(
        client,
        "document.documentElement.dataset.present === '1'",
        10,
        "present mode",
    )
    .await?;
    nothing_overlaps(client, "present mode at 1280×720").await?;
    let shown = js(
        client,
        "const vis = s => { const e = document.querySelector(s); return !!e && getComputedStyle(e).display !== 'none'; }; \
         return [vis('.mode-tabs'), vis('[data-testid=explore-open]'), vis('[data-testid=play]'), \
                 parseFloat(getComputedStyle(document.querySelector('.now-text')).fontSize)];",
    )
    .await?;
    if shown[0] != serde_json::Value::Bool(false)
        || shown[1] != serde_json::Value::Bool(false)
        || shown[2] != serde_json::Value::Bool(true)
        || shown[3].as_f64().unwrap_or(0.0) < 18.0
    {
        return Err(format!(
            "present mode should hide the mode tabs and Explore, keep play, and write the step \
             note at ≥ 18 px: [tabs, explore, play, note px] = {shown}"
        ));
    }

    // Present mode holds: the page's own writes of its link keep `present=1`, so a reload stays
    // in it; `p` leaves it and takes the flag out of the address bar.
    reopen(client, port, "#preset=tablestore&seed=7&at=20&present=1").await?;
    resize(client, 1280, 720).await?;
    let first = js(client, "return location.hash;").await?;
    click(client, "[data-testid=play]").await?;
    wait_for(
        client,
        "!document.querySelector('[data-testid=step-count]').textContent.trim().startsWith('20 /')",
        10,
        "play to move past step 20",
    )
    .await?;
    click(client, "[data-testid=play]").await?;
    wait_for(
        client,
        &format!("location.hash !== {first}"),
        10,
        "the page to write its link after play and pause",
    )
    .await?;
    let written = js(client, "return location.hash;").await?;
    if !written.as_str().unwrap_or("").contains("present=1") {
        return Err(format!(
            "the page wrote its link without present=1: {written}"
        ));
    }
    client.refresh().await.map_err(|e| format!("reload: {e}"))?;
    wait_for(
        client,
        "document.querySelector('[data-testid=verdict]') && document.documentElement.dataset.present === '1'",
        30,
        "present mode after a reload",
    )
    .await?;
    // After the reload, at 1280×720: nothing overlaps, every tab and the badge's numbers whole.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    nothing_overlaps(client, "present mode at 1280×720 after a reload").await?;
    every_tab_in_view(client, "present mode at 1280×720 after a reload").await?;
    let clipped = js(
        client,
        "return [...document.querySelectorAll('.badge-title, .badge-detail, #preset')] \
           .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent);",
    )
    .await?;
    if clipped.as_array().is_none_or(|a| !a.is_empty()) {
        return Err(format!("present mode after a reload clips {clipped}"));
    }
    save_screenshot(client, "present-1280x720-reload.png").await?;
    client
        .find(fantoccini::Locator::Css("body"))
        .await
        .map_err(|e| format!("body: {e}"))?
        .send_keys("p")
        .await
        .map_err(|e| format!("press p: {e}"))?;
    wait_for(
        client,
        "!document.documentElement.dataset.present && !location.hash.includes('present=1')",
        10,
        "p to leave present mode and drop present=1 from the link",
    )
    .await?;

    // The embed form: no header, a link to the same moment on the full page.
    reopen(client, port, "#preset=tablestore&seed=7&at=60&embed=1").await?;
    let embed = js(
        client,
        "const bar = document.querySelector('.topbar'); const link = document.querySelector('[data-testid=embed-link]'); \
         return [getComputedStyle(bar).display, link ? link.getAttribute('href') : null];",
    )
    .await?;
    if embed[0] != "none" {
        return Err(format!("embed=1 still shows the header: {embed}"));
    }
    let href = embed[1].as_str().unwrap_or_default();
    if !href.contains("preset=tablestore") || href.contains("embed=1") {
        return Err(format!(
            "the embed link should open the same moment in full: {href}"
        ));
    }
    no_overflow_no_errors(client).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_screen_present_mode_and_embed() {
    let session = Session::start("screens").await;
    let result = drive(&session.client, session.port).await;
    session.close().await;
    if let Err(message) = result {
        panic!("{message}");
    }
}
