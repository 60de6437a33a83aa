//! The batch-id-in-memory sink: a V1 sink whose `addBatch` skips `batchId <= latestBatchId`,
//! with `latestBatchId` a field of the sink object on the driver, initialised to -1. It
//! de-duplicates within a run and forgets on a restart.

use super::{Sink, SinkCommit, SinkState};

/// Skips batch ids up to its driver-side `latestBatchId` (`None` here for -1).
#[derive(Clone, Copy, Debug, Default)]
pub struct BatchIdInMemorySink;

impl Sink for BatchIdInMemorySink {
    fn skips_batch(&self, state: &SinkState, batch_id: u64) -> bool {
        state.latest_batch_id.is_some_and(|l| batch_id <= l)
    }

    /// Writes the batch and remembers its id in the driver-side field.
    fn commit(&self, state: &mut SinkState, batch_id: u64) -> SinkCommit {
        let staged = state.take_staged();
        state.latest_batch_id = Some(batch_id);
        state.stores[0].rows.extend(staged.rows_of(batch_id));
        SinkCommit {
            rows: staged.rows,
            target: format!("table (latestBatchId = {batch_id})"),
            skipped: false,
        }
    }

    /// The new driver's sink object starts with `latestBatchId` at -1.
    fn new_driver(&self, state: &mut SinkState) {
        state.changed();
        state.latest_batch_id = None;
    }
}
