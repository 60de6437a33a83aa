//! The SeaTunnel micro-batch source (PR #7476): the offset is only a checkpoint id; each
//! subtask's reader restores its position from its state files in the folder named by the
//! batch's start offset: as the PR wrote it, the next `.prepared` of the folder first; in the
//! committed-only design, only `.committed` files.
//! The readers themselves run in the driver's reader phase (`crate::microbatch::seatunnel`).

use super::{
    InitialOffset, OffsetScheme, PartitionPlan, Source, SourceCtx, SourceOffset, SourceView,
    TaskRead,
};
use crate::checkpoint::CheckpointFolder;
use crate::microbatch::scenario::{ReaderEnd, SeaTunnelDesign};
use crate::microbatch::tunnel::Token;
use std::collections::BTreeMap;

/// `{"checkpointId":n}` offsets; positions live in `sources/0/<folder>/<subtask>/<id>.committed`.
#[derive(Clone, Copy, Debug, Default)]
pub struct SeaTunnelSource;

/// The state folder of a batch that starts at `start`: the start offset's checkpoint id, as
/// the PR names it (`SeaTunnelMicroBatch.planInputPartitions` passes
/// `(int) startOffset.getCheckpointId()` as the reader's `batchId`). Batch 0 starts at the
/// initial offset 0 and batch N ≥ 1 at batch N−1's end, N−1: batches 0 and 1 share folder 0.
pub fn folder_of(start: Option<&SourceOffset>) -> u64 {
    match start {
        Some(SourceOffset::Checkpoint(n)) => *n,
        _ => 0,
    }
}

/// The state files of subtask `c` in `folder`: (checkpoint id, committed?, position).
fn state_files(checkpoint: &CheckpointFolder, folder: u64, c: u32) -> Vec<(u64, bool, u64)> {
    let dir = format!("sources/0/{folder}/{c}/");
    checkpoint
        .files()
        .filter_map(|(path, bytes)| {
            let file = path.strip_prefix(&dir)?;
            let (id, committed) = match (
                file.strip_suffix(".committed"),
                file.strip_suffix(".prepared"),
            ) {
                (Some(i), _) => (i, true),
                (None, Some(i)) => (i, false),
                _ => return None,
            };
            Some((id.parse().ok()?, committed, first_position(bytes)))
        })
        .collect()
}

/// The position a state file restores: its first object. `saveState` appends to a file that
/// exists (`fileSystem.appendFile`) and `restoreState` deserialises one object, the first.
fn first_position(bytes: &[u8]) -> u64 {
    String::from_utf8_lossy(bytes)
        .lines()
        .next()
        .and_then(|l| l.trim().strip_prefix("t:"))
        .and_then(|p| p.parse().ok())
        .unwrap_or(0)
}

fn newest(files: &[(u64, bool, u64)], committed: bool) -> Option<(u64, u64)> {
    files
        .iter()
        .filter(|f| f.1 == committed)
        .map(|f| (f.0, f.2))
        .max()
}

/// The checkpoint id subtask `c`'s next snapshot in `folder` gets: the newest `.committed`
/// id + 1, or 0 (`ParallelMicroBatchPartitionReader.prepare()`: `checkpointId =
/// latestCommittedCheckpointId(batchId) + 1`, `maxNum` returning -1 when there is none).
pub fn next_checkpoint_id(checkpoint: &CheckpointFolder, folder: u64, c: u32) -> u64 {
    newest(&state_files(checkpoint, folder, c), true).map_or(0, |(id, _)| id + 1)
}

