//! The benchmark report on sample measurements: `tests/bench-sample/` holds a folder as
//! `scripts/bench.sh` writes it (the native, memory, `/usr/bin/time` and explorer files taken
//! from the programs on a short run; the wasm, size and browser lines in their programs'
//! formats with the figures of an earlier `docs/PERFORMANCE.md`), and `table.md` is the table
//! the script's shell rendering made from the same files before the rendering moved to Rust
//! (its last three rows, the depth-3, shard and swarm rows, were added later, from short runs
//! of those programs; `every-event3.json` keeps three of its bad runs; the two Lighthouse rows
//! and `lighthouse.txt` came later still, from a run of `suites/tests/e2e_lighthouse.rs`).

use batchscope_tools::bench::document::{document, Context, KEPT_FROM};
use batchscope_tools::bench::measurements::{self, Measurements};
use batchscope_tools::bench::table::table;
use std::fs;
use std::path::{Path, PathBuf};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bench-sample")
}

fn read_sample() -> Measurements {
    Measurements::read(&sample()).unwrap_or_else(|e| panic!("the sample reads: {e}"))
}

/// A copy of the sample in a folder of its own, for a test that changes a file.
fn sample_copy(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bench-sample-{tag}-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("temp folder");
    for entry in fs::read_dir(sample()).expect("sample folder").flatten() {
        fs::copy(entry.path(), dir.join(entry.file_name())).expect("copy");
    }
    dir
}

#[test]
fn the_table_is_the_one_the_shell_rendering_made() {
    let want = fs::read_to_string(sample().join("table.md")).expect("table.md");
    assert_eq!(table(&read_sample()), want.trim_end());
}

#[test]
fn the_sample_is_read_by_name_and_in_the_benchmarks_order() {
    let m = read_sample();
    let names: Vec<&str> = m.scenarios().collect();
    assert_eq!(
        names,
        ["kafka-idempotent", "tablestore", "tablestore-append"]
    );
    let native = m.native_of("tablestore").expect("tablestore");
    assert_eq!((native.events, native.cold_ms), (10_866, 25.986));
    assert_eq!(m.rss["tablestore"].bytes, Some(42_225_664));
    assert_eq!(m.rss_small["tablestore"].records, 92_160);
    assert_eq!(m.wasm_grown["tablestore"].ms, 85.3);
    assert_eq!(m.cli["tablestore"].peak_bytes, Some(80_052 * 1024));
    assert_eq!(m.cli["tablestore"].wall_s, Some(1.15));
    assert_eq!((m.every_event.runs, m.every_event.pruned), (148, 7));
    assert_eq!(
        (m.every_event.windows, m.every_event.never_crashed),
        (20, 13)
    );
    assert_eq!((m.web.gzip, m.modes.raw), (349_566, 1_487_680));
    assert_eq!(m.load_after, "1.45, 1.64, 1.66");
    assert_eq!(m.browser["preset"], "seatunnel-dev-timer");
    assert_eq!(m.browser["large_events"], "137014 / 137014");
    assert_eq!(
        (m.every_event3.runs, m.every_event3.pruned),
        (17_010, 3_287)
    );
    assert_eq!((m.split.runs, m.split_shards.runs), (2_058, 2_058));
    assert!(m.split_same);
    assert_eq!((m.swarm.runs, m.swarm.violations), (200, 0));
}

#[test]
fn shards_that_disagree_with_the_one_process_are_said_to() {
    let dir = sample_copy("shards");
    let split = fs::read_to_string(dir.join("split.json")).expect("split.json");
    let other = split.replacen("\"pruned\": 196", "\"pruned\": 195", 1);
    assert_ne!(split, other, "the sample has the field");
    fs::write(dir.join("split-shards.json"), other).expect("write");
    let m = Measurements::read(&dir).expect("reads");
    assert!(!m.split_same);
    assert!(table(&m).contains("the merged result DIFFERS"));
}

#[test]
fn rows_read_the_measures_they_name() {
    let text = table(&read_sample());
    let row = |measure: &str| {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("| {measure}")));
        line.unwrap_or_else(|| panic!("no row `{measure}`"))
            .to_string()
    };
    // 121.5 ms in wasm against 103.181 ms natively; 44.4 ms optimised first.
    assert!(row("wasm in Node ÷ native, first run (cold)").contains("| 1.2× / 3.9× / 3.3× |"));
    assert!(
        row("wasm in Node ÷ native, first run, memory grown and code optimised first")
            .ends_with("| 0.4× / 1.3× / 1.4× | ≤ 1.5× |")
    );
    // (36,184,064 − 14,319,616) B over (993,280 − 92,160) records.
    assert!(row("memory a record adds").contains("| 24 B / "));
    assert!(row("throughput floor").contains("Vec 33 ms, map 120 ms (engine 1× the map)"));
    assert!(
        row("explorer, `tablestore`, crash after every event").contains(
            "148 runs (7 pruned), 20 crash windows reached, 13 passed without a crash, in 0.22 s"
        )
    );
    assert!(row("browser: JS heap after load / at the end, 64").contains("| 1.4 MB / 1.5 MB |"));
    assert!(row("release dashboard").contains("| 349,566 B (886,723 B raw) | ≤ 350 KB |"));
    assert!(row("Lighthouse 12.2.3, mobile").contains("| 86 (runs 88, 86, 86) / 100 (runs"));
    assert!(row("the same: first contentful paint").contains("| 949 ms / 1112 ms / 557 ms /"));
}

