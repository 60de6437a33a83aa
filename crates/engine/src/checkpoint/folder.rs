//! [`CheckpointFolder`]: a checkpoint root held in memory, with `HDFSMetadataLog`'s
//! rules for creating, listing and purging batch files (SEMANTICS.md §1.2).

use super::commits::CommitMetadata;
use super::format::FormatError;
use super::metadata::QueryMetadata;
use super::offsets::{OffsetLogEntry, OffsetSeq, OFFSET_LOG_MAX_VERSION};
use super::COMMIT_LOG_MAX_VERSION;
use serde::{Deserialize, Serialize};
#[cfg(feature = "read-memo")]
use std::cell::RefCell;
use std::collections::BTreeMap;
#[cfg(feature = "read-memo")]
use std::collections::VecDeque;
use std::fmt;
use std::ops::Bound;
use std::sync::Arc;

/// How many offset-log entries [`READ_ENTRIES`] keeps.
#[cfg(feature = "read-memo")]
const READ_ENTRIES_KEPT: usize = 8;

/// A file's bytes and what they read as.
#[cfg(feature = "read-memo")]
type ReadEntry = (Arc<[u8]>, Result<OffsetLogEntry, FormatError>);

#[cfg(feature = "read-memo")]
thread_local! {
    /// The offset-log entries read last on this thread, by the very bytes they were read from
    /// (an `Arc` shared by every clone of a folder). Holding the bytes keeps them from being
    /// changed in place (an `Arc` held twice is never written through) and their address from
    /// being reused by another file. A cache of a pure function: what a read returns does not
    /// depend on it.
    static READ_ENTRIES: RefCell<VecDeque<ReadEntry>> = const { RefCell::new(VecDeque::new()) };
}

/// Directory of the offset log inside the checkpoint root.
pub const OFFSET_LOG_DIR: &str = "offsets";
/// Directory of the commit log inside the checkpoint root.
pub const COMMIT_LOG_DIR: &str = "commits";
/// The query-id file at the checkpoint root.
pub const METADATA_FILE: &str = "metadata";

/// Why a checkpoint file cannot be written or read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CheckpointError {
    /// The file exists already; checkpoint log files are never overwritten.
    AlreadyExists {
        /// Path relative to the checkpoint root.
        path: String,
    },
    /// The file's content is not what Spark writes there.
    Format {
        /// Path relative to the checkpoint root.
        path: String,
        /// What is wrong inside it.
        error: FormatError,
    },
    /// The path, or the value to be written there, is one Spark could not produce.
    Invalid {
        /// Path relative to the checkpoint root.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

impl CheckpointError {
    /// The file the error is about, relative to the checkpoint root.
    pub fn path(&self) -> &str {
        match self {
            CheckpointError::AlreadyExists { path }
            | CheckpointError::Format { path, .. }
            | CheckpointError::Invalid { path, .. } => path,
        }
    }
}

impl fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckpointError::AlreadyExists { path } => write!(
                f,
                "{path}: already exists; checkpoint files are written once (Spark reports a \
                 concurrent update: another query uses this checkpoint)"
            ),
            CheckpointError::Format { path, error } => write!(f, "{path}: {error}"),
            CheckpointError::Invalid { path, reason } => write!(f, "{path}: {reason}"),
        }
    }
}

impl std::error::Error for CheckpointError {}

/// In-memory checkpoint root: relative path (`metadata`, `offsets/3`, `commits/3`,
/// `sources/0/0`) -> bytes. Pure data: the CLI fills it from a real directory, the
/// simulation writes into it, and both read it through the same typed helpers.
///
/// Cheap to clone: the files are shared between clones and copied on the first write to a
/// shared folder (a file's bytes stay shared even then). The dashboard clones the world on
/// screen at every step and the explorer forks one at every crash site, while a long run's
/// folder holds thousands of files and most steps write none.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointFolder {
    files: Arc<BTreeMap<String, Arc<[u8]>>>,
}

