//! The measurements `scripts/bench.sh` collects, read from its folder (`target/bench/`):
//! each file holds what one program printed, in that program's own line format.
//!
//! - `native.txt`, from `benches/throughput.rs`:
//!   `native NAME RECORDS EVENTS COLD_MS VEC_MS MAP_MS WARM_MS`;
//! - `rss.txt` and `rss-small.txt`, from `benches/throughput.rs -- rss NAME [--quick]`:
//!   `rss NAME PEAK_BYTES RECORDS`;
//! - `wasm.txt`, `wasm-small.txt`, `wasm-grown.txt` and `wasm-compiled.txt`, from
//!   `benches/wasm_node.cjs`: `wasm NAME EVENTS MS HEAP_BYTES WARM_MS`;
//! - `NAME.json.time` and `NAME.small.json.time`: the report of `/usr/bin/time -v` on
//!   `batchscope run` of the scenario file;
//! - `explore.json`, `every-event.json`, `depth3.json`, `every-event3.json`, `split.json`:
//!   `batchscope explore --json`; `split-shards.json`: `batchscope explore merge --json` of
//!   the two shards of `split.json`'s exploration, run at once;
//! - `swarm.json`: `batchscope swarm --json`;
//! - `wall.txt`, from the script: `wall NAME START_S END_S`, an explorer's or the swarm's
//!   wall clock;
//! - `sizes.txt`, from the script: `size web RAW_BYTES GZIP_BYTES` and `size modes …`;
//! - `load.txt`, from the script: `load before L1 L5 L15` and `load after …`;
//! - `browser.txt`, from `benches/browser.rs`: `browser KEY VALUE…` (empty if it failed);
//! - `lighthouse.txt`, from `suites/tests/e2e_lighthouse.rs`: `lighthouse KEY VALUE…` (empty
//!   or missing if Lighthouse did not run).
//!
//! Other lines (the benchmarks' own lines for people) are skipped.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// The engine alone, natively, on one scenario (`benches/throughput.rs`).
#[derive(Debug, Clone, PartialEq)]
pub struct Native {
    /// Events of the run.
    pub events: u64,
    /// The first run in the process.
    pub cold_ms: f64,
    /// The floor: the same records into a `Vec` of fixed-width rows.
    pub vec_ms: f64,
    /// The floor: the same records into a map keyed by channel and sequence.
    pub map_ms: f64,
    /// The median of the warm runs after the first.
    pub warm_ms: f64,
}

/// Peak resident memory of the engine alone on one scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Rss {
    /// `VmHWM` in bytes; `None` when `/proc` did not say.
    pub bytes: Option<u64>,
    /// Records of the scenario.
    pub records: u64,
}

/// The engine as wasm in Node on one scenario (`benches/wasm_node.cjs`).
#[derive(Debug, Clone, PartialEq)]
pub struct Wasm {
    /// The first call.
    pub ms: f64,
    /// The linear memory's size after the first call; `None` when unknown.
    pub heap_bytes: Option<u64>,
    /// The median of the calls after the first.
    pub warm_ms: f64,
}

/// `batchscope run FILE` under `/usr/bin/time -v`.
#[derive(Debug, Clone, PartialEq)]
pub struct Cli {
    /// "Maximum resident set size", in bytes; `None` when missing.
    pub peak_bytes: Option<u64>,
    /// "Elapsed (wall clock) time", in seconds; `None` when missing.
    pub wall_s: Option<f64>,
}

/// One `batchscope explore --json` command.
#[derive(Debug, Clone, PartialEq)]
pub struct Explore {
    /// Runs explored.
    pub runs: u64,
    /// Runs judged by an earlier run instead of run again.
    pub pruned: u64,
    /// Crash windows some run crashed in (`--every-event`).
    pub windows: usize,
    /// Windows every run passed without a crash (`--every-event`).
    pub never_crashed: usize,
    /// The command's wall clock.
    pub seconds: f64,
}

/// A `.wasm` module of the page: raw and `gzip -9` bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Size {
    /// Bytes as built.
    pub raw: u64,
    /// Bytes after `gzip -9`.
    pub gzip: u64,
}

