//! End-to-end test of the page's two modules in headless Chromium: the micro-batch dashboard
//! opened by a bare link shows its lesson's text at once and fetches the second module
//! (`batchscope-modes`) as it mounts, for the minimap, which the module draws above the
//! sequence diagram (a click on a batch seeks the page, the current batch follows each step,
//! the table's rows seek too); another preset's lesson and tour texts come from that module.
//! Opening Topology reuses it, Inspect too, and the tabs of a dashboard drawn by it switch back to the
//! micro-batch dashboard, which removes what it drew. A module that cannot be fetched (a page
//! whose meta tag names missing files, [`serve_broken`]) is named in a message with "Try
//! again", which loads it once the name is right. The Export menu's
//! files are made by that module too, fetched when one is first asked for: the trace and the
//! checkpoint folder from the page's link, the run's (checked against the engine and the
//! oracle), and the diagram as SVG and PNG from the page it shares. So is
//! the Explore dialog: its clicks stay in it, and a run it opens loads in the page. And the
//! Spark UI tab's charts: drawn by the module once the tab is opened, from the run's progress.
//! And the scenario editor: drawn by the module, beside the page's root, when first opened (a
//! module that cannot be fetched named in its place, with "Try again"), closed by its own button.
//! And compare mode: its two runs drawn by the module inside the page's layout when a comparison
//! is picked (the same message and "Try again"), its crash matrix made on a click in it.
//!
//! Needs `bash scripts/page.sh` (the release page, `dist/`) and `/usr/bin/chromedriver` + `/usr/bin/chromium`;
//! it fails, naming the missing piece, without them.

mod common;

use common::browser::*;
use fantoccini::Client;
use serde_json::Value;

/// How many times the page fetched a file whose URL contains `needle` (Resource Timing).
async fn fetched(client: &Client, needle: &str) -> Result<u64, String> {
    let n = js(
        client,
        &format!(
            "return performance.getEntriesByType('resource').filter(e => e.name.includes('{needle}')).length;"
        ),
    )
    .await?;
    n.as_u64().ok_or_else(|| format!("a count, not {n}"))
}

/// Fails with `why` unless the page has fetched the second module's files (`batchscope-modes`)
/// `n` times in all: its script and its `.wasm`, 2 once it is loaded.
async fn module_fetches(client: &Client, n: u64, why: &str) -> TestResult {
    let got = fetched(client, "batchscope-modes").await?;
    if got != n {
        return Err(format!("{why} (its files fetched: {got})"));
    }
    Ok(())
}

/// The minimap drawn by the module, inside the page's layout, the placeholder gone.
const MINIMAP_DRAWN: &str = "document.querySelector('.page-root .diagram-pane > [data-testid=minimap-host] [data-testid=minimap-mark]') \
     && !document.querySelector('[data-testid=minimap-placeholder]')";

/// Opens `hash` afresh and waits for the minimap the second module draws as the page mounts:
/// the module's script and .wasm fetched once each.
async fn opened_with_the_minimap(client: &Client, port: u16, hash: &str) -> TestResult {
    reopen(client, port, hash).await?;
    wait_for(
        client,
        MINIMAP_DRAWN,
        30,
        "the minimap from the second module",
    )
    .await?;
    module_fetches(
        client,
        2,
        "the page should fetch the module's script and .wasm once each as it mounts",
    )
    .await
}

/// The page's step count: events shown.
async fn shown(client: &Client) -> Result<usize, String> {
    let count = text(client, "[data-testid=step-count]").await?;
    count
        .split('/')
        .next()
        .and_then(|s| s.trim().parse().ok())
        .ok_or_else(|| format!("step count `{count}`"))
}

/// The batch id of the minimap's current mark, if any.
async fn current_batch(client: &Client) -> Result<Value, String> {
    js(
        client,
        "return document.querySelector('[data-testid=minimap-host] .mm-mark.mm-current')?.dataset.batch ?? null;",
    )
    .await
}

