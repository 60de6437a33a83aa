//! The replayable log (Kafka-like): offsets are per-partition positions, a batch is a fixed
//! range, and Spark never commits anything back to the broker. A new query starts at its
//! `startingOffsets` (`latest` by default, as `KafkaSourceProvider`), written to `sources/0/0`.

use super::{
    read_planned_range, InitialOffset, OffsetScheme, PartitionPlan, Source, SourceCtx,
    SourceOffset, SourceState, SourceView, TaskRead, TOPIC,
};
use crate::microbatch::scenario::StartingOffsets;
use crate::microbatch::tunnel::Token;
use std::collections::BTreeMap;

/// The Kafka-like source: `{"cdc":{"0":3,"1":3}}` offsets, `maxOffsetsPerTrigger` split evenly.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReplayableLog;

impl OffsetScheme for ReplayableLog {
    fn initial_offset(&self, ctx: &mut SourceCtx) -> Option<InitialOffset> {
        let latest = ctx.spec.starting_offsets == StartingOffsets::Latest;
        let map: BTreeMap<u32, u64> = ctx
            .upstream
            .channels
            .iter()
            .map(|c| (c.index, if latest { c.arrived(ctx.now_ms) } else { 0 }))
            .collect();
        ctx.state.initial_log = Some(map.clone());
        Some(InitialOffset::v1(&SourceOffset::Log(map), ctx.upstream))
    }

    /// `sources/0/0` of an earlier run of this query: its initial offsets. The text is the
    /// file after its marker byte, `v1` and a line break before the JSON, as
    /// `KafkaSourceInitialOffsetWriter` writes it (and `deserialize` strips the version line).
    fn restore_initial(&self, state: &mut SourceState, body: &str) {
        let json = body.split_once('\n').map_or(body, |(_, json)| json);
        let parsed: Option<BTreeMap<String, BTreeMap<String, u64>>> =
            serde_json::from_str(json).ok();
        state.initial_log = parsed.and_then(|v| {
            v.get(TOPIC).map(|parts| {
                parts
                    .iter()
                    .filter_map(|(p, o)| p.parse::<u32>().ok().map(|p| (p, *o)))
                    .collect()
            })
        });
    }

    fn latest_offset(
        &self,
        ctx: &mut SourceCtx,
        _batch_id: u64,
        start: Option<&SourceOffset>,
    ) -> (SourceOffset, u64) {
        let budget = ctx.spec.max_offsets_per_trigger;
        let per_partition = if budget == 0 {
            u64::MAX
        } else {
            budget.div_ceil(ctx.upstream.channels.len() as u64)
        };
        let end = ctx
            .upstream
            .channels
            .iter()
            .map(|c| {
                let from = SourceOffset::position(start, c.index).offset_or_zero();
                let to = c
                    .arrived(ctx.now_ms)
                    .min(from.saturating_add(per_partition));
                (c.index, to)
            })
            .collect();
        (SourceOffset::Log(end), 0)
    }
}

impl Source for ReplayableLog {
    /// The initial offsets, when `latest` put any partition past its beginning.
    fn first_start(&self, state: &SourceState) -> Option<SourceOffset> {
        state
            .initial_log
            .as_ref()
            .filter(|m| m.values().any(|&o| o > 0))
            .map(|m| SourceOffset::Log(m.clone()))
    }

    fn plan_batch(
        &self,
        ctx: &mut SourceCtx,
        _batch_id: u64,
        start: Option<&SourceOffset>,
        end: &SourceOffset,
    ) -> Vec<PartitionPlan> {
        let first = self.first_start(ctx.state);
        let start = start.or(first.as_ref());
        end.expect_as(SourceOffset::as_log)
            .iter()
            .map(|(&p, &o)| PartitionPlan {
                channel: p,
                start: SourceOffset::position(start, p),
                end: Some(Token::At(o)),
            })
            .filter(|p| Some(p.start) != p.end)
            .collect()
    }

    fn read(&self, ctx: &mut SourceCtx, plan: &PartitionPlan) -> TaskRead {
        read_planned_range(ctx, plan, "a replayable log")
    }

    fn position_after(
        &self,
        _view: SourceView,
        committed: Option<&SourceOffset>,
    ) -> Option<BTreeMap<u32, Token>> {
        committed.map(|o| {
            o.expect_as(SourceOffset::as_log)
                .iter()
                .map(|(&p, &o)| (p, Token::At(o)))
                .collect()
        })
    }
}
