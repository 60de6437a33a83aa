//! Benchmark: simulated records per second end to end, against a raw pass of the same records into a map.
//!
//! Run with `cargo bench --bench throughput` (add `-- --quick` for 100 k records). Prints numbers; asserts nothing.

use batchscope_check::oracle::{run, Limit};
use batchscope_engine::{preset, Scenario, World};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Instant;

fn scenario(name: &str, channels: u32, records: u64) -> Scenario {
    let mut s = preset(name).expect("preset");
    s.upstream.channels = channels;
    s.batches = 40;
    s.upstream.records_per_batch = (records / (u64::from(channels) * s.batches)).max(1) as u32;
    s.source.max_offsets_per_channel = 1_000_000;
    s.source.page_size = 100;
    s
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let records = if quick { 100_000 } else { 1_000_000 };
    println!("batchscope throughput: {records} records over 256 channels, 40 trigger intervals");
    for name in ["kafka-idempotent", "tablestore", "tablestore-append"] {
        let s = scenario(name, 256, records);
        let t0 = Instant::now();
        let mut world = World::new(s.clone());
        let generated = t0.elapsed();
        let total = world.upstream.total();
        let t1 = Instant::now();
        let converged = run(&mut world, Limit::JUDGE).converged();
        let sim = t1.elapsed();
        assert!(converged, "{name} did not converge");
        // The floor: the same records, once, into a map keyed like the sink.
        let t2 = Instant::now();
        let mut map = BTreeMap::new();
        for r in world.upstream.records() {
            map.insert(r.key.clone(), r.clone());
        }
        black_box(&map);
        let raw = t2.elapsed();
        println!(
            "  {name:<18} {total:>8} records  {:>6} events  sim {:>7.1} ms ({:>9.0} rec/s)  raw map {:>6.1} ms ({:>10.0} rec/s)  ratio {:>5.1}x  (generate {:.1} ms)",
            world.events().len(),
            sim.as_secs_f64() * 1e3,
            total as f64 / sim.as_secs_f64(),
            raw.as_secs_f64() * 1e3,
            total as f64 / raw.as_secs_f64(),
            sim.as_secs_f64() / raw.as_secs_f64(),
            generated.as_secs_f64() * 1e3,
        );
    }
}
