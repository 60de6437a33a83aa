//! Sources and their contract: Spark's V1/V2 micro-batch `Source` (get_offset, get_batch, commit)
//! as the [`Source`] trait, the offsets it writes ([`OffsetScheme`]), and the read helpers its
//! kinds share.
//!
//! One implementation per source kind, each in its own file: [`kafka`] (replayable log),
//! [`tablestore`] (UUID source with a Meta table), [`pull_ahead`], [`auto_commit`] (the
//! Tablestore's UUID offsets, read with commit on read) and [`seatunnel`] (readers restoring
//! from state files). The driver in `crate::microbatch` calls only the trait, on the
//! implementation its scenario's [`SourceKind`] names.

pub mod auto_commit;
pub mod kafka;
pub mod pull_ahead;
pub mod seatunnel;
pub mod tablestore;

use crate::checkpoint::CheckpointFolder;
use crate::microbatch::event::{ChannelToken, EventKind};
use crate::microbatch::meta_table::{MetaTable, TUNNEL_ID};
use crate::microbatch::scenario::{SourceKind, SourceSpec};
use crate::microbatch::tunnel::{Token, Tunnel};
use crate::microbatch::upstream::{ChannelId, Rows, Upstream};
use crate::rng::Prng;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};

/// The Kafka-like topic name used in offsets.
pub const TOPIC: &str = "cdc";
/// How long the Tablestore offset reader caches the channel list (`TableStoreOffsetReader`, 5 s).
pub const CHANNEL_CACHE_MS: u64 = 5_000;

/// A source offset as it goes into one line of `offsets/N`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SourceOffset {
    /// Kafka-like: next offset to read per partition (`{"cdc":{"0":3,"1":3}}`).
    Log(BTreeMap<u32, u64>),
    /// Tablestore: a bare batch UUID naming Meta-table rows.
    Uuid(String),
    /// Pull-ahead: real channel positions (the connector's first version,
    /// `{"table#tunnel":{"channelId":{"logPoint":…,"offset":…}}}`).
    Positions(BTreeMap<u32, Token>),
    /// SeaTunnel: `{"checkpointId":n}` (PR #7476: the next batch id; readers restore their
    /// positions from state files, not from the offset).
    Checkpoint(u64),
}

impl SourceOffset {
    /// A Kafka-like offset's next offset per partition; `None` for another variant.
    pub fn as_log(&self) -> Option<&BTreeMap<u32, u64>> {
        match self {
            SourceOffset::Log(map) => Some(map),
            _ => None,
        }
    }

    /// A pull-ahead offset's channel positions; `None` for another variant.
    pub fn as_positions(&self) -> Option<&BTreeMap<u32, Token>> {
        match self {
            SourceOffset::Positions(map) => Some(map),
            _ => None,
        }
    }

    /// A Tablestore offset's batch UUID; `None` for another variant.
    pub fn as_uuid(&self) -> Option<&str> {
        match self {
            SourceOffset::Uuid(uuid) => Some(uuid),
            _ => None,
        }
    }

