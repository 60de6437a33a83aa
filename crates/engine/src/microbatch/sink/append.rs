//! The plain append sink: each task appends its rows as it finishes, visible at once; a
//! replayed batch appends them again.

use super::{Row, Sink, SinkCommit, SinkState, TaskOutput};
use crate::microbatch::event::SinkEffect;
use crate::microbatch::upstream::Upstream;

/// Tasks append rows as they go (a Kafka-like topic, a log table).
#[derive(Clone, Copy, Debug, Default)]
pub struct AppendSink;

impl Sink for AppendSink {
    fn task_output(&self, state: &mut SinkState, output: TaskOutput, _: &Upstream) -> SinkEffect {
        state.changed_visibly();
        state.stores[0]
            .rows
            .extend(Row::records_of(output.batch_id, &output.rows));
        SinkEffect::Appended
    }

    fn commit(&self, state: &mut SinkState, _batch_id: u64) -> SinkCommit {
        SinkCommit::written_by_tasks(state)
    }
}
