//! The simulated CDC table: channels (partitions) of records with arrival times, and partition splits.

use crate::rng::Prng;
use crate::scenario::Scenario;
use serde::{Deserialize, Serialize};

/// One change record of the CDC stream (the seeds' shopping rows).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Record {
    /// Unique key (`ch0-17`: channel and sequence number).
    pub key: String,
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
    /// Shopping row: price.
    pub price: u64,
}

/// One channel of the upstream table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UpstreamChannel {
    /// Channel id as the Tunnel server names it (`ch0`).
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
    /// Its records in arrival order.
    pub records: Vec<Record>,
}

impl UpstreamChannel {
    /// How many records have arrived by `now_ms`.
    pub fn arrived(&self, now_ms: u64) -> u64 {
        self.records.partition_point(|r| r.arrived_at_ms <= now_ms) as u64
    }

    /// Whether the channel will never receive another record (it split and `now_ms` is past the split).
    pub fn sealed(&self, now_ms: u64) -> bool {
        self.sealed_at_ms.is_some_and(|t| now_ms >= t)
    }

    /// Number of records it will ever hold.
    pub fn len(&self) -> u64 {
        self.records.len() as u64
    }

    /// Whether it will never hold a record.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
}

/// The whole upstream table; durable (a crash of the query does not touch it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Upstream {
    /// Channels: the initial ones first, then children in split order.
    pub channels: Vec<UpstreamChannel>,
}

impl Upstream {
    /// Generates every record of the scenario up front, from the world's PRNG.
    pub fn generate(scenario: &Scenario, rng: &mut Prng) -> Upstream {
        let u = &scenario.upstream;
        let interval = scenario.trigger_interval_ms;
        let mut times: Vec<Vec<u64>> = vec![Vec::new(); u.channels as usize];
        for (c, slot) in times.iter_mut().enumerate() {
            for b in 0..scenario.batches {
                for _ in 0..u.records_per_batch {
                    let t = b * interval + rng.below(interval);
                    if !u.idle.iter().any(|w| w.contains(t)) {
                        slot.push(t);
                    }
                }
            }
            for burst in u.bursts.iter().filter(|b| b.channel as usize == c) {
                slot.extend(std::iter::repeat_n(burst.at_ms, burst.records as usize));
            }
            slot.sort_unstable();
        }
        let mut channels: Vec<UpstreamChannel> = (0..u.channels)
            .map(|i| UpstreamChannel {
                id: format!("ch{i}"),
                index: i,
                parent: None,
                children: vec![],
                created_at_ms: 0,
                sealed_at_ms: None,
                records: vec![],
            })
            .collect();
        let mut times_by_channel: Vec<Vec<u64>> = times;
        for split in &u.splits {
            let parent = split.channel as usize;
            let (before, after): (Vec<u64>, Vec<u64>) = times_by_channel[parent]
                .iter()
                .partition(|&&t| t < split.at_ms);
            times_by_channel[parent] = before;
            let first = channels.len() as u32;
            let mut kids = [Vec::new(), Vec::new()];
            for t in after {
                kids[rng.below(2) as usize].push(t);
            }
            for (k, kid_times) in kids.into_iter().enumerate() {
                let index = first + k as u32;
                channels.push(UpstreamChannel {
                    id: format!("ch{index}"),
                    index,
                    parent: Some(split.channel),
                    children: vec![],
                    created_at_ms: split.at_ms,
                    sealed_at_ms: None,
                    records: vec![],
                });
                times_by_channel.push(kid_times);
            }
            channels[parent].children = vec![first, first + 1];
            channels[parent].sealed_at_ms = Some(split.at_ms);
        }
        for (ch, ts) in channels.iter_mut().zip(times_by_channel) {
            ch.records = ts
                .into_iter()
                .enumerate()
                .map(|(seq, t)| Record {
                    key: format!("{}-{seq}", ch.id),
                    channel: ch.index,
                    seq: seq as u64,
                    arrived_at_ms: t,
                    user_id: 1 + rng.below(4) as u32,
                    item_id: 1 + rng.below(3) as u32,
                    amount: 1 + rng.below(300),
                    price: 1 + rng.below(2000),
                })
                .collect();
        }
        Upstream { channels }
    }

    /// Every record, channel by channel.
    pub fn records(&self) -> impl Iterator<Item = &Record> {
        self.channels.iter().flat_map(|c| c.records.iter())
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
