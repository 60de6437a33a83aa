//! The oracle's count of a run so far: which expected keys the sink shows, which it shows more
//! than once, which are still missing, and the names of the crashes that fired.
//!
//! One count for every place that shows it: the final [`Report`](crate::Report), the wasm
//! API's `State`, the dashboard's Sink panel and verdict badge.

use batchscope_engine::microbatch::scenario::{Scenario, SourceKind};
use batchscope_engine::microbatch::scenario::{SinkValue, StartingOffsets};
use batchscope_engine::microbatch::upstream::ByRecord;
use batchscope_engine::microbatch::upstream::RowKey;
use batchscope_engine::microbatch::World;
use batchscope_engine::sim::Sim;
use std::collections::{BTreeMap, BTreeSet};

/// The sink of a run at one moment, counted against the expected records (see [`so_far`] and
/// `oracle::expected_counts`: every record the upstream produced), by key and by value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Every visible key and its copies (with repeats).
    pub counts: KeyCounts,
    /// Keys expected in the sink: every record the upstream produced (for a running-sum sink,
    /// every user's sum).
    pub expected: u64,
    /// Expected keys visible now with their full value (each counted once).
    pub delivered: u64,
    /// Extra copies beyond the first, plus keys whose value is too high (a record added twice
    /// into a running sum): a duplicate never goes away.
    pub duplicates: u64,
    /// Keys visible more than once or with a value too high, by key.
    pub duplicate_keys: Vec<RowKey>,
    /// How many expected keys are not visible, or visible with a value short of the expected
    /// one (yet: lost only if still so at the end).
    pub missing: u64,
    /// Those keys in key order: every one from [`so_far`], the first `limit` from
    /// [`so_far_listing`].
    pub missing_keys: Vec<RowKey>,
    /// Of a query stopped for good (`restart: none`), the expected keys it had not delivered
    /// that the next start would (`World::started_again`): still in the upstream and covered
    /// by the checkpoint, so not lost. Not counted in `missing`. 0 for any other run.
    pub unread: u64,
    /// Those keys in key order (listed as `missing_keys` are).
    pub unread_keys: Vec<RowKey>,
    /// Visible keys whose value is not the expected one (`user-3: 57, expected 42`), by key.
    pub wrong_values: Vec<String>,
}

impl Progress {
    /// Whether `key` is visible more than once, or holds too much.
    pub fn is_duplicate(&self, key: RowKey) -> bool {
        self.counts.copies(key) > 1 || self.duplicate_keys.binary_search(&key).is_ok()
    }
}

/// The visible copies of each key of a sink, counted densely: by channel and sequence number
/// for records (4 bytes a record, no tree: the dashboard counts the sink at every step that
/// changed it), a small map for the users of a running sum.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyCounts {
    /// Copies of each record's key.
    records: ByRecord<u32>,
    /// Running sum: user → copies.
    users: BTreeMap<u32, u64>,
}

impl KeyCounts {
    /// The visible rows of `world`'s sink, counted by the key each is stored under.
    pub fn of(world: &World) -> KeyCounts {
        let mut counts = KeyCounts::default();
        for (key, _) in world.sink.visible_keyed() {
            match key {
                RowKey::Record { channel, seq } => *counts.records.entry(channel, seq) += 1,
                RowKey::User(id) => *counts.users.entry(id).or_insert(0) += 1,
            }
        }
        counts
    }

    /// Visible copies of `key` (0: not visible).
    pub fn copies(&self, key: RowKey) -> u64 {
        match key {
            RowKey::Record { channel, seq } => {
                self.records.get(channel, seq).map_or(0, |&n| u64::from(n))
            }
            RowKey::User(id) => self.users.get(&id).copied().unwrap_or(0),
        }
    }

    /// Every visible key and its copies, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (RowKey, u64)> + '_ {
        let records = self
            .records
            .iter()
            .filter(|&(_, _, &n)| n > 0)
            .map(|(channel, seq, &n)| (RowKey::Record { channel, seq }, u64::from(n)));
        records.chain(self.users.iter().map(|(&id, &n)| (RowKey::User(id), n)))
    }
}

/// Counts each key's visible copies.
pub fn visible_counts(world: &World) -> BTreeMap<RowKey, u64> {
    KeyCounts::of(world).iter().collect()
}

/// The sink of `world` now, against `expected` (key → 1 for every key that should arrive).
/// Values are judged too: each visible row of an expected key must hold the value the sink
/// shows when every record arrived exactly once (`SinkState::expected`). For a record that
/// value is the record's own, so only a running sum can hold a wrong one.
pub fn so_far(world: &World, expected: &BTreeMap<RowKey, u64>) -> Progress {
    so_far_listing(world, expected, usize::MAX)
}

