//! The pinned trace hashes of a fixed list of FLIP-276 topology runs, shared by the native
//! (`tests/barrier.rs`) and the wasm32 (`tests/wasm_determinism.rs`) tests.
//!
//! A hash here changes only when the topology world's behaviour (or the JSON of its events)
//! changes; such a change must show up in review as an edit of this table. To re-pin after an
//! intended change, run `cargo test -p batchscope-engine --test barrier`: the failure message
//! prints the whole table with the new values.

use batchscope_engine::barrier::{preset, Fault, TopologyRun, TopologyWorld};
use batchscope_engine::trace;

/// One pinned run: a preset, a seed, its faults, and what it gives.
#[derive(Clone, Copy, Debug)]
pub struct TopologyGolden {
    /// Preset name.
    pub preset: &'static str,
    /// Seed of the generated CDC rows, commit users and manifest ids.
    pub seed: u64,
    /// Barriers issued.
    pub barriers: u64,
    /// Run without timestamp barriers.
    pub no_barriers: bool,
    /// Timestamp barriers per checkpoint.
    pub per_checkpoint: u64,
    /// `FailBeforeWritten` faults: (job, barrier).
    pub fail: &'static [(&'static str, u64)],
    /// A `ReviseAfterWritten` fault: (table, barrier revised, barrier WRITTEN that triggers it);
    /// the presets ship corrected rows for `chain`'s table1 barrier 1.
    pub revise: Option<(&'static str, u64, u64)>,
    /// Number of events until the run drained.
    pub steps: u64,
    /// `trace::hash` of the events.
    pub hash: u64,
}

/// The pinned runs. Seeds include one above 2^53 and one above 2^63, which JavaScript
/// numbers cannot hold, to show the wasm32 build keeps 64-bit arithmetic exact.
#[rustfmt::skip]
pub const TOPOLOGY_GOLDEN: &[TopologyGolden] = &[
    TopologyGolden { preset: "shopping", seed: 7, barriers: 5, no_barriers: false, per_checkpoint: 1, fail: &[], revise: None, steps: 67, hash: 0x351f1ba9d3fbed4c },
    TopologyGolden { preset: "shopping", seed: 11, barriers: 4, no_barriers: false, per_checkpoint: 1, fail: &[("price_job", 2)], revise: None, steps: 60, hash: 0xa6d91e70471c0c03 },
    TopologyGolden { preset: "shopping", seed: 11, barriers: 4, no_barriers: true, per_checkpoint: 1, fail: &[("price_job", 2)], revise: None, steps: 94, hash: 0xeacf736fd3bd0477 },
    TopologyGolden { preset: "chain", seed: 5, barriers: 4, no_barriers: false, per_checkpoint: 1, fail: &[], revise: None, steps: 62, hash: 0x665d3be78ed138c3 },
    TopologyGolden { preset: "chain", seed: 5, barriers: 4, no_barriers: true, per_checkpoint: 1, fail: &[], revise: None, steps: 97, hash: 0xdc9215154e0653af },
    TopologyGolden { preset: "chain", seed: 9007199254740993, barriers: 5, no_barriers: false, per_checkpoint: 1, fail: &[("join_job", 3)], revise: Some(("table1", 1, 5)), steps: 138, hash: 0x344b428efd4b395d },
    TopologyGolden { preset: "shopping", seed: 1, barriers: 5, no_barriers: false, per_checkpoint: 2, fail: &[("price_job", 4)], revise: None, steps: 75, hash: 0x366ae659c6584dae },
    TopologyGolden { preset: "three-queries", seed: 3, barriers: 5, no_barriers: false, per_checkpoint: 3, fail: &[("amount_job", 5)], revise: Some(("table1", 2, 5)), steps: 119, hash: 0x5735db36e3f307a1 },
    TopologyGolden { preset: "kafka-2pc-timeout", seed: 1, barriers: 5, no_barriers: false, per_checkpoint: 1, fail: &[], revise: None, steps: 64, hash: 0x1a0fe68ea35e7634 },
    TopologyGolden { preset: "paimon-expired-snapshot", seed: 2, barriers: 5, no_barriers: false, per_checkpoint: 1, fail: &[], revise: None, steps: 50, hash: 0xee57c5ffcac59d72 },
    TopologyGolden { preset: "group-offset-lag", seed: 3, barriers: 5, no_barriers: false, per_checkpoint: 1, fail: &[], revise: None, steps: 68, hash: 0x293eb1d9d612f368 },
    TopologyGolden { preset: "notify-twice", seed: 4, barriers: 5, no_barriers: false, per_checkpoint: 1, fail: &[], revise: None, steps: 62, hash: 0xdb1ca57fc5cf9941 },
    TopologyGolden { preset: "shopping", seed: 18364758544493064720, barriers: 6, no_barriers: false, per_checkpoint: 1, fail: &[("amount_job", 4)], revise: None, steps: 85, hash: 0x9a8eeec1a6be6f9f },
];

/// What one run gave: events and their hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TopologyOutcome {
    /// Number of events.
    pub steps: u64,
    /// `trace::hash` of the events.
    pub hash: u64,
}

/// Runs the pinned run `g` until it drains.
pub fn run_topology(g: &TopologyGolden) -> TopologyOutcome {
    let mut spec = preset(g.preset).expect("known preset");
    spec.no_barriers = g.no_barriers;
    spec.barriers_per_checkpoint = g.per_checkpoint;
    let mut faults: Vec<Fault> = g
        .fail
        .iter()
        .map(|(job, barrier)| Fault::FailBeforeWritten {
            job: (*job).to_string(),
            barrier: *barrier,
        })
        .collect();
    if let Some((table, barrier, written)) = g.revise {
        faults.push(Fault::ReviseAfterWritten {
            table: table.to_string(),
            barrier,
            written,
        });
    }
    let mut w = TopologyWorld::from_run(TopologyRun {
        spec,
        seed: g.seed,
        barriers: g.barriers,
        faults,
    })
    .expect("valid run");
    let events = w.run_to_end();
    TopologyOutcome {
        steps: events.len() as u64,
        hash: trace::hash(&events),
    }
}

/// The table as Rust source, with the values the current build computes: printed when a pin
/// does not match, so that an intended change is re-pinned by pasting it.
pub fn topology_table_now() -> String {
    let mut out = String::from("pub const TOPOLOGY_GOLDEN: &[TopologyGolden] = &[\n");
    for g in TOPOLOGY_GOLDEN {
        let o = run_topology(g);
        out.push_str(&format!(
            "    TopologyGolden {{ preset: {:?}, seed: {}, barriers: {}, no_barriers: {}, per_checkpoint: {}, fail: &{:?}, revise: {:?}, steps: {}, hash: 0x{:016x} }},\n",
            g.preset, g.seed, g.barriers, g.no_barriers, g.per_checkpoint, g.fail, g.revise, o.steps, o.hash
        ));
    }
    out.push_str("];\n");
    out
}

/// Every pinned run whose outcome differs now, one line each (empty: all match).
pub fn topology_mismatches() -> Vec<String> {
    TOPOLOGY_GOLDEN
        .iter()
        .filter_map(|g| {
            let o = run_topology(g);
            (o.steps != g.steps || o.hash != g.hash).then(|| {
                format!(
                    "{} seed {} barriers {} no_barriers {} per_checkpoint {} fail {:?} revise {:?}: pinned {} steps 0x{:016x}, now {} steps 0x{:016x}",
                    g.preset, g.seed, g.barriers, g.no_barriers, g.per_checkpoint, g.fail, g.revise, g.steps, g.hash, o.steps, o.hash
                )
            })
        })
        .collect()
}