/// Everything one run of `scripts/bench.sh` measured. Maps are keyed by scenario name.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurements {
    /// The engine natively, in the benchmark's scenario order (the table's column order).
    pub native: Vec<(String, Native)>,
    /// Peak memory of the engine alone at 1 M records.
    pub rss: BTreeMap<String, Rss>,
    /// The same at 100 k records.
    pub rss_small: BTreeMap<String, Rss>,
    /// wasm in Node, a fresh process.
    pub wasm: BTreeMap<String, Wasm>,
    /// The same at 100 k records.
    pub wasm_small: BTreeMap<String, Wasm>,
    /// wasm in Node, the memory grown first.
    pub wasm_grown: BTreeMap<String, Wasm>,
    /// wasm in Node, the memory grown and every function optimised first.
    pub wasm_compiled: BTreeMap<String, Wasm>,
    /// `batchscope run FILE` at 1 M records.
    pub cli: BTreeMap<String, Cli>,
    /// The same at 100 k records.
    pub cli_small: BTreeMap<String, Cli>,
    /// `explore --preset tablestore --depth 2`.
    pub explore: Explore,
    /// `explore --preset tablestore --every-event --depth 2`.
    pub every_event: Explore,
    /// `explore --preset tablestore --depth 3`.
    pub depth3: Explore,
    /// `explore --preset tablestore --every-event --depth 3`.
    pub every_event3: Explore,
    /// `explore --preset tablestore-split --every-event --depth 2`, one process.
    pub split: Explore,
    /// The same as two shards at once, merged.
    pub split_shards: Explore,
    /// Whether the merged shards' runs, pruned runs and outcomes equal the one process's.
    pub split_same: bool,
    /// `batchscope swarm`.
    pub swarm: Swarm,
    /// The module the page loads first.
    pub web: Size,
    /// The module fetched when a second mode is first used.
    pub modes: Size,
    /// Load averages before the measurements (1, 5, 15 min).
    pub load_before: String,
    /// Load averages after them.
    pub load_after: String,
    /// `browser KEY VALUE…` figures of `benches/browser.rs`, by key.
    pub browser: BTreeMap<String, String>,
    /// `lighthouse KEY VALUE…` figures of `suites/tests/e2e_lighthouse.rs`, by key.
    pub lighthouse: BTreeMap<String, String>,
}

impl Measurements {
    /// The scenario names, in the table's column order.
    pub fn scenarios(&self) -> impl Iterator<Item = &str> {
        self.native.iter().map(|(name, _)| name.as_str())
    }

    /// The native measure of a scenario.
    pub fn native_of(&self, name: &str) -> Option<&Native> {
        self.native.iter().find(|(n, _)| n == name).map(|(_, n)| n)
    }

    /// Reads the folder `scripts/bench.sh` wrote; an error names the file or line it could not
    /// read, or the scenario a measure is missing for. `browser.txt` may be missing or empty
    /// (the browser benchmark failed): its rows then say so.
    pub fn read(dir: &Path) -> Result<Measurements, String> {
        let text = |file: &str| {
            let path = dir.join(file);
            fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))
        };
        let native = read_file(dir, "native.txt", native)?;
        let names: Vec<String> = native.iter().map(|(n, _)| n.clone()).collect();
        let (cli, cli_small) = (
            cli_runs(dir, &names, "json")?,
            cli_runs(dir, &names, "small.json")?,
        );
        let wall = read_file(dir, "wall.txt", walls)?;
        let explore = |name: &str| {
            let seconds = *wall
                .get(name)
                .ok_or(format!("wall.txt: no `wall {name}` line"))?;
            explore(&text(&format!("{name}.json"))?, seconds)
                .map_err(|e| format!("{name}.json: {e}"))
        };
        let sizes = read_file(dir, "sizes.txt", sizes)?;
        let size = |which: &str| {
            sizes
                .get(which)
                .copied()
                .ok_or(format!("sizes.txt: no `size {which}`"))
        };
        let load = read_file(dir, "load.txt", loads)?;
        let m = Measurements {
            native,
            rss: read_file(dir, "rss.txt", rss)?,
            rss_small: read_file(dir, "rss-small.txt", rss)?,
            wasm: read_file(dir, "wasm.txt", wasm)?,
            wasm_small: read_file(dir, "wasm-small.txt", wasm)?,
            wasm_grown: read_file(dir, "wasm-grown.txt", wasm)?,
            wasm_compiled: read_file(dir, "wasm-compiled.txt", wasm)?,
            cli,
            cli_small,
            explore: explore("explore")?,
            every_event: explore("every-event")?,
            depth3: explore("depth3")?,
            every_event3: explore("every-event3")?,
            split: explore("split")?,
            split_shards: explore("split-shards")?,
            split_same: same_result(&text("split.json")?, &text("split-shards.json")?)?,
            swarm: swarm(
                &text("swarm.json")?,
                *wall.get("swarm").ok_or("wall.txt: no `wall swarm` line")?,
            )?,
            web: size("web")?,
            modes: size("modes")?,
            load_before: load
                .get("before")
                .cloned()
                .ok_or("load.txt: no `load before`")?,
            load_after: load
                .get("after")
                .cloned()
                .ok_or("load.txt: no `load after`")?,
            browser: browser(&text("browser.txt").unwrap_or_default()),
            lighthouse: lighthouse(&text("lighthouse.txt").unwrap_or_default()),
        };
        m.complete().map(|()| m)
    }

    /// Every per-scenario measure has every scenario of the native run.
    fn complete(&self) -> Result<(), String> {
        let sets = [
            ("rss.txt", self.rss.keys().collect::<Vec<_>>()),
            ("rss-small.txt", self.rss_small.keys().collect()),
            ("wasm.txt", self.wasm.keys().collect()),
            ("wasm-small.txt", self.wasm_small.keys().collect()),
            ("wasm-grown.txt", self.wasm_grown.keys().collect()),
            ("wasm-compiled.txt", self.wasm_compiled.keys().collect()),
        ];
        for (file, names) in sets {
            if let Some(missing) = self.scenarios().find(|s| !names.iter().any(|n| n == s)) {
                return Err(format!("{file}: no line for {missing}"));
            }
        }
        Ok(())
    }
}