/// The minimap, drawn by the module: a click on a batch's mark seeks the page to the batch's
/// first event (the cursor the engine's overview gives), the current mark follows the page's
/// steps, and the table's rows seek too.
async fn minimap_from_the_module(client: &Client, port: u16) -> TestResult {
    opened_with_the_minimap(client, port, "#preset=kafka-append&crash=sink-commit@3").await?;
    let mut scenario =
        batchscope_engine::microbatch::scenario::preset("kafka-append").expect("preset");
    scenario.crashes = vec!["sink-commit@3".parse().expect("a crash point")];
    let (_, world) = batchscope_check::oracle::check_world(&scenario, false);
    let marks = batchscope_view::microbatch::overview::batch_marks(world.events());
    let two = marks.iter().find(|m| m.batch_id == 2).ok_or("a batch 2")?;
    let drawn = js(client, "return document.querySelectorAll('[data-testid=minimap-host] [data-testid=minimap-mark]').length;").await?;
    if drawn.as_u64() != Some(marks.len() as u64) {
        return Err(format!(
            "one mark per batch: {} batches, {drawn} marks",
            marks.len()
        ));
    }
    click(
        client,
        "[data-testid=minimap-host] [data-testid=minimap-mark][data-batch='2']",
    )
    .await?;
    wait_for(
        client,
        &format!("document.querySelector('[data-testid=step-count]').textContent.trim().startsWith('{} /')", two.seek_cursor()),
        10,
        "a click on batch 2's mark to seek the page to its first event",
    )
    .await?;
    wait_for(client, "document.querySelector('[data-testid=minimap-host] .mm-mark.mm-current')?.dataset.batch === '2'", 10, "batch 2's mark current").await?;
    // Each step moves the current mark with the cursor.
    for _ in 0..(two.end_event - two.seek_cursor() + 2) {
        let before = shown(client).await?;
        click(client, "[data-testid=step]").await?;
        wait_for(client, &format!("!document.querySelector('[data-testid=step-count]').textContent.trim().startsWith('{before} /')"), 10, "a step").await?;
    }
    let at = shown(client).await?;
    let overview = batchscope_view::microbatch::overview::Overview::of(world.events());
    let want = overview.current(at).map(|i| marks[i].batch_id.to_string());
    wait_for(
        client,
        &format!("document.querySelector('[data-testid=minimap-host] .mm-mark.mm-current')?.dataset.batch === {}", serde_json::to_string(&want).unwrap()),
        10,
        &format!("the current mark to follow the cursor to {at} (batch {want:?}, now {})", current_batch(client).await?),
    )
    .await?;
    // The table: one row per batch; a row's button seeks too.
    click(
        client,
        "[data-testid=minimap-host] [data-testid=minimap-toggle]",
    )
    .await?;
    wait_for(client, &format!("document.querySelectorAll('[data-testid=minimap-host] [data-testid=minimap-row]').length === {}", marks.len()), 10, "the minimap's table").await?;
    click(
        client,
        "[data-testid=minimap-host] [data-testid=minimap-row] .mm-go",
    )
    .await?;
    wait_for(
        client,
        &format!("document.querySelector('[data-testid=step-count]').textContent.trim().startsWith('{} /')", marks[0].seek_cursor()),
        10,
        "a click on the first row to seek the page to the first batch",
    )
    .await?;
    click(
        client,
        "[data-testid=minimap-host] [data-testid=minimap-toggle]",
    )
    .await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=minimap-host] [data-testid=minimap-mark]')",
        10,
        "the marks again",
    )
    .await?;
    no_overflow_no_errors(client).await
}

