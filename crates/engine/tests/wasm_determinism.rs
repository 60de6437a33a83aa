//! Determinism across platforms: on wasm32 the pinned runs of both worlds (micro-batch presets,
//! FLIP-276 topologies) give the same trace hashes as natively.
//!
//! Runs under `wasm-bindgen-test-runner` in Node (no browser needed): see `scripts/test-wasm.sh`.
//! Natively this file compiles to an empty test binary.
#![cfg(target_arch = "wasm32")]

#[path = "common/golden.rs"]
mod golden;

use golden::{run, table_now, GOLDEN};
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn wasm32_hashes_equal_the_pinned_native_ones() {
    let mismatches: Vec<String> = GOLDEN
        .iter()
        .filter_map(|g| {
            let o = run(g.preset, g.seed, g.crashes);
            (!o.converged
                || o.crashes_fired != g.crashes.len() as u64
                || o.hash != g.hash
                || o.steps != g.steps)
                .then(|| {
                    format!(
                        "{} seed {} {:?}: native {} steps 0x{:016x}, wasm32 {} steps 0x{:016x} (converged: {}, crashes fired: {})",
                        g.preset, g.seed, g.crashes, g.steps, g.hash, o.steps, o.hash, o.converged, o.crashes_fired
                    )
                })
        })
        .collect();
    assert!(
        mismatches.is_empty(),
        "wasm32 traces differ from the pinned ones:\n{}\nTable as computed on wasm32:\n{}",
        mismatches.join("\n"),
        table_now()
    );
}

#[wasm_bindgen_test]
fn wasm32_replays_the_same_inputs_to_the_same_hash() {
    let g = GOLDEN[2];
    assert_eq!(
        run(g.preset, g.seed, g.crashes),
        run(g.preset, g.seed, g.crashes)
    );
    assert_ne!(
        run(g.preset, g.seed, g.crashes).hash,
        run(g.preset, g.seed + 1, g.crashes).hash
    );
}

#[path = "common/topology_golden.rs"]
mod topology_golden;

#[wasm_bindgen_test]
fn wasm32_topology_hashes_equal_the_pinned_native_ones() {
    let mismatches = topology_golden::topology_mismatches();
    assert!(
        mismatches.is_empty(),
        "wasm32 topology traces differ from the pinned ones:\n{}\nTable as computed on wasm32:\n{}",
        mismatches.join("\n"),
        topology_golden::topology_table_now()
    );
}
