//! The Sink panel: stores and their rows grouped by batch, duplicate, missing and lost keys.
//!
//! `committed_positions` answers "where does each channel stand after batch C" again, as the
//! engine's `World::source_caught_up` does; it is kept here until the engine exposes one answer.

use crate::microbatch::panels::offsets::offset_line;
use batchscope_check::progress::{so_far, KeyCounts};
use batchscope_engine::chunked::Chunked;
use batchscope_engine::microbatch::scenario::{SeaTunnelDesign, SourceKind};
use batchscope_engine::microbatch::sink::Row;
use batchscope_engine::microbatch::source::SourceOffset;
use batchscope_engine::microbatch::upstream::RowKey;
use batchscope_engine::microbatch::World;
use std::collections::BTreeMap;

/// A key in the sink panel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyChip {
    /// The row's key (`ch0-17`, or `user-3` in a running sum).
    pub key: RowKey,
    /// Whether the key is visible more than once (across all stores).
    pub duplicate: bool,
}

/// Consecutive rows written by one batch (a re-run that appends again shows up as a second group).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowGroup {
    /// The batch that wrote them.
    pub batch_id: u64,
    /// The keys.
    pub keys: Vec<KeyChip>,
}

/// One store of the sink.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreView {
    /// Store name (`table`, `store-0`…).
    pub name: String,
    /// Visible rows.
    pub rows: u64,
    /// The rows by writing batch: the newest [`MAX_GROUPS`] groups.
    pub groups: Vec<RowGroup>,
    /// Rows before those groups, left out (a long run writes hundreds of groups; the lists
    /// of duplicated, missing and lost keys cover the whole sink).
    pub earlier_rows: u64,
}

/// Where the newest `runs` runs of rows of one batch each begin (0 if there are fewer).
fn start_of_newest_runs<const N: usize>(rows: &Chunked<Row, N>, runs: usize) -> usize {
    let mut start = rows.len();
    let mut seen = 0;
    let mut current = None;
    for batch_id in rows.iter().rev().map(Row::batch_id) {
        if current != Some(batch_id) {
            if seen == runs {
                return start;
            }
            seen += 1;
            current = Some(batch_id);
        }
        start -= 1;
    }
    0
}

/// Batch groups a [`StoreView`] holds per store: the newest ones.
pub const MAX_GROUPS: usize = 40;

/// Data files a [`SinkView`] lists: the newest ones.
pub const MAX_FILES: usize = 48;

/// The data files a [`SinkView`] leaves out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EarlierFiles {
    /// Files left out.
    pub files: u64,
    /// Of those, orphans (not in the manifest).
    pub orphans: u64,
}

/// A data file of a file sink.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SinkFileView {
    /// File name.
    pub name: String,
    /// The batch whose attempt wrote it.
    pub batch_id: u64,
    /// Rows in it.
    pub rows: u64,
    /// Listed in `_spark_metadata` (visible).
    pub committed: bool,
    /// Written by the attempt in flight, not listed yet: the batch's commit lists it (a crash
    /// first leaves it an orphan). A file neither committed nor staged is an orphan of a
    /// killed or failed attempt.
    pub staged: bool,
}

/// How many keys a [`KeyList`] lists.
pub const LISTED_KEYS: usize = 40;

/// A set of keys too long to show whole: how many, and the first [`LISTED_KEYS`] in key order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyList {
    /// How many keys there are.
    pub total: u64,
    /// The first of them, in key order.
    pub first: Vec<RowKey>,
}

impl KeyList {
    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }
}

