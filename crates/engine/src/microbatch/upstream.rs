//! The simulated CDC table: channels (partitions) of records with arrival times, and partition splits.

use crate::microbatch::scenario::Scenario;
use crate::rng::{Keyed, Prng, Stream};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::Range;
use std::str::FromStr;

/// One change record of the CDC stream (the seeds' shopping rows). Its identity is its
/// channel and sequence number ([`Record::key`]); the text `ch0-17` is made only for display,
/// so a record costs 40 bytes and no allocation wherever it is copied. The upstream does not
/// store records: a channel keeps arrival times and makes a record from its sequence number
/// when a task reads it ([`UpstreamChannel::record`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Record {
    /// Channel index.
    pub channel: u32,
    /// Position in its channel, from 0.
    pub seq: u64,
    /// When it arrives upstream.
    pub arrived_at_ms: u64,
    /// Shopping row: user.
    pub user_id: u32,
    /// Shopping row: item.
    pub item_id: u32,
    /// Shopping row: amount.
    pub amount: u64,
    /// Shopping row: price (1–2000: 32 bits keep a record at 40 bytes).
    pub price: u32,
}

// The sizes the text above promises, on every target (wasm32 too).
const _: () = assert!(std::mem::size_of::<Record>() == 40);
const _: () = assert!(std::mem::size_of::<RowKey>() == 16);

impl Record {
    /// The record's key: its channel and sequence number (`ch0-17` when shown).
    pub fn key(&self) -> RowKey {
        RowKey::Record {
            channel: self.channel,
            seq: self.seq,
        }
    }
}

/// The key a sink row is stored and judged under: a record's channel and sequence number
/// (shown `ch0-17`), or, in a running-sum sink, a user's sum (shown `user-3`). Sixteen bytes
/// and `Copy`: sinks, the oracle and the dashboard count millions of them without allocating;
/// the text is made only for what is shown. Ordered naturally (`ch0-9` before `ch0-10`, `ch2`
/// before `ch10`); serialised as its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RowKey {
    /// A record: channel index and position in the channel.
    Record {
        /// Channel index.
        channel: u32,
        /// Position in its channel, from 0.
        seq: u64,
    },
    /// A running-sum row: the user whose amounts it adds.
    User(u32),
}

impl fmt::Display for RowKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RowKey::Record { channel, seq } => write!(f, "ch{channel}-{seq}"),
            RowKey::User(id) => write!(f, "user-{id}"),
        }
    }
}

impl FromStr for RowKey {
    type Err = String;

    /// Reads `ch0-17` or `user-3`.
    fn from_str(s: &str) -> Result<RowKey, String> {
        let bad = || format!("not a row key: {s:?} (expected ch<channel>-<sequence> or user-<id>)");
        if let Some(id) = s.strip_prefix("user-") {
            return id.parse().map(RowKey::User).map_err(|_| bad());
        }
        let (channel, seq) = s
            .strip_prefix("ch")
            .and_then(|rest| rest.split_once('-'))
            .ok_or_else(bad)?;
        Ok(RowKey::Record {
            channel: channel.parse().map_err(|_| bad())?,
            seq: seq.parse().map_err(|_| bad())?,
        })
    }
}

impl Serialize for RowKey {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for RowKey {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<RowKey, D::Error> {
        crate::spec_json::deserialize_parsed(d)
    }
}

/// A channel as events name it: its index in the upstream, written `ch2` (the id the Tunnel
/// server gives it, [`UpstreamChannel::id`]). Events carry this, not the text, so that a reader
/// compares channels without parsing; the text is made when an event is written or shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ChannelId(pub u32);

impl fmt::Display for ChannelId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ch{}", self.0)
    }
}

impl FromStr for ChannelId {
    type Err = String;

    /// Reads `ch2` (only as [`ChannelId`]'s `Display` writes it: no sign, no leading zero).
    fn from_str(s: &str) -> Result<ChannelId, String> {
        s.strip_prefix("ch")
            .filter(|n| !n.starts_with('+') && (*n == "0" || !n.starts_with('0')))
            .and_then(|n| n.parse().ok())
            .map(ChannelId)
            .ok_or_else(|| format!("not a channel id: {s:?} (expected ch<index>)"))
    }
}