    /// The part of this offset that `part` takes out ([`SourceOffset::as_log`],
    /// [`SourceOffset::as_positions`], [`SourceOffset::as_uuid`]): what a source of one kind
    /// reads back from the offsets it wrote. A source only ever gets back its own offsets, so
    /// another variant is a driver bug (a panic).
    pub fn expect_as<'o, T: ?Sized>(
        &'o self,
        part: fn(&'o SourceOffset) -> Option<&'o T>,
    ) -> &'o T {
        part(self).unwrap_or_else(|| {
            panic!("a source got back an offset of another kind than it writes: {self:?}")
        })
    }

    /// The exact text of the source's line in `offsets/N`.
    pub fn to_line(&self, upstream: &Upstream) -> String {
        match self {
            SourceOffset::Log(map) => {
                let parts: Vec<String> = map.iter().map(|(p, o)| format!("\"{p}\":{o}")).collect();
                format!("{{\"{TOPIC}\":{{{}}}}}", parts.join(","))
            }
            SourceOffset::Uuid(u) => u.clone(),
            SourceOffset::Checkpoint(n) => format!("{{\"checkpointId\":{n}}}"),
            SourceOffset::Positions(map) => {
                let parts: Vec<String> = map
                    .iter()
                    .map(|(c, t)| {
                        format!(
                            "\"{}\":{{\"logPoint\":\"{t}\",\"offset\":0}}",
                            upstream.channel(*c).id
                        )
                    })
                    .collect();
                format!("{{\"{TOPIC}#{TUNNEL_ID}\":{{{}}}}}", parts.join(","))
            }
        }
    }

    /// Where `channel` starts in a batch whose start offset is `start`: the log offset or the
    /// channel position it names, `t:0` when it names none (no start yet, or a UUID or
    /// checkpoint offset whose positions live elsewhere).
    pub fn position(start: Option<&SourceOffset>, channel: u32) -> Token {
        match start {
            Some(SourceOffset::Log(map)) => Token::At(map.get(&channel).copied().unwrap_or(0)),
            Some(SourceOffset::Positions(map)) => {
                map.get(&channel).copied().unwrap_or(Token::At(0))
            }
            _ => Token::At(0),
        }
    }

    /// Whether a batch from `start` to `self` has anything to read (`getOffset` returned new data).
    pub fn is_new_since(&self, start: Option<&SourceOffset>) -> bool {
        match (start, self) {
            (Some(s), e) => s != e,
            (None, SourceOffset::Log(m)) => m.values().any(|&o| o > 0),
            (None, SourceOffset::Positions(m)) => m.values().any(|&t| t != Token::At(0)),
            (None, SourceOffset::Uuid(_)) | (None, SourceOffset::Checkpoint(_)) => true,
        }
    }

    /// Parses a line of `offsets/N` written by this kind of source.
    pub fn parse(
        kind: SourceKind,
        line: &str,
        upstream: &Upstream,
    ) -> Result<SourceOffset, String> {
        let channel_index = |id: &str| {
            upstream
                .channels
                .iter()
                .find(|c| c.id == id)
                .map(|c| c.index)
                .ok_or(format!("unknown channel `{id}`"))
        };
        match kind {
            SourceKind::Tablestore | SourceKind::AutoCommit => {
                Ok(SourceOffset::Uuid(line.to_string()))
            }
            SourceKind::SeaTunnel => {
                let v: serde_json::Value = serde_json::from_str(line)
                    .map_err(|e| format!("not a SeaTunnel offset: {e}"))?;
                v["checkpointId"]
                    .as_u64()
                    .map(SourceOffset::Checkpoint)
                    .ok_or_else(|| "no checkpointId".to_string())
            }
            SourceKind::ReplayableLog => {
                let v: BTreeMap<String, BTreeMap<String, u64>> = serde_json::from_str(line)
                    .map_err(|e| format!("not a Kafka offset JSON: {e}"))?;
                let parts = v.get(TOPIC).ok_or(format!("no topic `{TOPIC}`"))?;
                parts
                    .iter()
                    .map(|(p, o)| {
                        Ok((
                            p.parse::<u32>()
                                .map_err(|_| format!("bad partition `{p}`"))?,
                            *o,
                        ))
                    })
                    .collect::<Result<_, String>>()
                    .map(SourceOffset::Log)
            }
            SourceKind::PullAhead => {
                let v: BTreeMap<String, BTreeMap<String, serde_json::Value>> =
                    serde_json::from_str(line)
                        .map_err(|e| format!("not a channel offset JSON: {e}"))?;
                let chans = v.values().next().ok_or("empty offset")?;
                chans
                    .iter()
                    .map(|(id, o)| {
                        let lp = o["logPoint"]
                            .as_str()
                            .and_then(Token::parse)
                            .ok_or("bad logPoint")?;
                        Ok((channel_index(id)?, lp))
                    })
                    .collect::<Result<_, String>>()
                    .map(SourceOffset::Positions)
            }
        }
    }
}

/// One task of a batch: a channel/partition and where it starts (and, for replayable ranges, ends).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionPlan {
    /// Upstream channel index.
    pub channel: u32,
    /// Start position.
    pub start: Token,
    /// Fixed end for replayable ranges; `None` when the task decides (Tablestore, auto-commit).
    pub end: Option<Token>,
}

/// What a task read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskRead {
    /// The rows, by identity.
    pub rows: Rows,
    /// Position after the last consumed row (or `finished`).
    pub end: Token,
    /// Whether checkpoints were committed to the Tunnel server while reading (auto-commit).
    pub committed: bool,
    /// Whether the rows came from the pull-ahead cache.
    pub from_cache: bool,
    /// Records at the start of the range that retention had deleted (skipped).
    pub aged_out: u64,
}