/// `parse` of the text of `dir/file`; an error names the file.
fn read_file<T>(dir: &Path, file: &str, parse: fn(&str) -> Result<T, String>) -> Result<T, String> {
    let path = dir.join(file);
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(&text).map_err(|e| format!("{file}: {e}"))
}

/// The lines of `text` that start with `key`, split into their name and the `fields` words
/// after it; a line with another number of words is an error.
fn keyed<'a>(
    text: &'a str,
    key: &str,
    fields: usize,
) -> Result<Vec<(&'a str, Vec<&'a str>)>, String> {
    text.lines()
        .filter(|line| line.split_whitespace().next() == Some(key))
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                [_, name, rest @ ..] if rest.len() == fields => Ok((*name, rest.to_vec())),
                _ => Err(format!("`{line}`: not `{key} NAME` and {fields} fields")),
            }
        })
        .collect()
}

/// A number in a measurement line.
fn number<T: std::str::FromStr>(word: &str) -> Result<T, String> {
    word.parse()
        .map_err(|_| format!("`{word}` is not a number"))
}

/// `native NAME RECORDS EVENTS COLD_MS VEC_MS MAP_MS WARM_MS` lines, in order.
pub fn native(text: &str) -> Result<Vec<(String, Native)>, String> {
    let lines = keyed(text, "native", 6)?;
    if lines.is_empty() {
        return Err("no `native` line".into());
    }
    lines
        .into_iter()
        .map(|(name, w)| {
            let native = Native {
                events: number(w[1])?,
                cold_ms: number(w[2])?,
                vec_ms: number(w[3])?,
                map_ms: number(w[4])?,
                warm_ms: number(w[5])?,
            };
            Ok((name.to_string(), native))
        })
        .collect()
}

/// `rss NAME PEAK_BYTES RECORDS` lines (`PEAK_BYTES` may be `unknown`).
pub fn rss(text: &str) -> Result<BTreeMap<String, Rss>, String> {
    keyed(text, "rss", 2)?
        .into_iter()
        .map(|(name, w)| {
            let rss = Rss {
                bytes: w[0].parse().ok(),
                records: number(w[1])?,
            };
            Ok((name.to_string(), rss))
        })
        .collect()
}

/// `wasm NAME EVENTS MS HEAP_BYTES WARM_MS` lines (`HEAP_BYTES` may be `unknown`).
pub fn wasm(text: &str) -> Result<BTreeMap<String, Wasm>, String> {
    keyed(text, "wasm", 4)?
        .into_iter()
        .map(|(name, w)| {
            let wasm = Wasm {
                ms: number(w[1])?,
                heap_bytes: w[2].parse().ok(),
                warm_ms: number(w[3])?,
            };
            Ok((name.to_string(), wasm))
        })
        .collect()
}