impl Serialize for ChannelId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ChannelId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ChannelId, D::Error> {
        crate::spec_json::deserialize_parsed(d)
    }
}

/// A value per record, kept densely by channel and sequence number (no tree, no key): grown on
/// demand to the furthest record touched. What sinks and the oracle index millions of records by.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ByRecord<T> {
    /// Channel → sequence number → value.
    channels: Vec<Vec<T>>,
}

impl<T: Clone + Default> ByRecord<T> {
    /// The value of the record at (`channel`, `seq`), made `T::default()` if not touched yet.
    pub fn entry(&mut self, channel: u32, seq: u64) -> &mut T {
        &mut self.run_mut(channel, seq, seq + 1)[0]
    }

    /// The values of records `from..to` of `channel`, to change in place (made `T::default()`
    /// where not touched yet): one length check for a run of records, not one a record.
    pub fn run_mut(&mut self, channel: u32, from: u64, to: u64) -> &mut [T] {
        let (c, end) = (channel as usize, to as usize);
        if self.channels.len() <= c {
            self.channels.resize_with(c + 1, Vec::new);
        }
        let values = &mut self.channels[c];
        if values.len() < end {
            values.resize(end, T::default());
        }
        &mut values[(from as usize).min(end)..end]
    }

    /// The value of the record at (`channel`, `seq`), if it was touched.
    pub fn get(&self, channel: u32, seq: u64) -> Option<&T> {
        self.channels.get(channel as usize)?.get(seq as usize)
    }

    /// Every value with its channel and sequence number, in key order (untouched records
    /// below the furthest one included, at `T::default()`).
    pub fn iter(&self) -> impl Iterator<Item = (u32, u64, &T)> + '_ {
        self.channels.iter().enumerate().flat_map(|(c, values)| {
            values
                .iter()
                .enumerate()
                .map(move |(i, v)| (c as u32, i as u64, v))
        })
    }
}

/// Records by identity, as a task reads them: runs of consecutive sequence numbers of a
/// channel, 24 bytes a run whatever its length. A task's read is one run (pages of one channel
/// follow each other), so what it hands the sink, what the pull-ahead cache holds and what a
/// batch keeps of its reads cost no copy of a record; the records are made again from the
/// upstream where their fields are needed ([`Rows::records`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rows {
    /// The runs, in read order: (channel, first sequence number, one past the last).
    runs: Vec<(u32, u64, u64)>,
    /// Records in all runs.
    len: u64,
}

impl Rows {
    /// No records.
    pub const fn new() -> Rows {
        Rows {
            runs: Vec::new(),
            len: 0,
        }
    }

    /// Records `from..to` of `channel` after these (joined to the last run when they follow it).
    pub fn push_range(&mut self, channel: u32, from: u64, to: u64) {
        if to <= from {
            return;
        }
        self.len += to - from;
        match self.runs.last_mut() {
            Some((c, _, end)) if *c == channel && *end == from => *end = to,
            _ => self.runs.push((channel, from, to)),
        }
    }

    /// Every record of `other` after these, leaving `other` empty.
    pub fn append(&mut self, other: &mut Rows) {
        for (channel, from, to) in other.runs.drain(..) {
            self.push_range(channel, from, to);
        }
        other.len = 0;
    }

    /// Number of records.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether it holds no record.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The runs, in order: (channel, first sequence number, one past the last).
    pub fn runs(&self) -> impl Iterator<Item = (u32, u64, u64)> + '_ {
        self.runs.iter().copied()
    }

    /// Each record's channel and sequence number, in order.
    pub fn keys(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.runs
            .iter()
            .flat_map(|&(channel, from, to)| (from..to).map(move |seq| (channel, seq)))
    }

    /// The records, made again from `upstream`, in order.
    pub fn records<'a>(&'a self, upstream: &'a Upstream) -> impl Iterator<Item = Record> + 'a {
        self.runs
            .iter()
            .flat_map(|&(channel, from, to)| upstream.channel(channel).records(from..to))
    }
}