/// The Sink panel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SinkView {
    /// What kind of sink, in words.
    pub kind: &'static str,
    /// Stores and their rows.
    pub stores: Vec<StoreView>,
    /// File sink: the newest [`MAX_FILES`] data files.
    pub files: Vec<SinkFileView>,
    /// File sink: data files before those, left out (a long run writes one per task per
    /// batch: thousands), and how many of them are orphans.
    pub earlier_files: EarlierFiles,
    /// File sink: batch ids in `_spark_metadata`.
    pub manifest: Vec<u64>,
    /// Two-phase: last committed epoch.
    pub last_committed_epoch: Option<u64>,
    /// Rows staged by the attempt in flight (invisible until the commit).
    pub staged_rows: u64,
    /// Keys visible more than once, in key order.
    pub duplicate_keys: Vec<RowKey>,
    /// Expected keys not visible and not lost (yet): a later batch will deliver them; how many,
    /// and the first [`LISTED_KEYS`] in key order (at the start of a long run every record is
    /// missing: the view copies what the panel shows, not all of them, at each step).
    pub missing_keys: KeyList,
    /// Expected keys that can no longer arrive: not visible, and behind where the last
    /// committed batch ended (the next batch starts after them), in key order. See
    /// [`lost_keys`].
    pub lost_keys: Vec<RowKey>,
    /// The `commits/N` behind which the lost keys lie.
    pub lost_behind: Option<u64>,
    /// Records a task skipped because retention had deleted them from the Kafka-like log
    /// (`failOnDataLoss` false) and that are not in the sink: aged out, gone for good, in key
    /// order. See [`aged_out_keys`].
    pub aged_out_keys: Vec<RowKey>,
    /// Upsert: rows written again and absorbed by the key.
    pub rewrites: u64,
    /// Visible rows (with repeats).
    pub visible: u64,
    /// Distinct expected keys visible.
    pub delivered: u64,
    /// Keys expected in the sink: every record the upstream produced.
    pub expected: u64,
}

/// Describes a sink kind in a few words.
pub fn sink_kind_text(kind: batchscope_engine::microbatch::scenario::SinkKind) -> &'static str {
    use batchscope_engine::microbatch::scenario::SinkKind::*;
    match kind {
        File => "file sink (skips batch ids in its _spark_metadata manifest)",
        Upsert => "upsert by key (a replayed row overwrites itself)",
        Append => "plain append (tasks write rows as they go)",
        ForeachBatch => "foreachBatch writing each batch to one random store",
        TwoPhase => "two-phase (tasks stage, the driver commits epoch N once)",
        BatchIdInMemory => "skips batch ids up to a latestBatchId kept in a driver-side field (forgotten on restart)",
        TxnAppId => "Delta idempotent writes (skips a txnVersion it has for the same txnAppId = query id)",
    }
}

/// The last committed batch `C` and where each channel stands at its end.
pub type Committed = (u64, BTreeMap<u32, u64>);

/// Expected keys that can no longer be delivered, and the `commits/C` they lie behind.
pub type Lost = (Option<u64>, Vec<RowKey>);

/// Where each channel stands at the end of the last committed batch (`commits/C`): the next
/// batch starts here. `None` for a channel whose position cannot be told (then nothing in it
/// counts as lost before the run settles).
pub fn committed_positions(world: &World) -> Option<Committed> {
    use batchscope_engine::microbatch::tunnel::Token;
    let c = world.checkpoint.latest_commit_id()?;
    let end = offset_line(world, c)?;
    let len = |i: u32| world.upstream.channel(i).len();
    let token_pos = |i: u32, t: Token| match t {
        Token::At(p) => p,
        Token::Finished => len(i),
    };
    let mut pos = BTreeMap::new();
    match end {
        SourceOffset::Log(map) => pos.extend(map),
        // PR #7476's batch C+1 writes its state into the folder it restored from (the folder
        // is the start checkpoint id), so while it runs the files no longer say where it
        // started: nothing counts as lost until it ends or dies.
        SourceOffset::Checkpoint(_)
            if world.driver.batch.is_some()
                && world.scenario().source.design == SeaTunnelDesign::Pr7476 => {}
        SourceOffset::Checkpoint(batch) => {
            for ch in &world.upstream.channels {
                pos.insert(ch.index, world.seatunnel_restore(batch, ch.index));
            }
        }
        SourceOffset::Positions(map) => {
            pos.extend(map.into_iter().map(|(i, t)| (i, token_pos(i, t))))
        }
        SourceOffset::Uuid(u) => {
            if world.scenario().source.kind != SourceKind::Tablestore {
                return None; // auto-commit restarts from the Tunnel, not from these rows
            }
            for ch in &world.upstream.channels {
                let row = world
                    .meta_table
                    .rows_of(&u)
                    .into_iter()
                    .find(|r| r.channel == ch.id);
                match row {
                    Some(r) => {
                        pos.insert(ch.index, token_pos(ch.index, r.token));
                    }
                    // A finished channel's row is deleted on commit; the server then says `finished`.
                    None if world
                        .tunnel
                        .get(ch.index)
                        .is_some_and(|t| t.checkpoint == Token::Finished) =>
                    {
                        pos.insert(ch.index, len(ch.index));
                    }
                    None => {}
                }
            }
        }
    }
    Some((c, pos))
}

