//! The transactional-id sink: a foreachBatch function that writes each batch to a Delta table
//! as one transaction with Delta's idempotent-write options, `txnAppId` = the query's id and
//! `txnVersion` = the batch id. The table keeps the latest version per application id
//! (Delta's `SetTransaction`); a write whose version is not above it is skipped.

use super::{Sink, SinkCommit, SinkState};

/// Skips a batch whose (query id, batch id) the table already recorded.
#[derive(Clone, Copy, Debug, Default)]
pub struct TxnAppIdSink;

impl Sink for TxnAppIdSink {
    /// The commit is the table's transaction: a write to the store.
    fn commit_fails_when_down(&self) -> bool {
        true
    }

    /// One transaction: skipped if the table's latest version for this application id is at
    /// least `batch_id`, else the rows and the new version together.
    fn commit(&self, state: &mut SinkState, batch_id: u64) -> SinkCommit {
        let staged = state.take_staged();
        let app = state.app_id.clone().unwrap_or_default();
        let target = format!("txnAppId {app}, txnVersion {batch_id}");
        if state.txn_versions.get(&app).is_some_and(|v| batch_id <= *v) {
            return SinkCommit {
                rows: 0,
                target,
                skipped: true,
            };
        }
        state.txn_versions.insert(app, batch_id);
        state.stores[0].rows.extend(staged.rows_of(batch_id));
        SinkCommit {
            rows: staged.rows,
            target,
            skipped: false,
        }
    }
}