impl FromIterator<(u32, u64)> for Rows {
    /// Records by channel and sequence number, in order (consecutive ones joined in a run).
    fn from_iter<I: IntoIterator<Item = (u32, u64)>>(keys: I) -> Rows {
        let mut rows = Rows::new();
        for (channel, seq) in keys {
            rows.push_range(channel, seq, seq + 1);
        }
        rows
    }
}

/// What a positional draw of [`Upstream::generate`] is for: its stream's tag.
#[derive(Clone, Copy)]
enum Draw {
    ArrivalTime,
    SplitSide,
    User,
    Item,
    Amount,
    Price,
}

/// The draws a channel's record payloads come from: a record's values are made from its
/// sequence number when it is read, never stored (a channel keeps only arrival times, 8 bytes a
/// record).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Payload {
    users: Stream,
    items: Stream,
    amounts: Stream,
    prices: Stream,
}

impl Payload {
    fn of(keyed: Keyed, channel: u32) -> Payload {
        let draw = |what: Draw| keyed.stream(what as u64, u64::from(channel));
        Payload {
            users: draw(Draw::User),
            items: draw(Draw::Item),
            amounts: draw(Draw::Amount),
            prices: draw(Draw::Price),
        }
    }
}

/// One channel of the upstream table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UpstreamChannel {
    /// Channel id as the Tunnel server names it (`ch0`): [`ChannelId`] of its index, as text.
    pub id: String,
    /// Index (position in `Upstream::channels`).
    pub index: u32,
    /// The channel this one split from.
    pub parent: Option<u32>,
    /// Channels this one split into.
    pub children: Vec<u32>,
    /// When the channel came into existence (children: the split time).
    pub created_at_ms: u64,
    /// When the channel stopped receiving records because it split.
    pub sealed_at_ms: Option<u64>,
    /// When each of its records arrives, in arrival order (index = sequence number).
    arrivals: Vec<u64>,
    /// Where its records' payloads come from.
    payload: Payload,
}

impl UpstreamChannel {
    /// How many records have arrived by `now_ms`.
    pub fn arrived(&self, now_ms: u64) -> u64 {
        self.arrivals.partition_point(|&t| t <= now_ms) as u64
    }

    /// Whether the channel will never receive another record (it split and `now_ms` is past the split).
    pub fn sealed(&self, now_ms: u64) -> bool {
        self.sealed_at_ms.is_some_and(|t| now_ms >= t)
    }

    /// Number of records it will ever hold.
    pub fn len(&self) -> u64 {
        self.arrivals.len() as u64
    }

    /// Whether it will never hold a record.
    pub fn is_empty(&self) -> bool {
        self.arrivals.is_empty()
    }

    /// Its record at position `seq` (below [`UpstreamChannel::len`]), made from the seed.
    pub fn record(&self, seq: u64) -> Record {
        let p = &self.payload;
        Record {
            channel: self.index,
            seq,
            arrived_at_ms: self.arrivals[seq as usize],
            user_id: 1 + p.users.below(seq, 4) as u32,
            item_id: 1 + p.items.below(seq, 3) as u32,
            amount: 1 + p.amounts.below(seq, 300),
            price: 1 + p.prices.below(seq, 2000) as u32,
        }
    }

    /// The positions of `range` the channel holds (empty if it ends before it starts).
    pub fn clamp(&self, range: Range<u64>) -> Range<u64> {
        let end = range.end.min(self.len());
        range.start.min(end)..end
    }

    /// Its records at positions `range` (clamped to the channel), in order.
    pub fn records(&self, range: Range<u64>) -> impl ExactSizeIterator<Item = Record> + '_ {
        let range = self.clamp(range);
        (range.start as usize..range.end as usize).map(|seq| self.record(seq as u64))
    }

    /// Every record it will ever hold, in order.
    pub fn all_records(&self) -> impl ExactSizeIterator<Item = Record> + '_ {
        self.records(0..self.len())
    }
}