async fn drive(client: &Client, port: u16) -> TestResult {
    // A bare link opens the default preset, whose lesson and tour texts the page carries.
    open(client, port, "").await?;
    let first = js(
        client,
        "return document.querySelector('.lesson-body li')?.textContent ?? '';",
    )
    .await?;
    let expected = batchscope_view::microbatch::lessons::lesson(
        batchscope_view::microbatch::url::DEFAULT_PRESET,
    )
    .paragraphs[0];
    if first.as_str() != Some(expected) {
        return Err(format!(
            "the default lesson's first paragraph at once, not {first}"
        ));
    }
    // The minimap comes from the second module, fetched as the page mounts.
    wait_for(
        client,
        MINIMAP_DRAWN,
        30,
        "the minimap from the second module",
    )
    .await?;
    module_fetches(
        client,
        2,
        "the minimap should fetch the module's script and .wasm once each",
    )
    .await?;
    // Another preset's texts come from the second module.
    open(client, port, "#preset=kafka-append").await?;
    let expected = batchscope_view::microbatch::lessons::lesson("kafka-append").paragraphs[0];
    wait_for(
        client,
        &format!(
            "document.querySelector('.lesson-body li')?.textContent === {}",
            serde_json::to_string(expected).unwrap()
        ),
        30,
        "kafka-append's lesson text from the second module",
    )
    .await?;
    module_fetches(
        client,
        2,
        "another preset's lesson should fetch the module's script and .wasm once each",
    )
    .await?;

    // Topology: the second module, already fetched, draws the page.
    click(client, "[data-testid=mode-topology]").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=topology-svg]')",
        30,
        "the Topology dashboard from the second module",
    )
    .await?;
    module_fetches(client, 2, "opening Topology should reuse the module").await?;
    // The module's app is drawn inside the page's, numbered apart from it: an event in
    // Topology goes to the module's app alone (Yew marks each element with its app's number).
    let apart = js(
        client,
        "const page = document.querySelector('.page-root'), host = document.querySelector('[data-testid=lazy-mode]'); \
         return !!page && !!host && page.contains(host) && page.__yew_subtree_id !== undefined \
           && host.__yew_subtree_id !== undefined && page.__yew_subtree_id !== host.__yew_subtree_id;",
    )
    .await?;
    if apart != Value::Bool(true) {
        return Err("the module's Topology app should be numbered apart from the page's".into());
    }
    // Its own mode tabs switch back: the micro-batch dashboard, and nothing of Topology left.
    click(client, "[data-testid=mode-micro]").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=verdict]') && !document.querySelector('[data-testid=topology-svg]') && !document.querySelector('[data-testid=lazy-mode]')",
        10,
        "the micro-batch dashboard, Topology removed",
    )
    .await?;
    wait_for(
        client,
        "!location.hash.includes('mode=topology')",
        10,
        "the address to leave Topology",
    )
    .await?;
    // Inspect reuses the module already loaded.
    click(client, "[data-testid=mode-inspect]").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=inspect-sample]')",
        20,
        "the Inspect page from the second module",
    )
    .await?;
    module_fetches(client, 2, "Inspect should reuse the module").await?;
    no_overflow_no_errors(client).await
}

/// Fails unless the element with test id `testid` (where the module drew `what`) is beside the
/// page's root: neither inside it nor holding it.
async fn beside_the_root(client: &Client, testid: &str, what: &str) -> TestResult {
    let apart = js(
        client,
        &format!(
            "const page = document.querySelector('.page-root'), host = document.querySelector('[data-testid={testid}]'); \
             return !!page && !!host && !page.contains(host) && !host.contains(page);"
        ),
    )
    .await?;
    if apart != Value::Bool(true) {
        return Err(format!(
            "{what} should be drawn beside the page's root, not in it"
        ));
    }
    Ok(())
}

/// Copies `from` into `to`, folders and all.
fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).expect("make the copy's folder");
    for entry in std::fs::read_dir(from).expect("read dist/") {
        let entry = entry.expect("a dist/ entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy a dist/ file");
        }
    }
}

/// `dist/` copied, its page's meta tag naming the second module's files `missing-modes-…`
/// (which do not exist; the real files stay beside them), and served: a page opened from it
/// cannot load the module, not even for the minimap as it mounts, until a test puts the
/// names back ([`restore_module_name`]). Returns the port.
fn serve_broken() -> u16 {
    let dir = target_dir().join("e2e-modes-broken");
    let _ = std::fs::remove_dir_all(&dir);
    copy_dir(&dist_dir(), &dir);
    let index = dir.join("index.html");
    let page = std::fs::read_to_string(&index).expect("dist/index.html");
    assert!(
        page.contains("/batchscope-modes-"),
        "dist/index.html names no second module"
    );
    std::fs::write(
        &index,
        page.replace("/batchscope-modes-", "/missing-modes-"),
    )
    .expect("write the broken index.html");
    serve(dir)
}

