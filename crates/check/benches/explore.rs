//! Explorer throughput on the `tablestore` preset: runs per second at depth 1 and 2, forked
//! from the base run vs replayed from zero, on all cores vs one. Prints a table; no assertions.
//!
//! `cargo bench -p batchscope-check --bench explore` (optionally `-- --quick`: depth 1 only).

use batchscope_check::explore::Explorer;
use batchscope_engine::microbatch::scenario::preset;
use std::time::Instant;

fn measure(depth: u32, forking: bool, parallel: bool) -> (u64, f64) {
    let scenario = preset("tablestore").expect("preset exists");
    let start = Instant::now();
    let mut explorer = Explorer::new(scenario, depth);
    explorer.set_forking(forking);
    explorer.set_parallel(parallel);
    let summary = explorer.run_to_completion();
    let seconds = start.elapsed().as_secs_f64();
    assert_eq!(summary.inexact_forks, 0);
    (summary.runs, seconds)
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("explorer on preset tablestore ({threads} hardware threads)");
    println!(
        "{:<6} {:<9} {:<11} {:>7} {:>9} {:>10}",
        "depth", "start", "threads", "runs", "seconds", "runs/s"
    );
    let depths: &[u32] = if quick { &[1] } else { &[1, 2] };
    for &depth in depths {
        for forking in [true, false] {
            for parallel in [true, false] {
                // Best of three, to keep noise from other processes out.
                let (runs, seconds) = (0..3)
                    .map(|_| measure(depth, forking, parallel))
                    .min_by(|a, b| a.1.total_cmp(&b.1))
                    .expect("three samples");
                println!(
                    "{:<6} {:<9} {:<11} {:>7} {:>9.3} {:>10.0}",
                    depth,
                    if forking { "forked" } else { "replayed" },
                    if parallel { "all cores" } else { "one" },
                    runs,
                    seconds,
                    runs as f64 / seconds
                );
            }
        }
    }
}
