//! The pinned trace hashes of a fixed list of runs, shared by the native and the wasm32 determinism tests.
//!
//! A hash here changes only when the engine's behaviour (or the JSON of its events) changes;
//! such a change must show up in review as an edit of this table. To re-pin after an intended
//! change, run `cargo test -p batchscope-engine --test determinism`: the failure message
//! prints the whole table with the new values.

use batchscope_engine::microbatch::scenario::{preset, CrashPoint};
use batchscope_engine::microbatch::World;
use batchscope_engine::trace;

/// Simulated time after which a run is cut off if it has not converged.
pub const BOUND_MS: u64 = 60_000;

/// One pinned run: a preset, a seed, the crashes armed before the start, and what it gives.
#[derive(Clone, Copy, Debug)]
pub struct Golden {
    /// Preset name.
    pub preset: &'static str,
    /// Seed replacing the preset's.
    pub seed: u64,
    /// Crash points (`NAME@BATCH`), recorded into the scenario.
    pub crashes: &'static [&'static str],
    /// Number of events until convergence.
    pub steps: u64,
    /// `trace::hash` of the events.
    pub hash: u64,
}

/// The pinned runs. Seeds include one above 2^53 and one above 2^63, which JavaScript
/// numbers cannot hold, to show the wasm32 build keeps 64-bit arithmetic exact.
#[rustfmt::skip]
pub const GOLDEN: &[Golden] = &[
    // All re-pinned when the upstream's record values became positional draws (rng::Keyed).
    Golden { preset: "kafka-idempotent", seed: 7, crashes: &[], steps: 83, hash: 0xc94a20fce63cd1c6 },
    Golden { preset: "kafka-idempotent", seed: 42, crashes: &["commit-log@2"], steps: 85, hash: 0xebdaaf9a431f53e3 },
    Golden { preset: "kafka-append", seed: 7, crashes: &["sink-commit@3"], steps: 92, hash: 0x9b52b3ff3e2b7df0 },
    Golden { preset: "tablestore", seed: 7, crashes: &["task@2"], steps: 114, hash: 0x9acd613c5cf67fc2 },
    Golden { preset: "tablestore-split", seed: 7, crashes: &[], steps: 148, hash: 0x7c15f1a245d75967 },
    Golden { preset: "pull-ahead", seed: 7, crashes: &[], steps: 83, hash: 0x71f13bba2507a177 },
    Golden { preset: "auto-commit", seed: 7, crashes: &["task@3"], steps: 99, hash: 0xdcc29833215bcd82 },
    Golden { preset: "sink-outage", seed: 7, crashes: &[], steps: 89, hash: 0x63d55c572ccb2d46 },
    Golden { preset: "foreach-batch-multi", seed: 9007199254740993, crashes: &["sink-commit@1"], steps: 99, hash: 0xfb78e695637378f0 },
    Golden { preset: "checkpoint-deleted-latest", seed: 7, crashes: &[], steps: 77, hash: 0xc86b0f5460e7b570 },
    Golden { preset: "batch-id-in-memory", seed: 7, crashes: &["sink-commit@3"], steps: 92, hash: 0x38efd1078e72ae32 },
    Golden { preset: "seatunnel-checkpoint-records", seed: 7, crashes: &["sink-commit@0"], steps: 57, hash: 0x138495a268eb810f },
    Golden { preset: "tablestore-two-phase", seed: 18364758544493064720, crashes: &["task@1", "commit-log@4"], steps: 102, hash: 0x90ee1a075c04c7b6 },
];

/// What one run gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Whether the world converged before [`BOUND_MS`].
    pub converged: bool,
    /// Crashes that fired (all armed ones, unless a point was never reached).
    pub crashes_fired: u64,
    /// Number of events.
    pub steps: u64,
    /// `trace::hash` of the events.
    pub hash: u64,
}

/// Runs `preset` with `seed` and `crashes` until it converges or passes [`BOUND_MS`].
pub fn run(preset_name: &str, seed: u64, crashes: &[&str]) -> Outcome {
    let mut scenario = preset(preset_name).expect("known preset");
    scenario.seed = seed;
    scenario.crashes = crashes
        .iter()
        .map(|c| c.parse::<CrashPoint>().expect("valid crash point"))
        .collect();
    let mut w = World::new(scenario);
    while !w.is_converged() && w.now_ms() < BOUND_MS {
        w.step();
    }
    Outcome {
        converged: w.is_converged(),
        crashes_fired: w.fired_crashes().len() as u64,
        steps: w.events().len() as u64,
        hash: trace::hash(w.events()),
    }
}

/// The table as Rust source, with the values the current build computes: printed when a pin
/// does not match, so that an intended change is re-pinned by pasting it.
pub fn table_now() -> String {
    let mut out = String::from("pub const GOLDEN: &[Golden] = &[\n");
    for g in GOLDEN {
        let o = run(g.preset, g.seed, g.crashes);
        out.push_str(&format!(
            "    Golden {{ preset: {:?}, seed: {}, crashes: &{:?}, steps: {}, hash: 0x{:016x} }},\n",
            g.preset, g.seed, g.crashes, o.steps, o.hash
        ));
    }
    out.push_str("];\n");
    out
}
