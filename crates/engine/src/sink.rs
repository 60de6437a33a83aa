//! Sinks: file sink with a batch-id manifest, upsert by key (each record, or a running sum per
//! user), plain append, foreachBatch to several stores, two-phase. Also what each sink should
//! hold once every record arrived exactly once ([`Sink::expected`]), which the oracle judges
//! keys and values against.

use crate::event::SinkEffect;
use crate::scenario::{SinkKind, SinkSpec, SinkValue};
use crate::upstream::{Record, Upstream};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A data file written by a file-sink task (`part-00000-<uuid>.json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SinkFile {
    /// File name.
    pub name: String,
    /// The batch whose attempt wrote it.
    pub batch_id: u64,
    /// Its rows (keys).
    pub keys: Vec<String>,
    /// Whether a manifest entry lists it; an unlisted file is an orphan of a failed attempt, invisible to readers.
    pub committed: bool,
}

/// One named store of a foreachBatch sink (`store-0` …), or the single store of other sinks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Store {
    /// Store name.
    pub name: String,
    /// Visible rows, in write order, with the batch that wrote them.
    pub rows: Vec<(u64, Record)>,
}

/// The sink's durable state plus the staged output of the current attempt (volatile).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sink {
    /// Implementation and faults.
    pub spec: SinkSpec,
    /// Visible contents: one store, or several for foreachBatch.
    pub stores: Vec<Store>,
    /// Upsert: key → number of writes (more than 1 = rewritten by a replay, absorbed by the upsert).
    pub writes_by_key: BTreeMap<String, u32>,
    /// File sink: data files, committed or orphaned.
    pub files: Vec<SinkFile>,
    /// File sink: `_spark_metadata/<batchId>` entries (batch → file names).
    pub manifest: BTreeMap<u64, Vec<String>>,
    /// Two-phase: the last epoch committed (durable in the sink).
    pub last_committed_epoch: Option<u64>,
    /// Staged rows of the current attempt (task → rows); lost on a crash.
    pub staged: Vec<(u32, Vec<Record>)>,
    /// foreachBatch: the store the current call writes to.
    pub current_store: u32,
    /// Batch-id-in-memory sink: `latestBatchId`, a field of the sink object on the driver
    /// (volatile: a driver restart creates a new sink with it at -1, `None` here).
    #[serde(default)]
    pub latest_batch_id: Option<u64>,
    /// Upsert: key → position of its row in the store.
    upsert_index: BTreeMap<String, usize>,
    /// Calls that changed this sink so far ([`Sink::version`]).
    #[serde(skip)]
    version: u64,
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
                rows: vec![],
            })
            .collect();
        Sink {
            spec: spec.clone(),
            stores,
            writes_by_key: BTreeMap::new(),
            files: vec![],
            manifest: BTreeMap::new(),
            last_committed_epoch: None,
            staged: vec![],
            current_store: 0,
            latest_batch_id: None,
            upsert_index: BTreeMap::new(),
            version: 0,
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
    /// data file for a file sink.
    pub fn task_output(
        &mut self,
        batch_id: u64,
        partition: u32,
        rows: Vec<Record>,
        file_name: String,
    ) -> SinkEffect {
        self.version += 1;
        match self.kind() {
            SinkKind::Append => {
                self.stores[0]
                    .rows
                    .extend(rows.into_iter().map(|r| (batch_id, r)));
                SinkEffect::Appended
            }
            SinkKind::Upsert if self.spec.value == SinkValue::RunningSum => {
                for r in rows {
                    self.add_to_sum(batch_id, r);
                }
                SinkEffect::Upserted
            }
            SinkKind::Upsert => {
                for r in rows {
                    *self.writes_by_key.entry(r.key.clone()).or_insert(0) += 1;
                    let store = &mut self.stores[0].rows;
                    match self.upsert_index.get(&r.key) {
                        Some(&i) => store[i] = (batch_id, r),
                        None => {
                            self.upsert_index.insert(r.key.clone(), store.len());
                            store.push((batch_id, r));
                        }
                    }
                }
                SinkEffect::Upserted
            }
            SinkKind::File => {
                let keys = rows.iter().map(|r| r.key.clone()).collect();
                self.files.push(SinkFile {
                    name: file_name,
                    batch_id,
                    keys,
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
    /// idempotent: the same record added twice counts twice). The row keeps the last record's
    /// fields, with key `user-<id>` and the sum as its amount.
    fn add_to_sum(&mut self, batch_id: u64, r: Record) {
        // Not counted in `writes_by_key`: nothing is absorbed, every add counts.
        let key = sum_key(&r);
        let store = &mut self.stores[0].rows;
        let sum = self
            .upsert_index
            .get(&key)
            .map_or(0, |&i| store[i].1.amount)
            + r.amount;
        let row = Record {
            key: key.clone(),
            amount: sum,
            ..r
        };
        match self.upsert_index.get(&key) {
            Some(&i) => store[i] = (batch_id, row),
            None => {
                self.upsert_index.insert(key, store.len());
                store.push((batch_id, row));
            }
        }
    }

    /// What this sink should show once every record of `upstream` arrived exactly once: key →
    /// the value of its row (a record's `amount`; for a running sum, the sum of the user's
    /// amounts). The oracle's expected keys and values.
    pub fn expected(&self, upstream: &Upstream) -> BTreeMap<String, u64> {
        self.expected_of(upstream.records())
    }

    /// [`Sink::expected`] of the given records only (a query started at `latest` never reads
    /// the records that arrived before it).
    pub fn expected_of<'a>(
        &self,
        records: impl Iterator<Item = &'a Record>,
    ) -> BTreeMap<String, u64> {
        let mut out = BTreeMap::new();
        for r in records {
            match self.spec.value {
                SinkValue::Record => {
                    out.insert(r.key.clone(), r.amount);
                }
                SinkValue::RunningSum => *out.entry(sum_key(r)).or_insert(0) += r.amount,
            }
        }
        out
    }

    /// The value a visible row holds, as [`Sink::expected`] states it.
    pub fn value_of(row: &Record) -> u64 {
        row.amount
    }

    /// The driver finishes batch N. Returns (rows made visible, target description, skipped as duplicate).
    pub fn commit(&mut self, batch_id: u64) -> (u64, String, bool) {
        self.version += 1;
        // Every staged output of this attempt is one file, pushed last: files of a killed
        // attempt before them stay orphans, unlisted by the manifest (ManifestFileCommitProtocol
        // commits only the files its own tasks reported).
        let attempt_files = self.files.len() - self.staged.len().min(self.files.len());
        let staged: Vec<Record> = std::mem::take(&mut self.staged)
            .into_iter()
            .flat_map(|(_, r)| r)
            .collect();
        match self.kind() {
            SinkKind::Append | SinkKind::Upsert => {
                (0, "rows already written by tasks".into(), false)
            }
            SinkKind::File => {
                let names: Vec<String> = self.files[attempt_files..]
                    .iter_mut()
                    .filter(|f| f.batch_id == batch_id && !f.committed)
                    .map(|f| {
                        f.committed = true;
                        f.name.clone()
                    })
                    .collect();
                self.manifest.insert(batch_id, names);
                let n = staged.len() as u64;
                self.stores[0]
                    .rows
                    .extend(staged.into_iter().map(|r| (batch_id, r)));
                (n, format!("_spark_metadata/{batch_id}"), false)
            }
            SinkKind::ForeachBatch => {
                let i = self.current_store as usize;
                let n = staged.len() as u64;
                self.stores[i]
                    .rows
                    .extend(staged.into_iter().map(|r| (batch_id, r)));
                (n, self.stores[i].name.clone(), false)
            }
            SinkKind::BatchIdInMemory => {
                self.latest_batch_id = Some(batch_id);
                let n = staged.len() as u64;
                self.stores[0]
                    .rows
                    .extend(staged.into_iter().map(|r| (batch_id, r)));
                (n, format!("table (latestBatchId = {batch_id})"), false)
            }
            SinkKind::TwoPhase => {
                if self.last_committed_epoch.is_some_and(|e| batch_id <= e) {
                    return (0, format!("epoch {batch_id}"), true);
                }
                self.last_committed_epoch = Some(batch_id);
                let n = staged.len() as u64;
                self.stores[0]
                    .rows
                    .extend(staged.into_iter().map(|r| (batch_id, r)));
                (n, format!("epoch {batch_id}"), false)
            }
        }
    }

    /// A crash or a failed batch: staged output of the attempt is gone (orphan files stay on disk).
    pub fn abort_attempt(&mut self) -> u64 {
        self.version += 1;
        let n = self.staged.iter().map(|(_, r)| r.len() as u64).sum();
        self.staged.clear();
        n
    }

    /// Every visible row with its multiplicity, across stores: what a reader of the sink sees.
    pub fn visible(&self) -> impl Iterator<Item = &Record> {
        self.stores
            .iter()
            .flat_map(|s| s.rows.iter().map(|(_, r)| r))
    }

    /// Number of visible rows.
    pub fn visible_len(&self) -> u64 {
        self.stores.iter().map(|s| s.rows.len() as u64).sum()
    }

    /// Upsert: rows written more than once (replays absorbed by the key).
    pub fn rewrites(&self) -> u64 {
        self.writes_by_key
            .values()
            .map(|&n| u64::from(n.saturating_sub(1)))
            .sum()
    }
}

/// The key of a user's running sum.
fn sum_key(r: &Record) -> String {
    format!("user-{}", r.user_id)
}

#[cfg(test)]
mod tests {
    use super::Sink;
    use crate::scenario::SinkValue;
    use crate::{preset, SinkKind, World};

    #[test]
    fn a_running_sum_adds_a_replayed_record_twice_and_a_record_upsert_does_not() {
        let mut scenario = preset("kafka-idempotent").expect("preset");
        scenario.sink.kind = SinkKind::Upsert;
        let upstream = World::new(scenario.clone()).upstream;
        let batch: Vec<_> = upstream.records().take(3).cloned().collect();
        let mut plain = Sink::new(&scenario.sink);
        scenario.sink.value = SinkValue::RunningSum;
        let mut sum = Sink::new(&scenario.sink);
        for sink in [&mut plain, &mut sum] {
            for _ in 0..2 {
                sink.task_output(0, 0, batch.clone(), String::new());
            }
        }
        let one: u64 = batch.iter().map(|r| r.amount).sum();
        let user = |s: &Sink| -> u64 {
            s.visible()
                .filter(|r| batch.iter().any(|b| b.user_id == r.user_id))
                .map(Sink::value_of)
                .sum()
        };
        assert_eq!(user(&sum), 2 * one, "each record counted twice");
        assert_eq!(user(&plain), one, "a record overwrites itself");
        // Expected: every record once.
        let expected = sum.expected(&upstream);
        let total: u64 = upstream.records().map(|r| r.amount).sum();
        assert_eq!(expected.values().sum::<u64>(), total);
        assert!(expected.keys().all(|k| k.starts_with("user-")));
        assert_eq!(plain.expected(&upstream).len() as u64, upstream.total());
    }

    #[test]
    fn a_rerun_lists_only_its_own_files_and_the_killed_attempts_stay_orphans() {
        let mut scenario = preset("kafka-idempotent").expect("preset");
        scenario
            .crashes
            .push("task@3".parse().expect("crash point"));
        let mut world = World::new(scenario);
        while !world.is_converged() && world.events().len() < 10_000 {
            world.step();
        }
        let files: Vec<_> = world
            .sink
            .files
            .iter()
            .filter(|f| f.batch_id == 3)
            .collect();
        // The killed attempt wrote one file (task 0), the re-run two.
        assert_eq!(files.len(), 3, "{files:?}");
        let listed = &world.sink.manifest[&3];
        assert_eq!(listed.len(), 2, "{listed:?}");
        assert!(
            !files[0].committed,
            "the killed attempt's file is an orphan"
        );
        assert!(!listed.contains(&files[0].name));
        assert!(files[1..]
            .iter()
            .all(|f| f.committed && listed.contains(&f.name)));
    }
}
