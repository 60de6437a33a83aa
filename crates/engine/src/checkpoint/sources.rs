//! `sources/<index or name>/…` and the offset lines: which source each one is, what it
//! keeps in its private folder (Spark's `FileStreamSourceLog`,
//! `KafkaSourceInitialOffsetWriter`).
//!
//! The kind is read from the offset text first — the file source writes
//! `{"logOffset":n}`, Kafka `{"<topic>":{"<partition>":n}}`, rate and memory a bare
//! `LongOffset` — then from the private files: a file-source log (`v1` entries, one JSON
//! per file, `<n>.compact` every `compactInterval` entries) or a Kafka initial-offset file
//! (`0x00`, `v1\n`, JSON).

use super::folder::CheckpointFolder;
use super::format::{json_object, split_lines};
use super::metadata::parse_initial_offset;
use super::offsets::{OffsetLogEntry, SourceId};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// One source of the query, from the latest offset entry and `sources/`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceReport {
    /// Index in plan order, or the source's name.
    pub id: SourceId,
    /// `file`, `kafka`, `long-offset` (rate, memory, socket), `tablestore`, `seatunnel` or
    /// `unknown`.
    pub kind: String,
    /// Whether Spark reads it through the V1 `Source` API (`getBatch` on restart); `None`
    /// when the kind does not tell.
    pub v1_source: Option<bool>,
    /// The offset in the latest offset entry; `None` = `-` or not listed.
    pub latest_offset: Option<String>,
    /// Files in `sources/<id>/`.
    pub private_files: u64,
    /// Kafka's (or the simulated Tablestore's) initial offsets from `sources/<id>/0`.
    pub initial_offset: Option<String>,
    /// The file-source log, when the private folder holds one.
    pub file_log: Option<FileSourceLog>,
}

/// What a file source's metadata log (`FileStreamSourceLog`) holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileSourceLog {
    /// The latest log entry (`<n>` or `<n>.compact`): the source's own batch counter,
    /// which the offset line carries as `logOffset`.
    pub latest_entry: Option<u64>,
    /// Number of entries present (plain and compacted).
    pub entries: u64,
    /// Entries that are compactions (`<n>.compact`).
    pub compact_entries: Vec<u64>,
    /// Distinct input files the log lists.
    pub input_files: u64,
}

/// Every source, in the latest entry's order, then private folders no entry names; plus
/// report lines for files that fit no source layout.
pub fn source_reports(
    folder: &CheckpointFolder,
    latest: Option<&OffsetLogEntry>,
) -> (Vec<SourceReport>, Vec<String>) {
    let mut private: BTreeMap<SourceId, Vec<(&str, &[u8])>> = BTreeMap::new();
    let mut notes = Vec::new();
    for (path, bytes) in folder.files() {
        let Some(rest) = path.strip_prefix("sources/") else {
            continue;
        };
        match rest.split_once('/') {
            Some((id, _)) if !id.is_empty() => private
                .entry(SourceId::parse(id))
                .or_default()
                .push((path, bytes)),
            _ => notes.push(format!(
                "{path}: not inside a `sources/<id>/` folder; ignored"
            )),
        }
    }
    let mut ids: Vec<SourceId> = latest
        .map(|entry| entry.sources.iter().map(|s| s.id.clone()).collect())
        .unwrap_or_default();
    for id in private.keys() {
        if !ids.contains(id) {
            ids.push(id.clone());
        }
    }
    let reports = ids
        .into_iter()
        .map(|id| {
            let offset = latest.and_then(|entry| entry.offset_of(&id).map(str::to_owned));
            let files = private.get(&id).map(Vec::as_slice).unwrap_or_default();
            report(id, offset, files, &mut notes)
        })
        .collect();
    (reports, notes)
}

