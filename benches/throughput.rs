//! Benchmark: the engine alone on 1 M records over 256 channels, natively, against an honest floor.
//!
//! `cargo bench --bench throughput` prints one line per scenario (`-- --quick`: 100 k records).
//! The floor is the least any simulation of these records must do: one pass over the same
//! records into a `Vec` of fixed-width rows, and into a map keyed by an integer identity
//! (channel and sequence), no strings cloned. The simulation's time is taken the way the wasm
//! benchmark takes it in Node (`runScenarioJson`): scenario JSON in, run to its end, event
//! count out — once cold (the first run in the process) and then [`WARM_RUNS`] more times, whose
//! median is the warm figure (in wasm the first run also pays V8's baseline code before the
//! optimised tier and the growth of linear memory; natively the same first run pays the fresh
//! process's page faults).
//!
//! `scripts/bench.sh` also uses two more modes: `-- scenario NAME FILE` writes the benchmark
//! scenario as JSON, and `-- rss NAME` runs one scenario and prints the process's peak resident
//! memory (`VmHWM` of `/proc/self/status`) and the scenario's record count; with `--quick` both
//! write and run the 100 k-record scenario, so two sizes give memory per record. Prints
//! numbers; asserts nothing about speed.

use batchscope_check::oracle::{run, Limit};
use batchscope_engine::microbatch::scenario::{preset, Scenario};
use batchscope_engine::microbatch::World;
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The scenarios of the benchmark, as in the table.
const NAMES: [&str; 3] = ["kafka-idempotent", "tablestore", "tablestore-append"];

/// Runs after the first, in the same process, for the warm figure (their median).
const WARM_RUNS: usize = 3;

/// Channels of the benchmark scenario.
const CHANNELS: u32 = 256;

/// A preset scaled to `records` over [`CHANNELS`] channels and 40 trigger intervals.
fn scenario(name: &str, records: u64) -> Scenario {
    let mut s = preset(name).expect("preset");
    s.upstream.channels = CHANNELS;
    s.batches = 40;
    s.upstream.records_per_batch = (records / (u64::from(CHANNELS) * s.batches)).max(1) as u32;
    s.source.max_offsets_per_channel = 1_000_000;
    s.source.page_size = 100;
    s
}

/// The engine alone, as `runScenarioJson` does it: parse, build the world, run to its end.
fn run_json(json: &str) -> (World, bool) {
    let mut world = World::new(Scenario::from_json(json).expect("benchmark scenario"));
    let converged = run(&mut world, Limit::JUDGE).converged();
    (world, converged)
}

/// A record reduced to fixed-width fields: what a floor pass copies.
// Written, never read: `black_box` keeps the copies from being optimised away.
#[allow(dead_code)]
#[derive(Clone, Copy)]
struct Row {
    channel: u32,
    seq: u64,
    user_id: u32,
    item_id: u32,
    amount: u64,
    price: u32,
}

/// The floor: one pass over the records into a `Vec` of rows, and one into a map from the
/// integer identity to a copy count (what a sink that counts keys holds). Returns both times.
fn floor(world: &World) -> (Duration, Duration) {
    let t0 = Instant::now();
    let rows: Vec<Row> = world
        .upstream
        .records()
        .map(|r| Row {
            channel: r.channel,
            seq: r.seq,
            user_id: r.user_id,
            item_id: r.item_id,
            amount: r.amount,
            price: r.price,
        })
        .collect();
    black_box(&rows);
    let vec = t0.elapsed();
    let t1 = Instant::now();
    let mut map: BTreeMap<(u32, u64), u32> = BTreeMap::new();
    for r in world.upstream.records() {
        *map.entry((r.channel, r.seq)).or_default() += 1;
    }
    black_box(&map);
    (vec, t1.elapsed())
}

/// Peak resident memory of this process in bytes (`VmHWM`), if `/proc` says.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let records = if quick { 100_000 } else { 1_000_000 };
    let words: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with("--"))
        .collect();
    match words.as_slice() {
        ["scenario", name, file] => {
            std::fs::write(file, scenario(name, records).to_json()).expect("write the scenario");
        }
        ["rss", name] => {
            let json = scenario(name, records).to_json();
            let (world, _) = run_json(&json);
            black_box(&world);
            let peak = peak_rss_bytes().map_or("unknown".into(), |b| b.to_string());
            println!("rss {name} {peak} {}", world.upstream.total());
        }
        [] => speed(records),
        other => {
            eprintln!("throughput: unknown arguments {other:?} (none, `scenario NAME FILE` or `rss NAME`)");
            std::process::exit(2);
        }
    }
}

/// Times every scenario and its floor; one line each, then `key value…` lines for scripts.
fn speed(records: u64) {
    println!(
        "batchscope throughput: {records} records over {CHANNELS} channels, 40 trigger intervals"
    );
    for name in NAMES {
        let json = scenario(name, records).to_json();
        let t0 = Instant::now();
        let (world, converged) = run_json(&json);
        let sim = t0.elapsed();
        assert!(converged, "{name} did not converge");
        let total = world.upstream.total();
        let events = world.events().len();
        let (vec, map) = floor(&world);
        drop(world);
        let mut warm: Vec<Duration> = (0..WARM_RUNS)
            .map(|_| {
                let t = Instant::now();
                black_box(run_json(&json));
                t.elapsed()
            })
            .collect();
        warm.sort();
        let warm = warm[WARM_RUNS / 2];
        let rate = |d: Duration| total as f64 / d.as_secs_f64();
        println!(
            "  {name:<18} {total:>8} records {events:>7} events  engine {:>8.1} ms cold, {:>8.1} ms warm ({:>10.0} rec/s)  floor: Vec {:>6.1} ms, integer map {:>6.1} ms ({:>10.0} rec/s)  engine ÷ map {:>6.1}×",
            ms(sim),
            ms(warm),
            rate(sim),
            ms(vec),
            ms(map),
            rate(map),
            sim.as_secs_f64() / map.as_secs_f64(),
        );
        println!(
            "native {name} {total} {events} {:.3} {:.3} {:.3} {:.3}",
            ms(sim),
            ms(vec),
            ms(map),
            ms(warm)
        );
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