/// [`so_far`] listing only the first `limit` missing keys (all are counted): what a view that
/// shows a few of them needs at each step. At the start of a long run every record is
/// missing, and the full list cost three times the count (measured natively at 64 channels ×
/// 1,000 batches: 2.5 ms, 0.8 ms of it the count).
pub fn so_far_listing(world: &World, expected: &BTreeMap<RowKey, u64>, limit: usize) -> Progress {
    let counts = KeyCounts::of(world);
    // A row of a record holds that record's own value, which is the one expected of its key:
    // only a running sum can hold a wrong value, so only then are values compared (this runs
    // at every step of the dashboard; the expected values cost a pass over every record).
    let values = match world.sink.spec.value {
        SinkValue::Record => BTreeMap::new(),
        SinkValue::RunningSum => expected_values(world),
    };
    // Visible value per key (the last row of a key: one row per key in an upsert sink).
    let mut visible_values: BTreeMap<RowKey, u64> = BTreeMap::new();
    if !values.is_empty() {
        for (key, r) in world.sink.visible_keyed() {
            visible_values.insert(key, world.sink.value_of(r, &world.upstream));
        }
    }
    let mut too_high = BTreeSet::new();
    let mut too_low = BTreeSet::new();
    let mut wrong_values = vec![];
    for (key, &value) in &visible_values {
        let Some(&want) = values.get(key).filter(|_| expected.contains_key(key)) else {
            continue;
        };
        if value != want {
            wrong_values.push(format!("{key}: {value}, expected {want}"));
            if value > want {
                too_high.insert(*key);
            } else {
                too_low.insert(*key);
            }
        }
    }
    let mut duplicate_keys: BTreeSet<RowKey> = counts
        .iter()
        .filter(|&(_, n)| n > 1)
        .map(|(k, _)| k)
        .collect();
    let duplicates = counts.iter().map(|(_, n)| n - 1).sum::<u64>()
        + too_high
            .iter()
            .filter(|k| !duplicate_keys.contains(k))
            .count() as u64;
    duplicate_keys.extend(too_high);
    let is_missing = |k: RowKey| counts.copies(k) == 0 || too_low.contains(&k);
    let split = split_missing(world, expected, limit, is_missing);
    Progress {
        expected: expected.len() as u64,
        delivered: expected.len() as u64 - split.missing - split.unread,
        missing: split.missing,
        unread: split.unread,
        unread_keys: split.unread_keys,
        duplicates,
        duplicate_keys: duplicate_keys.into_iter().collect(),
        missing_keys: split.missing_keys,
        wrong_values,
        counts,
    }
}

/// The expected keys not delivered, told apart: missing (lost if still so at the end) and,
/// of a query stopped for good, unread (its next start delivers them). Keys listed up to
/// `limit` each; all counted.
struct Undelivered {
    missing: u64,
    missing_keys: Vec<RowKey>,
    unread: u64,
    unread_keys: Vec<RowKey>,
}

fn split_missing(
    world: &World,
    expected: &BTreeMap<RowKey, u64>,
    limit: usize,
    is_missing: impl Fn(RowKey) -> bool,
) -> Undelivered {
    // A query stopped for good has not lost what its next start would deliver.
    let later = stopped_and_settled(world).then(|| {
        let mut again = world.started_again().expect("a stopped world starts again");
        crate::liveness::run(&mut again, crate::liveness::Limit::JUDGE);
        so_far(&again, expected)
    });
    let mut out = Undelivered {
        missing: 0,
        missing_keys: vec![],
        unread: 0,
        unread_keys: vec![],
    };
    for &k in expected.keys().filter(|&&k| is_missing(k)) {
        let delivered_later = later
            .as_ref()
            .is_some_and(|p| p.missing_keys.binary_search(&k).is_err());
        let (n, keys) = if delivered_later {
            (&mut out.unread, &mut out.unread_keys)
        } else {
            (&mut out.missing, &mut out.missing_keys)
        };
        *n += 1;
        if keys.len() < limit {
            keys.push(k);
        }
    }
    out
}

/// Whether `world`'s query stopped for good (`restart: none`) and nothing more happens.
fn stopped_and_settled(world: &World) -> bool {
    *world.phase() == batchscope_engine::microbatch::Phase::Stopped && world.is_converged()
}

/// The crashes that fired, in order: `NAME@N` for a named point, `after-event@SEQ` for a
/// crash-now input (the driver died right after event SEQ).
pub fn fired_crash_names(world: &World) -> Vec<String> {
    world
        .fired_crashes()
        .iter()
        .map(|c| {
            c.point
                .map_or_else(|| format!("after-event@{}", c.seq - 1), |p| p.to_string())
        })
        .collect()
}

/// Key → the value the sink should hold once every expected record arrived exactly once:
/// every record of the upstream, except those a query started at `startingOffsets = latest`
/// never reads (they arrived before its very first start: Spark's Kafka source begins at the
/// end of the log). A restart of the same query resumes from its checkpoint, and a new query
/// after a deleted checkpoint does not change what the first one owed, so records that arrive
/// after the first start are expected whatever happens to the query.
pub fn expected_values(world: &World) -> BTreeMap<RowKey, u64> {
    let skipped = match &world.first_start {
        Some(first) => first.clone(),
        None => before_first_start(world.scenario()),
    };
    let records = world
        .upstream
        .records()
        .filter(|r| r.seq >= skipped.get(&r.channel).copied().unwrap_or(0));
    world.sink.expected_of(records)
}

/// [`World::first_start`] of a world that has not started yet: a fresh failure-free copy
/// stepped until its source writes its initial offsets (a few events; only for a Kafka-like
/// log starting at `latest`, the one source with `startingOffsets`).
fn before_first_start(scenario: &Scenario) -> BTreeMap<u32, u64> {
    if scenario.source.kind != SourceKind::ReplayableLog
        || scenario.source.starting_offsets != StartingOffsets::Latest
    {
        return BTreeMap::new();
    }
    let mut world = World::new(scenario.failure_free());
    for _ in 0..64 {
        if let Some(first) = &world.first_start {
            return first.clone();
        }
        if world.settled() {
            break;
        }
        world.step();
    }
    BTreeMap::new()
}
