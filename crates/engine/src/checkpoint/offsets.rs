//! `offsets/<batchId>`: one entry of Spark's offset log (`OffsetSeqLog`, `OffsetSeq`,
//! `OffsetSeqMetadata`), written before batch N runs (SEMANTICS.md §1.4).

use super::format::{
    excerpt, json_object, json_string, optional_long, parse_version_line, split_lines, FormatError,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Highest offset-log version Spark reads (`OffsetSeqLog.MAX_VERSION`, 4.1+ "OffsetMap").
pub const OFFSET_LOG_MAX_VERSION: u32 = 2;

/// What Spark writes on a source line when the source has no offset yet.
pub const SERIALIZED_VOID_OFFSET: &str = "-";

/// The metadata line of an offset-log entry (`OffsetSeqMetadata`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OffsetSeqMetadata {
    /// Event-time watermark the batch runs with (`batchWatermarkMs`).
    pub batch_watermark_ms: i64,
    /// Processing time of the batch, frozen so a re-run sees the same
    /// `current_timestamp()` (`batchTimestampMs`).
    pub batch_timestamp_ms: i64,
    /// The confs that must not change across restarts (`conf`). `None` = the key is
    /// absent, as Spark 2.1 wrote it. Written with keys sorted (Spark's order is the
    /// order of a Scala hash map, which carries no meaning).
    pub conf: Option<BTreeMap<String, String>>,
}

impl OffsetSeqMetadata {
    /// The JSON Spark writes (json4s, keys in declaration order, no spaces):
    /// `{"batchWatermarkMs":0,"batchTimestampMs":5,"conf":{...}}`.
    pub fn to_json(&self) -> String {
        let mut json = format!(
            "{{\"batchWatermarkMs\":{},\"batchTimestampMs\":{}",
            self.batch_watermark_ms, self.batch_timestamp_ms
        );
        if let Some(conf) = &self.conf {
            let entries: Vec<String> = conf
                .iter()
                .map(|(key, value)| format!("{}:{}", json_string(key), json_string(value)))
                .collect();
            json.push_str(",\"conf\":{");
            json.push_str(&entries.join(","));
            json.push('}');
        }
        json.push('}');
        json
    }

    /// Reads the metadata JSON as json4s does: any layout, unknown keys ignored, absent
    /// `batchWatermarkMs`/`batchTimestampMs` default to 0.
    pub fn parse_json(text: &str) -> Result<OffsetSeqMetadata, String> {
        Self::from_object(&json_object(text)?)
    }

    /// [`OffsetSeqMetadata::parse_json`] of a JSON object already read.
    fn from_object(
        object: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<OffsetSeqMetadata, String> {
        let conf = match object.get("conf") {
            None => None,
            Some(serde_json::Value::Object(map)) => {
                let mut conf = BTreeMap::new();
                for (key, value) in map {
                    let value = value.as_str().ok_or_else(|| {
                        format!("`conf` value of `{key}` must be a string, found {value}")
                    })?;
                    conf.insert(key.clone(), value.to_owned());
                }
                Some(conf)
            }
            Some(other) => return Err(format!("`conf` must be a JSON object, found {other}")),
        };
        Ok(OffsetSeqMetadata {
            batch_watermark_ms: optional_long(object, "batchWatermarkMs")?.unwrap_or(0),
            batch_timestamp_ms: optional_long(object, "batchTimestampMs")?.unwrap_or(0),
            conf,
        })
    }
}

/// One offset-log entry: the end offsets of batch N for every source, in plan order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OffsetSeq {
    /// File format version: 1 (one line per source) or 2 (`<sourceIndex>:<offset>` lines).
    pub version: u32,
    /// The metadata line; `None` = empty line (continuous mode, SEMANTICS.md §2, and
    /// `OffsetSeq.fill`). Version 2 is only ever written with metadata.
    pub metadata: Option<OffsetSeqMetadata>,
    /// Raw offset text per source in plan order (the source's own JSON, a bare number
    /// for LongOffset, a bare UUID for Tablestore); `None` = `-`, no offset yet.
    pub offsets: Vec<Option<String>>,
}