/// Costs and counters of the source, kept across crashes (they describe the run, not the source).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceCounters {
    /// Rows read by tasks from the Tunnel server or log.
    pub rows_read_by_tasks: u64,
    /// Pull-ahead: rows read in get_offset to learn the end offset (the extra RDD computation).
    pub rows_read_ahead: u64,
    /// Pull-ahead: rows held in the cache right now.
    pub rows_cached: u64,
    /// Pull-ahead: the most rows the cache ever held.
    pub rows_cached_peak: u64,
    /// ReadRecords calls to the Tunnel server.
    pub read_records_calls: u64,
}

/// The source's volatile state, gone when the driver crashes: one struct for every kind, each
/// kind using the fields named for it (the [`Source`] implementations hold no state).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceState {
    /// Whether `sources/0/0` was written or read in this run.
    pub initialized: bool,
    /// Tablestore: UUID₀, the start of the very first batch.
    pub initial_uuid: Option<String>,
    /// Tablestore: the offset reader's cached channel list and when it was fetched.
    pub channel_cache: Option<(u64, Vec<(u32, Token)>)>,
    /// Pull-ahead: rows read ahead per channel, keyed by the start position they were read from.
    pub cache: BTreeMap<(u32, Token), (Token, Rows)>,
    /// SeaTunnel's merged dev `SeaTunnelMicroBatch`: its in-memory `currentOffset` (starts at 0,
    /// `commit(end)` sets `end + 1`).
    #[serde(default)]
    pub seatunnel_current: u64,
    /// Kafka-like log: the initial offsets of the query (`sources/0/0`, from `startingOffsets`).
    #[serde(default)]
    pub initial_log: Option<BTreeMap<u32, u64>>,
}

/// One task's read of a Tunnel channel (the arguments of [`read_channel`]).
#[derive(Clone, Copy, Debug)]
pub struct ReadRequest {
    /// Upstream channel index.
    pub channel: u32,
    /// Where the read starts.
    pub start: Token,
    /// At most this many rows (`maxOffsetsPerChannel`).
    pub cap: u64,
    /// Simulated time of the read.
    pub now_ms: u64,
    /// Auto-commit: send the checkpoint to the server after every page.
    pub commit_on_read: bool,
}

/// Reads pages from `start` as the Tablestore RDD does: stop before a page that would exceed
/// `cap` rows (leaving it for the next batch), on an empty page (caught up), or when the
/// channel is finished. With `commit_on_read` the checkpoint goes to the server after every page.
pub fn read_channel(
    upstream: &Upstream,
    tunnel: &mut Tunnel,
    counters: &mut SourceCounters,
    request: ReadRequest,
) -> TaskRead {
    let ReadRequest {
        channel,
        start,
        cap,
        now_ms,
        commit_on_read,
    } = request;
    let mut token = start;
    let mut rows = Rows::new();
    if start == Token::Finished {
        // A start row already marked finished: no ReadRecords call. The Tablestore source
        // never gets here: its task throws first (`Source::read_error`, SEMANTICS §3.4); the
        // auto-commit source plans only from the server's checkpoints.
        return TaskRead {
            rows,
            end: Token::Finished,
            committed: false,
            from_cache: false,
            aged_out: 0,
        };
    }
    loop {
        counters.read_records_calls += 1;
        let page = tunnel.read_records(upstream, channel, token, now_ms);
        let n = page.to - page.from;
        if rows.len() + n > cap {
            break; // response not consumed: re-read next batch
        }
        let read = upstream.channel(channel).clamp(page.from..page.to);
        rows.push_range(channel, read.start, read.end);
        token = page.next.unwrap_or(Token::Finished);
        if commit_on_read {
            tunnel.checkpoint(channel, token);
        }
        if n == 0 || page.next.is_none() {
            break;
        }
    }
    counters.rows_read_by_tasks += rows.len();
    TaskRead {
        rows,
        end: token,
        committed: commit_on_read,
        from_cache: false,
        aged_out: 0,
    }
}

/// A task's read of a planned fixed range `[plan.start, plan.end)` straight from the log (the
/// replayable log, and pull-ahead when its cache does not hold the range), counted as read by
/// tasks. `kind` names the source in the precondition.
pub fn read_planned_range(ctx: &mut SourceCtx, plan: &PartitionPlan, kind: &str) -> TaskRead {
    let end = plan.end.unwrap_or_else(|| {
        panic!(
            "{kind} plans fixed ranges: channel {} has no end",
            plan.channel
        )
    });
    let rows = read_range(ctx.upstream, plan.channel, plan.start, end);
    ctx.counters.rows_read_by_tasks += rows.len();
    TaskRead {
        rows,
        end,
        committed: false,
        from_cache: false,
        aged_out: 0,
    }
}