impl CheckpointFolder {
    /// An empty checkpoint root (a query that never started).
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds a folder from files read elsewhere. Paths are relative and use `/`; a
    /// path given twice keeps the last bytes.
    pub fn from_files(files: impl IntoIterator<Item = (String, Vec<u8>)>) -> Self {
        CheckpointFolder {
            files: Arc::new(
                files
                    .into_iter()
                    .map(|(path, bytes)| (path, bytes.into()))
                    .collect(),
            ),
        }
    }

    /// All files, sorted by path.
    pub fn files(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.files
            .iter()
            .map(|(path, bytes)| (path.as_str(), &bytes[..]))
    }

    /// The bytes of one file.
    pub fn read(&self, path: &str) -> Option<&[u8]> {
        self.files.get(path).map(|bytes| &bytes[..])
    }

    /// Whether the file exists.
    pub fn contains(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    /// `HDFSMetadataLog.add`: create the file atomically (temp file + rename, so it is
    /// either absent or complete), never overwriting. An existing file is an error.
    pub fn create_atomic(&mut self, path: &str, bytes: Vec<u8>) -> Result<(), CheckpointError> {
        check_path(path)?;
        if self.files.contains_key(path) {
            return Err(CheckpointError::AlreadyExists {
                path: path.to_owned(),
            });
        }
        Arc::make_mut(&mut self.files).insert(path.to_owned(), bytes.into());
        Ok(())
    }

    /// Deletes one file (purging); returns whether it existed.
    pub fn delete(&mut self, path: &str) -> bool {
        self.files.contains_key(path) && Arc::make_mut(&mut self.files).remove(path).is_some()
    }

    /// Writes `metadata` (`{"id":"..."}`); fails if the query already has an id.
    pub fn write_metadata(&mut self, meta: &QueryMetadata) -> Result<(), CheckpointError> {
        if uuid::Uuid::try_parse(&meta.id).is_err() {
            return Err(CheckpointError::Invalid {
                path: METADATA_FILE.to_owned(),
                reason: format!("query id `{}` is not a UUID", meta.id),
            });
        }
        self.create_atomic(METADATA_FILE, meta.to_bytes())
    }

    /// Reads `metadata`; `None` when the query never started.
    pub fn query_metadata(&self) -> Result<Option<QueryMetadata>, CheckpointError> {
        self.parse_file(METADATA_FILE, QueryMetadata::parse)
    }

    /// Writes `offsets/<batch_id>` (the write-ahead entry of batch N).
    pub fn write_offsets(&mut self, batch_id: u64, seq: &OffsetSeq) -> Result<(), CheckpointError> {
        let path = offsets_path(batch_id);
        check_batch_id(&path, batch_id)?;
        if !(1..=OFFSET_LOG_MAX_VERSION).contains(&seq.version) {
            return Err(CheckpointError::Invalid {
                path,
                reason: format!("offset log version must be 1 or 2, not {}", seq.version),
            });
        }
        if seq.version == 2 && seq.metadata.is_none() {
            // Spark takes the version from the metadata, so v2 never goes without it.
            return Err(CheckpointError::Invalid {
                path,
                reason: "offset log v2 entries carry metadata".to_owned(),
            });
        }
        self.create_atomic(&path, seq.to_bytes())
    }

    /// Writes `commits/<batch_id>` (batch N is done).
    pub fn write_commit(
        &mut self,
        batch_id: u64,
        commit: &CommitMetadata,
    ) -> Result<(), CheckpointError> {
        let path = commits_path(batch_id);
        check_batch_id(&path, batch_id)?;
        // The simulation writes v1 and v2; v3 needs sink metadata it does not model.
        if !(1..COMMIT_LOG_MAX_VERSION).contains(&commit.version) {
            return Err(CheckpointError::Invalid {
                path,
                reason: format!("commit log version must be 1 or 2, not {}", commit.version),
            });
        }
        if commit.version == 1 && commit.state_unique_ids.is_some() {
            return Err(CheckpointError::Invalid {
                path,
                reason: "stateUniqueIds exist only in commit log v2".to_owned(),
            });
        }
        self.create_atomic(&path, commit.to_bytes())
    }

    /// Reads `offsets/<batch_id>`; `None` if absent.
    pub fn offsets(&self, batch_id: u64) -> Result<Option<OffsetSeq>, CheckpointError> {
        self.read_file(&offsets_path(batch_id), |bytes| {
            read_entry(bytes).and_then(OffsetSeq::from_entry)
        })
    }

    /// Reads `offsets/<batch_id>` keeping source names; `None` if absent.
    pub fn offset_entry(&self, batch_id: u64) -> Result<Option<OffsetLogEntry>, CheckpointError> {
        self.read_file(&offsets_path(batch_id), read_entry)
    }

    /// Reads `commits/<batch_id>`; `None` if absent.
    pub fn commit(&self, batch_id: u64) -> Result<Option<CommitMetadata>, CheckpointError> {
        self.parse_file(&commits_path(batch_id), CommitMetadata::parse)
    }

    /// Batch ids present in the offset log, sorted. Only names that are a batch id in
    /// decimal count (`HDFSMetadataLog.isBatchFile`); `.crc`, `.tmp` and other names
    /// are ignored. Non-canonical numbers such as `007` are ignored too: Spark would
    /// list them but then open `7`.
    pub fn offset_log_ids(&self) -> Vec<u64> {
        self.log_ids(OFFSET_LOG_DIR)
    }

    /// Batch ids present in the commit log, sorted (same naming rule as the offset log).
    pub fn commit_log_ids(&self) -> Vec<u64> {
        self.log_ids(COMMIT_LOG_DIR)
    }

    /// The latest offset-log batch id, `L` of SEMANTICS.md §1.5.
    pub fn latest_offset_id(&self) -> Option<u64> {
        self.ids_in(OFFSET_LOG_DIR).max()
    }

    /// The latest commit-log batch id, `C` of SEMANTICS.md §1.5.
    pub fn latest_commit_id(&self) -> Option<u64> {
        self.ids_in(COMMIT_LOG_DIR).max()
    }

    /// `HDFSMetadataLog.purge` on both logs: deletes offsets and commits with ids below
    /// `threshold`; returns the deleted paths, sorted.
    pub fn purge(&mut self, threshold: u64) -> Vec<String> {
        let mut deleted = Vec::new();
        for dir in [COMMIT_LOG_DIR, OFFSET_LOG_DIR] {
            for id in self.log_ids(dir) {
                if id < threshold {
                    let path = format!("{dir}/{id}");
                    Arc::make_mut(&mut self.files).remove(&path);
                    deleted.push(path);
                }
            }
        }
        deleted.sort();
        deleted
    }

    fn log_ids(&self, dir: &str) -> Vec<u64> {
        let mut ids: Vec<u64> = self.ids_in(dir).collect();
        ids.sort_unstable();
        ids
    }

    /// The batch ids of the files directly in `dir`, in name order (`10` before `9`): only the
    /// paths under `dir/` are visited, not `sources/`, `state/` or the other log.
    fn ids_in(&self, dir: &str) -> impl Iterator<Item = u64> + '_ {
        let prefix = format!("{dir}/");
        self.files
            .range::<str, _>((Bound::Included(prefix.as_str()), Bound::Unbounded))
            .map(|(path, _)| path)
            .map_while(move |path| path.strip_prefix(&prefix))
            .filter_map(batch_id_of_name)
    }

