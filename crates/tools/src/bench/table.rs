//! The performance table: one row per measure, what was measured (per scenario joined with
//! ` / `), and the goal it is read against. Goals are written, never asserted.

use super::format::{commas, mb, mb_text, per_record, ratio, seconds, seconds_of_ms};
use super::measurements::{Explore, Measurements, Wasm};
use std::collections::BTreeMap;

/// One row of the table.
struct Row {
    measure: String,
    measured: String,
    goal: &'static str,
}

fn row(measure: impl Into<String>, measured: String, goal: &'static str) -> Row {
    let measure = measure.into();
    Row {
        measure,
        measured,
        goal,
    }
}

/// The goal column of a row held to nothing.
const NONE: &str = "—";

/// The goal of wasm against native: at most half as slow again.
const AS_NATIVE: &str = "≤ 1.5×";

/// The goal of the explorer's longer runs.
const WITHIN_10_S: &str = "≤ 10 s";

/// What a row says of a scenario whose measure is missing.
const UNKNOWN: &str = "unknown";

/// What a browser row says when `benches/browser.rs` printed no such figure.
const NOT_MEASURED: &str = "not measured (the browser benchmark failed; see its output)";

/// The table in Markdown, header included, without a final newline.
pub fn table(m: &Measurements) -> String {
    let rows = [
        engine_rows(m),
        warm_rows(m),
        memory_rows(m),
        size_and_explorer_rows(m),
        scale_rows(m),
        browser_rows(&m.browser),
        lighthouse_rows(&m.lighthouse),
    ];
    let mut out = String::from("| measure | measured | goal |\n|---|---|---|");
    for r in rows.iter().flatten() {
        out.push_str(&format!(
            "\n| {} | {} | {} |",
            r.measure, r.measured, r.goal
        ));
    }
    out
}

/// The explorer at depth 3 after every event, sharded on the largest preset, and the swarm.
fn scale_rows(m: &Measurements) -> Vec<Row> {
    let (three, one, two) = (&m.every_event3, &m.split, &m.split_shards);
    let same = match m.split_same {
        true => "the merged result equals the one process's",
        false => "the merged result DIFFERS from the one process's",
    };
    let rate = m.swarm.runs as f64 / m.swarm.seconds.max(1e-9);
    vec![
        row(
            "explorer, `tablestore`, crash after every event, depth 3 (`--every-event --depth 3 \
             --json`)",
            format!(
                "{} runs ({} pruned) in {:.1} s",
                commas(three.runs),
                commas(three.pruned),
                three.seconds
            ),
            "≤ 10 min",
        ),
        row(
            "explorer, largest preset `tablestore-split`, after every event, depth 2: one \
             process / two shards at once (`--shard 1/2`, `--shard 2/2`, then `explore merge`)",
            format!(
                "{} runs ({} pruned): {:.2} s / {:.2} s; {same}",
                commas(one.runs),
                commas(one.pruned),
                one.seconds,
                two.seconds
            ),
            NONE,
        ),
        row(
            "swarm: random scenarios and faults, every invariant checked (`batchscope swarm \
             --seed 1 --json`)",
            format!(
                "{} runs in {:.2} s ({rate:.0} runs/s), {} violations",
                commas(m.swarm.runs),
                m.swarm.seconds,
                m.swarm.violations
            ),
            "0 violations",
        ),
    ]
}

/// `f` of every scenario, joined with ` / `.
fn per(m: &Measurements, f: impl Fn(&str) -> String) -> String {
    m.scenarios().map(f).collect::<Vec<_>>().join(" / ")
}

/// Time of each scenario in a wasm set, and its ratio to the native first run.
fn wasm_pair(m: &Measurements, set: &BTreeMap<String, Wasm>) -> (String, String) {
    let time = per(m, |s| {
        set.get(s).map_or(UNKNOWN.into(), |w| seconds_of_ms(w.ms))
    });
    let r = per(m, |s| match (set.get(s), m.native_of(s)) {
        (Some(w), Some(n)) => ratio(w.ms, n.cold_ms),
        _ => UNKNOWN.into(),
    });
    (time, r)
}