/// Opens `hash` afresh from the copy [`serve_broken`] serves on `broken` (the module cannot be
/// fetched; the minimap's place says so) and returns what the page's meta tag should say, for
/// [`restore_module_name`].
async fn opened_broken(client: &Client, broken: u16, hash: &str) -> Result<String, String> {
    reopen(client, broken, hash).await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=minimap-load-error]')",
        20,
        "the minimap's place to say the module could not be loaded",
    )
    .await?;
    module_fetches(client, 0, "the module's files cannot be fetched").await?;
    let meta = js(
        client,
        "return document.querySelector('meta[name=batchscope-modes]').content.replace(/missing-modes-/g, 'batchscope-modes-');",
    )
    .await?;
    match meta {
        Value::String(meta) => Ok(meta),
        other => Err(format!(
            "the page should name its second module in a meta tag: {other}"
        )),
    }
}

/// Puts back the meta tag's content [`opened_broken`] returned.
async fn restore_module_name(client: &Client, meta: &str) -> TestResult {
    js(
        client,
        &format!(
            "document.querySelector('meta[name=batchscope-modes]').content = {}; return true;",
            serde_json::to_string(meta).expect("a string")
        ),
    )
    .await?;
    Ok(())
}

/// A module that cannot be fetched: the message names the file, the micro-batch dashboard's
/// tab still works, and "Try again" loads it once it is there.
async fn broken_then_retried(client: &Client, broken: u16) -> TestResult {
    let meta = opened_broken(client, broken, "#preset=tablestore").await?;
    click(client, "[data-testid=mode-topology]").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=lazy-mode-error]')",
        20,
        "a message that the module could not be loaded",
    )
    .await?;
    let message = text(client, "[data-testid=lazy-mode-error]").await?;
    if !message.contains("Topology dashboard could not be loaded")
        || !message.contains("missing-modes-")
    {
        return Err(format!("the message should name what failed: {message}"));
    }
    restore_module_name(client, &meta).await?;
    click(client, "[data-testid=lazy-mode-error] button").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=topology-svg]') && !document.querySelector('[data-testid=lazy-mode-error]')",
        30,
        "the Topology dashboard after trying again",
    )
    .await
}

/// The bytes of the file the Export menu saved last: the blob it made a download URL of
/// (noted by [`NOTE_SAVED`]; the page's Content-Security-Policy does not let a script fetch a
/// `blob:` URL).
async fn saved_bytes(client: &Client) -> Result<Vec<u8>, String> {
    let bytes = client
        .execute_async(
            "const done = arguments[arguments.length - 1];
             window.__saved.arrayBuffer()
               .then(b => done(Array.from(new Uint8Array(b))), e => done(String(e)));",
            vec![],
        )
        .await
        .map_err(|e| format!("reading the saved file: {e}"))?;
    serde_json::from_value(bytes).map_err(|e| format!("the saved file's bytes: {e}"))
}

/// Notes each blob the page makes a URL of, as `window.__saved`.
const NOTE_SAVED: &str = "const make = URL.createObjectURL;
    URL.createObjectURL = b => { window.__saved = b; return make.call(URL, b); }; return true;";

/// Waits for the Export menu to have saved a file whose record (`name|type|size`) contains
/// `what`, and returns the record.
async fn saved(client: &Client, what: &str) -> Result<String, String> {
    wait_for(
        client,
        &format!(
            "(document.querySelector('[data-testid=export-menu]').dataset.export || '').includes('{what}')"
        ),
        60,
        &format!("the Export menu to save {what}"),
    )
    .await?;
    let record = js(
        client,
        "return document.querySelector('[data-testid=export-menu]').dataset.export;",
    )
    .await?;
    Ok(record.as_str().unwrap_or_default().to_string())
}

