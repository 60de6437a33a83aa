//! Which files of a checkpoint root are read, and within what limits: shared by the CLI's
//! disk reader and the dashboard, which reads a dropped `.zip` or folder in memory.
//!
//! A damaged or hostile folder never stops the reading: what is skipped becomes a note, and
//! the work is bounded by the limits below whatever the input claims (a `.zip` entry that
//! says it holds 10 bytes is still read at most its limit + 1 bytes).

use super::folder::{CheckpointFolder, COMMIT_LOG_DIR, METADATA_FILE, OFFSET_LOG_DIR};
use super::state::STATE_DIR;
use std::collections::BTreeSet;
use std::io::Read;

/// Directory of source-private files inside the checkpoint root.
pub const SOURCES_DIR: &str = "sources";
/// At most this many directory entries are looked at in one folder (Spark writes one file
/// per batch and per state version: a few thousand in a long-lived query); the rest are
/// not read and a note says so. In memory (a `.zip`) it bounds the whole archive.
pub const MAX_ENTRIES: usize = 100_000;
/// A file under `sources/` larger than this is skipped with a note (a compacted file-source
/// log of a few hundred thousand input files stays below it).
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// `metadata`, `offsets/N` and `commits/N` larger than this are skipped with a note: Spark
/// writes kilobytes (a Kafka offset of 10,000 partitions is ~300 KB), and the report quotes
/// source offsets, so a huge damaged offsets file would make a report of gigabytes.
pub const MAX_LOG_FILE_BYTES: u64 = 1024 * 1024;
/// At most this many bytes are read in total; later files are skipped with a note.
pub const MAX_TOTAL_BYTES: u64 = 256 * 1024 * 1024;
/// `sources/` and `state/` are read at most this many directories deep (Spark's state is
/// `state/<operator>/<partition>/<store>/`: four).
pub const MAX_DEPTH: usize = 16;
/// At most this many notes about skipped entries are kept; one more line counts the rest.
pub const MAX_NOTES: usize = 50;

/// The most bytes of the file at `relative` that are read (`metadata` and the logs are
/// smaller than `sources/` files).
pub fn byte_limit(relative: &str) -> u64 {
    if relative.starts_with(SOURCES_DIR) {
        MAX_FILE_BYTES
    } else {
        MAX_LOG_FILE_BYTES
    }
}

/// Whether a file or folder name is left out without a note: hidden files (Hadoop's
/// `.crc`, `.DS_Store`) and the `*.tmp` files of an unfinished atomic write.
pub fn is_ignored_name(name: &str) -> bool {
    name.starts_with('.') || name.ends_with(".tmp")
}

/// What becomes of one file offered to an [`Intake`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// Read its bytes, at most this many.
    Contents(u64),
    /// Record its name only (the binary files of `state/`).
    NameOnly,
    /// Leave it out (a note says why, unless it is a hidden or temporary file).
    Skip,
}

/// Reads the files of a checkpoint root that are held in memory (a `.zip`, the files of a
/// folder chosen in the browser), with the limits of the disk reader.
#[derive(Debug, Default)]
pub struct Intake {
    files: Vec<(String, Vec<u8>)>,
    bytes: u64,
    entries: usize,
    notes: Vec<String>,
    dropped_notes: usize,
    unknown: BTreeSet<String>,
}

impl Intake {
    /// An empty intake.
    pub fn new() -> Intake {
        Intake::default()
    }

    /// Adds a report line about something skipped (at most [`MAX_NOTES`] are kept).
    pub fn note(&mut self, line: String) {
        if self.notes.len() < MAX_NOTES {
            self.notes.push(line);
        } else {
            self.dropped_notes += 1;
        }
    }

    /// Decides on the file at `relative` (`/`-separated, relative to the checkpoint root)
    /// whose size is said to be `len` bytes.
    pub fn admit(&mut self, relative: &str, len: u64) -> Admit {
        self.entries += 1;
        if self.entries == MAX_ENTRIES + 1 {
            self.note(format!(
                "more than {MAX_ENTRIES} entries; the rest not read"
            ));
        }
        if self.entries > MAX_ENTRIES {
            return Admit::Skip;
        }
        let parts: Vec<&str> = relative.split('/').filter(|p| !p.is_empty()).collect();
        if parts.iter().any(|p| is_ignored_name(p)) || parts.is_empty() {
            return Admit::Skip;
        }
        let top = parts[0];
        let contents = match (top, parts.len()) {
            (METADATA_FILE, 1) => true,
            (OFFSET_LOG_DIR | COMMIT_LOG_DIR, 2) => true,
            (OFFSET_LOG_DIR | COMMIT_LOG_DIR, 1) | (SOURCES_DIR | STATE_DIR, 1) => {
                self.note(format!(
                    "{relative}: a file where a directory is expected; skipped"
                ));
                return Admit::Skip;
            }
            (OFFSET_LOG_DIR | COMMIT_LOG_DIR, _) => {
                self.note(format!(
                    "{relative}: nested inside a log directory; skipped"
                ));
                return Admit::Skip;
            }
            (SOURCES_DIR, n) | (STATE_DIR, n) if n > MAX_DEPTH + 1 => {
                self.note(format!(
                    "{relative}: nested deeper than {MAX_DEPTH}; skipped"
                ));
                return Admit::Skip;
            }
            (SOURCES_DIR, _) => true,
            (STATE_DIR, _) => false,
            _ => {
                if self.unknown.insert(top.to_owned()) {
                    self.note(format!("{top}: not part of a Spark checkpoint; ignored"));
                }
                return Admit::Skip;
            }
        };
        if !contents {
            return Admit::NameOnly;
        }
        let limit = byte_limit(relative);
        if len > limit {
            self.note(format!(
                "{relative}: {len} bytes, over the {limit}-byte limit; skipped"
            ));
            return Admit::Skip;
        }
        if self.bytes + len > MAX_TOTAL_BYTES {
            self.note(format!(
                "{relative}: over the {MAX_TOTAL_BYTES}-byte limit for the folder; skipped"
            ));
            return Admit::Skip;
        }
        Admit::Contents(limit)
    }