/// The report of `/usr/bin/time -v`: its peak memory and wall clock.
pub fn time_report(text: &str) -> Cli {
    let value = |label: &str| {
        let line = text.lines().find(|l| l.contains(label))?;
        Some(line.rsplit_once(": ")?.1.trim())
    };
    Cli {
        peak_bytes: value("Maximum resident set size")
            .and_then(|kb| kb.parse::<u64>().ok())
            .map(|kb| kb * 1024),
        wall_s: value("Elapsed (wall clock)").and_then(super::format::clock_seconds),
    }
}

/// `NAME.SUFFIX.time` of every scenario.
fn cli_runs(dir: &Path, names: &[String], suffix: &str) -> Result<BTreeMap<String, Cli>, String> {
    names
        .iter()
        .map(|name| {
            let path = dir.join(format!("{name}.{suffix}.time"));
            let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            Ok((name.clone(), time_report(&text)))
        })
        .collect()
}

/// `wall NAME START_S END_S` lines, as seconds by name.
pub fn walls(text: &str) -> Result<BTreeMap<String, f64>, String> {
    keyed(text, "wall", 2)?
        .into_iter()
        .map(|(name, w)| {
            Ok((
                name.to_string(),
                number::<f64>(w[1])? - number::<f64>(w[0])?,
            ))
        })
        .collect()
}

/// `batchscope explore --json`'s report, with the command's wall clock.
pub fn explore(json: &str, seconds: f64) -> Result<Explore, String> {
    let report: serde_json::Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let count = |v: &serde_json::Value| match v {
        serde_json::Value::Array(a) => a.len(),
        serde_json::Value::Object(o) => o.len(),
        _ => 0,
    };
    let coverage = &report["coverage"];
    Ok(Explore {
        runs: report["runs"].as_u64().ok_or("no `runs`")?,
        pruned: report["pruned"].as_u64().unwrap_or(0),
        windows: count(&coverage["windows"]),
        never_crashed: count(&coverage["never_crashed"]),
        seconds,
    })
}

/// One `batchscope swarm --json` command.
#[derive(Debug, Clone, PartialEq)]
pub struct Swarm {
    /// Runs checked.
    pub runs: u64,
    /// Invariants broken.
    pub violations: usize,
    /// The command's wall clock.
    pub seconds: f64,
}

/// `batchscope swarm --json`'s tally, with the command's wall clock.
pub fn swarm(json: &str, seconds: f64) -> Result<Swarm, String> {
    let tally: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("swarm.json: {e}"))?;
    Ok(Swarm {
        runs: tally["runs"].as_u64().ok_or("swarm.json: no `runs`")?,
        violations: tally["violations"]
            .as_array()
            .ok_or("swarm.json: no `violations`")?
            .len(),
        seconds,
    })
}

/// Whether two explorations' reports agree on runs, pruned runs and outcomes.
pub fn same_result(a: &str, b: &str) -> Result<bool, String> {
    let parse = |t: &str| serde_json::from_str::<serde_json::Value>(t).map_err(|e| e.to_string());
    let (a, b) = (parse(a)?, parse(b)?);
    Ok(["runs", "pruned", "outcomes"].iter().all(|k| a[k] == b[k]))
}

/// `size WHICH RAW_BYTES GZIP_BYTES` lines.
pub fn sizes(text: &str) -> Result<BTreeMap<String, Size>, String> {
    keyed(text, "size", 2)?
        .into_iter()
        .map(|(name, w)| {
            let size = Size {
                raw: number(w[0])?,
                gzip: number(w[1])?,
            };
            Ok((name.to_string(), size))
        })
        .collect()
}

/// `load WHEN L1 L5 L15` lines, as `L1, L5, L15` by when.
pub fn loads(text: &str) -> Result<BTreeMap<String, String>, String> {
    let lines = keyed(text, "load", 3)?;
    Ok(lines
        .into_iter()
        .map(|(when, w)| (when.to_string(), w.join(", ")))
        .collect())
}

/// `browser KEY VALUE…` lines: the value is the rest of the line.
pub fn browser(text: &str) -> BTreeMap<String, String> {
    tagged(text, "browser ")
}

/// `lighthouse KEY VALUE…` lines: the value is the rest of the line.
pub fn lighthouse(text: &str) -> BTreeMap<String, String> {
    tagged(text, "lighthouse ")
}

/// The lines that begin with `tag`, as the key (their next word) and the rest of the line.
fn tagged(text: &str, tag: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|line| {
            let rest = line.strip_prefix(tag)?;
            let (key, value) = rest.split_once(' ').unwrap_or((rest, ""));
            Some((key.to_string(), value.trim().to_string()))
        })
        .collect()
}
