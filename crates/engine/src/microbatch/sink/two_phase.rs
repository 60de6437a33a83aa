//! The two-phase sink (DSv2 `StreamingWrite`): tasks stage their rows, and the driver's
//! `commit(epoch)` publishes them unless the sink already committed that epoch.

use super::{Sink, SinkCommit, SinkState};

/// Tasks stage, the driver commits epoch N once (the last committed epoch is durable in the sink).
#[derive(Clone, Copy, Debug, Default)]
pub struct TwoPhaseSink;

impl Sink for TwoPhaseSink {
    /// The commit is a write to the store.
    fn commit_fails_when_down(&self) -> bool {
        true
    }

    /// Publishes the staged rows as epoch `batch_id`; an epoch already committed is skipped as
    /// a duplicate, and what this attempt staged is dropped.
    fn commit(&self, state: &mut SinkState, batch_id: u64) -> SinkCommit {
        let staged = state.take_staged();
        let target = format!("epoch {batch_id}");
        if state.last_committed_epoch.is_some_and(|e| batch_id <= e) {
            return SinkCommit {
                rows: 0,
                target,
                skipped: true,
            };
        }
        state.last_committed_epoch = Some(batch_id);
        state.stores[0].rows.extend(staged.rows_of(batch_id));
        SinkCommit {
            rows: staged.rows,
            target,
            skipped: false,
        }
    }
}
