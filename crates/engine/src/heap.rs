//! Growing wasm32 linear memory once for a large run instead of a little at a time.
//!
//! Rust's wasm32 allocator (dlmalloc) grows the module's memory (`memory.grow`) each time its
//! heap runs out, by about what the allocation at hand needs, and V8 answers a growing module
//! memory with garbage collections of the JavaScript heap: a 1 M-record `tablestore` run in
//! Node triggered 41 full mark-compacts, with the allocator's growth about a third of the run.
//! Asking once for what the run will need (one allocation, freed at once: the allocator keeps
//! the memory and serves the run from it; wasm memory never shrinks) costs one growth and a
//! few collections — measured: the first run 385 → 238 ms, 41 → 4 collections, and the
//! memory after the run no larger than without the reservation (it is about what the run
//! holds). Natively this does nothing: the system allocator maps and unmaps large blocks
//! itself.

use crate::microbatch::scenario::Scenario;

/// Bytes of wasm memory a run holds per upstream record, rounded up from the benchmark (without
/// a reservation, 32–40 MB after a run of 993,280 records; docs/PERFORMANCE.md): the record's
/// arrival time, the sink's 16-byte row, an upsert sink's slot, the source's pages and the
/// counts. Too little costs growths during the run; too much, memory the run never uses.
pub const BYTES_PER_RECORD: u64 = 44;

/// Runs that need less than this grow memory a few times at most: not worth a reservation.
pub const MIN_RESERVE_BYTES: u64 = 16 << 20;

/// The most reserved at once (the scenario budget's 2 M records need 88 MB).
pub const MAX_RESERVE_BYTES: u64 = 128 << 20;

/// The bytes [`reserve_for`] asks for before a run of `scenario`: 0 below
/// [`MIN_RESERVE_BYTES`].
pub fn reserve_bytes(scenario: &Scenario) -> u64 {
    let bytes = scenario
        .work()
        .records
        .saturating_mul(BYTES_PER_RECORD)
        .min(MAX_RESERVE_BYTES);
    if bytes < MIN_RESERVE_BYTES {
        0
    } else {
        bytes
    }
}

/// In wasm32, makes the allocator hold [`reserve_bytes`] of free memory before a run of
/// `scenario` (one `memory.grow` when the memory is not there yet, nothing when an earlier run
/// left it free). Natively a no-op.
pub fn reserve_for(scenario: &Scenario) {
    if cfg!(target_arch = "wasm32") {
        let bytes = reserve_bytes(scenario);
        if bytes > 0 {
            drop(std::hint::black_box(Vec::<u8>::with_capacity(
                bytes as usize,
            )));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::microbatch::scenario::preset;

    #[test]
    fn presets_reserve_nothing_and_a_million_records_what_they_hold() {
        let small = preset("kafka-idempotent").unwrap();
        assert_eq!(reserve_bytes(&small), 0);
        let mut large = small.clone();
        large.upstream.channels = 256;
        large.upstream.records_per_batch = 100;
        large.batches = 40;
        let records = large.work().records;
        assert_eq!(reserve_bytes(&large), records * BYTES_PER_RECORD);
        large.upstream.records_per_batch = 1_000_000;
        assert_eq!(reserve_bytes(&large), MAX_RESERVE_BYTES, "capped");
    }
}
