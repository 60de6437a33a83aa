//! The Tablestore Tunnel server: channel states, server-side checkpoints, ReadRecords by token, parent before child.

use crate::microbatch::upstream::{ChannelId, Upstream};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A read position in a channel: the next record to read, or the end of a finished channel.
/// Written as its text, `t:17` or `finished`, in events and everywhere else it is serialised.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Token {
    /// Next record to read has this sequence number.
    At(u64),
    /// The channel is fully consumed (`"finished"` in the SDK).
    Finished,
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::At(p) => write!(f, "t:{p}"),
            Token::Finished => f.write_str("finished"),
        }
    }
}

impl FromStr for Token {
    type Err = String;

    /// Reads `t:17` or `finished`.
    fn from_str(s: &str) -> Result<Token, String> {
        Token::parse(s).ok_or_else(|| format!("not a token: {s:?} (expected t:<n> or finished)"))
    }
}

impl Serialize for Token {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Token {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Token, D::Error> {
        crate::spec_json::deserialize_parsed(d)
    }
}

impl Token {
    /// Parses `t:17` or `finished`.
    pub fn parse(s: &str) -> Option<Token> {
        if s == "finished" {
            return Some(Token::Finished);
        }
        s.strip_prefix("t:")?.parse().ok().map(Token::At)
    }

    /// The next record to read; 0 for `finished` (where a position must be a plain offset:
    /// a log offset, a continuous reader, a SeaTunnel reader).
    pub fn offset_or_zero(self) -> u64 {
        match self {
            Token::At(p) => p,
            Token::Finished => 0,
        }
    }
}

/// Channel status as the SDK names it (`ChannelStatus`); serialised as [`ChannelStatus::name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum ChannelStatus {
    /// Pre-created, not assignable yet (a child waiting for its parent).
    Wait,
    /// Assigned and readable.
    Open,
    /// Transient during rebalancing (not produced by this simulation).
    Closing,
    /// Temporarily closed (not produced by this simulation).
    Close,
    /// All data consumed and the final checkpoint committed.
    Terminated,
}

impl ChannelStatus {
    /// Upper-case name.
    pub fn name(self) -> &'static str {
        match self {
            ChannelStatus::Wait => "WAIT",
            ChannelStatus::Open => "OPEN",
            ChannelStatus::Closing => "CLOSING",
            ChannelStatus::Close => "CLOSE",
            ChannelStatus::Terminated => "TERMINATED",
        }
    }
}

impl fmt::Display for ChannelStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The server's view of one channel.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TunnelChannel {
    /// Channel id.
    pub id: String,
    /// Index into the upstream's channels.
    pub index: u32,
    /// Status.
    pub status: ChannelStatus,
    /// The checkpoint the client last committed (`Checkpoint`), durable.
    pub checkpoint: Token,
    /// Parent channel, which must finish first.
    pub parent: Option<u32>,
}

/// A page returned by ReadRecords.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Page {
    /// First record (sequence number) in the page.
    pub from: u64,
    /// One past the last record.
    pub to: u64,
    /// The next token; `None` means the channel is finished (a null next token in the SDK).
    pub next: Option<Token>,
}

/// The Tunnel server. Durable: a crash of the Spark driver does not touch it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tunnel {
    /// Channels that exist so far (children appear at their split time).
    pub channels: Vec<TunnelChannel>,
    /// Records returned per ReadRecords response.
    pub page_size: u32,
}

impl Tunnel {
    /// A tunnel over the channels that exist at time 0, all OPEN with checkpoint `t:0`.
    pub fn new(upstream: &Upstream, page_size: u32) -> Tunnel {
        let channels = upstream
            .channels
            .iter()
            .filter(|c| c.parent.is_none())
            .map(|c| TunnelChannel {
                id: c.id.clone(),
                index: c.index,
                status: ChannelStatus::Open,
                checkpoint: Token::At(0),
                parent: None,
            })
            .collect();
        Tunnel {
            channels,
            page_size,
        }
    }

    /// Adds child channels whose split has happened by `now_ms` (status WAIT until the parent finishes).
    pub fn discover(&mut self, upstream: &Upstream, now_ms: u64) {
        for c in &upstream.channels {
            if c.parent.is_some() && c.created_at_ms <= now_ms && self.get(c.index).is_none() {
                self.channels.push(TunnelChannel {
                    id: c.id.clone(),
                    index: c.index,
                    status: ChannelStatus::Wait,
                    checkpoint: Token::At(0),
                    parent: c.parent,
                });
            }
        }
    }

