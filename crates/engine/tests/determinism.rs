//! Determinism of the engine, natively: the same (preset, seed, crashes) gives the same trace
//! hash, a different seed a different one, and the hashes equal the pinned table.

#[path = "common/golden.rs"]
mod golden;

use golden::{run, table_now, GOLDEN};

#[test]
fn every_pinned_run_converges_and_replays_to_the_same_hash() {
    for g in GOLDEN {
        let first = run(g.preset, g.seed, g.crashes);
        let second = run(g.preset, g.seed, g.crashes);
        assert!(
            first.converged,
            "{} seed {} {:?} did not converge within {} ms ({} events)",
            g.preset,
            g.seed,
            g.crashes,
            golden::BOUND_MS,
            first.steps
        );
        assert_eq!(
            first.crashes_fired,
            g.crashes.len() as u64,
            "{} seed {}: not every crash of {:?} fired, the pin would not show a crash",
            g.preset,
            g.seed,
            g.crashes
        );
        assert_eq!(
            first, second,
            "{} seed {} {:?}: two runs of the same inputs differ",
            g.preset, g.seed, g.crashes
        );
    }
}

#[test]
fn a_different_seed_gives_a_different_hash() {
    for g in GOLDEN {
        let this = run(g.preset, g.seed, g.crashes);
        let other = run(g.preset, g.seed.wrapping_add(1), g.crashes);
        assert_ne!(
            this.hash,
            other.hash,
            "{} {:?}: seeds {} and {} give the same trace",
            g.preset,
            g.crashes,
            g.seed,
            g.seed.wrapping_add(1)
        );
    }
}

#[test]
fn hashes_equal_the_pinned_table() {
    let mismatches: Vec<String> = GOLDEN
        .iter()
        .filter_map(|g| {
            let o = run(g.preset, g.seed, g.crashes);
            (o.hash != g.hash || o.steps != g.steps).then(|| {
                format!(
                    "{} seed {} {:?}: pinned {} steps 0x{:016x}, now {} steps 0x{:016x}",
                    g.preset, g.seed, g.crashes, g.steps, g.hash, o.steps, o.hash
                )
            })
        })
        .collect();
    assert!(
        mismatches.is_empty(),
        "the engine's traces changed:\n{}\nIf the change is intended, replace the table in crates/engine/tests/common/golden.rs with:\n{}",
        mismatches.join("\n"),
        table_now()
    );
}
