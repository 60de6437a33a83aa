//! The replayable log (Kafka-like): offsets are per-partition positions, a batch is a fixed
//! range, and Spark never commits anything back to the broker. A new query starts at its
//! `startingOffsets` (`latest` by default, as `KafkaSourceProvider`), written to `sources/0/0`.
//! With a `retention`, records before the moving log-start offset are gone: a task whose range
//! starts before it throws (`failOnDataLoss` true) or skips them (false).

use super::{
    read_planned_range, InitialOffset, OffsetScheme, PartitionPlan, Source, SourceCtx,
    SourceOffset, SourceState, SourceView, TaskRead, TOPIC,
};
use crate::microbatch::scenario::{log_start, StartingOffsets};
use crate::microbatch::tunnel::Token;
use std::collections::BTreeMap;

/// `KafkaSourceProvider.INSTRUCTION_FOR_FAIL_ON_DATA_LOSS_TRUE` (Spark 3.x), on one line.
pub const FAIL_ON_DATA_LOSS_TRUE: &str = "Some data may have been lost because they are not \
available in Kafka any more; either the data was aged out by Kafka or the topic may have been \
deleted before all the data in the topic was processed. If you don't want your streaming query \
to fail on such cases, set the source option \"failOnDataLoss\" to \"false\".";

/// How many records at the start of `plan`'s range retention has deleted by now (0 without a
/// retention, or when the range starts at or after the log-start offset).
pub fn aged_out(ctx: &SourceCtx, plan: &PartitionPlan) -> u64 {
    let (Some(retention_ms), Some(Token::At(end))) = (ctx.spec.retention_ms, plan.end) else {
        return 0;
    };
    let channel = ctx.upstream.channel(plan.channel);
    let log_start = log_start(retention_ms, ctx.now_ms, |t| channel.arrived(t));
    log_start
        .min(end)
        .saturating_sub(plan.start.offset_or_zero())
}

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
        let budget = ctx.max_offsets_per_trigger;
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
        let gone = aged_out(ctx, plan);
        if gone == 0 {
            return read_planned_range(ctx, plan, "a replayable log");
        }
        // `failOnDataLoss` false: the consumer logs a warning and reads from the earliest
        // offset the log still has (`KafkaDataConsumer`: "Recovering from the earliest offset").
        let start = Token::At(plan.start.offset_or_zero() + gone);
        let rest = PartitionPlan {
            start,
            ..plan.clone()
        };
        let mut read = read_planned_range(ctx, &rest, "a replayable log");
        read.aged_out = gone;
        read
    }

    /// `failOnDataLoss` true and the range starts before the log-start offset: the executor's
    /// consumer cannot fetch the first offset (`KafkaDataConsumer`'s "Cannot fetch offset",
    /// with `KafkaSourceProvider`'s instruction). Spark retries the task up to
    /// `spark.task.maxFailures` times and every attempt throws the same; the engine fails the
    /// query at the first.
    fn read_error(&self, ctx: &SourceCtx, plan: &PartitionPlan) -> Option<String> {
        if !ctx.spec.fail_on_data_loss || aged_out(ctx, plan) == 0 {
            return None;
        }
        Some(format!(
            "Cannot fetch offset {} (TopicPartition: {TOPIC}-{}). {FAIL_ON_DATA_LOSS_TRUE}",
            plan.start.offset_or_zero(),
            plan.channel
        ))
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