#[test]
fn without_lighthouse_its_rows_say_so() {
    let dir = sample_copy("no-lighthouse");
    fs::remove_file(dir.join("lighthouse.txt")).expect("remove lighthouse.txt");
    let text = table(&Measurements::read(&dir).expect("reads without Lighthouse"));
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("| Lighthouse") || l.starts_with("| the same: first contentful"))
        .collect();
    assert_eq!(rows.len(), 2);
    for line in rows {
        assert!(
            line.contains("not measured (Lighthouse did not run"),
            "{line}"
        );
    }
}

#[test]
fn without_the_browser_figures_its_rows_say_so() {
    let dir = sample_copy("no-browser");
    fs::write(dir.join("browser.txt"), "").expect("empty browser.txt");
    let text = table(&Measurements::read(&dir).expect("reads without the browser"));
    let browser: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("| browser:"))
        .collect();
    assert_eq!(browser.len(), 20);
    for line in browser {
        assert!(
            line.contains("not measured (the browser benchmark failed"),
            "{line}"
        );
    }
}

#[test]
fn a_missing_measure_is_named() {
    let dir = sample_copy("missing");
    fs::remove_file(dir.join("wasm-grown.txt")).expect("remove");
    let err = Measurements::read(&dir).expect_err("wasm-grown.txt is needed");
    assert!(err.contains("wasm-grown.txt"), "{err}");
    fs::write(
        dir.join("wasm-grown.txt"),
        "wasm tablestore 10866 1.0 2 3.0\n",
    )
    .expect("write");
    let err = Measurements::read(&dir).expect_err("two scenarios are missing");
    assert_eq!(err, "wasm-grown.txt: no line for kafka-idempotent");
    fs::write(dir.join("rss.txt"), "rss tablestore 1 2 3\n").expect("write");
    let err = Measurements::read(&dir).expect_err("a line with a word too many");
    assert!(
        err.starts_with("rss.txt: `rss tablestore 1 2 3`: not `rss NAME` and 2 fields"),
        "{err}"
    );
}

#[test]
fn the_document_replaces_the_header_and_table_and_keeps_the_text_below() {
    let context = Context {
        date: "2026-12-04 14:43 UTC".into(),
        machine: "2 cores, a processor, 23.5 GiB memory".into(),
        rustc: "rustc 1.95.0".into(),
        node: "v20.20.2".into(),
        chromium: "Chromium 156.0.8078.114".into(),
    };
    let m = read_sample();
    let kept = format!("{KEPT_FROM}\n\n- kept\n\n## Profiles\n\nkept too\n");
    let previous = format!("# Performance\n\nold header\n\n| old | table |\n\n{kept}");
    let doc = document(&context, &m, &previous).expect("renders");
    assert!(doc.starts_with("# Performance\n\nGenerated by `bash scripts/bench.sh`;"));
    assert!(doc.contains(
        "\n- date: 2026-12-04 14:43 UTC\n- machine: 2 cores, a processor, 23.5 GiB memory\n"
    ));
    assert!(doc.contains("\n- node: v20.20.2; chromium: Chromium 156.0.8078.114\n"));
    let load = format!(
        "- load before: {} · after: 1.45, 1.64, 1.66 (1, 5, 15 min)\n\n| measure |",
        m.load_before
    );
    assert!(doc.contains(&load));
    assert!(doc.ends_with(&format!("{}\n\n{kept}", table(&m))));
    assert!(!doc.contains("old header") && !doc.contains("| old | table |"));
    let err = document(&context, &m, "# Performance\n").expect_err("nothing to keep");
    assert!(err.contains(KEPT_FROM), "{err}");
}

#[test]
fn the_lines_of_each_program_parse() {
    let time = "\tMaximum resident set size (kbytes): 67584\n\
                \tElapsed (wall clock) time (h:mm:ss or m:ss): 0:00.14\n";
    let cli = measurements::time_report(time);
    assert_eq!(
        (cli.peak_bytes, cli.wall_s),
        (Some(67_584 * 1024), Some(0.14))
    );
    let rss = measurements::rss("rss tablestore unknown 993280\n").expect("parses");
    assert_eq!(rss["tablestore"].bytes, None);
    let browser = measurements::browser("  people's line: 1\nbrowser frame 16.7 ms\n");
    assert_eq!(
        browser.into_iter().collect::<Vec<_>>(),
        [("frame".to_string(), "16.7 ms".to_string())]
    );
    let walls = measurements::walls("wall depth3 100.25 103.5\n").expect("parses");
    assert_eq!(walls["depth3"], 3.25);
    assert!(measurements::native("  kafka-idempotent 993280 records\n").is_err());
}