    /// Reads one file as text with `parse`; `None` if absent, an error naming the file
    /// if it is not UTF-8 or does not parse.
    pub fn parse_file<T>(
        &self,
        path: &str,
        parse: impl FnOnce(&str) -> Result<T, FormatError>,
    ) -> Result<Option<T>, CheckpointError> {
        self.read_file(path, |bytes| parse_text(bytes, parse))
    }

    /// Reads one file's bytes with `read`; `None` if absent, an error naming the file if
    /// `read` fails.
    fn read_file<T>(
        &self,
        path: &str,
        read: impl FnOnce(&Arc<[u8]>) -> Result<T, FormatError>,
    ) -> Result<Option<T>, CheckpointError> {
        let Some(bytes) = self.files.get(path) else {
            return Ok(None);
        };
        read(bytes)
            .map(Some)
            .map_err(|error| CheckpointError::Format {
                path: path.to_owned(),
                error,
            })
    }
}

/// `bytes` read as text with `parse`: an error if they are not UTF-8 or do not parse.
fn parse_text<T>(
    bytes: &[u8],
    parse: impl FnOnce(&str) -> Result<T, FormatError>,
) -> Result<T, FormatError> {
    std::str::from_utf8(bytes)
        .map_err(|_| FormatError::whole("not valid UTF-8 text"))
        .and_then(parse)
}