/// The whole upstream table; durable (a crash of the query does not touch it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Upstream {
    /// Channels: the initial ones first, then children in split order.
    pub channels: Vec<UpstreamChannel>,
}

impl Upstream {
    /// Generates every record of the scenario up front. Its values are positional draws
    /// ([`Keyed`]) keyed by one draw of the world's PRNG: a channel's arrival times by batch and
    /// position in the batch, which child of a split a record goes to by its position after the
    /// split, and a record's payload by its channel and sequence number.
    pub fn generate(scenario: &Scenario, rng: &mut Prng) -> Upstream {
        let u = &scenario.upstream;
        let interval = scenario.trigger_interval_ms;
        let per_batch = u64::from(u.records_per_batch);
        let keyed = rng.keyed();
        let mut times: Vec<Vec<u64>> = vec![Vec::new(); u.channels as usize];
        for (c, slot) in times.iter_mut().enumerate() {
            let draws = keyed.stream(Draw::ArrivalTime as u64, c as u64);
            let bursts = || u.bursts.iter().filter(|b| b.channel as usize == c);
            // Sized once: growing by doubling copies the channel over and over (dear in wasm,
            // whose allocator cannot remap a large block the way the native one does).
            let burst_records: u64 = bursts().map(|b| u64::from(b.records)).sum();
            slot.reserve_exact((scenario.batches * per_batch + burst_records) as usize);
            for b in 0..scenario.batches {
                let first = slot.len();
                for i in 0..per_batch {
                    let t = b * interval + draws.below(b * per_batch + i, interval);
                    if !u.idle.iter().any(|w| w.contains(t)) {
                        slot.push(t);
                    }
                }
                // Each batch's times lie in its own interval: sorting within it sorts them all.
                slot[first..].sort_unstable();
            }
            if burst_records > 0 {
                for burst in bursts() {
                    slot.extend(std::iter::repeat_n(burst.at_ms, burst.records as usize));
                }
                slot.sort_unstable();
            }
        }
        let mut channels: Vec<UpstreamChannel> = (0..u.channels)
            .map(|i| UpstreamChannel {
                id: ChannelId(i).to_string(),
                index: i,
                parent: None,
                children: vec![],
                created_at_ms: 0,
                sealed_at_ms: None,
                arrivals: vec![],
                payload: Payload::of(keyed, i),
            })
            .collect();
        let mut times_by_channel: Vec<Vec<u64>> = times;
        for (n, split) in u.splits.iter().enumerate() {
            let parent = split.channel as usize;
            let (before, after): (Vec<u64>, Vec<u64>) = times_by_channel[parent]
                .iter()
                .partition(|&&t| t < split.at_ms);
            times_by_channel[parent] = before;
            let first = channels.len() as u32;
            let sides = keyed.stream(Draw::SplitSide as u64, n as u64);
            let mut kids = [Vec::new(), Vec::new()];
            for (j, t) in after.into_iter().enumerate() {
                kids[sides.below(j as u64, 2) as usize].push(t);
            }
            for (k, kid_times) in kids.into_iter().enumerate() {
                let index = first + k as u32;
                channels.push(UpstreamChannel {
                    id: ChannelId(index).to_string(),
                    index,
                    parent: Some(split.channel),
                    children: vec![],
                    created_at_ms: split.at_ms,
                    sealed_at_ms: None,
                    arrivals: vec![],
                    payload: Payload::of(keyed, index),
                });
                times_by_channel.push(kid_times);
            }
            channels[parent].children = vec![first, first + 1];
            channels[parent].sealed_at_ms = Some(split.at_ms);
        }
        for (ch, ts) in channels.iter_mut().zip(times_by_channel) {
            ch.arrivals = ts;
        }
        Upstream { channels }
    }

