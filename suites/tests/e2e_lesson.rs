//! End-to-end test of a guided lesson in headless Chromium: open the tablestore preset (seed
//! 000's question), start its guided tour, and walk it from the first stop to the last. At each
//! stop playback must have paused exactly where the engine's own run puts the stop, with the
//! stop's text and its side-panel tab on screen, the row the stop talks about highlighted and
//! scrolled into view; the last stop shows the oracle's verdict.
//! Then the same for the Topology mode's shopping tour (seed 003): the failure it loads, each
//! stop at the step the engine puts it. Saves `target/e2e/lesson.png` and `lesson-topology.png`.
//! And every stop of every tour, micro-batch and topology, jumped to with its dot: the element
//! outlined (a checkpoint file, a Meta row, a sink batch; a node of the topology graph) is the
//! one the stop's words name, alone and in view.
//!
//! Needs `bash scripts/page.sh` (the release page, `dist/`) and `/usr/bin/chromedriver` + `/usr/bin/chromium`;
//! it fails, naming the missing piece, without them.

mod common;

use batchscope_engine::microbatch::scenario::preset;
use batchscope_engine::microbatch::World;
use batchscope_view::microbatch::tab::Tab;
use batchscope_view::microbatch::tour::{stop_cursors, tour};
use batchscope_view::microbatch::url::DEFAULT_SEED;
use batchscope_view::topology::{parse_topology, record, topo_stop_cursors, topology_tour};
use common::browser::*;
use fantoccini::Client;
use serde_json::json;

const PRESET: &str = "tablestore";

/// Where each stop of the tour pauses, and the final verdict, from the engine itself.
fn expected() -> (Vec<usize>, String) {
    let t = tour(PRESET);
    let mut scenario = preset(PRESET).expect("preset");
    scenario.seed = DEFAULT_SEED;
    scenario.crashes = t
        .crash
        .map(|c| c.parse().expect("the tour's crash point"))
        .into_iter()
        .collect();
    let report = batchscope_check::check(&scenario);
    let mut world = World::new(scenario);
    while !world.is_converged() && world.events().len() < 20_000 {
        world.step();
    }
    let cursors = stop_cursors(&t.stops, world.events())
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            c.unwrap_or_else(|| panic!("stop {} of the {PRESET} tour is never reached", i + 1))
        })
        .collect();
    (cursors, report.verdict.name().to_string())
}

