//! The SeaTunnel micro-batch source (PR #7476): the offset is only a checkpoint id; each
//! subtask's reader restores its position from its state files: as the PR wrote it, the latest
//! `.prepared` of the batch first; in the safer committed-only design, only `.committed` files.
//! The readers themselves run in the driver's reader phase (`crate::microbatch::seatunnel`).

use super::{
    InitialOffset, OffsetScheme, PartitionPlan, Source, SourceCtx, SourceOffset, SourceView,
    TaskRead,
};
use crate::checkpoint::CheckpointFolder;
use crate::microbatch::scenario::{ReaderEnd, SeaTunnelDesign};
use crate::microbatch::tunnel::Token;
use std::collections::BTreeMap;

/// `{"checkpointId":n}` offsets; positions live in `sources/0/<batch>/<subtask>/<id>.committed`.
#[derive(Clone, Copy, Debug, Default)]
pub struct SeaTunnelSource;

/// Where subtask `c`'s reader resumes in batch `batch_id`. PR #7476 (`design` = `pr-7476`):
/// the latest `.prepared` of this batch, else its latest `.committed`, else walking back over
/// batches preferring the newest file of either kind (`CheckpointDataLogManager`); ids order by
/// (batch, checkpoint id). Committed-only: the newest `.committed` with batch `<= batch_id`.
/// 0 if there is none.
pub fn restore(
    checkpoint: &CheckpointFolder,
    batch_id: u64,
    c: u32,
    design: SeaTunnelDesign,
) -> u64 {
    let mut best: Option<((u64, u64), u64)> = None;
    for (path, bytes) in checkpoint.files() {
        let Some(rest) = path.strip_prefix("sources/0/") else {
            continue;
        };
        let parts: Vec<&str> = rest.split('/').collect();
        let [b, sub, file] = parts[..] else { continue };
        let (Ok(b), Ok(sub)) = (b.parse::<u64>(), sub.parse::<u32>()) else {
            continue;
        };
        let id = match (
            file.strip_suffix(".committed"),
            file.strip_suffix(".prepared"),
        ) {
            (Some(i), _) => i.parse::<u64>().ok(),
            (None, Some(i)) if design == SeaTunnelDesign::Pr7476 => i.parse::<u64>().ok(),
            _ => None,
        };
        let Some(id) = id else {
            continue;
        };
        if sub != c || b > batch_id {
            continue;
        }
        let pos = String::from_utf8_lossy(bytes)
            .trim()
            .strip_prefix("t:")
            .and_then(|p| p.parse().ok())
            .unwrap_or(0);
        if best.is_none_or(|(k, _)| (b, id) > k) {
            best = Some(((b, id), pos));
        }
    }
    best.map_or(0, |(_, pos)| pos)
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
        batch_id: u64,
        _start: Option<&SourceOffset>,
        _end: &SourceOffset,
    ) -> Vec<PartitionPlan> {
        (0..ctx.upstream.channels.len() as u32)
            .map(|c| PartitionPlan {
                channel: c,
                start: Token::At(restore(ctx.checkpoint, batch_id, c, ctx.spec.design)),
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
        let next = view.checkpoint.latest_commit_id().map_or(0, |c| c + 1);
        let n = view.upstream.channels.len() as u32;
        Some(
            view.upstream
                .channels
                .iter()
                .filter(|c| c.index < n)
                .map(|c| {
                    (
                        c.index,
                        Token::At(restore(view.checkpoint, next, c.index, view.spec.design)),
                    )
                })
                .collect(),
        )
    }
}
