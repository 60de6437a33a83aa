//! The Tablestore source: each batch's end offset is a fresh UUID naming Meta-table rows; the
//! tasks write the rows, and `commit` sends the start rows to the Tunnel server (SEMANTICS §3).

use super::{
    meta_positions, read_channel, InitialOffset, OffsetScheme, PartitionPlan, ReadRequest, Source,
    SourceCommit, SourceCounters, SourceCtx, SourceOffset, SourceState, SourceView, TaskRead,
    CHANNEL_CACHE_MS,
};
use crate::microbatch::tunnel::Token;
use crate::microbatch::upstream::ChannelId;
use std::collections::BTreeMap;

/// Why a task whose start row is `finished` throws, as the trace and the query failure say it.
pub const FINISHED_START_ROW: &str = "start row is `finished`: readRecords returns null and \
TableStoreSourceRDD throws a NullPointerException on every attempt (inferred from the \
connector's code)";

/// The Tablestore UUID source with its 5 s channel-list cache (`TableStoreOffsetReader`).
#[derive(Clone, Copy, Debug, Default)]
pub struct TablestoreSource;

/// A source whose offsets are batch UUIDs naming Meta-table rows, with UUID₀ in a `v2`
/// `sources/0/0` (the Tablestore source, and the auto-commit source, which starts the same
/// way): implementing it gives the source its [`OffsetScheme`], written once below.
pub trait UuidOffsets {}

impl UuidOffsets for TablestoreSource {}

impl<S: UuidOffsets> OffsetScheme for S {
    /// UUID₀ and its Meta rows (one per open channel at its server checkpoint), as
    /// `sources/0/0` v2 holds it.
    fn initial_offset(&self, ctx: &mut SourceCtx) -> Option<InitialOffset> {
        let uuid = ctx.rng.uuid().to_string();
        let mut meta_rows = vec![];
        for (index, token) in ctx.tunnel.open_channels() {
            let id = ctx.upstream.channel(index).id.clone();
            ctx.meta_table.put(&uuid, &id, token, ctx.seq);
            meta_rows.push(ctx.channel_token(index, token));
        }
        ctx.state.initial_uuid = Some(uuid.clone());
        Some(InitialOffset {
            version: 2,
            body: uuid,
            meta_rows,
        })
    }

    /// UUID₀ from the body of `sources/0/0` (`<version line>\n<uuid>` after the marker byte).
    fn restore_initial(&self, state: &mut SourceState, body: &str) {
        state.initial_uuid = body.split_once('\n').map(|(_, u)| u.to_string());
    }

    /// A fresh UUID, read from nothing: the tasks write its Meta rows.
    fn latest_offset(
        &self,
        ctx: &mut SourceCtx,
        _batch_id: u64,
        _start: Option<&SourceOffset>,
    ) -> (SourceOffset, u64) {
        (SourceOffset::Uuid(ctx.rng.uuid().to_string()), 0)
    }
}

/// The offset reader's channel list: cached for [`CHANNEL_CACHE_MS`], as the connector does.
fn channel_list(ctx: &mut SourceCtx) -> Vec<(u32, Token)> {
    let now_ms = ctx.now_ms;
    let fresh = ctx
        .state
        .channel_cache
        .as_ref()
        .is_some_and(|(t, _)| now_ms < t + CHANNEL_CACHE_MS);
    if !fresh {
        ctx.state.channel_cache = Some((now_ms, ctx.tunnel.open_channels()));
    }
    ctx.state
        .channel_cache
        .as_ref()
        .map(|(_, l)| l.clone())
        .unwrap_or_default()
}

impl Source for TablestoreSource {
    /// Commits the previous batch's Meta rows to the Tunnel server; a finished channel's row is
    /// deleted (its children start from the server's checkpoints).
    fn commit(&self, ctx: &mut SourceCtx, end: &SourceOffset) -> SourceCommit {
        let uuid = end.expect_as(SourceOffset::as_uuid);
        let mut done = SourceCommit::default();
        for (index, token) in meta_positions(ctx.meta_table, ctx.upstream, uuid) {
            ctx.commit_to_tunnel(index, token);
            done.checkpoints.push(ctx.channel_token(index, token));
            if token == Token::Finished {
                let id = ctx.upstream.channel(index).id.clone();
                ctx.meta_table.delete(uuid, &id);
                done.deleted_rows.push(ChannelId(index));
            }
        }
        done
    }

    /// Service channels (OPEN, not finished) overridden by the start UUID's Meta rows
    /// (SEMANTICS §3.3).
    fn plan_batch(
        &self,
        ctx: &mut SourceCtx,
        _batch_id: u64,
        start: Option<&SourceOffset>,
        _end: &SourceOffset,
    ) -> Vec<PartitionPlan> {
        let start_uuid = match start {
            Some(offset) => offset.expect_as(SourceOffset::as_uuid).to_string(),
            None => ctx.state.initial_uuid.clone().unwrap_or_default(),
        };
        let mut channels: BTreeMap<u32, Token> = channel_list(ctx).into_iter().collect();
        channels.extend(meta_positions(ctx.meta_table, ctx.upstream, &start_uuid));
        channels
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
            commit_on_read: false,
        };
        read_channel(ctx.upstream, ctx.tunnel, ctx.counters, request)
    }

    /// A `finished` start row: `readRecords` returns null and the iterator dereferences it, so
    /// the task throws on every attempt (inferred from the connector's code,
    /// `TableStoreSourceRDD`; SEMANTICS §3.4). `commit(end_{N-1})` normally deletes such rows
    /// before batch N reads them; a crash between `offsets/N` and that commit leaves them.
    fn read_error(&self, _ctx: &SourceCtx, plan: &PartitionPlan) -> Option<String> {
        (plan.start == Token::Finished).then(|| FINISHED_START_ROW.to_string())
    }

    fn writes_meta_rows(&self) -> bool {
        true
    }

    fn position_after(
        &self,
        view: SourceView,
        committed: Option<&SourceOffset>,
    ) -> Option<BTreeMap<u32, Token>> {
        committed.map(|o| {
            meta_positions(
                view.meta_table,
                view.upstream,
                o.expect_as(SourceOffset::as_uuid),
            )
        })
    }

    fn drop_volatile(
        &self,
        state: &mut SourceState,
        _counters: &mut SourceCounters,
    ) -> Vec<String> {
        let mut lost = vec![];
        if state.channel_cache.is_some() {
            lost.push("the source's cached channel list".into());
        }
        *state = SourceState::default();
        lost
    }
}