/// Expected keys that can no longer be delivered, and the `commits/C` they lie behind: not
/// visible in the sink, yet before the position where batch C ended. Sound because `commits/C`
/// is written only after the sink finished batch C, and batch C+1 starts at C's end.
pub fn lost_keys(world: &World, expected: &BTreeMap<RowKey, u64>) -> Lost {
    lost_keys_behind(
        world,
        expected,
        &KeyCounts::of(world),
        committed_positions(world),
    )
}

/// [`lost_keys`] from the sink's count already taken (`KeyCounts::of(world)`) and the
/// positions behind the last commit ([`committed_positions`]). A function of those two (the
/// run's upstream and expected keys being fixed): a view may keep its result while both stay.
pub fn lost_keys_behind(
    world: &World,
    expected: &BTreeMap<RowKey, u64>,
    visible: &KeyCounts,
    committed: Option<Committed>,
) -> Lost {
    let Some((c, pos)) = committed else {
        return (None, vec![]);
    };
    // Only the records behind each channel's position, looked up densely: this runs at every
    // step of the dashboard that changed the sink. Channels in index order, records in
    // sequence: the list comes out in key order.
    let mut lost = vec![];
    for (&channel, &end) in &pos {
        let behind = end.min(world.upstream.channel(channel).len());
        lost.extend(
            (0..behind)
                .map(|seq| RowKey::Record { channel, seq })
                .filter(|&k| visible.copies(k) == 0 && expected.contains_key(&k)),
        );
    }
    (Some(c).filter(|_| !lost.is_empty()), lost)
}

/// See [`SinkView`]. `expected` holds the keys of every record the upstream produced.
pub fn sink_view(world: &World, expected: &BTreeMap<RowKey, u64>) -> SinkView {
    sink_view_of(world, expected, &so_far(world, expected))
}

/// [`sink_view`] from the sink's count already taken (`so_far(world, expected)`).
pub fn sink_view_of(
    world: &World,
    expected: &BTreeMap<RowKey, u64>,
    progress: &batchscope_check::progress::Progress,
) -> SinkView {
    // A lost key is a missing one: with none missing (most of a clean run, and all of its
    // end) there is nothing to look for behind the commits.
    let lost = if progress.missing == 0 {
        (None, vec![])
    } else {
        lost_keys_behind(
            world,
            expected,
            &progress.counts,
            committed_positions(world),
        )
    };
    sink_view_with(world, expected, progress, &lost, SinkDetail::Panel)
}

/// The records of `world.aged_out` the sink does not show, in key order: a task skipped them
/// because retention had deleted them (none for a running sum, whose keys are users).
pub fn aged_out_keys(
    world: &World,
    progress: &batchscope_check::progress::Progress,
) -> Vec<RowKey> {
    if !world.scenario().sink.value.is_record() {
        return vec![];
    }
    let keys = world.aged_out.keys();
    let gone = keys.map(|(channel, seq)| RowKey::Record { channel, seq });
    let mut out: Vec<RowKey> = gone.filter(|&k| progress.counts.copies(k) == 0).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// How much of the sink a [`SinkView`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SinkDetail {
    /// Everything the Sink panel shows.
    Panel,
    /// What is shown outside the panel — the counts, the duplicated, missing and lost keys —
    /// without the stores' newest rows (each store's `groups` empty, all its rows counted as
    /// `earlier_rows`) and the data files (none listed, none counted): at 64 channels × 1,000
    /// batches those are thousands of rows and files read at every step for a closed tab.
    Summary,
}