/// The engine alone, natively and in wasm: each scenario's first run.
fn engine_rows(m: &Measurements) -> Vec<Row> {
    let names = m
        .scenarios()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(" / ");
    let events = per(m, |s| {
        m.native_of(s).map_or(UNKNOWN.into(), |n| commas(n.events))
    });
    let native = per(m, |s| {
        m.native_of(s)
            .map_or(UNKNOWN.into(), |n| seconds_of_ms(n.cold_ms))
    });
    let (cold, cold_ratio) = wasm_pair(m, &m.wasm);
    let (grown, grown_ratio) = wasm_pair(m, &m.wasm_grown);
    let (compiled, compiled_ratio) = wasm_pair(m, &m.wasm_compiled);
    vec![
        row(
            format!(
                "engine only, native, first run in the process: {names} (1 M records, 256 \
                 channels; events: {events})"
            ),
            native,
            NONE,
        ),
        row(
            "the same, wasm in Node, first call (release wasm, `runScenarioJson` timed alone)",
            cold,
            NONE,
        ),
        row(
            "wasm in Node ÷ native, first run (cold)",
            cold_ratio,
            AS_NATIVE,
        ),
        row(
            "the same first call in a process whose module's allocator first took and freed as \
             much memory as the run needs (untimed): the code cold, the memory grown",
            grown,
            NONE,
        ),
        row(
            "wasm in Node ÷ native, first run, memory grown first",
            grown_ratio,
            NONE,
        ),
        row(
            "the same first call, the memory grown first and every function compiled by V8's \
             optimising tier as the module loaded (untimed: `node --no-liftoff \
             --no-wasm-lazy-compilation`; a browser caches that code for a page's later visits)",
            compiled,
            NONE,
        ),
        row(
            "wasm in Node ÷ native, first run, memory grown and code optimised first",
            compiled_ratio,
            AS_NATIVE,
        ),
    ]
}

/// The engine alone, natively and in wasm: the median of the runs after the first.
fn warm_rows(m: &Measurements) -> Vec<Row> {
    let native = |s: &str| m.native_of(s).map(|n| n.warm_ms);
    let wasm = |s: &str| m.wasm.get(s).map(|w| w.warm_ms);
    let time = |ms: Option<f64>| ms.map_or(UNKNOWN.into(), seconds_of_ms);
    let warm_ratio = |s: &str| match (wasm(s), native(s)) {
        (Some(w), Some(n)) => ratio(w, n),
        _ => UNKNOWN.into(),
    };
    vec![
        row(
            "engine only, native, warm (median of 3 more runs in the same process)",
            per(m, |s| time(native(s))),
            NONE,
        ),
        row(
            "the same, wasm in Node, warm (median of 3 more calls in the same process)",
            per(m, |s| time(wasm(s))),
            NONE,
        ),
        row("wasm in Node ÷ native, warm", per(m, warm_ratio), AS_NATIVE),
    ]
}

/// Peak memory, the CLI's wall time, and the memory a record adds.
fn memory_rows(m: &Measurements) -> Vec<Row> {
    let records = |s: &str| {
        let (large, small) = (m.rss.get(s), m.rss_small.get(s));
        (
            large.map_or(0, |r| r.records),
            small.map_or(0, |r| r.records),
        )
    };
    let growth = |large: Option<u64>, small: Option<u64>, s: &str| {
        let (n, fewer) = records(s);
        per_record(large, small, n, fewer)
    };
    let rss = |s: &str| m.rss.get(s).and_then(|r| r.bytes);
    let rss_small = |s: &str| m.rss_small.get(s).and_then(|r| r.bytes);
    let cli = |s: &str| m.cli.get(s).and_then(|c| c.peak_bytes);
    let cli_small = |s: &str| m.cli_small.get(s).and_then(|c| c.peak_bytes);
    let heap = |s: &str| m.wasm.get(s).and_then(|w| w.heap_bytes);
    let heap_small = |s: &str| m.wasm_small.get(s).and_then(|w| w.heap_bytes);
    let wall = |s: &str| {
        let wall = m.cli.get(s).and_then(|c| c.wall_s);
        wall.map_or(UNKNOWN.into(), seconds)
    };
    vec![
        row(
            "peak memory (RSS), native engine alone",
            per(m, |s| mb(rss(s))),
            "≤ 128 MB",
        ),
        row(
            "peak memory (RSS), `batchscope run FILE` (includes the oracle)",
            per(m, |s| mb(cli(s))),
            "≤ 256 MB",
        ),
        row(
            "wall time, release `batchscope run FILE`",
            per(m, wall),
            NONE,
        ),
        row(
            "wasm heap in Node after the run (memory buffer)",
            per(m, |s| mb(heap(s))),
            NONE,
        ),
        row(
            "memory a record adds, from 100 k to 1 M records: native engine alone (peak RSS)",
            per(m, |s| growth(rss(s), rss_small(s), s)),
            NONE,
        ),
        row(
            "the same, `batchscope run FILE` (includes the oracle)",
            per(m, |s| growth(cli(s), cli_small(s), s)),
            NONE,
        ),
        row(
            "the same, wasm heap in Node",
            per(m, |s| growth(heap(s), heap_small(s), s)),
            NONE,
        ),
    ]
}