async fn walk(client: &Client, port: u16) -> TestResult {
    let (cursors, verdict) = expected();
    let stops = tour(PRESET).stops;
    let n = stops.len();
    open(client, port, &format!("#preset={PRESET}")).await?;
    // The lesson offers its tour; the fastest speed keeps the walk short.
    select(client, "#speed", "4").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=tour-start]')",
        10,
        "the guided-tour button in the lesson",
    )
    .await?;
    click(client, "[data-testid=tour-start]").await?;

    for (i, stop) in stops.iter().enumerate() {
        if i > 0 {
            click(client, "[data-testid=tour-next]").await?;
        }
        wait_for_stop(client, i, n, stop.title).await?;
        let play = js(
            client,
            "return document.querySelector('#play').getAttribute('aria-label');",
        )
        .await?;
        if play != json!("Play") {
            return Err(format!(
                "stop {}: playback should be paused, the button says {play}",
                i + 1
            ));
        }
        let count = text(client, "[data-testid=step-count]").await?;
        let shown: usize = count
            .split('/')
            .next()
            .and_then(|s| s.trim().parse().ok())
            .ok_or_else(|| format!("step count `{count}`"))?;
        if shown != cursors[i] {
            return Err(format!(
                "stop {} ({}) should pause after event {}, the page shows {count}",
                i + 1,
                stop.title,
                cursors[i]
            ));
        }
        let body = text(client, "[data-testid=tour-stop-text]").await?;
        if body != stop.text {
            return Err(format!("stop {}: text `{body}`", i + 1));
        }
        if let Some(panel) = stop.panel {
            let selected = js(
                client,
                &format!(
                    "return document.querySelector('[data-testid=tab-{}]').getAttribute('aria-selected');",
                    panel.name()
                ),
            )
            .await?;
            if selected != json!("true") {
                return Err(format!(
                    "stop {} should show the {} tab",
                    i + 1,
                    panel.name()
                ));
            }
        }
        if matches!(stop.panel, Some(Tab::Checkpoint | Tab::Meta)) {
            focus_in_view(client, i, stop.title).await?;
        }
        if i == 3 {
            save_screenshot(client, "lesson.png").await?;
            js(
                client,
                "document.documentElement.setAttribute('data-theme', 'dark'); return true;",
            )
            .await?;
            save_screenshot(client, "lesson-dark.png").await?;
            js(
                client,
                "document.documentElement.setAttribute('data-theme', 'system'); return true;",
            )
            .await?;
        }
    }

    // The end: the tour is complete and the badge gives the oracle's verdict.
    wait_for(
        client,
        "document.querySelector('[data-testid=tour-done]')",
        10,
        "the tour to say it is complete",
    )
    .await?;
    let shown = js(
        client,
        "return document.querySelector('[data-testid=verdict]').dataset.verdict;",
    )
    .await?;
    if shown != json!(verdict) {
        return Err(format!(
            "the last stop should show the verdict {verdict}, the badge says {shown}"
        ));
    }
    // The link carries the tour.
    // The address bar follows the moment on screen a moment after it settles.
    wait_for(
        client,
        "location.hash.includes('tour=1')",
        10,
        "the URL to carry tour=1",
    )
    .await?;
    // Leaving the tour brings the invitation back.
    click(client, "[data-testid=tour-exit]").await?;
    wait_for(
        client,
        "document.querySelector('[data-testid=tour-start]') && !document.querySelector('[data-testid=tour]')",
        10,
        "the tour to close",
    )
    .await?;
    // The lesson index opens another lesson with its tour on and its crash armed.
    js(
        client,
        "document.querySelector('[data-testid=lesson-index]').open = true; return true;",
    )
    .await?;
    js(
        client,
        "document.querySelector('[data-testid=lesson-index]').scrollIntoView(); return true;",
    )
    .await?;
    save_screenshot(client, "lesson-index.png").await?;
    click(
        client,
        "[data-testid=lesson-index] a[href^='#preset=kafka-append&']",
    )
    .await?;
    wait_for(
        client,
        "document.querySelector('#preset').value === 'kafka-append' \
         && document.querySelector('[data-testid=tour]') \
         && document.querySelector('[data-testid=lesson-title]').textContent.includes('plain append')",
        10,
        "the kafka-append lesson from the index, tour on",
    )
    .await?;
    wait_for(
        client,
        "location.hash.includes('crash=sink-commit@3')",
        10,
        "the index link to arm the tour's crash (in the URL)",
    )
    .await?;
    no_overflow_no_errors(client).await
}

/// At a stop, the row its text talks about (`[data-focus]` in the open panel) is highlighted
/// and scrolled into view: inside the window and inside every scrolling box around it. An
/// `offsets/N` on show lists its source offsets first, the metadata line folded.
async fn focus_in_view(client: &Client, i: usize, title: &str) -> TestResult {
    let seen = js(
        client,
        "const el = [...document.querySelectorAll('.panels.at-stop [data-focus]')].pop(); \
         if (!el) return 'nothing is highlighted'; \
         const r = el.getBoundingClientRect(); \
         if (r.top < 0 || r.bottom > innerHeight) return `outside the window: ${r.top}..${r.bottom}`; \
         for (let p = el.parentElement; p; p = p.parentElement) { \
           if (!/(auto|scroll)/.test(getComputedStyle(p).overflowY)) continue; \
           const q = p.getBoundingClientRect(); \
           if (r.top < q.top - 1 || r.bottom > q.bottom + 1) return `outside ${p.className}`; \
         } \
         const off = document.querySelector('.offsets-file'); \
         if (off && (!off.querySelector('.offsets-sources') || off.querySelector('details[open]'))) \
           return 'offsets/N should show its sources first, the metadata folded'; \
         return 'in view';",
    )
    .await?;
    if seen != json!("in view") {
        return Err(format!(
            "stop {} ({title}): the row it talks about: {seen}",
            i + 1
        ));
    }
    Ok(())
}