/// [`sink_view_of`] with the lost keys already found ([`lost_keys_behind`]; none when nothing
/// is missing), reading as much of the sink as `detail` asks.
pub fn sink_view_with(
    world: &World,
    expected: &BTreeMap<RowKey, u64>,
    progress: &batchscope_check::progress::Progress,
    lost: &Lost,
    detail: SinkDetail,
) -> SinkView {
    let sink = &world.sink;
    let stores = sink
        .stores
        .iter()
        .map(|s| {
            if detail == SinkDetail::Summary {
                return StoreView {
                    name: s.name.clone(),
                    rows: s.rows.len() as u64,
                    groups: vec![],
                    earlier_rows: s.rows.len() as u64,
                };
            }
            // Only the newest rows are read: every group lies within one run of rows of one
            // batch, so the newest MAX_GROUPS runs hold the newest MAX_GROUPS groups (a long
            // run's store holds hundreds of thousands of rows; a step reads a few thousand).
            let from = start_of_newest_runs(&s.rows, MAX_GROUPS);
            // Group boundaries first, by index: a new group when the batch changes, or when a
            // key repeats (a re-run appending again); chips only for the newest groups.
            let mut bounds: Vec<(u64, usize, usize)> = vec![];
            // Only a key visible more than once can repeat within a group: the others are not
            // tracked.
            let mut in_group: std::collections::BTreeSet<RowKey> = Default::default();
            for (r, i) in s.rows.range(from..s.rows.len()).zip(from..) {
                let batch_id = r.batch_id();
                let key = sink.row_key(r);
                let repeats = progress.counts.copies(key) > 1;
                match bounds.last_mut() {
                    Some((b, _, end))
                        if *b == batch_id && !(repeats && in_group.contains(&key)) =>
                    {
                        *end = i + 1;
                    }
                    _ => {
                        in_group.clear();
                        bounds.push((batch_id, i, i + 1));
                    }
                }
                if repeats {
                    in_group.insert(key);
                }
            }
            let shown = bounds.len().saturating_sub(MAX_GROUPS);
            let groups = bounds[shown..]
                .iter()
                .map(|&(batch_id, start, end)| RowGroup {
                    batch_id,
                    keys: s
                        .rows
                        .range(start..end)
                        .map(|r| {
                            let key = sink.row_key(r);
                            KeyChip {
                                key,
                                duplicate: progress.is_duplicate(key),
                            }
                        })
                        .collect(),
                })
                .collect();
            StoreView {
                name: s.name.clone(),
                rows: s.rows.len() as u64,
                groups,
                earlier_rows: bounds.get(shown).map_or(0, |&(_, start, _)| start as u64),
            }
        })
        .collect();
    let first_file = match detail {
        SinkDetail::Panel => sink.files.len().saturating_sub(MAX_FILES),
        SinkDetail::Summary => sink.files.len(),
    };
    // The commit lists exactly the files of the attempt in flight; every other unlisted
    // file is an orphan.
    let staged_from = sink.attempt_files_from();
    let (lost_behind, lost) = (lost.0, &lost.1);
    // Both lists come from ordered maps: already in key order. Every lost key is missing.
    let total = progress.missing - lost.len() as u64;
    let first: Vec<RowKey> = if progress.missing_keys.len() as u64 == progress.missing {
        progress
            .missing_keys
            .iter()
            .filter(|k| lost.binary_search(k).is_err())
            .take(LISTED_KEYS)
            .copied()
            .collect()
    } else if total == 0 {
        vec![]
    } else {
        // The count listed only the first keys (`so_far_listing`), which may all be lost: the
        // first pending ones are found in the expected keys (not visible, not lost; a running
        // sum, whose lists are short, is always listed whole).
        expected
            .keys()
            .filter(|&&k| progress.counts.copies(k) == 0 && lost.binary_search(&k).is_err())
            .take(LISTED_KEYS)
            .copied()
            .collect()
    };
    let missing_keys = KeyList { total, first };
    SinkView {
        kind: sink_kind_text(sink.kind()),
        stores,
        files: sink
            .files
            .range(first_file..sink.files.len())
            .zip(first_file..)
            .map(|(f, i)| SinkFileView {
                name: f.name.clone(),
                batch_id: f.batch_id,
                rows: f.rows,
                committed: f.committed,
                staged: !f.committed && i >= staged_from,
            })
            .collect(),
        earlier_files: match detail {
            SinkDetail::Panel => EarlierFiles {
                files: first_file as u64,
                orphans: sink
                    .files
                    .range(0..first_file.min(staged_from))
                    .filter(|f| !f.committed)
                    .count() as u64,
            },
            SinkDetail::Summary => EarlierFiles::default(),
        },
        manifest: sink.manifest.keys().copied().collect(),
        last_committed_epoch: sink.last_committed_epoch,
        staged_rows: sink.staged_len(),
        duplicate_keys: progress.duplicate_keys.clone(),
        aged_out_keys: aged_out_keys(world, progress),
        delivered: progress.delivered,
        missing_keys,
        lost_keys: lost.clone(),
        lost_behind,
        rewrites: sink.rewrites(),
        visible: sink.visible_len(),
        expected: progress.expected,
    }
}