    /// Offers the file at `relative` of `len` bytes and reads it from `reader` when it is
    /// admitted: never more than its limit, whatever `len` claims.
    pub fn offer(&mut self, relative: &str, len: u64, reader: impl Read) {
        match self.admit(relative, len) {
            Admit::Skip => {}
            Admit::NameOnly => self.push_name(relative),
            Admit::Contents(limit) => {
                let mut bytes = Vec::new();
                match reader.take(limit + 1).read_to_end(&mut bytes) {
                    Ok(_) => self.push(relative, bytes),
                    Err(error) => {
                        self.note(format!("{relative}: cannot be read ({error}); skipped"))
                    }
                }
            }
        }
    }

    /// Adds the bytes of a file that [`Intake::admit`] admitted as
    /// [`Admit::Contents`] (the caller read them), checking the limits once more.
    pub fn push(&mut self, relative: &str, bytes: Vec<u8>) {
        let limit = byte_limit(relative);
        if bytes.len() as u64 > limit {
            self.note(format!(
                "{relative}: more than the {limit} bytes it claims or is allowed; skipped"
            ));
        } else if self.bytes + bytes.len() as u64 > MAX_TOTAL_BYTES {
            self.note(format!(
                "{relative}: over the {MAX_TOTAL_BYTES}-byte limit for the folder; skipped"
            ));
        } else {
            self.bytes += bytes.len() as u64;
            self.files.push((relative.to_owned(), bytes));
        }
    }

    /// Records the name of a file that [`Intake::admit`] admitted as [`Admit::NameOnly`].
    pub fn push_name(&mut self, relative: &str) {
        self.files.push((relative.to_owned(), Vec::new()));
    }

    /// The folder read so far and the report lines about what was skipped.
    pub fn finish(mut self) -> (CheckpointFolder, Vec<String>) {
        if self.dropped_notes > 0 {
            self.notes.push(format!(
                "{} more skipped entries not listed",
                self.dropped_notes
            ));
        }
        (CheckpointFolder::from_files(self.files), self.notes)
    }
}

/// The checkpoint root among `paths` (`/`-separated, as a `.zip` or a chosen folder lists
/// them): the shallowest folder that holds a `metadata` file or an `offsets/` folder; `""`
/// when that is the top. `None` when there is none.
pub fn find_root<'a>(paths: impl IntoIterator<Item = &'a str>) -> Option<String> {
    paths
        .into_iter()
        .filter_map(|path| {
            let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
            if parts.iter().any(|p| is_ignored_name(p) || *p == "__MACOSX") {
                return None;
            }
            let at = parts
                .iter()
                .position(|p| *p == METADATA_FILE || *p == OFFSET_LOG_DIR)?;
            let is_root = match parts[at] {
                METADATA_FILE => at + 1 == parts.len(),
                _ => at + 1 < parts.len(),
            };
            is_root.then(|| parts[..at].join("/"))
        })
        .min_by_key(|root| {
            (
                root.split('/').filter(|p| !p.is_empty()).count(),
                root.clone(),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(files: &[(&str, &[u8])]) -> (CheckpointFolder, Vec<String>) {
        let mut intake = Intake::new();
        for (path, bytes) in files {
            intake.offer(path, bytes.len() as u64, *bytes);
        }
        intake.finish()
    }

    #[test]
    fn keeps_what_spark_writes_and_names_the_rest() {
        let (folder, notes) = read(&[
            ("metadata", b"{}"),
            ("offsets/0", b"v1"),
            ("offsets/.0.crc", b"x"),
            ("offsets/1.tmp", b"x"),
            ("state/0/0/1.delta", b"binary"),
            ("notes.txt", b"hello"),
        ]);
        let names: Vec<&str> = folder.files().map(|(p, _)| p).collect();
        assert_eq!(names, ["metadata", "offsets/0", "state/0/0/1.delta"]);
        assert_eq!(folder.read("state/0/0/1.delta"), Some(&b""[..]));
        assert_eq!(
            notes,
            ["notes.txt: not part of a Spark checkpoint; ignored"]
        );
    }

    #[test]
    fn a_file_longer_than_it_claims_is_read_only_to_its_limit() {
        let big = vec![b'x'; MAX_LOG_FILE_BYTES as usize + 10];
        let mut intake = Intake::new();
        intake.offer("offsets/0", 3, &big[..]);
        let (folder, notes) = intake.finish();
        assert!(folder.read("offsets/0").is_none());
        assert!(notes[0].contains("more than"), "{notes:?}");
    }

    #[test]
    fn the_root_is_the_shallowest_folder_with_metadata_or_offsets() {
        let paths = [
            "__MACOSX/q/._metadata",
            "q/sources/0/0",
            "q/metadata",
            "q/offsets/0",
            "q/sources/offsets/x",
        ];
        assert_eq!(find_root(paths), Some("q".to_owned()));
        assert_eq!(find_root(["metadata"]), Some(String::new()));
        assert_eq!(find_root(["a/b", "c"]), None);
    }
}
