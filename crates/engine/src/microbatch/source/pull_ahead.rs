//! The pull-ahead source (the connector's first version): `getOffset` reads the rows to learn
//! the end positions and caches them for the tasks; offsets are real channel positions.

use super::{
    read_channel, read_planned_range, InitialOffset, OffsetScheme, PartitionPlan, ReadRequest,
    Source, SourceCommit, SourceCounters, SourceCtx, SourceOffset, SourceState, SourceView,
    TaskRead,
};
use crate::microbatch::tunnel::Token;
use std::collections::BTreeMap;

/// Reads ahead in `getOffset`; tasks take the cached rows (or re-read the range after a restart).
#[derive(Clone, Copy, Debug, Default)]
pub struct PullAhead;

impl OffsetScheme for PullAhead {
    fn initial_offset(&self, ctx: &mut SourceCtx) -> Option<InitialOffset> {
        let start = SourceOffset::Positions(ctx.tunnel.open_channels().into_iter().collect());
        Some(InitialOffset::v1(&start, ctx.upstream))
    }

    /// Reads every channel from its start up to `maxOffsetsPerChannel` rows; the rows wait in
    /// the cache, keyed by the start they were read from.
    fn latest_offset(
        &self,
        ctx: &mut SourceCtx,
        _batch_id: u64,
        start: Option<&SourceOffset>,
    ) -> (SourceOffset, u64) {
        let from = start
            .map(|s| s.expect_as(SourceOffset::as_positions))
            .cloned()
            .unwrap_or_default();
        let mut channels: BTreeMap<u32, Token> = ctx.tunnel.open_channels().into_iter().collect();
        channels.extend(from);
        let cap = u64::from(ctx.spec.max_offsets_per_channel);
        let mut rows_read = 0;
        let mut end = BTreeMap::new();
        for (channel, start) in channels {
            let request = ReadRequest {
                channel,
                start,
                cap,
                now_ms: ctx.now_ms,
                commit_on_read: false,
            };
            let read = read_channel(ctx.upstream, ctx.tunnel, ctx.counters, request);
            let n = read.rows.len();
            // Read by the driver, not by tasks: counted as read ahead below.
            ctx.counters.rows_read_by_tasks -= n;
            rows_read += n;
            ctx.counters.rows_cached += n;
            end.insert(channel, read.end);
            ctx.state
                .cache
                .insert((channel, start), (read.end, read.rows));
        }
        ctx.counters.rows_read_ahead += rows_read;
        ctx.counters.rows_cached_peak = ctx.counters.rows_cached_peak.max(ctx.counters.rows_cached);
        (SourceOffset::Positions(end), rows_read)
    }
}

impl Source for PullAhead {
    /// Commits the previous end positions to the Tunnel server and evicts cache entries that
    /// start before them.
    fn commit(&self, ctx: &mut SourceCtx, end: &SourceOffset) -> SourceCommit {
        let map = end.expect_as(SourceOffset::as_positions);
        let mut done = SourceCommit::default();
        for (&index, &token) in map {
            ctx.commit_to_tunnel(index, token);
            done.checkpoints.push(ctx.channel_token(index, token));
        }
        let before = ctx.state.cache.len();
        ctx.state
            .cache
            .retain(|(ch, start), _| map.get(ch).is_none_or(|t| start >= t));
        if before != ctx.state.cache.len() {
            ctx.counters.rows_cached = ctx.state.cache.values().map(|(_, r)| r.len()).sum();
        }
        done
    }

    fn plan_batch(
        &self,
        _ctx: &mut SourceCtx,
        _batch_id: u64,
        start: Option<&SourceOffset>,
        end: &SourceOffset,
    ) -> Vec<PartitionPlan> {
        end.expect_as(SourceOffset::as_positions)
            .iter()
            .map(|(&c, &t)| PartitionPlan {
                channel: c,
                start: SourceOffset::position(start, c),
                end: Some(t),
            })
            .filter(|p| Some(p.start) != p.end)
            .collect()
    }

    fn read(&self, ctx: &mut SourceCtx, plan: &PartitionPlan) -> TaskRead {
        match ctx.state.cache.remove(&(plan.channel, plan.start)) {
            Some((end, rows)) if Some(end) == plan.end => {
                ctx.counters.rows_cached -= rows.len();
                TaskRead {
                    rows,
                    end,
                    committed: false,
                    from_cache: true,
                    aged_out: 0,
                }
            }
            _ => {
                // Not cached (e.g. after a restart): read the same range again from the Tunnel server.
                read_planned_range(ctx, plan, "pull-ahead")
            }
        }
    }

    fn position_after(
        &self,
        _view: SourceView,
        committed: Option<&SourceOffset>,
    ) -> Option<BTreeMap<u32, Token>> {
        committed.map(|o| o.expect_as(SourceOffset::as_positions).clone())
    }

    fn drop_volatile(&self, state: &mut SourceState, counters: &mut SourceCounters) -> Vec<String> {
        let mut lost = vec![];
        if !state.cache.is_empty() {
            let rows: u64 = state.cache.values().map(|(_, r)| r.len()).sum();
            lost.push(format!("{rows} rows cached by pull-ahead"));
            counters.rows_cached = 0;
        }
        *state = SourceState::default();
        lost
    }
}
