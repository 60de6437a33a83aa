//! The explorer: forks are exact, every bad run replays to its verdict, and the presets' guarantees.

use batchscope_check::explore::{crash_sites, Explorer, Summary};
use batchscope_check::oracle::{check, Verdict};
use batchscope_engine::{preset, CrashPoint, World};

fn explore(name: &str, depth: u32, forking: bool, parallel: bool) -> Summary {
    let mut e = Explorer::new(preset(name).unwrap(), depth);
    e.set_forking(forking);
    e.set_parallel(parallel);
    e.run_to_completion()
}

#[test]
fn smoke() {
    for name in [
        "kafka-idempotent",
        "kafka-append",
        "tablestore",
        "tablestore-append",
        "auto-commit",
    ] {
        let s = explore(name, 1, true, true);
        println!(
            "{name}: runs {} {:?} inexact {}",
            s.runs, s.outcomes, s.inexact_forks
        );
        for c in &s.counterexamples {
            println!(
                "   {:?} {:?} {:?}",
                c.outcome.verdict, c.outcome.crashes, c.outcome.fault
            );
        }
    }
}