    /// Every record, channel by channel.
    pub fn records(&self) -> impl Iterator<Item = Record> + '_ {
        self.channels.iter().flat_map(|c| c.all_records())
    }

    /// Total number of records.
    pub fn total(&self) -> u64 {
        self.channels.iter().map(|c| c.len()).sum()
    }

    /// The channel with this index.
    pub fn channel(&self, index: u32) -> &UpstreamChannel {
        &self.channels[index as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::{ByRecord, RowKey, Rows};
    use crate::microbatch::scenario::preset;
    use crate::microbatch::World;

    #[test]
    fn a_run_of_values_is_the_same_values_as_one_entry_at_a_time() {
        let mut by_run: ByRecord<u32> = ByRecord::default();
        let mut by_entry: ByRecord<u32> = ByRecord::default();
        for (channel, from, to) in [(2, 3, 6), (0, 0, 2), (2, 5, 9), (2, 1, 2)] {
            for (v, seq) in by_run.run_mut(channel, from, to).iter_mut().zip(from..) {
                *v += 1 + seq as u32;
            }
            for seq in from..to {
                *by_entry.entry(channel, seq) += 1 + seq as u32;
            }
        }
        assert_eq!(by_run, by_entry);
        assert_eq!(by_run.get(2, 5), Some(&12), "written twice");
        assert_eq!(by_run.get(2, 0), Some(&0), "below the furthest: default");
        assert_eq!(by_run.get(1, 0), None);
        assert!(by_run.run_mut(3, 4, 4).is_empty());
    }

    #[test]
    fn rows_keep_runs_and_give_back_the_records_in_read_order() {
        let upstream = World::new(preset("kafka-idempotent").expect("preset")).upstream;
        let mut rows = Rows::new();
        rows.push_range(1, 2, 5);
        rows.push_range(1, 5, 7); // follows: joined
        rows.push_range(0, 0, 2);
        rows.push_range(0, 3, 3); // empty: nothing
        let mut more: Rows = [(1, 7), (0, 4)].into_iter().collect();
        rows.append(&mut more);
        assert!(more.is_empty());
        let keys: Vec<(u32, u64)> = rows.keys().collect();
        assert_eq!(
            keys,
            [
                (1, 2),
                (1, 3),
                (1, 4),
                (1, 5),
                (1, 6),
                (0, 0),
                (0, 1),
                (1, 7),
                (0, 4)
            ]
        );
        assert_eq!(rows.len(), keys.len() as u64);
        assert_eq!(rows.runs.len(), 4, "{:?}", rows.runs);
        let made: Vec<_> = rows.records(&upstream).collect();
        let want: Vec<_> = keys
            .iter()
            .map(|&(c, seq)| upstream.channel(c).record(seq))
            .collect();
        assert_eq!(made, want);
        assert_eq!(keys.iter().copied().collect::<Rows>(), rows);
    }

    #[test]
    fn a_row_key_reads_back_its_text_and_orders_naturally() {
        let keys = [
            RowKey::Record { channel: 0, seq: 9 },
            RowKey::Record {
                channel: 0,
                seq: 10,
            },
            RowKey::Record { channel: 2, seq: 0 },
            RowKey::Record {
                channel: 10,
                seq: 0,
            },
            RowKey::User(3),
        ];
        let texts: Vec<String> = keys.iter().map(RowKey::to_string).collect();
        assert_eq!(texts, ["ch0-9", "ch0-10", "ch2-0", "ch10-0", "user-3"]);
        for (k, t) in keys.iter().zip(&texts) {
            assert_eq!(t.parse::<RowKey>().as_ref(), Ok(k));
            let json = serde_json::to_string(k).unwrap();
            assert_eq!(json, format!("\"{t}\""));
            assert_eq!(serde_json::from_str::<RowKey>(&json).unwrap(), *k);
        }
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "natural order");
        for bad in ["ch0", "ch-1-2", "user-", "x0-1", "ch0-1x", ""] {
            let err = bad.parse::<RowKey>().unwrap_err();
            assert!(err.contains("not a row key"), "{bad}: {err}");
        }
    }
}