async fn exports_from_the_module(client: &Client, port: u16) -> TestResult {
    opened_with_the_minimap(
        client,
        port,
        "#preset=tablestore&seed=7&crash=sink-commit@3&at=40",
    )
    .await?;
    js(
        client,
        "document.querySelector('[data-testid=export-menu]').open = true; return true;",
    )
    .await?;
    js(client, NOTE_SAVED).await?;
    let mut scenario =
        batchscope_engine::microbatch::scenario::preset("tablestore").expect("preset");
    scenario.seed = 7;
    scenario.crashes = vec!["sink-commit@3".parse().expect("a crash point")];

    // The trace: every event of the run and the oracle's verdict.
    click(client, "[data-testid=export-trace]").await?;
    saved(client, "tablestore-trace.json|application/json|").await?;
    module_fetches(
        client,
        2,
        "the trace should fetch the module's script and .wasm once each",
    )
    .await?;
    let trace: Value = serde_json::from_slice(&saved_bytes(client).await?)
        .map_err(|e| format!("the trace is not JSON: {e}"))?;
    let (report, world) = batchscope_check::oracle::check_world(&scenario, false);
    let events = trace["events"].as_array().map_or(0, Vec::len);
    if events != world.events().len() || trace["verdict"] != report.verdict.name() {
        return Err(format!(
            "the trace should hold the run's {} events and its verdict {}: {events} events, {}",
            world.events().len(),
            report.verdict.name(),
            trace["verdict"]
        ));
    }

    // The trace in the Informal Trace Format, as `batchscope run --itf` writes it: read back
    // with the `itf` crate, one state per event.
    click(client, "[data-testid=export-itf]").await?;
    saved(client, "tablestore-trace.itf.json|application/json|").await?;
    let itf_text = String::from_utf8(saved_bytes(client).await?)
        .map_err(|e| format!("the ITF trace is not UTF-8: {e}"))?;
    let itf_trace = itf::trace_from_str::<ItfState>(&itf_text)
        .map_err(|e| format!("the ITF trace does not parse with the itf crate: {e:?}"))?;
    let last_rows = itf_trace.states.last().map(|s| s.value.sink_rows);
    if itf_trace.states.len() != world.events().len() || last_rows != Some(report.delivered as i64)
    {
        return Err(format!(
            "the ITF trace should hold one state per event ({}) ending with {} sink rows: {} states, {last_rows:?}",
            world.events().len(),
            report.delivered,
            itf_trace.states.len()
        ));
    }

    // The checkpoint folder at the cursor: the engine's after 40 events.
    click(client, "[data-testid=export-checkpoint]").await?;
    saved(client, "tablestore-checkpoint-at-40.zip|application/zip|").await?;
    let folder = batchscope_view::upload::from_zip(&saved_bytes(client).await?)?.folder;
    let mut at40 = batchscope_engine::microbatch::World::new(scenario);
    for _ in 0..40 {
        at40.step();
    }
    let names = |f: &batchscope_engine::checkpoint::CheckpointFolder| {
        f.files()
            .map(|(n, b)| (n.to_string(), b.to_vec()))
            .collect::<Vec<_>>()
    };
    if names(&folder) != names(&at40.checkpoint) {
        return Err(format!(
            "the saved folder should be the run's after 40 events: {:?} vs {:?}",
            folder.files().map(|(n, _)| n).collect::<Vec<_>>(),
            at40.checkpoint.files().map(|(n, _)| n).collect::<Vec<_>>()
        ));
    }
    module_fetches(
        client,
        2,
        "the checkpoint folder should reuse the loaded module",
    )
    .await?;

    // The diagram, read by the module from the page it shares: as SVG with the page's styles,
    // and drawn as PNG.
    click(client, "[data-testid=export-svg]").await?;
    saved(client, "tablestore-diagram.svg|image/svg+xml|").await?;
    let svg = String::from_utf8(saved_bytes(client).await?)
        .map_err(|e| format!("the SVG is not text: {e}"))?;
    if !svg.contains("<svg xmlns=\"http://www.w3.org/2000/svg\"") || !svg.contains(".lane-title {")
    {
        return Err(format!(
            "the SVG should be the page's diagram with its styles: {}",
            &svg[..svg.len().min(200)]
        ));
    }
    click(client, "[data-testid=export-png]").await?;
    saved(client, "tablestore-diagram.png|image/png|").await?;
    let png = saved_bytes(client).await?;
    if !png.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Err(format!(
            "the PNG export is not a PNG: {:?}",
            &png[..png.len().min(8)]
        ));
    }
    module_fetches(client, 2, "the diagram should reuse the loaded module").await?;
    no_overflow_no_errors(client).await
}