/// Rows `[start, end)` of a channel, straight from the log (replayable: same range, same rows).
pub fn read_range(upstream: &Upstream, channel: u32, start: Token, end: Token) -> Rows {
    let ch = upstream.channel(channel);
    let from = match start {
        Token::At(p) => p,
        Token::Finished => ch.len(),
    };
    let to = match end {
        Token::At(p) => p,
        Token::Finished => ch.len(),
    };
    let read = ch.clamp(from..to);
    let mut rows = Rows::new();
    rows.push_range(channel, read.start, read.end);
    rows
}

/// The Meta-table rows of a UUID as (channel, token).
pub fn meta_positions(meta: &MetaTable, upstream: &Upstream, uuid: &str) -> BTreeMap<u32, Token> {
    meta.rows_of(uuid)
        .into_iter()
        .filter_map(|r| {
            upstream
                .channels
                .iter()
                .find(|c| c.id == r.channel)
                .map(|c| (c.index, r.token))
        })
        .collect()
}

/// Whether the source spec needs a Meta table.
pub fn uses_meta_table(spec: &SourceSpec) -> bool {
    spec.kind.uses_meta_table()
}

/// What the source writes to `sources/0/0` on the first start of a query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitialOffset {
    /// The file's version line (`v1`, `v2`).
    pub version: u32,
    /// The offset line.
    pub body: String,
    /// Meta-table rows written with it (Tablestore: UUID₀'s rows).
    pub meta_rows: Vec<ChannelToken>,
}

impl InitialOffset {
    /// A `v1` file whose offset line is `start` (the replayable log's `startingOffsets`, the
    /// pull-ahead source's channel positions), with no Meta-table rows.
    pub fn v1(start: &SourceOffset, upstream: &Upstream) -> InitialOffset {
        InitialOffset {
            version: 1,
            body: start.to_line(upstream),
            meta_rows: vec![],
        }
    }
}

/// What `commit(end)` did: checkpoints sent to the Tunnel server and Meta rows deleted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceCommit {
    /// Checkpoints committed to the Tunnel server.
    pub checkpoints: Vec<ChannelToken>,
    /// Meta-table rows deleted (channels finished by the batch): their channels.
    pub deleted_rows: Vec<ChannelId>,
}

/// The parts of the world a source may touch in one call. The driver builds it for each call;
/// the durable stores stay owned by the world.
pub struct SourceCtx<'w> {
    /// The source's options.
    pub spec: &'w SourceSpec,
    /// The CDC table.
    pub upstream: &'w Upstream,
    /// The Spark checkpoint folder (read only: the driver writes the logs).
    pub checkpoint: &'w CheckpointFolder,
    /// The Tunnel server.
    pub tunnel: &'w mut Tunnel,
    /// The Meta table.
    pub meta_table: &'w mut MetaTable,
    /// Costs kept across crashes.
    pub counters: &'w mut SourceCounters,
    /// The source's volatile state.
    pub state: &'w mut SourceState,
    /// The world's one PRNG.
    pub rng: &'w mut Prng,
    /// Events that follow the current one (channel status changes).
    pub follow_ups: &'w mut VecDeque<EventKind>,
    /// Simulated time of the call.
    pub now_ms: u64,
    /// Sequence number of the event the call produces.
    pub seq: u64,
    /// The Kafka-like log's `maxOffsetsPerTrigger` in this run (0 = no limit): the source's,
    /// or an `on_restart` change's.
    pub max_offsets_per_trigger: u64,
}

impl SourceCtx<'_> {
    /// `Checkpoint(channel, token)` to the Tunnel server; status changes (parent terminated,
    /// children opened) follow as `ChannelState` events.
    pub fn commit_to_tunnel(&mut self, channel: u32, token: Token) {
        for (channel, status) in self.tunnel.checkpoint(channel, token) {
            self.follow_ups.push_back(EventKind::ChannelState {
                channel,
                state: status,
            });
        }
    }

    /// The channel id of an upstream index with a token, as events name them.
    pub fn channel_token(&self, channel: u32, token: Token) -> ChannelToken {
        ChannelToken {
            channel: ChannelId(channel),
            token,
        }
    }
}

