//! The replayable log (Kafka-like): offsets are per-partition positions, a batch is a fixed
//! range, and Spark never commits anything back to the broker (SEMANTICS §1.1, §6).

use super::{
    read_planned_range, InitialOffset, PartitionPlan, Source, SourceCtx, SourceOffset, SourceView,
    TaskRead,
};
use crate::tunnel::Token;
use std::collections::BTreeMap;

/// The Kafka-like source: `{"cdc":{"0":3,"1":3}}` offsets, `maxOffsetsPerTrigger` split evenly.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReplayableLog;

fn log_map(offset: &SourceOffset) -> &BTreeMap<u32, u64> {
    let SourceOffset::Log(map) = offset else {
        panic!("a replayable log's offsets are partition positions, got {offset:?}");
    };
    map
}

impl Source for ReplayableLog {
    fn initial_offset(&self, ctx: &mut SourceCtx) -> Option<InitialOffset> {
        let start = SourceOffset::Log(ctx.upstream.channels.iter().map(|c| (c.index, 0)).collect());
        Some(InitialOffset {
            version: 1,
            body: start.to_line(ctx.upstream),
            meta_rows: vec![],
        })
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

    fn plan_batch(
        &self,
        _ctx: &mut SourceCtx,
        _batch_id: u64,
        start: Option<&SourceOffset>,
        end: &SourceOffset,
    ) -> Vec<PartitionPlan> {
        log_map(end)
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
            log_map(o)
                .iter()
                .map(|(&p, &o)| (p, Token::At(o)))
                .collect()
        })
    }
}