/// The Explore dialog is drawn by the second module, fetched when it is first opened; clicks
/// in it reach only the dialog (the page's own buttons — Copy link, Edit scenario — stay
/// untouched), and a run it opens loads in the page.
async fn explore_from_the_module(client: &Client, port: u16) -> TestResult {
    opened_with_the_minimap(client, port, "#preset=tablestore&seed=7").await?;
    click(client, "[data-testid=explore-open]").await?;
    wait_for(
        client,
        "(d => d && !d.hidden)(document.querySelector('[data-testid=explore]'))",
        30,
        "the Explore dialog from the second module",
    )
    .await?;
    module_fetches(
        client,
        2,
        "Explore should fetch the module's script and .wasm once each",
    )
    .await?;
    run_exploration(client, "1", 60, "the exploration to finish").await?;
    // The dialog's own element is outside the one the page's app listens on.
    beside_the_root(client, "explore-host", "the module's dialog").await?;
    let untouched = js(
        client,
        "return !(e => e && !e.hidden)(document.querySelector('[data-testid=editor]')) \
           && !document.querySelector('[data-testid=notice]');",
    )
    .await?;
    if untouched != Value::Bool(true) {
        return Err(
            "a click in the dialog reached the page's own buttons (editor or notice shown)".into(),
        );
    }
    click(client, "[data-testid=cell-sink-commit-3]").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=explore]').hidden \
         && document.querySelector('[data-testid=current-event] .crash') \
         && location.hash.includes('crash=sink-commit@3')",
        20,
        "the cell's run in the player, at its crash",
    )
    .await?;
    // Leaving for Topology right as the dialog opens, then coming back: one dialog, drawn
    // again in the page's new element, not a ghost of the first.
    js(
        client,
        "document.querySelector('[data-testid=explore-open]').click(); \
         document.querySelector('[data-testid=mode-topology]').click(); return true;",
    )
    .await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=topology-svg]') && !document.querySelector('[data-testid=explore]')",
        30,
        "Topology, with no Explore dialog left behind",
    )
    .await?;
    click(client, "[data-testid=mode-micro]").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=verdict]')",
        20,
        "the micro-batch dashboard again",
    )
    .await?;
    click(client, "[data-testid=explore-open]").await?;
    wait_for(
        client,
        "document.querySelectorAll('[data-testid=explore]').length === 1 \
         && !document.querySelector('[data-testid=explore]').hidden \
         && document.querySelectorAll('.explore-layer').length === 1",
        30,
        "one Explore dialog, open",
    )
    .await?;
    no_overflow_no_errors(client).await
}

/// The Spark UI tab's charts are drawn by the second module, fetched when the tab first shows
/// them, from the progress of the run on screen.
async fn charts_from_the_module(client: &Client, port: u16) -> TestResult {
    let mut scenario =
        batchscope_engine::microbatch::scenario::preset("tablestore").expect("preset");
    scenario.seed = 7;
    scenario.crashes = vec!["sink-commit@3".parse().expect("a crash point")];
    let (_, world) = batchscope_check::oracle::check_world(&scenario, false);
    let progress = batchscope_view::microbatch::spark_ui::progress(world.events());
    let end = world.events().len();
    opened_with_the_minimap(
        client,
        port,
        &format!("#preset=tablestore&seed=7&crash=sink-commit@3&at={end}"),
    )
    .await?;
    click(client, "[data-testid=tab-progress]").await?;
    wait_for(
        client,
        "['rates', 'durations', 'rows'].every(c =>            document.querySelector(`[data-testid=chart-${c}] svg`)?.childElementCount > 0)",
        30,
        "the three Spark UI charts from the second module",
    )
    .await?;
    module_fetches(
        client,
        2,
        "the charts should fetch the module's script and .wasm once each",
    )
    .await?;
    // The last attempt of the run labels the rows chart's last bar.
    let last = progress.last().ok_or("the run has batch attempts")?;
    let rows = js(
        client,
        "return document.querySelector('[data-testid=chart-rows] svg').textContent;",
    )
    .await?;
    let rows = rows.as_str().unwrap_or_default();
    if !rows.contains(&last.batch_id.to_string()) {
        return Err(format!(
            "the rows chart should label batch {}: {rows}",
            last.batch_id
        ));
    }
    no_overflow_no_errors(client).await
}