/// The read-only view a source needs to say where each channel stands.
#[derive(Clone, Copy)]
pub struct SourceView<'w> {
    /// The source's options.
    pub spec: &'w SourceSpec,
    /// The CDC table.
    pub upstream: &'w Upstream,
    /// The Tunnel server.
    pub tunnel: &'w Tunnel,
    /// The Meta table.
    pub meta_table: &'w MetaTable,
    /// The Spark checkpoint folder.
    pub checkpoint: &'w CheckpointFolder,
}

/// The half of the source contract that names offsets: what a query's first start writes to
/// `sources/0/0`, what a restart takes back from it, and each batch's end offset. The two UUID
/// sources share one implementation ([`tablestore::UuidOffsets`]).
pub trait OffsetScheme {
    /// On the first start of a query: what goes to `sources/0/0` (and the Meta table). `None`
    /// when this source keeps no initial offset file.
    fn initial_offset(&self, ctx: &mut SourceCtx) -> Option<InitialOffset>;

    /// On a restart: initialise from the body of an existing `sources/0/0`.
    fn restore_initial(&self, _state: &mut SourceState, _body: &str) {}

    /// `getOffset` / `latestOffset`: the end offset of batch `batch_id` starting at `start`, and
    /// the rows read to learn it (pull-ahead reads ahead; the others read nothing).
    fn latest_offset(
        &self,
        ctx: &mut SourceCtx,
        batch_id: u64,
        start: Option<&SourceOffset>,
    ) -> (SourceOffset, u64);
}

/// The micro-batch source contract (Spark's `Source` / `MicroBatchStream`, SEMANTICS §1.1),
/// plus what recovery needs; its offsets are the [`OffsetScheme`] it extends. Implementations
/// hold no state of their own: the volatile state is the world's [`SourceState`], so a crash is
/// one reset and a world stays a plain `Clone`.
pub trait Source: OffsetScheme {
    /// `commit(end)` of the previous batch. By default nothing is sent anywhere: Spark never
    /// commits to Kafka (SEMANTICS §6).
    fn commit(&self, _ctx: &mut SourceCtx, _end: &SourceOffset) -> SourceCommit {
        SourceCommit::default()
    }

    /// `getBatch(start, end)` / `planInputPartitions`: one task per channel or partition.
    fn plan_batch(
        &self,
        ctx: &mut SourceCtx,
        batch_id: u64,
        start: Option<&SourceOffset>,
        end: &SourceOffset,
    ) -> Vec<PartitionPlan>;

    /// A task of the batch reads its partition.
    fn read(&self, ctx: &mut SourceCtx, plan: &PartitionPlan) -> TaskRead;

    /// Why the task of `plan` throws before it reads anything, on every attempt (the
    /// Tablestore connector on a `finished` start row); `None` when it reads.
    fn read_error(&self, _ctx: &SourceCtx, _plan: &PartitionPlan) -> Option<String> {
        None
    }

    /// Whether each task writes its end position to the Meta table after handing its rows to
    /// the sink (the Tablestore source's `TaskMeta` step).
    fn writes_meta_rows(&self) -> bool {
        false
    }

    /// Where the first batch of a new query starts when it is not at the very beginning (a
    /// Kafka-like log started at `latest`); `None` means the beginning.
    fn first_start(&self, _state: &SourceState) -> Option<SourceOffset> {
        None
    }

    /// Whether the batch runs as SeaTunnel readers (`Phase::Reader`) rather than read-then-finish tasks.
    fn runs_readers(&self) -> bool {
        false
    }

    /// Where each channel stands once `committed` (the end of the last committed batch) is
    /// behind us: the position a restart would read from. `None` when nothing is committed
    /// and the source cannot tell from elsewhere.
    fn position_after(
        &self,
        view: SourceView,
        committed: Option<&SourceOffset>,
    ) -> Option<BTreeMap<u32, Token>>;

    /// A crash: drops the volatile state and says what was lost with it.
    fn drop_volatile(
        &self,
        state: &mut SourceState,
        _counters: &mut SourceCounters,
    ) -> Vec<String> {
        *state = SourceState::default();
        vec![]
    }
}

/// Whether every record of every channel lies behind `positions` (or behind a `finished`
/// server checkpoint): the source has nothing left to read.
pub fn caught_up(view: SourceView, positions: &BTreeMap<u32, Token>) -> bool {
    view.upstream.channels.iter().all(|c| {
        if view
            .tunnel
            .get(c.index)
            .is_some_and(|s| s.checkpoint == Token::Finished)
        {
            return true;
        }
        match positions.get(&c.index) {
            Some(Token::Finished) => true,
            Some(Token::At(p)) => *p >= c.len(),
            None => c.is_empty(),
        }
    })
}