fn report(
    id: SourceId,
    offset: Option<String>,
    files: &[(&str, &[u8])],
    notes: &mut Vec<String>,
) -> SourceReport {
    let initial = files
        .iter()
        .find(|(path, _)| path.ends_with("/0"))
        .and_then(|(_, bytes)| parse_initial_offset(bytes).ok());
    let file_log = file_source_log(files, notes);
    let mut kind = offset.as_deref().map_or("unknown", kind_of_offset);
    if kind == "unknown" {
        if file_log.is_some() {
            kind = "file";
        } else if let Some((version, body)) = &initial {
            kind = if *version == 2 && uuid::Uuid::try_parse(body).is_ok() {
                "tablestore"
            } else {
                "kafka"
            };
        }
    }
    let v1_source = match kind {
        "file" | "tablestore" | "seatunnel" => Some(true),
        "kafka" | "long-offset" => Some(false),
        _ => None,
    };
    SourceReport {
        id,
        kind: kind.to_owned(),
        v1_source,
        latest_offset: offset,
        private_files: files.len() as u64,
        initial_offset: initial.map(|(_, body)| body),
        file_log,
    }
}

/// The kind of source an offset text comes from.
pub fn kind_of_offset(offset: &str) -> &'static str {
    let text = offset.trim();
    if text.parse::<i64>().is_ok() {
        return "long-offset";
    }
    if uuid::Uuid::try_parse(text).is_ok() {
        return "tablestore";
    }
    let Ok(object) = json_object(text) else {
        return "unknown";
    };
    if object.contains_key("logOffset") {
        return "file";
    }
    if object.contains_key("checkpointId") {
        return "seatunnel";
    }
    let kafka = !object.is_empty()
        && object.values().all(|partitions| {
            partitions
                .as_object()
                .is_some_and(|p| p.values().all(serde_json::Value::is_i64))
        });
    if kafka {
        "kafka"
    } else {
        "unknown"
    }
}

/// Reads the `FileStreamSourceLog` entries among a source's private files.
fn file_source_log(files: &[(&str, &[u8])], notes: &mut Vec<String>) -> Option<FileSourceLog> {
    let mut log = FileSourceLog {
        latest_entry: None,
        entries: 0,
        compact_entries: Vec::new(),
        input_files: 0,
    };
    let mut paths = BTreeSet::new();
    for (path, bytes) in files {
        let name = path.rsplit('/').next().unwrap_or_default();
        let (digits, compact) = match name.strip_suffix(".compact") {
            Some(digits) => (digits, true),
            None => (name, false),
        };
        let Ok(entry) = digits.parse::<u64>() else {
            notes.push(format!("{path}: not a source log entry; ignored"));
            continue;
        };
        let Ok(text) = std::str::from_utf8(bytes) else {
            continue; // binary: the Kafka initial-offset file
        };
        let lines = split_lines(text);
        if lines.first() != Some(&"v1") {
            continue;
        }
        for line in &lines[1..] {
            match json_object(line) {
                Ok(object) => {
                    if let Some(file) = object.get("path").and_then(|p| p.as_str()) {
                        paths.insert(file.to_owned());
                    }
                }
                Err(message) => notes.push(format!("{path}: {message}")),
            }
        }
        log.entries += 1;
        if compact {
            log.compact_entries.push(entry);
        }
        log.latest_entry = log.latest_entry.max(Some(entry));
    }
    log.input_files = paths.len() as u64;
    (log.entries > 0).then_some(log)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_texts_name_their_source_kind() {
        assert_eq!(kind_of_offset("{\"logOffset\":3}"), "file");
        assert_eq!(kind_of_offset("{\"t\":{\"0\":3,\"1\":4}}"), "kafka");
        assert_eq!(kind_of_offset("42"), "long-offset");
        assert_eq!(
            kind_of_offset("d4358946-170c-49a7-823b-d8e4e9126616"),
            "tablestore"
        );
        assert_eq!(kind_of_offset("{\"checkpointId\":2}"), "seatunnel");
        assert_eq!(kind_of_offset("{\"x\":\"y\"}"), "unknown");
    }
}