impl OffsetSeq {
    /// A version-1 entry, what Spark writes by default.
    pub fn v1(metadata: Option<OffsetSeqMetadata>, offsets: Vec<Option<String>>) -> Self {
        OffsetSeq {
            version: 1,
            metadata,
            offsets,
        }
    }

    /// The exact bytes `OffsetSeqLog.serialize` writes: lines joined by `\n`, no
    /// trailing newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut text = format!("v{}\n", self.version);
        if let Some(metadata) = &self.metadata {
            text.push_str(&metadata.to_json());
        }
        for (index, offset) in self.offsets.iter().enumerate() {
            text.push('\n');
            if self.version == 2 {
                text.push_str(&format!("{index}:"));
            }
            text.push_str(offset.as_deref().unwrap_or(SERIALIZED_VOID_OFFSET));
        }
        text.into_bytes()
    }

    /// Reads an entry as `OffsetSeqLog.deserialize` does, for a query whose sources are
    /// known by position. Accepts a trailing newline and CRLF line ends (see
    /// `split_lines`); version 2 lines may come in any order (Spark writes them in hash-map
    /// order). A version 2 entry with named sources is refused here: read it with
    /// [`OffsetLogEntry::parse`], which keeps the names.
    pub fn parse(text: &str) -> Result<OffsetSeq, FormatError> {
        OffsetSeq::from_entry(OffsetLogEntry::parse(text)?)
    }

    /// The entry of [`OffsetSeq::parse`] from one read with [`OffsetLogEntry::parse`].
    pub fn from_entry(entry: OffsetLogEntry) -> Result<OffsetSeq, FormatError> {
        let mut offsets: Vec<Option<String>> = Vec::new();
        for source in &entry.sources {
            let SourceId::Index(index) = &source.id else {
                return Err(FormatError::whole(format!(
                    "source `{}` is named; sources by position were expected",
                    excerpt(&source.id.to_string())
                )));
            };
            let index = *index as usize;
            if offsets.len() <= index {
                offsets.resize(index + 1, None);
            }
            offsets[index] = source.offset.clone();
        }
        Ok(OffsetSeq {
            version: entry.version,
            metadata: entry.metadata,
            offsets,
        })
    }
}

/// How an offset-log line names its source: the plan-order index (offset log v1, and v2
/// without names) or the name given with `DataStreamReader.name` (v2 with
/// `spark.sql.streaming.queryEvolution.enableSourceEvolution`, Spark 4.2+).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SourceId {
    /// Position of the source in the query plan, 0-based.
    Index(u32),
    /// The source's name.
    Name(String),
}

impl SourceId {
    /// The source's private folder in the checkpoint, `sources/<index or name>`.
    pub fn folder(&self) -> String {
        format!("sources/{self}")
    }

    /// Reads a source id as it appears in a v2 line or a `sources/` folder name: decimal
    /// digits are an index, anything else a name.
    pub fn parse(text: &str) -> SourceId {
        match text.parse::<u32>() {
            Ok(index) if text.bytes().all(|b| b.is_ascii_digit()) => SourceId::Index(index),
            _ => SourceId::Name(text.to_owned()),
        }
    }
}

impl std::fmt::Display for SourceId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SourceId::Index(index) => write!(f, "{index}"),
            SourceId::Name(name) => f.write_str(name),
        }
    }
}

/// One source line of an offset-log entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoggedSourceOffset {
    /// Which source.
    pub id: SourceId,
    /// The raw offset text; `None` = `-`, no offset yet.
    pub offset: Option<String>,
}

/// An offset-log entry as read from any Spark version, keeping how each source is named.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OffsetLogEntry {
    /// File format version, 1 or 2.
    pub version: u32,
    /// The metadata line; `None` = empty line.
    pub metadata: Option<OffsetSeqMetadata>,
    /// Top-level keys of the metadata JSON beyond the three of `OffsetSeqMetadata`
    /// (Spark 4.2+ v2 writes `sourceMetadataInfo`), sorted.
    pub metadata_extra_keys: Vec<String>,
    /// Source lines: by index in plan order, then by name, sorted.
    pub sources: Vec<LoggedSourceOffset>,
}