/// The page's two modules, the throughput floor, and the explorer.
fn size_and_explorer_rows(m: &Measurements) -> Vec<Row> {
    let size = |gzip: u64, raw: u64| format!("{} B ({} B raw)", commas(gzip), commas(raw));
    let floor = |s: &str| {
        m.native_of(s).map_or(UNKNOWN.into(), |n| {
            let engine = format!("{:.0}", n.cold_ms / n.map_ms);
            format!(
                "Vec {:.0} ms, map {:.0} ms (engine {engine}× the map)",
                n.vec_ms, n.map_ms
            )
        })
    };
    let Explore {
        runs,
        pruned,
        windows,
        never_crashed,
        seconds: every_s,
    } = m.every_event;
    let every_event = format!(
        "{} runs ({} pruned), {windows} crash windows reached, {never_crashed} passed without \
         a crash, in {every_s:.2} s",
        commas(runs),
        commas(pruned)
    );
    let explore = &m.explore;
    let depth3 = &m.depth3;
    vec![
        row(
            "release dashboard `.wasm` the page loads (micro-batch), gzip -9 (raw)",
            size(m.web.gzip, m.web.raw),
            "≤ 350 KB",
        ),
        row(
            "the second module, fetched once the page has painted (the minimap, the danger \
             band, step notes; Topology, Inspect, Explore, the editor, compare mode, the Spark \
             UI charts, exports), built for speed (below, \"Profiles\"), gzip -9 (raw)",
            size(m.modes.gzip, m.modes.raw),
            NONE,
        ),
        row(
            "throughput floor: the same records into a `Vec` of fixed-width rows / a \
             `BTreeMap<(u32, u64), u32>`",
            per(m, floor),
            "a bound the engine approaches",
        ),
        row(
            "explorer, `tablestore`, depth 2 (`batchscope explore --json`)",
            format!(
                "{} runs in {:.2} s (wall, whole command)",
                commas(explore.runs),
                explore.seconds
            ),
            "keep",
        ),
        row(
            "explorer, `tablestore`, crash after every event, depth 2 (`--every-event --depth 2 \
             --json`)",
            every_event,
            WITHIN_10_S,
        ),
        row(
            "explorer, `tablestore`, named points, depth 3 (`--depth 3 --json`)",
            format!("{} runs in {:.2} s", commas(depth3.runs), depth3.seconds),
            WITHIN_10_S,
        ),
    ]
}

