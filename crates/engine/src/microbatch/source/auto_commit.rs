//! The auto-commit variant of the Tablestore source: tasks send every page's checkpoint to the
//! Tunnel server while reading, so a restart resumes from the server, not from the offsets.

use super::tablestore::UuidOffsets;
use super::{
    read_channel, PartitionPlan, ReadRequest, Source, SourceCtx, SourceOffset, SourceView, TaskRead,
};
use crate::microbatch::tunnel::Token;
use std::collections::BTreeMap;

/// Commit-on-read: UUID offsets as the Tablestore source, positions on the Tunnel server.
#[derive(Clone, Copy, Debug, Default)]
pub struct AutoCommit;

/// Starts and names its batches as the Tablestore source does.
impl UuidOffsets for AutoCommit {}

impl Source for AutoCommit {
    // `commit` keeps the default: the tasks already committed on read.

    /// Every open channel from its server checkpoint (the offsets are not consulted).
    fn plan_batch(
        &self,
        ctx: &mut SourceCtx,
        _batch_id: u64,
        _start: Option<&SourceOffset>,
        _end: &SourceOffset,
    ) -> Vec<PartitionPlan> {
        ctx.tunnel
            .open_channels()
            .into_iter()
            .map(|(channel, start)| PartitionPlan {
                channel,
                start,
                end: None,
            })
            .collect()
    }

    fn read(&self, ctx: &mut SourceCtx, plan: &PartitionPlan) -> TaskRead {
        let request = ReadRequest {
            channel: plan.channel,
            start: plan.start,
            cap: u64::from(ctx.spec.max_offsets_per_channel),
            now_ms: ctx.now_ms,
            commit_on_read: true,
        };
        let read = read_channel(ctx.upstream, ctx.tunnel, ctx.counters, request);
        if read.end == Token::Finished {
            ctx.commit_to_tunnel(plan.channel, Token::Finished);
        }
        read
    }

    /// The server's checkpoints, whatever the offsets say.
    fn position_after(
        &self,
        view: SourceView,
        _committed: Option<&SourceOffset>,
    ) -> Option<BTreeMap<u32, Token>> {
        Some(
            view.upstream
                .channels
                .iter()
                .filter_map(|c| view.tunnel.get(c.index).map(|t| (c.index, t.checkpoint)))
                .collect(),
        )
    }
}
