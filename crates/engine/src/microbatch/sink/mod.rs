//! Sinks: file sink with a batch-id manifest, upsert by key (each record, or a running sum per
//! user), plain append, foreachBatch to several stores, two-phase. Also what each sink should
//! hold once every record arrived exactly once ([`Sink::expected`]), which the oracle judges
//! keys and values against.

use crate::chunked::Chunked;
use crate::microbatch::event::SinkEffect;
use crate::microbatch::scenario::{SinkKind, SinkSpec, SinkValue};
use crate::microbatch::upstream::{ByRecord, Record, RowKey, Rows, Upstream};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A data file written by a file-sink task (`part-00000-<uuid>.json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SinkFile {
    /// File name.
    pub name: String,
    /// The batch whose attempt wrote it.
    pub batch_id: u64,
    /// Rows in it (their records stay in the staged output until the commit makes them
    /// visible; a file of a killed attempt keeps only its count).
    pub rows: u64,
    /// Whether a manifest entry lists it; an unlisted file is an orphan of a failed attempt, invisible to readers.
    pub committed: bool,
}

/// Rows per chunk of a store: a [`Row`] is 16 bytes copied as bytes, so a write to a shared
/// chunk copies at most 512 KiB, and a million rows are 31 allocations (in wasm each new block
/// is a `memory.grow`: with 1,024-row chunks the 1 M-record runs took about 1.5× as long in Node).
pub const ROW_CHUNK: usize = 32_768;

/// One visible row of a store, in 16 bytes: the batch whose attempt wrote it, and what it
/// holds — a record by its identity (channel and sequence number; the upstream makes the
/// record's fields again, [`crate::microbatch::upstream::UpstreamChannel::record`]), or for a running sum
/// the user and the sum. Which of the two the sink's value says ([`Sink::row_key`],
/// [`Sink::value_of`]). A row of a whole record was 48 bytes, and a 1 M-record run keeps a
/// million of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    /// A record's sequence number, or a running sum's sum.
    word: u64,
    /// A record's channel, or a running sum's user.
    id: u32,
    /// The batch whose attempt wrote the row.
    batch: u32,
}

// The size the text above promises, on every target (wasm32 too).
const _: () = assert!(std::mem::size_of::<Row>() == 16);

impl Row {
    /// The row of the record at (`channel`, `seq`), written by batch `batch_id`.
    pub fn record(batch_id: u64, channel: u32, seq: u64) -> Row {
        Row {
            word: seq,
            id: channel,
            batch: batch_index(batch_id),
        }
    }

    /// A running sum's row: `user`'s amounts add up to `sum`, last written by batch `batch_id`.
    pub fn sum(batch_id: u64, user: u32, sum: u64) -> Row {
        Row {
            word: sum,
            id: user,
            batch: batch_index(batch_id),
        }
    }

    /// The batch whose attempt wrote the row.
    pub fn batch_id(&self) -> u64 {
        u64::from(self.batch)
    }

    /// The rows of `rows`' records, in order, written by batch `batch_id`.
    fn records_of(batch_id: u64, rows: &Rows) -> impl Iterator<Item = Row> + '_ {
        rows.keys()
            .map(move |(channel, seq)| Row::record(batch_id, channel, seq))
    }
}

/// A batch id as a row keeps it: a run's batches start at 0 and each takes events, so its ids
/// stay below the event budget (`MAX_EVENTS`, 5 M), far below `u32::MAX`.
fn batch_index(batch_id: u64) -> u32 {
    u32::try_from(batch_id).expect("a run's batch ids stay below its event budget")
}

/// One named store of a foreachBatch sink (`store-0` …), or the single store of other sinks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Store {
    /// Store name.
    pub name: String,
    /// Visible rows, in write order, each with the batch that wrote it; in shared chunks, so a
    /// world's clone (every step on screen, every snapshot) does not copy them.
    pub rows: Chunked<Row, ROW_CHUNK>,
}

/// The sink's durable state plus the staged output of the current attempt (volatile).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sink {
    /// Implementation and faults.
    pub spec: SinkSpec,
    /// Visible contents: one store, or several for foreachBatch.
    pub stores: Vec<Store>,
    /// File sink: data files, committed or orphaned.
    pub files: Chunked<SinkFile>,
    /// File sink: `_spark_metadata/<batchId>` entries (batch → file names).
    pub manifest: BTreeMap<u64, Arc<[String]>>,
    /// Two-phase: the last epoch committed (durable in the sink).
    pub last_committed_epoch: Option<u64>,
    /// Staged rows of the current attempt (task → rows); lost on a crash.
    pub staged: Vec<(u32, Rows)>,
    /// foreachBatch: the store the current call writes to.
    pub current_store: u32,
    /// Batch-id-in-memory sink: `latestBatchId`, a field of the sink object on the driver
    /// (volatile: a driver restart creates a new sink with it at -1, `None` here).
    #[serde(default)]
    pub latest_batch_id: Option<u64>,
    /// Upsert: key → position of its row in the store and how often it was written.
    upsert_index: KeySlots,
    /// Calls that changed this sink so far ([`Sink::version`]).
    #[serde(skip)]
    version: u64,
    /// Calls that may have changed its visible rows so far ([`Sink::visible_version`]).
    #[serde(skip)]
    visible_version: u64,
}

impl Sink {
    /// An empty sink.
    pub fn new(spec: &SinkSpec) -> Sink {
        let n = if spec.kind == SinkKind::ForeachBatch {
            spec.stores
        } else {
            1
        };
        let stores = (0..n)
            .map(|i| Store {
                name: if spec.kind == SinkKind::ForeachBatch {
                    format!("store-{i}")
                } else {
                    "table".into()
                },
                rows: Chunked::new(),
            })
            .collect();
        Sink {
            spec: spec.clone(),
            stores,
            files: Chunked::new(),
            manifest: BTreeMap::new(),
            last_committed_epoch: None,
            staged: vec![],
            current_store: 0,
            latest_batch_id: None,
            upsert_index: KeySlots::default(),
            version: 0,
            visible_version: 0,
        }
    }

    /// The sink kind.
    pub fn kind(&self) -> SinkKind {
        self.spec.kind
    }

    /// Whether the store is down at `now_ms`.
    pub fn is_down(&self, now_ms: u64) -> bool {
        self.spec.outages.iter().any(|w| w.contains(now_ms))
    }

    /// `addBatch(batchId)` entry check: the file sink skips a batch id already in its manifest
    /// (FileStreamSink: `batchId <= latest` → "Skipping already committed batch"), before any task runs.
    /// The batch-id-in-memory sink skips `batchId <= latestBatchId` of its driver-side field.
    pub fn skips_batch(&self, batch_id: u64) -> bool {
        match self.kind() {
            SinkKind::File => self
                .manifest
                .keys()
                .next_back()
                .is_some_and(|&last| batch_id <= last),
            SinkKind::BatchIdInMemory => self.latest_batch_id.is_some_and(|l| batch_id <= l),
            _ => false,
        }
    }

    /// How many calls have changed this sink since it was made. Along one run, two moments
    /// with the same version hold the same sink, so a view of the sink can be kept until the
    /// version moves (the dashboard recounts the sink only then).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// How many calls may have changed the visible rows (the stores) since the sink was made:
    /// a task's write to an append or upsert sink, a commit. Staging, a new driver or an
    /// aborted attempt leave the visible rows as they were. Along one run, two moments with
    /// the same visible version show the same rows, so a count of them (the dashboard's
    /// progress of the sink) is kept across the many steps that only stage.
    pub fn visible_version(&self) -> u64 {
        self.visible_version
    }

    /// foreachBatch: the store the next call writes to.
    pub fn choose_store(&mut self, store: u32) {
        self.version += 1;
        self.current_store = store;
    }

    /// A new driver (a restart): the sink object is created again and its in-memory fields
    /// start over; what it wrote stays.
    pub fn new_driver(&mut self) {
        self.version += 1;
        self.latest_batch_id = None;
    }

    /// A failed task attempt: what it staged never reaches the driver's commit (its commit
    /// message is not sent; a file sink's file stays an orphan). Appended or upserted rows stay.
    pub fn drop_task_attempt(&mut self, partition: u32) {
        self.version += 1;
        self.staged.retain(|(p, _)| *p != partition);
    }

    /// A task hands over its rows and says what the sink did with them. `file_name` names the
    /// data file for a file sink; `upstream` makes a record's fields where a sink adds them up.
    pub fn task_output(
        &mut self,
        batch_id: u64,
        partition: u32,
        rows: Rows,
        file_name: String,
        upstream: &Upstream,
    ) -> SinkEffect {
        self.version += 1;
        if matches!(self.kind(), SinkKind::Append | SinkKind::Upsert) {
            self.visible_version += 1;
        }
        match self.kind() {
            SinkKind::Append => {
                self.stores[0].rows.extend(Row::records_of(batch_id, &rows));
                SinkEffect::Appended
            }
            SinkKind::Upsert if self.spec.value == SinkValue::RunningSum => {
                for r in rows.records(upstream) {
                    self.add_to_sum(batch_id, &r);
                }
                SinkEffect::Upserted
            }
            SinkKind::Upsert => {
                let store = &mut self.stores[0].rows;
                // Rows of keys never written are gathered and appended at once (a push per
                // row made the store's chunk writable once per row).
                let mut fresh: Vec<Row> = vec![];
                for (channel, from, to) in rows.runs() {
                    let slots = self.upsert_index.records.run_mut(channel, from, to);
                    for (slot, seq) in slots.iter_mut().zip(from..) {
                        let row = Row::record(batch_id, channel, seq);
                        let at = slot.row as usize;
                        if slot.writes == 0 {
                            slot.row = row_index(store.len() + fresh.len());
                            fresh.push(row);
                        } else if at >= store.len() {
                            fresh[at - store.len()] = row;
                        } else {
                            *store.get_mut(at).expect("an indexed row") = row;
                        }
                        slot.writes += 1;
                    }
                }
                store.extend(fresh);
                SinkEffect::Upserted
            }
            SinkKind::File => {
                self.files.push(SinkFile {
                    name: file_name,
                    batch_id,
                    rows: rows.len(),
                    committed: false,
                });
                self.staged.push((partition, rows));
                SinkEffect::Staged
            }
            SinkKind::ForeachBatch | SinkKind::TwoPhase | SinkKind::BatchIdInMemory => {
                self.staged.push((partition, rows));
                SinkEffect::Staged
            }
        }
    }

    /// Running sum: reads the user's row, adds the record's amount and writes it back (not
    /// idempotent: the same record added twice counts twice). The row's key is `user-<id>`, its
    /// value the sum.
    fn add_to_sum(&mut self, batch_id: u64, r: &Record) {
        // Not counted as a rewrite: nothing is absorbed, every add counts.
        let store = &mut self.stores[0].rows;
        let slot = self.upsert_index.users.entry(r.user_id).or_default();
        if slot.writes > 0 {
            let row = store.get_mut(slot.row as usize).expect("an indexed row");
            *row = Row::sum(batch_id, r.user_id, row.word + r.amount);
        } else {
            slot.row = row_index(store.len());
            slot.writes = 1;
            store.push(Row::sum(batch_id, r.user_id, r.amount));
        }
    }

    /// What this sink should show once every record of `upstream` arrived exactly once: key →
    /// the value of its row (a record's `amount`; for a running sum, the sum of the user's
    /// amounts). The oracle's expected keys and values.
    pub fn expected(&self, upstream: &Upstream) -> BTreeMap<RowKey, u64> {
        self.expected_of(upstream.records())
    }

    /// [`Sink::expected`] of the given records only (a query started at `latest` never reads
    /// the records that arrived before it).
    pub fn expected_of(&self, records: impl Iterator<Item = Record>) -> BTreeMap<RowKey, u64> {
        match self.spec.value {
            // Upstream records come in key order: the map is built in one pass.
            SinkValue::Record => records.map(|r| (r.key(), r.amount)).collect(),
            SinkValue::RunningSum => {
                let mut out = BTreeMap::new();
                for r in records {
                    *out.entry(RowKey::User(r.user_id)).or_insert(0) += r.amount;
                }
                out
            }
        }
    }

    /// The key a visible row of this sink is stored under: the record's own, or for a
    /// running sum the user's.
    pub fn row_key(&self, row: &Row) -> RowKey {
        match self.spec.value {
            SinkValue::Record => RowKey::Record {
                channel: row.id,
                seq: row.word,
            },
            SinkValue::RunningSum => RowKey::User(row.id),
        }
    }

    /// Every visible row with the key it is stored under, across stores.
    pub fn visible_keyed(&self) -> impl Iterator<Item = (RowKey, &Row)> {
        self.visible().map(|r| (self.row_key(r), r))
    }

    /// The value a visible row holds, as [`Sink::expected`] states it: a record's amount (made
    /// again by `upstream`, whose record the row names), or a running sum's sum.
    pub fn value_of(&self, row: &Row, upstream: &Upstream) -> u64 {
        match self.spec.value {
            SinkValue::Record => upstream.channel(row.id).record(row.word).amount,
            SinkValue::RunningSum => row.word,
        }
    }

    /// The driver finishes batch N. Returns (rows made visible, target description, skipped as duplicate).
    pub fn commit(&mut self, batch_id: u64) -> (u64, String, bool) {
        self.version += 1;
        self.visible_version += 1;
        let attempt_files = self.attempt_files_from();
        // Made into rows as they move into the store, without gathering them first (a large
        // batch is megabytes).
        let n = self.staged_len();
        let parts = std::mem::take(&mut self.staged);
        let staged = parts
            .iter()
            .flat_map(move |(_, rows)| Row::records_of(batch_id, rows));
        match self.kind() {
            SinkKind::Append | SinkKind::Upsert => {
                (0, "rows already written by tasks".into(), false)
            }
            SinkKind::File => {
                let mut names = vec![];
                for i in attempt_files..self.files.len() {
                    let f = self.files.get_mut(i).expect("a file of this attempt");
                    if f.batch_id == batch_id && !f.committed {
                        f.committed = true;
                        names.push(f.name.clone());
                    }
                }
                self.manifest.insert(batch_id, names.into());
                self.stores[0].rows.extend(staged);
                (n, format!("_spark_metadata/{batch_id}"), false)
            }
            SinkKind::ForeachBatch => {
                let i = self.current_store as usize;
                self.stores[i].rows.extend(staged);
                (n, self.stores[i].name.clone(), false)
            }
            SinkKind::BatchIdInMemory => {
                self.latest_batch_id = Some(batch_id);
                self.stores[0].rows.extend(staged);
                (n, format!("table (latestBatchId = {batch_id})"), false)
            }
            SinkKind::TwoPhase => {
                if self.last_committed_epoch.is_some_and(|e| batch_id <= e) {
                    return (0, format!("epoch {batch_id}"), true);
                }
                self.last_committed_epoch = Some(batch_id);
                self.stores[0].rows.extend(staged);
                (n, format!("epoch {batch_id}"), false)
            }
        }
    }

    /// A crash or a failed batch: staged output of the attempt is gone (orphan files stay on disk).
    pub fn abort_attempt(&mut self) -> u64 {
        self.version += 1;
        let n = self.staged_len();
        self.staged.clear();
        n
    }

    /// Rows staged by the attempt in flight, all tasks together.
    pub fn staged_len(&self) -> u64 {
        self.staged.iter().map(|(_, r)| r.len()).sum()
    }

    /// Every visible row with its multiplicity, across stores: what a reader of the sink sees.
    pub fn visible(&self) -> impl Iterator<Item = &Row> {
        self.stores.iter().flat_map(|s| s.rows.iter())
    }

    /// File sink: the index of the first data file of the attempt in flight. Every staged
    /// output of this attempt is one file, pushed last: files of a killed attempt before them
    /// stay orphans, unlisted by the manifest (ManifestFileCommitProtocol commits only the
    /// files its own tasks reported).
    pub fn attempt_files_from(&self) -> usize {
        self.files.len() - self.staged.len().min(self.files.len())
    }

    /// Number of visible rows.
    pub fn visible_len(&self) -> u64 {
        self.stores.iter().map(|s| s.rows.len() as u64).sum()
    }

    /// Upsert: rows written more than once (replays absorbed by the key).
    pub fn rewrites(&self) -> u64 {
        self.upsert_index.rewrites()
    }
}

/// An upsert sink's index: for each key, where its row is in the store and how many times it
/// was written. Dense by channel and sequence number for records (8 bytes a record, no tree
/// and no key text), a small map for the users of a running sum.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct KeySlots {
    /// Each record's slot.
    records: ByRecord<Slot>,
    /// Running sum: user → slot (written once: later adds are not rewrites).
    users: BTreeMap<u32, Slot>,
}

/// One key of an upsert sink: its row's position, valid once it was written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Slot {
    /// Position of the key's row in the store.
    row: u32,
    /// Writes of a record's key (more than 1 = rewritten by a replay, absorbed by the upsert);
    /// 0 = never written.
    writes: u32,
}

impl KeySlots {
    /// Writes of a record's key beyond its first, summed.
    fn rewrites(&self) -> u64 {
        self.records
            .iter()
            .map(|(_, _, s)| u64::from(s.writes.saturating_sub(1)))
            .sum()
    }
}

/// A store position as a slot keeps it (a store holds fewer rows than the work budget's
/// records, far below `u32::MAX`).
fn row_index(len: usize) -> u32 {
    u32::try_from(len).expect("a store holds fewer than 2^32 rows")
}

#[cfg(test)]
mod tests;