    /// The channel with this upstream index, if the server knows it.
    pub fn get(&self, index: u32) -> Option<&TunnelChannel> {
        self.channels.iter().find(|c| c.index == index)
    }

    /// DescribeTunnel + GetCheckpoint: OPEN channels whose checkpoint is not `finished`.
    pub fn open_channels(&self) -> Vec<(u32, Token)> {
        self.channels
            .iter()
            .filter(|c| c.status == ChannelStatus::Open && c.checkpoint != Token::Finished)
            .map(|c| (c.index, c.checkpoint))
            .collect()
    }

    /// ReadRecords(token): one page of records that have arrived by `now_ms`.
    pub fn read_records(&self, upstream: &Upstream, index: u32, token: Token, now_ms: u64) -> Page {
        let ch = upstream.channel(index);
        let from = match token {
            Token::At(p) => p,
            Token::Finished => {
                return Page {
                    from: ch.len(),
                    to: ch.len(),
                    next: None,
                }
            }
        };
        let arrived = ch.arrived(now_ms);
        let to = arrived.min(from + u64::from(self.page_size)).max(from);
        let finished = ch.sealed(now_ms) && to >= ch.len();
        Page {
            from,
            to,
            next: if finished { None } else { Some(Token::At(to)) },
        }
    }

    /// Checkpoint(channel, token): stores the client's checkpoint. A `finished` checkpoint
    /// terminates the channel and opens its children (parent before child). Returns the
    /// channels whose status changed, with the new status.
    pub fn checkpoint(&mut self, index: u32, token: Token) -> Vec<(ChannelId, ChannelStatus)> {
        let mut changed = vec![];
        let Some(ch) = self.channels.iter_mut().find(|c| c.index == index) else {
            return changed;
        };
        ch.checkpoint = token;
        if token == Token::Finished && ch.status != ChannelStatus::Terminated {
            ch.status = ChannelStatus::Terminated;
            changed.push((ChannelId(ch.index), ChannelStatus::Terminated));
            for child in self.channels.iter_mut() {
                if child.parent == Some(index) && child.status == ChannelStatus::Wait {
                    child.status = ChannelStatus::Open;
                    changed.push((ChannelId(child.index), ChannelStatus::Open));
                }
            }
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip() {
        for t in [Token::At(0), Token::At(41), Token::Finished] {
            assert_eq!(Token::parse(&t.to_string()), Some(t));
        }
        assert_eq!(Token::parse("t:x"), None);
    }

    #[test]
    fn tokens_and_statuses_serialize_as_their_text() {
        for t in [Token::At(0), Token::At(u64::MAX), Token::Finished] {
            let json = serde_json::to_string(&t).expect("serializes");
            assert_eq!(json, format!("\"{t}\""));
            assert_eq!(serde_json::from_str::<Token>(&json).expect("parses"), t);
        }
        assert!(serde_json::from_str::<Token>("\"t:-1\"").is_err());
        use ChannelStatus::*;
        for s in [Wait, Open, Closing, Close, Terminated] {
            let json = serde_json::to_string(&s).expect("serializes");
            assert_eq!(json, format!("\"{}\"", s.name()));
            assert_eq!(
                serde_json::from_str::<ChannelStatus>(&json).expect("parses"),
                s
            );
        }
    }

    #[test]
    fn a_channel_id_is_written_as_the_tunnel_names_it() {
        use crate::microbatch::scenario::preset;
        use crate::microbatch::World;
        let upstream = &World::new(preset("tablestore-split").expect("preset")).upstream;
        for c in &upstream.channels {
            assert_eq!(ChannelId(c.index).to_string(), c.id);
            let json = serde_json::to_string(&ChannelId(c.index)).expect("serializes");
            assert_eq!(json, format!("\"{}\"", c.id));
            assert_eq!(
                serde_json::from_str::<ChannelId>(&json).ok(),
                Some(ChannelId(c.index))
            );
        }
        for bad in ["ch", "c1", "ch+1", "ch-1", "ch01", "1"] {
            assert!(bad.parse::<ChannelId>().is_err(), "{bad}");
        }
    }
}
