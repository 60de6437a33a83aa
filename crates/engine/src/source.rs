//! Sources and their contract (get_offset, get_batch, commit): replayable log, Tablestore, pull-ahead, auto-commit.

use crate::meta_table::{MetaTable, TUNNEL_ID};
use crate::scenario::{SourceKind, SourceSpec};
use crate::tunnel::{Token, Tunnel};
use crate::upstream::{Record, Upstream};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
    /// The rows.
    pub rows: Vec<Record>,
    /// Position after the last consumed row (or `finished`).
    pub end: Token,
    /// Whether checkpoints were committed to the Tunnel server while reading (auto-commit).
    pub committed: bool,
    /// Whether the rows came from the pull-ahead cache.
    pub from_cache: bool,
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

/// The source's volatile state: gone when the driver crashes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceState {
    /// Whether `sources/0/0` was written or read in this run.
    pub initialized: bool,
    /// Tablestore: UUID₀, the start of the very first batch.
    pub initial_uuid: Option<String>,
    /// Tablestore: the offset reader's cached channel list and when it was fetched.
    pub channel_cache: Option<(u64, Vec<(u32, Token)>)>,
    /// Pull-ahead: rows read ahead per channel, keyed by the start position they were read from.
    pub cache: BTreeMap<(u32, Token), (Token, Vec<Record>)>,
}

/// Reads pages from `start` as the Tablestore RDD does: stop before a page that would exceed
/// `cap` rows (leaving it for the next batch), on an empty page (caught up), or when the
/// channel is finished. With `commit_on_read` the checkpoint goes to the server after every page.
#[allow(clippy::too_many_arguments)]
pub fn read_channel(
    upstream: &Upstream,
    tunnel: &mut Tunnel,
    counters: &mut SourceCounters,
    channel: u32,
    start: Token,
    cap: u64,
    now_ms: u64,
    commit_on_read: bool,
) -> TaskRead {
    let mut token = start;
    let mut rows = vec![];
    if start == Token::Finished {
        // A start row already marked finished: nothing to read (SEMANTICS §3.3 step 1).
        return TaskRead {
            rows,
            end: Token::Finished,
            committed: false,
            from_cache: false,
        };
    }
    loop {
        counters.read_records_calls += 1;
        let page = tunnel.read_records(upstream, channel, token, now_ms);
        let n = page.to - page.from;
        if rows.len() as u64 + n > cap {
            break; // response not consumed: re-read next batch
        }
        let records = &upstream.channel(channel).records[page.from as usize..page.to as usize];
        rows.extend_from_slice(records);
        token = page.next.unwrap_or(Token::Finished);
        if commit_on_read {
            tunnel.checkpoint(channel, token);
        }
        if n == 0 || page.next.is_none() {
            break;
        }
    }
    counters.rows_read_by_tasks += rows.len() as u64;
    TaskRead {
        rows,
        end: token,
        committed: commit_on_read,
        from_cache: false,
    }
}

/// Rows `[start, end)` of a channel, straight from the log (replayable: same range, same rows).
pub fn read_range(upstream: &Upstream, channel: u32, start: Token, end: Token) -> Vec<Record> {
    let ch = upstream.channel(channel);
    let from = match start {
        Token::At(p) => p,
        Token::Finished => ch.len(),
    };
    let to = match end {
        Token::At(p) => p,
        Token::Finished => ch.len(),
    };
    ch.records[from as usize..to.max(from) as usize].to_vec()
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
    matches!(spec.kind, SourceKind::Tablestore | SourceKind::AutoCommit)
}