/// The rows of `benches/browser.rs`: the largest preset's load, the frame interval, the two
/// scaled scenarios, then the largest preset's clicks.
fn browser_rows(b: &BTreeMap<String, String>) -> Vec<Row> {
    let value = |key: &str| b.get(key).cloned().unwrap_or_else(|| NOT_MEASURED.into());
    let mut rows = vec![
        row(
            "browser: first load → app mounted (release, headless Chromium)",
            value("load"),
            NONE,
        ),
        row(
            "browser: the display's frame interval (a painted step waits for the next frame: \
             never below it)",
            value("frame"),
            NONE,
        ),
    ];
    for (prefix, what) in [
        ("large_", "64 channels × 1,000 batches"),
        ("scale_", "16 channels × 200 batches"),
    ] {
        let steps = value(&format!("{prefix}events"));
        let load = format!(
            "browser: first load → app mounted, {what} (`#scenario=` link of `kafka-idempotent` \
             scaled; {steps} steps)"
        );
        rows.push(row(load, value(&format!("{prefix}load")), NONE));
        rows.extend(click_rows(b, prefix, &format!(", {what}"), ""));
        rows.push(row(
            format!("browser: JS heap after load / at the end, {what}"),
            heap(b, prefix),
            NONE,
        ));
    }
    let preset = value("preset");
    let steps = format!(" ({} steps)", value("events"));
    rows.extend(click_rows(
        b,
        "",
        &format!(", largest preset `{preset}`"),
        &steps,
    ));
    rows.push(row(
        format!("browser: JS heap after load / at the end of the `{preset}` run (after GC)"),
        heap(b, ""),
        NONE,
    ));
    rows.push(row(
        "browser: the danger band ready (one crash verdict after every event of the run on \
         screen, made in slices between paints), every preset",
        value("danger"),
        "≤ 200 ms",
    ));
    rows
}

/// The rows of `suites/tests/e2e_lighthouse.rs`: the four scores against their floors, and the
/// load milestones behind the performance score.
fn lighthouse_rows(l: &BTreeMap<String, String>) -> Vec<Row> {
    let value = |key: &str| {
        l.get(key)
            .cloned()
            .unwrap_or_else(|| "not measured (Lighthouse did not run; see its output)".into())
    };
    let join = |keys: &[&str]| {
        keys.iter()
            .map(|k| value(k))
            .collect::<Vec<_>>()
            .join(" / ")
    };
    vec![
        row(
            "Lighthouse 12.2.3, mobile (a phone's screen, slow 4G and a 4× slower processor, \
             simulated), the release page served gzipped, median of 3 runs: performance / \
             accessibility / best practices / SEO",
            join(&["performance", "accessibility", "best_practices", "seo"]),
            "goal ≥ 95 (a measure of time: reported, not asserted) / 100 / ≥ 95 / ≥ 95 (the \
             suite fails below these three)",
        ),
        row(
            "the same: first contentful paint / largest contentful paint / total blocking time \
             / speed index / cumulative layout shift",
            join(&["fcp", "lcp", "tbt", "si", "cls"]),
            NONE,
        ),
    ]
}

/// Step and step back, each to the DOM laid out and to the painted frame; `first_note` follows
/// the first row's measure only.
fn click_rows(
    b: &BTreeMap<String, String>,
    prefix: &str,
    what: &str,
    first_note: &str,
) -> Vec<Row> {
    let value = |key: &str| {
        b.get(&format!("{prefix}{key}"))
            .cloned()
            .unwrap_or_else(|| NOT_MEASURED.into())
    };
    let laid_out = "DOM updated and laid out";
    let next_frame = "every click in the next frame";
    vec![
        row(
            format!("browser: step click → {laid_out}{what}{first_note}"),
            value("step_work"),
            "p95 ≤ 16 ms",
        ),
        row(
            format!("browser: step click → painted frame{what}"),
            value("step"),
            next_frame,
        ),
        row(
            format!("browser: step back at the end of the run → {laid_out}{what}"),
            value("back_work"),
            "p95 ≤ 16 ms",
        ),
        row(
            format!("browser: step back at the end of the run → painted frame{what}"),
            value("back"),
            next_frame,
        ),
    ]
}

/// `HEAP_LOAD / HEAP_END` of a browser scenario, in megabytes where they are byte counts.
fn heap(b: &BTreeMap<String, String>, prefix: &str) -> String {
    let value = |key: &str| {
        b.get(&format!("{prefix}{key}"))
            .map_or(NOT_MEASURED.to_string(), |v| mb_text(v))
    };
    format!("{} / {}", value("heap_load"), value("heap_end"))
}