/// With the module's name broken (`meta`, as [`opened_broken`] returned it) when `part` (`editor`,
/// `compare`) was asked for: its place names the failed fetch (`says`); with the name back,
/// its "Try again" draws what `drawn` finds, fetching the module's script and .wasm once each.
async fn failed_then_tried_again(
    client: &Client,
    meta: &str,
    part: &str,
    says: &str,
    drawn: &str,
) -> TestResult {
    let error = format!("[data-testid={part}-load-error]");
    wait_for(
        client,
        &format!("document.querySelector('{error}')"),
        20,
        &format!("a message that the {part} part could not be loaded"),
    )
    .await?;
    let message = text(client, &error).await?;
    if !message.contains(says) || !message.contains("missing-modes-") {
        return Err(format!("the message should name what failed: {message}"));
    }
    restore_module_name(client, meta).await?;
    click(client, &format!("{error} button")).await?;
    wait_for(
        client,
        &format!("({drawn}) && !document.querySelector('{error}')"),
        30,
        &format!("the {part} part from the second module after trying again"),
    )
    .await?;
    module_fetches(
        client,
        2,
        &format!("the {part} part should fetch the module's script and .wasm once each"),
    )
    .await
}

/// The scenario editor: drawn by the module, beside the page's root, the first time it opens;
/// a module that cannot be fetched is named in the editor's place, with "Try again"; the
/// editor's own close button (the module's) closes it on the page.
async fn editor_from_the_module(client: &Client, broken: u16) -> TestResult {
    let meta = opened_broken(client, broken, "#preset=tablestore").await?;
    click(client, "[data-testid=editor-open]").await?;
    failed_then_tried_again(
        client,
        &meta,
        "editor",
        "editor could not be loaded",
        "(e => e && !e.hidden)(document.querySelector('[data-testid=editor-host] [data-testid=editor]'))",
    )
    .await?;
    beside_the_root(client, "editor-host", "the module's editor").await?;
    click(client, "[data-testid=ed-close]").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=editor]').hidden",
        10,
        "the editor closed by its own button",
    )
    .await?;
    no_overflow_no_errors(client).await
}

/// Compare mode: its two runs drawn by the module inside the page's layout, in the diagram's
/// place, the first time a comparison is picked; a module that cannot be fetched is named in
/// that place, with "Try again"; a click in what the module drew (the crash matrix) is its own.
async fn compare_from_the_module(client: &Client, broken: u16) -> TestResult {
    let meta = opened_broken(client, broken, "#preset=tablestore").await?;
    pick_comparison(client, "vs:kafka-idempotent").await?;
    failed_then_tried_again(
        client,
        &meta,
        "compare",
        "Compare mode could not be loaded",
        "document.querySelector('.app [data-testid=compare-host] [data-testid=compare-b]')",
    )
    .await?;
    click(client, "[data-testid=compare-host] [data-testid=matrix-go]").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=compare-host] [data-testid=matrix-differences]')",
        60,
        "the crash matrix, made on a click in what the module drew",
    )
    .await?;
    no_overflow_no_errors(client).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_second_module_loads_when_topology_inspect_explore_an_export_a_chart_or_the_editor_needs_it(
) {
    let session = Session::start("e2e-modes").await;
    let (client, port) = (&session.client, session.port);
    let broken = serve_broken();
    let mut result = drive(client, port).await;
    if result.is_ok() {
        result = minimap_from_the_module(client, port).await;
    }
    if result.is_ok() {
        result = broken_then_retried(client, broken).await;
    }
    if result.is_ok() {
        result = exports_from_the_module(client, port).await;
    }
    if result.is_ok() {
        result = explore_from_the_module(client, port).await;
    }
    if result.is_ok() {
        result = charts_from_the_module(client, port).await;
    }
    if result.is_ok() {
        result = editor_from_the_module(client, broken).await;
    }
    if result.is_ok() {
        result = compare_from_the_module(client, broken).await;
    }
    session.close().await;
    if let Err(message) = result {
        panic!("{message}");
    }
}

/// What the ITF export's states hold that the export test reads (the `itf` crate decodes them).
#[derive(Debug, serde::Deserialize)]
struct ItfState {
    sink_rows: i64,
}