/// Pauses at stop `i` of `n`: the progress names it and the tour block marks the pause.
async fn wait_for_stop(client: &Client, i: usize, n: usize, title: &str) -> TestResult {
    wait_for(
        client,
        &format!(
            "document.querySelector('[data-testid=tour-progress]').textContent === 'stop {} of {n}' \
             && document.querySelector('.tour-at-stop')",
            i + 1
        ),
        60,
        &format!("the tour to pause at stop {} ({title})", i + 1),
    )
    .await?;
    let shown = text(client, "[data-testid=tour-stop-title]").await?;
    if shown != title {
        return Err(format!(
            "stop {}: title `{shown}`, expected `{title}`",
            i + 1
        ));
    }
    Ok(())
}

async fn walk_topology(client: &Client, port: u16) -> TestResult {
    let t = topology_tour("shopping");
    let url = parse_topology(t.hash).map_err(|e| format!("the tour's link: {e:?}"))?;
    let run = record(&url.run().expect("a run"))?;
    let cursors = topo_stop_cursors(&t.stops, run.last().trace());
    let n = t.stops.len();
    open_topology(client, port, "#mode=topology&topology=shopping").await?;
    select(client, "#topo-speed", "4").await?;
    click(client, "[data-testid=tour-start]").await?;
    for (i, stop) in t.stops.iter().enumerate() {
        if i > 0 {
            click(client, "[data-testid=tour-next]").await?;
        }
        wait_for_stop(client, i, n, stop.title).await?;
        let at = js(
            client,
            "return Number(document.querySelector('[data-testid=topo-scrub]').value);",
        )
        .await?;
        let expected = cursors[i].ok_or_else(|| format!("stop {} is never reached", i + 1))?;
        if at != json!(expected) {
            return Err(format!(
                "topology stop {} should pause at step {expected}, the scrubber is at {at}",
                i + 1
            ));
        }
        if i == 5 {
            save_screenshot(client, "lesson-topology.png").await?;
        }
    }
    wait_for(
        client,
        "document.querySelector('[data-testid=tour-done]')",
        10,
        "the topology tour to end",
    )
    .await?;
    for needle in ["fail=price_job@2", "tour=1", "level=rc"] {
        wait_for(
            client,
            &format!("location.hash.includes('{needle}')"),
            10,
            &format!("the URL to carry {needle}"),
        )
        .await?;
    }
    no_overflow_no_errors(client).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guided_tours_walk_from_their_first_stop_to_their_end() {
    let session = Session::start("lesson").await;
    let result = match walk(&session.client, session.port).await {
        Ok(()) => walk_topology(&session.client, session.port).await,
        Err(e) => Err(e),
    };
    session.close().await;
    if let Err(message) = result {
        panic!("{message}");
    }
}

/// What the page outlines at a stop: (open tab, how many elements of the open panel are
/// outlined, the outlined element's text, `in view` or where it is).
const OUTLINED: &str = r#"
    const tab = document.querySelector('.tabs [aria-selected=true]');
    const all = [...document.querySelectorAll('.panels.at-stop [data-focus]')]
      .filter(e => getComputedStyle(e).outlineStyle !== 'none');
    const el = all[0];
    let where = 'in view';
    if (el) {
      const r = el.getBoundingClientRect();
      if (r.top < 0 || r.bottom > innerHeight) where = `outside the window: ${r.top}..${r.bottom}`;
      for (let p = el.parentElement; p; p = p.parentElement) {
        if (!/(auto|scroll)/.test(getComputedStyle(p).overflowY)) continue;
        const q = p.getBoundingClientRect();
        if (r.top < q.top - 1 || r.bottom > q.bottom + 1) where = `outside ${p.className}`;
      }
    }
    // A file of the checkpoint folder reads as its path: its folder's name, then its own.
    const dir = el && el.closest('.tree') && el.parentElement.parentElement.querySelector(':scope > .tree-dir');
    const words = el ? (dir ? dir.textContent : '') + el.textContent.replace(/\s+/g, ' ').trim() : '';
    return [tab ? tab.dataset.testid.replace('tab-', '') : '', all.length, words, where];"#;

/// Every stop of every micro-batch tour, jumped to with its dot: the stop's tab is open and
/// exactly one element is outlined there, in view, holding the words the stop's text names
/// (`stop_names`); a stop with nothing to outline outlines nothing.
async fn every_micro_stop(client: &Client, port: u16) -> TestResult {
    let mut problems = vec![];
    for p in batchscope_engine::microbatch::scenario::presets() {
        let t = tour(p.name);
        let names = stop_names(p.name);
        if names.len() != t.stops.len() {
            problems.push(format!(
                "{}: {} names for {} stops",
                p.name,
                names.len(),
                t.stops.len()
            ));
            continue;
        }
        goto_fresh(client, port, &format!("#preset={}&tour=1", p.name)).await?;
        wait_for(
            client,
            "document.querySelectorAll('.tour-dot').length > 0",
            30,
            "the tour's dots",
        )
        .await?;
        for (i, (stop, name)) in t.stops.iter().zip(&names).enumerate() {
            if let Some(words) = name {
                let named = format!("{} {}", stop.title, stop.text).to_lowercase();
                if !named.contains(words) {
                    problems.push(format!(
                        "{} stop {}: the text does not name `{words}`",
                        p.name,
                        i + 1
                    ));
                }
            }
            js(
                client,
                &format!("document.querySelectorAll('.tour-dot')[{i}].click(); return true;"),
            )
            .await?;
            let title = stop.title.replace('\\', "\\\\").replace('\'', "\\'");
            wait_for(
                client,
                &format!(
                    "document.querySelector('[data-testid=tour-progress]').textContent === 'stop {} of {}' \
                     && document.querySelector('.tour-at-stop') \
                     && document.querySelector('[data-testid=tour-stop-title]').textContent === '{title}'",
                    i + 1,
                    t.stops.len()
                ),
                20,
                &format!("{} stop {}", p.name, i + 1),
            )
            .await?;
            tokio::time::sleep(std::time::Duration::from_millis(150)).await;
            let seen = js(client, OUTLINED).await?;
            let tab = seen[0].as_str().unwrap_or_default();
            let count = seen[1].as_u64().unwrap_or(0);
            let shown = seen[2].as_str().unwrap_or_default();
            let place = seen[3].as_str().unwrap_or_default();
            let here = format!("{} stop {} ({})", p.name, i + 1, stop.title);
            if let Some(panel) = stop.panel {
                if tab != panel.name() {
                    problems.push(format!(
                        "{here}: the {tab} tab is open, not {}",
                        panel.name()
                    ));
                }
            }
            match name {
                Some(words) if count != 1 || !shown.to_lowercase().contains(words) || place != "in view" => {
                    problems.push(format!(
                        "{here}: {count} outlined, `{shown}` ({place}); expected one holding `{words}`"
                    ))
                }
                None if count > 1 || place != "in view" => problems.push(format!(
                    "{here}: at most one outlined, in view: {count}, `{shown}` ({place})"
                )),
                _ => {}
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// For each stop of a preset's tour, the words its title or text names that the outlined
/// element must hold (a file's path, a batch's rows, the Meta table's `finished` row); `None`:
/// the stop names no single row (a conclusion, a restart), and at most one thing is outlined.
#[rustfmt::skip]
fn stop_names(preset: &str) -> Vec<Option<&'static str>> {
    const N: Option<&str> = None;
    let s = Some;
    match preset {
        "kafka-idempotent" => vec![s("offsets/0"), s("commits/0"), s("batch 3"), s("commits/3"), N, s("batch 3"), N],
        "kafka-append" => vec![s("offsets/0"), N, s("batch 3"), s("commits/3"), N, s("batch 3"), N],
        "tablestore" => vec![N, s("offsets/0"), N, N, s("commits/2"), N, N],
        "tablestore-append" => vec![s("batch 2"), s("commits/2"), N, N, N, N],
        "tablestore-split" => vec![s("finished"), N, s("commits/4"), s("finished"), N, N],
        "tablestore-two-phase" => vec![s("batch 2"), s("commits/2"), N, N, N, N],
        "pull-ahead" => vec![N, s("offsets/1"), s("commits/2"), N, N],
        "auto-commit" => vec![N, N, N, N, N],
        "foreach-batch-multi" => vec![s("batch 2"), s("commits/2"), N, N],
        "continuous-epochs" => vec![N, s("commits/1"), N, s("commits/3"), N, N, N],
        "reader-never-closes" => vec![N, N, N, N],
        "reader-idle-timeout" => vec![s(".prepared"), s(".committed"), N, s("commits/0"), N, N],
        "seatunnel-checkpoint-records" => vec![s(".prepared"), N, s("commits/0"), N, N],
        "sink-outage" => vec![N; 8],
        "seatunnel-committed-only" => vec![s(".prepared"), N, N, N, N, N],
        "seatunnel-idempotent-sink" => vec![N; 5],
        "seatunnel-dev-timer" => vec![N, N, s("commits/0"), N, N],
        "checkpoint-deleted-latest" => vec![s("commits/2"), N, N, s("sources/0/0"), N],
        "checkpoint-deleted-earliest" => vec![s("commits/2"), N, s("sources/0/0"), s("batch 0"), N],
        "batch-id-in-memory" => vec![s("batch 3"), s("commits/3"), N, s("batch 3"), N],
        "kafka-v1-source" => vec![s("commits/3"), N, N, N, N],
        "kafka-retention-fail" => vec![N; 5],
        "kafka-retention-skip" => vec![N; 5],
        "torn-offset-log" => vec![s("batch 2"), N, s("offsets/2"), N, N],
        "metadata-lost-txn-sink" => vec![s("batch 2"), N, N, s("metadata"), s("batch 2"), N],
        "evolution-source-added" => vec![s("commits/2"), N, N, N, N],
        "async-progress" => vec![s("offsets/0"), N, N, N, s("batch 1"), N],
        "async-progress-off" => vec![s("offsets/3"), N, N, N, N],
        "two-drivers" => vec![s("batch 2"), N, N, s("batch 2"), N, N],
        "backlog-crash-loop" => vec![N, s("offsets/2"), N, N, N, N, N, N],
        "backlog-limited" => vec![N, N, s("offsets/2"), s("commits/2"), N],
        _ => vec![],
    }
}

/// Every stop of every topology tour, jumped to with its dot: the graph highlights the node
/// the stop names (`topo_stop_names`: a job, a table, a CDC source), and the text names it.
async fn every_topology_stop(client: &Client, port: u16) -> TestResult {
    let mut problems = vec![];
    for (name, _) in batchscope_engine::barrier::presets() {
        let t = topology_tour(name);
        let names = topo_stop_names(name);
        if names.len() != t.stops.len() {
            problems.push(format!(
                "{name}: {} names for {} stops",
                names.len(),
                t.stops.len()
            ));
            continue;
        }
        open_topology(client, port, &format!("{}&tour=1", t.hash)).await?;
        wait_for(
            client,
            "document.querySelectorAll('.tour-dot').length > 0",
            30,
            "the topology tour's dots",
        )
        .await?;
        for (i, (stop, words)) in t.stops.iter().zip(&names).enumerate() {
            let here = format!("{name} stop {} ({})", i + 1, stop.title);
            let said = format!("{} {}", stop.title, stop.text).to_lowercase();
            let all = ["every table", "all tables", "each table"]
                .iter()
                .any(|w| said.contains(w));
            // At the end the graph shows every table's final state, whatever the last words.
            let last = i + 1 == t.stops.len();
            for node in words.iter().filter(|n| !(said.contains(*n) || all || last)) {
                problems.push(format!("{here}: the text does not name `{node}`"));
            }
            js(
                client,
                &format!("document.querySelectorAll('.tour-dot')[{i}].click(); return true;"),
            )
            .await?;
            wait_for(
                client,
                &format!(
                    "document.querySelector('[data-testid=tour-progress]').textContent === 'stop {} of {}' \
                     && document.querySelector('.tour-at-stop')",
                    i + 1,
                    t.stops.len()
                ),
                20,
                &here,
            )
            .await?;
            let on = js(
                client,
                "return [...document.querySelectorAll('[data-testid=topology-svg] .node-on[data-node]')].map(n => n.dataset.node);",
            )
            .await?;
            let mut on: Vec<String> = serde_json::from_value(on).unwrap_or_default();
            on.sort();
            let mut expected: Vec<&str> = words.to_vec();
            expected.sort();
            if on != expected {
                problems.push(format!(
                    "{here}: the graph highlights {on:?}, not {expected:?}"
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// For each stop of a topology tour, the nodes (jobs, tables, CDC sources) the graph highlights
/// there, each named by the stop's words ("every table", "all tables" and "each table" name
/// all of them).
#[rustfmt::skip]
fn topo_stop_names(name: &str) -> Vec<&'static [&'static str]> {
    const SHOP: &[&str] = &["shopping", "user_item_amount", "user_item_price"];
    const CHAIN: &[&str] = &["table1", "table2", "table3"];
    match name {
        "shopping" => vec![&["cdc"], &["user_item_price"], SHOP, SHOP, SHOP, &["price_job", "user_item_price"], &["price_job"], SHOP, SHOP],
        "chain" => vec![&["cdc"], &["join_job"], CHAIN, CHAIN, &["sum_job", "table2"], &["sum_job"], CHAIN, CHAIN],
        "three-queries" => vec![&["cdc", "cdc3"], &["table2"], CHAIN, CHAIN, &["amount_job", "table2"], CHAIN],
        "kafka-2pc-timeout" => vec![&["orders_topic"], &["to_kafka", "orders_topic"], &["to_kafka"], &["orders_topic"], &["orders_topic"]],
        "paimon-expired-snapshot" => vec![&["enrich_job", "order_totals"], &["enrich_job"], &["enrich_job"], &["enrich_job", "order_totals"]],
        "group-offset-lag" => vec![&["orders", "order_totals"], &["fast_job", "orders"], &["fast_job"], &["orders", "order_totals"], &["orders", "order_totals"]],
        "notify-twice" => vec![&["paimon_job", "orders"], &["paimon_job"], &["custom_job"], &["custom_job", "orders_copy"], &["orders"]],
        _ => vec![],
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tour_stop_outlines_what_its_text_names() {
    let session = Session::start("tour-stops").await;
    let micro = every_micro_stop(&session.client, session.port).await;
    let topology = every_topology_stop(&session.client, session.port).await;
    let result = match (micro, topology) {
        (Ok(()), Ok(())) => Ok(()),
        (m, t) => Err([m.err(), t.err()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("\n")),
    };
    session.close().await;
    if let Err(message) = result {
        panic!("{message}");
    }
}
