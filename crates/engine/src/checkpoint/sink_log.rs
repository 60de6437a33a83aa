//! `<output>/_spark_metadata/`: the file sink's manifest (`FileStreamSinkLog`), which is
//! what makes the file sink skip a batch it already wrote (`FileStreamSink.addBatch`:
//! "Skipping already committed batch").

use super::folder::CheckpointFolder;
use super::format::{json_object, split_lines};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Directory of the file sink's manifest inside the sink's output folder.
pub const SINK_LOG_DIR: &str = "_spark_metadata";

/// What a file sink's manifest holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileSinkLog {
    /// The latest batch id in the manifest (`<n>` or `<n>.compact`).
    pub latest_batch: Option<u64>,
    /// Batch ids of compacted entries.
    pub compact_batches: Vec<u64>,
    /// Files each plain entry adds (`"action":"add"` lines), by batch id.
    pub files_added: BTreeMap<u64, u64>,
    /// Report lines for entries that do not read as a manifest entry.
    pub notes: Vec<String>,
}

impl FileSinkLog {
    /// Whether the manifest has an entry for `batch_id` (plain, or covered by a
    /// compaction at or after it).
    pub fn has_batch(&self, batch_id: u64) -> bool {
        self.files_added.contains_key(&batch_id)
            || self.compact_batches.iter().any(|c| *c >= batch_id)
    }
}

/// Reads `_spark_metadata/<n>` entries from a folder holding the sink's output files
/// (paths relative to the output folder).
pub fn file_sink_log(sink: &CheckpointFolder) -> FileSinkLog {
    let mut log = FileSinkLog {
        latest_batch: None,
        compact_batches: Vec::new(),
        files_added: BTreeMap::new(),
        notes: Vec::new(),
    };
    let prefix = format!("{SINK_LOG_DIR}/");
    for (path, bytes) in sink.files() {
        let Some(name) = path.strip_prefix(&prefix) else {
            continue;
        };
        let (digits, compact) = match name.strip_suffix(".compact") {
            Some(digits) => (digits, true),
            None => (name, false),
        };
        let Ok(batch_id) = digits.parse::<u64>() else {
            log.notes
                .push(format!("{path}: not a manifest entry; ignored"));
            continue;
        };
        let text = std::str::from_utf8(bytes).unwrap_or_default();
        let lines = split_lines(text);
        if lines.first() != Some(&"v1") {
            log.notes.push(format!(
                "{path}: expected the version line `v1` of FileStreamSinkLog"
            ));
            continue;
        }
        let added = lines[1..]
            .iter()
            .filter(|line| {
                json_object(line)
                    .ok()
                    .and_then(|o| o.get("action").and_then(|a| a.as_str()).map(|a| a == "add"))
                    .unwrap_or(false)
            })
            .count() as u64;
        if compact {
            log.compact_batches.push(batch_id);
        } else {
            log.files_added.insert(batch_id, added);
        }
        log.latest_batch = log.latest_batch.max(Some(batch_id));
    }
    log
}