/// Where subtask `c`'s reader resumes in a batch whose state folder is `folder`; 0 if no
/// state file says. PR #7476 (`ParallelMicroBatchPartitionReader.prepare()`, apache/seatunnel
/// 34c5d786): `<committed+1>.prepared` of the folder, else its newest `.committed`, else
/// walking back over older folders, in each the newer of its newest `.prepared` and newest
/// `.committed`. Committed-only: the newest `.committed` of the newest folder that has one.
pub fn restore(checkpoint: &CheckpointFolder, folder: u64, c: u32, design: SeaTunnelDesign) -> u64 {
    for f in (0..=folder).rev() {
        let files = state_files(checkpoint, f, c);
        let committed = newest(&files, true);
        let found = match design {
            SeaTunnelDesign::CommittedOnly => committed,
            SeaTunnelDesign::Pr7476 if f == folder => {
                let next = committed.map_or(0, |(id, _)| id + 1);
                files
                    .iter()
                    .find(|x| !x.1 && x.0 == next)
                    .map(|x| (x.0, x.2))
                    .or(committed)
            }
            SeaTunnelDesign::Pr7476 => {
                let prepared = newest(&files, false);
                match (prepared, committed) {
                    (Some(p), Some(k)) if p.0 > k.0 => Some(p),
                    (Some(p), None) => Some(p),
                    (_, k) => k,
                }
            }
        };
        if let Some((_, pos)) = found {
            return pos;
        }
    }
    0
}

impl OffsetScheme for SeaTunnelSource {
    /// SeaTunnel keeps no initial offset file; its readers' state lives in
    /// `sources/0/<batch>/<subtask>/<checkpointId>.{prepared,committed}`.
    fn initial_offset(&self, _ctx: &mut SourceCtx) -> Option<InitialOffset> {
        None
    }

    /// PR #7476: latestOffset = (largest committed batch id) + 1, so every trigger has "new data".
    /// The merged dev reader (`virtual-checkpoint`): `latestOffset` is the in-memory
    /// `currentOffset`, which only `commit` moves — and Spark commits batch N-1 only while it
    /// constructs batch N, so after batch 0 no new offset ever appears.
    fn latest_offset(
        &self,
        ctx: &mut SourceCtx,
        batch_id: u64,
        _start: Option<&SourceOffset>,
    ) -> (SourceOffset, u64) {
        if ctx.spec.reader == ReaderEnd::VirtualCheckpoint {
            return (SourceOffset::Checkpoint(ctx.state.seatunnel_current), 0);
        }
        (SourceOffset::Checkpoint(batch_id), 0)
    }
}

impl Source for SeaTunnelSource {
    /// Dev's `commit(end)`: `currentOffset = end + 1` (the PR's source keeps no such field).
    fn commit(&self, ctx: &mut SourceCtx, end: &SourceOffset) -> super::SourceCommit {
        if let SourceOffset::Checkpoint(n) = end {
            ctx.state.seatunnel_current = n + 1;
        }
        super::SourceCommit::default()
    }

    /// One reader per subtask (channel); each restores its position from its state files
    /// ([`restore`]), not from the offset.
    fn plan_batch(
        &self,
        ctx: &mut SourceCtx,
        _batch_id: u64,
        start: Option<&SourceOffset>,
        _end: &SourceOffset,
    ) -> Vec<PartitionPlan> {
        let folder = folder_of(start);
        (0..ctx.upstream.channels.len() as u32)
            .map(|c| PartitionPlan {
                channel: c,
                start: Token::At(restore(ctx.checkpoint, folder, c, ctx.spec.design)),
                end: None,
            })
            .collect()
    }

    fn read(&self, _ctx: &mut SourceCtx, _plan: &PartitionPlan) -> TaskRead {
        unreachable!("SeaTunnel readers run in Phase::Reader, not as read-then-finish tasks")
    }

    fn runs_readers(&self) -> bool {
        true
    }

    /// Where the next batch's readers would restore, whatever the offsets say.
    fn position_after(
        &self,
        view: SourceView,
        _committed: Option<&SourceOffset>,
    ) -> Option<BTreeMap<u32, Token>> {
        // The next batch starts at the last committed batch's end, {"checkpointId": c}.
        let folder = view.checkpoint.latest_commit_id().unwrap_or(0);
        let n = view.upstream.channels.len() as u32;
        Some(
            view.upstream
                .channels
                .iter()
                .filter(|c| c.index < n)
                .map(|c| {
                    (
                        c.index,
                        Token::At(restore(view.checkpoint, folder, c.index, view.spec.design)),
                    )
                })
                .collect(),
        )
    }
}