/// The offset-log entry in a file's `bytes`, read once per file with the feature `read-memo`
/// ([`READ_ENTRIES`]): a driver reads the same few entries at every restart (the restart's
/// plan, the batch it resumes, the one before), and a crash loop restarts hundreds of times.
/// The result is the parse's, whichever way.
#[cfg(feature = "read-memo")]
fn read_entry(bytes: &Arc<[u8]>) -> Result<OffsetLogEntry, FormatError> {
    READ_ENTRIES.with(|memo| {
        let mut memo = memo.borrow_mut();
        if let Some((_, read)) = memo.iter().find(|(held, _)| Arc::ptr_eq(held, bytes)) {
            return read.clone();
        }
        let read = parse_text(bytes, OffsetLogEntry::parse);
        if memo.len() == READ_ENTRIES_KEPT {
            memo.pop_front();
        }
        memo.push_back((bytes.clone(), read.clone()));
        read
    })
}

/// The offset-log entry in a file's `bytes`, read anew each time (without the feature
/// `read-memo`).
#[cfg(not(feature = "read-memo"))]
fn read_entry(bytes: &Arc<[u8]>) -> Result<OffsetLogEntry, FormatError> {
    parse_text(bytes, OffsetLogEntry::parse)
}

/// Path of the offset-log entry of a batch.
pub fn offsets_path(batch_id: u64) -> String {
    format!("{OFFSET_LOG_DIR}/{batch_id}")
}

/// Path of the commit-log entry of a batch.
pub fn commits_path(batch_id: u64) -> String {
    format!("{COMMIT_LOG_DIR}/{batch_id}")
}

/// A file name that is a batch id: decimal digits, canonical, within a Java long.
fn batch_id_of_name(name: &str) -> Option<u64> {
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if name.len() > 1 && name.starts_with('0') {
        return None;
    }
    name.parse::<u64>()
        .ok()
        .filter(|id| i64::try_from(*id).is_ok())
}

fn check_batch_id(path: &str, batch_id: u64) -> Result<(), CheckpointError> {
    if i64::try_from(batch_id).is_err() {
        return Err(CheckpointError::Invalid {
            path: path.to_owned(),
            reason: "batch ids are Java longs; this one is too large".to_owned(),
        });
    }
    Ok(())
}

