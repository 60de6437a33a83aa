//! Drawing a swarm's scenarios: run `index` of swarm `seed` is a built-in scenario changed at
//! random — its seed, batches, channels, records, bursts, splits, idle windows, sink kind,
//! outages, failures inside a batch, driver crashes and restart policy — from a generator
//! seeded by `(seed, index)` alone, so any run is drawn again without the ones before it.

use batchscope_engine::microbatch::scenario::{
    presets, Burst, CrashKind, CrashPoint, Fault, FaultKind, Restart, Scenario, SinkKind,
    SplitSpec, Window,
};
use batchscope_engine::rng::Prng;

/// The generator of run `index` of swarm `seed` (SplitMix64 of the pair: neighbouring indices
/// get unrelated streams).
fn generator(seed: u64, index: u64) -> Prng {
    let mut z = seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    Prng::new(z ^ (z >> 31))
}

/// The scenarios a swarm starts from: every built-in micro-batch scenario.
pub fn bases() -> Vec<Scenario> {
    presets().into_iter().map(|p| p.scenario).collect()
}

/// Whether a one-in-`n` draw comes up.
fn one_in(rng: &mut Prng, n: u64) -> bool {
    rng.below(n) == 0
}

/// Applies `change` to the scenario when the result is still valid; else leaves it as it was.
fn try_change(s: &mut Scenario, change: impl FnOnce(&mut Scenario)) {
    let mut changed = s.clone();
    change(&mut changed);
    if changed.validate().is_ok() {
        *s = changed;
    }
}

/// Run `index` of swarm `seed`, drawn from `bases`: a valid scenario (every change that would
/// make it invalid is left out), named `swarm-<seed>-<index>`.
pub fn draw(bases: &[Scenario], seed: u64, index: u64) -> Scenario {
    let mut rng = generator(seed, index);
    let mut s = bases[rng.below(bases.len() as u64) as usize].clone();
    s.description = format!(
        "run {index} of the swarm with seed {seed}, drawn from preset {}",
        s.name
    );
    s.name = format!("swarm-{seed}-{index}");
    s.seed = rng.below(1 << 32);
    s.crashes.clear();
    s.crash_after_events.clear();
    let batches = 1 + rng.below(6);
    try_change(&mut s, |s| s.batches = batches);
    shape_upstream(&mut s, &mut rng);
    shape_sink(&mut s, &mut rng);
    add_failures(&mut s, &mut rng);
    s
}

/// Channels, records per batch, a burst, a split, an idle window.
fn shape_upstream(s: &mut Scenario, rng: &mut Prng) {
    let channels = 1 + rng.below(4) as u32;
    try_change(s, |s| s.upstream.channels = channels);
    let records = 1 + rng.below(8) as u32;
    try_change(s, |s| s.upstream.records_per_batch = records);
    let span = s.batches * s.trigger_interval_ms;
    if one_in(rng, 4) {
        let burst = Burst {
            channel: rng.below(u64::from(s.upstream.channels)) as u32,
            at_ms: rng.below(span.max(1)),
            records: 1 + rng.below(20) as u32,
        };
        try_change(s, |s| s.upstream.bursts.push(burst));
    }
    if one_in(rng, 4) {
        let split = SplitSpec {
            channel: rng.below(u64::from(s.upstream.channels)) as u32,
            at_ms: 1 + rng.below(span.max(1)),
        };
        try_change(s, |s| s.upstream.splits.push(split));
    }
    if one_in(rng, 8) {
        let idle = window(s, rng, 3);
        try_change(s, |s| s.upstream.idle.push(idle));
    }
}

/// A window that starts within the data's span and lasts up to `intervals` trigger intervals.
fn window(s: &Scenario, rng: &mut Prng, intervals: u64) -> Window {
    let span = s.batches * s.trigger_interval_ms;
    let from_ms = rng.below(span.max(1));
    Window {
        from_ms,
        to_ms: from_ms + 1 + rng.below(intervals * s.trigger_interval_ms),
    }
}

/// The sink kind and an outage.
fn shape_sink(s: &mut Scenario, rng: &mut Prng) {
    if one_in(rng, 2) {
        let kind = SinkKind::ALL[rng.below(SinkKind::ALL.len() as u64) as usize];
        try_change(s, |s| s.sink.kind = kind);
    }
    if one_in(rng, 4) {
        let outage = window(s, rng, 4);
        try_change(s, |s| s.sink.outages.push(outage));
    }
}

/// A failure inside a batch, driver crashes (named, or after an event), the restart policy.
fn add_failures(s: &mut Scenario, rng: &mut Prng) {
    if one_in(rng, 4) {
        let fault = Fault {
            kind: FaultKind::ALL[rng.below(FaultKind::ALL.len() as u64) as usize],
            batch_id: rng.below(s.batches),
        };
        try_change(s, |s| s.faults.push(fault));
    }
    for _ in 0..rng.below(4) {
        if one_in(rng, 2) {
            let point = CrashPoint {
                kind: CrashKind::ALL[rng.below(CrashKind::ALL.len() as u64) as usize],
                batch_id: rng.below(s.batches),
            };
            try_change(s, |s| s.crashes.push(point));
        } else {
            let after = rng.below(60 * s.batches);
            try_change(s, |s| {
                s.crash_after_events.push(after);
                s.crash_after_events.sort_unstable();
                s.crash_after_events.dedup();
            });
        }
    }
    if one_in(rng, 16) {
        try_change(s, |s| s.restart = Some(Restart::None));
    }
    if one_in(rng, 8) {
        let attempts = 1 + rng.below(4) as u32;
        try_change(s, |s| s.task_max_failures = attempts);
    }
}
