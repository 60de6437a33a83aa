//! The foreachBatch sink: a user function gets each batch with its id and writes the whole
//! batch to one of several stores, chosen at random on every call (seed 004:
//! `storagePaths(r.nextInt(3))`); the function may throw after it wrote.

use super::{Sink, SinkCommit, SinkState};
use crate::microbatch::scenario::{FaultKind, SinkSpec};
use crate::rng::Prng;

/// foreachBatch writing each batch to one random store of `spec.stores`.
#[derive(Clone, Copy, Debug, Default)]
pub struct ForeachBatchSink;

impl Sink for ForeachBatchSink {
    /// `store-0` … one per store the function chooses from.
    fn store_names(&self, spec: &SinkSpec) -> Vec<String> {
        (0..spec.stores).map(|i| format!("store-{i}")).collect()
    }

    /// The function picks its store at random on every call.
    fn start_batch(&self, state: &mut SinkState, rng: &mut Prng) {
        let store = rng.below(u64::from(state.spec.stores)) as u32;
        state.choose_store(store);
    }

    /// The function's write is a write to the store.
    fn commit_fails_when_down(&self) -> bool {
        true
    }

    /// The function writes the whole batch to the store it picked.
    fn commit(&self, state: &mut SinkState, batch_id: u64) -> SinkCommit {
        let staged = state.take_staged();
        let store = &mut state.stores[state.current_store as usize];
        store.rows.extend(staged.rows_of(batch_id));
        SinkCommit {
            rows: staged.rows,
            target: store.name.clone(),
            skipped: false,
        }
    }

    /// The function throws after writing its store (`foreach-fail`).
    fn commit_fault(&self) -> Option<FaultKind> {
        Some(FaultKind::ForeachFail)
    }
}
