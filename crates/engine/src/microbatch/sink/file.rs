//! The file sink (`FileStreamSink`): each task writes a data file, the driver's commit lists
//! the attempt's files in `_spark_metadata/<batchId>`, and `addBatch` skips a batch id the
//! manifest already has.

use super::{Sink, SinkCommit, SinkFile, SinkState, TaskOutput};
use crate::microbatch::event::SinkEffect;
use crate::microbatch::upstream::Upstream;

/// `FileStreamSink` with its batch-id manifest (`_spark_metadata`).
#[derive(Clone, Copy, Debug, Default)]
pub struct FileSink;

impl Sink for FileSink {
    /// `batchId <= latest` of the manifest → "Skipping already committed batch", before any
    /// task runs.
    fn skips_batch(&self, state: &SinkState, batch_id: u64) -> bool {
        state
            .manifest
            .keys()
            .next_back()
            .is_some_and(|&last| batch_id <= last)
    }

    /// The task's data file, unlisted until the commit; its rows are staged.
    fn task_output(&self, state: &mut SinkState, output: TaskOutput, _: &Upstream) -> SinkEffect {
        state.files.push(SinkFile {
            name: output.file_name,
            batch_id: output.batch_id,
            rows: output.rows.len(),
            committed: false,
        });
        state.stage(output.partition, output.rows);
        SinkEffect::Staged
    }

    /// The manifest entry is a write to the store.
    fn commit_fails_when_down(&self) -> bool {
        true
    }

    /// Lists this attempt's files of the batch in `_spark_metadata/<batchId>` (files of a
    /// killed attempt stay orphans) and makes their rows visible.
    fn commit(&self, state: &mut SinkState, batch_id: u64) -> SinkCommit {
        let staged = state.take_staged();
        let mut names = vec![];
        for i in staged.files_from..state.files.len() {
            let f = state.files.get_mut(i).expect("a file of this attempt");
            if f.batch_id == batch_id && !f.committed {
                f.committed = true;
                names.push(f.name.clone());
            }
        }
        state.manifest.insert(batch_id, names.into());
        state.stores[0].rows.extend(staged.rows_of(batch_id));
        SinkCommit {
            rows: staged.rows,
            target: format!("_spark_metadata/{batch_id}"),
            skipped: false,
        }
    }
}