impl OffsetLogEntry {
    /// Reads an entry as `OffsetSeqLog.deserialize` does: `v1` lines are sources by
    /// position; `v2` lines are `<sourceId>:<offset>` split at the first colon, where the
    /// id is an index or a name.
    pub fn parse(text: &str) -> Result<OffsetLogEntry, FormatError> {
        let lines = split_lines(text);
        let Some(first) = lines.first() else {
            return Err(FormatError::whole(
                "empty file: expected a version line like `v1`",
            ));
        };
        let version = parse_version_line(first, OFFSET_LOG_MAX_VERSION, 1)?;
        let Some(metadata_line) = lines.get(1) else {
            return Err(FormatError::at_line(
                2,
                "missing the metadata line (Spark writes an empty line when there is none)",
            ));
        };
        let (metadata, metadata_extra_keys) = match metadata_line.trim() {
            "" => (None, Vec::new()),
            json => {
                // The JSON read once, for the metadata and for the keys beyond it.
                let in_metadata =
                    |message| FormatError::at_line(2, format!("offset metadata: {message}"));
                let object = json_object(json).map_err(in_metadata)?;
                let metadata = OffsetSeqMetadata::from_object(&object).map_err(in_metadata)?;
                let extra = object
                    .keys()
                    .filter(|key| {
                        !["batchWatermarkMs", "batchTimestampMs", "conf"].contains(&key.as_str())
                    })
                    .cloned()
                    .collect();
                (Some(metadata), extra)
            }
        };
        let source_lines = &lines[2..];
        let sources = if version == 2 {
            parse_offset_map(source_lines)?
        } else {
            source_lines
                .iter()
                .enumerate()
                .map(|(index, line)| LoggedSourceOffset {
                    id: SourceId::Index(u32::try_from(index).unwrap_or(u32::MAX)),
                    offset: void_or(line),
                })
                .collect()
        };
        Ok(OffsetLogEntry {
            version,
            metadata,
            metadata_extra_keys,
            sources,
        })
    }

    /// Whether the sources are named (offset log v2 with source evolution).
    pub fn named(&self) -> bool {
        self.sources
            .iter()
            .any(|source| matches!(source.id, SourceId::Name(_)))
    }

    /// The offset of one source; `None` when absent or `-`.
    pub fn offset_of(&self, id: &SourceId) -> Option<&str> {
        self.sources
            .iter()
            .find(|source| &source.id == id)
            .and_then(|source| source.offset.as_deref())
    }
}

fn void_or(text: &str) -> Option<String> {
    (text != SERIALIZED_VOID_OFFSET).then(|| text.to_owned())
}

/// Version-2 source lines `<sourceId>:<offset>`, split at the first colon as Spark does;
/// the id is an index or a name (`[A-Za-z0-9_]+`, `INVALID_SOURCE_NAME` otherwise).
fn parse_offset_map(lines: &[&str]) -> Result<Vec<LoggedSourceOffset>, FormatError> {
    let mut by_id: BTreeMap<SourceId, Option<String>> = BTreeMap::new();
    for (position, line) in lines.iter().enumerate() {
        let line_number = u32::try_from(position + 3).unwrap_or(u32::MAX);
        let Some((id, offset)) = line.split_once(':') else {
            return Err(FormatError::at_line(
                line_number,
                format!(
                    "expected `<sourceId>:<offset>` (Invalid OffsetMap format), found `{}`",
                    excerpt(line)
                ),
            ));
        };
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Err(FormatError::at_line(
                line_number,
                format!(
                    "source id `{}` is neither an index nor a source name (ASCII letters, \
                     digits, underscores)",
                    excerpt(id)
                ),
            ));
        }
        let id = SourceId::parse(id);
        if by_id.contains_key(&id) {
            return Err(FormatError::at_line(
                line_number,
                format!("source {id} appears twice"),
            ));
        }
        by_id.insert(id, void_or(offset));
    }
    Ok(by_id
        .into_iter()
        .map(|(id, offset)| LoggedSourceOffset { id, offset })
        .collect())
}