fn check_path(path: &str) -> Result<(), CheckpointError> {
    let bad = path.is_empty()
        || path
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == "..")
        || path.contains('\\');
    if bad {
        return Err(CheckpointError::Invalid {
            path: path.to_owned(),
            reason: "not a relative path of the form `dir/name` inside the checkpoint".to_owned(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_read_again_is_what_its_bytes_say_now() {
        let good = b"v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":7}\n5".to_vec();
        let mut folder = CheckpointFolder::from_files([("offsets/0".to_string(), good.clone())]);
        let first = folder.offsets(0).unwrap().unwrap();
        assert_eq!(
            first,
            OffsetSeq::parse(std::str::from_utf8(&good).unwrap()).unwrap()
        );
        assert_eq!(
            folder.clone().offsets(0).unwrap(),
            Some(first.clone()),
            "read again"
        );
        // The same path written anew (a torn write repaired by hand, another folder read in):
        // the new bytes are read, not the entry read before.
        assert!(folder.delete("offsets/0"));
        folder
            .create_atomic("offsets/0", b"v1\n\n9".to_vec())
            .unwrap();
        let second = folder.offsets(0).unwrap().unwrap();
        assert_eq!(second.offsets, [Some("9".to_string())]);
        assert_eq!(second.metadata, None);
        // An entry that does not read fails each time, naming its file.
        folder.create_atomic("offsets/1", b"v9\n".to_vec()).unwrap();
        for _ in 0..2 {
            let error = folder.offset_entry(1).unwrap_err();
            assert_eq!(error.path(), "offsets/1");
        }
        // More entries than a memo keeps, then the first again: still its own.
        for id in 2..20 {
            folder
                .create_atomic(&offsets_path(id), format!("v1\n\n{id}").into_bytes())
                .unwrap();
            assert_eq!(
                folder.offsets(id).unwrap().unwrap().offsets,
                [Some(id.to_string())]
            );
        }
        assert_eq!(folder.offsets(0).unwrap(), Some(second));
    }

    #[test]
    fn a_clone_shares_its_files_until_one_side_writes() {
        let mut a = CheckpointFolder::from_files(
            ["offsets/0", "commits/0", "offsets/1"].map(|p| (p.to_string(), b"v1".to_vec())),
        );
        let b = a.clone();
        assert!(Arc::ptr_eq(&a.files, &b.files), "a clone copies nothing");
        a.create_atomic("commits/1", b"v1\n{}".to_vec()).unwrap();
        assert!(!Arc::ptr_eq(&a.files, &b.files));
        assert!(a.contains("commits/1") && !b.contains("commits/1"));
        // The bytes of the files both hold are still one copy.
        assert!(std::ptr::eq(
            a.read("offsets/0").unwrap(),
            b.read("offsets/0").unwrap()
        ));

        let (mut c, mut d) = (b.clone(), b.clone());
        assert!(!c.delete("offsets/9"), "nothing to delete");
        assert!(
            Arc::ptr_eq(&c.files, &b.files),
            "a delete of nothing copies nothing"
        );
        assert!(c.delete("offsets/1"));
        assert_eq!(d.purge(1), ["commits/0", "offsets/0"]);
        assert_eq!(b.files().count(), 3, "the folder cloned from is unchanged");
        assert_eq!(
            c.files().map(|(p, _)| p).collect::<Vec<_>>(),
            ["commits/0", "offsets/0"]
        );
        assert_eq!(d.files().map(|(p, _)| p).collect::<Vec<_>>(), ["offsets/1"]);
    }

    #[test]
    fn log_ids_read_only_their_own_folder_in_numeric_order() {
        let names = [
            "offsets/0",
            "offsets/10",
            "offsets/9",
            "offsets/.9.crc",
            "offsets/07",
            "offsets-old/11",
            "offsetsx/12",
            "commits/3",
            "commits/10",
            "sources/0/0",
            "metadata",
        ];
        let folder =
            CheckpointFolder::from_files(names.iter().map(|n| (n.to_string(), b"v1".to_vec())));
        assert_eq!(folder.offset_log_ids(), [0, 9, 10]);
        assert_eq!(folder.commit_log_ids(), [3, 10]);
        assert_eq!(folder.latest_offset_id(), Some(10));
        assert_eq!(folder.latest_commit_id(), Some(10));
        assert_eq!(CheckpointFolder::new().latest_offset_id(), None);
    }
}
