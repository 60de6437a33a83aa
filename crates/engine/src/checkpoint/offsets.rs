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
        let object = json_object(text)?;
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
            batch_watermark_ms: optional_long(&object, "batchWatermarkMs")?.unwrap_or(0),
            batch_timestamp_ms: optional_long(&object, "batchTimestampMs")?.unwrap_or(0),
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

    /// Reads an entry as `OffsetSeqLog.deserialize` does. Accepts a trailing newline
    /// and CRLF line ends (see `split_lines`); the metadata line is trimmed, source
    /// lines are taken verbatim; version 2 lines may come in any order (Spark writes
    /// them in hash-map order).
    pub fn parse(text: &str) -> Result<OffsetSeq, FormatError> {
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
        let metadata = match metadata_line.trim() {
            "" => None,
            json => Some(OffsetSeqMetadata::parse_json(json).map_err(|message| {
                FormatError::at_line(2, format!("offset metadata: {message}"))
            })?),
        };
        let source_lines = &lines[2..];
        let offsets = if version == 2 {
            parse_offset_map(source_lines)?
        } else {
            source_lines.iter().map(|line| void_or(line)).collect()
        };
        Ok(OffsetSeq {
            version,
            metadata,
            offsets,
        })
    }
}

fn void_or(text: &str) -> Option<String> {
    (text != SERIALIZED_VOID_OFFSET).then(|| text.to_owned())
}

/// Version-2 source lines `<sourceIndex>:<offset>`; indexes absent from the file are
/// sources without an offset.
fn parse_offset_map(lines: &[&str]) -> Result<Vec<Option<String>>, FormatError> {
    let mut by_index: BTreeMap<u32, Option<String>> = BTreeMap::new();
    for (position, line) in lines.iter().enumerate() {
        let line_number = u32::try_from(position + 3).unwrap_or(u32::MAX);
        let Some((id, offset)) = line.split_once(':') else {
            return Err(FormatError::at_line(
                line_number,
                format!(
                    "expected `<sourceIndex>:<offset>`, found `{}`",
                    excerpt(line)
                ),
            ));
        };
        let index: u32 = id
            .parse()
            .ok()
            .filter(|_| id.bytes().all(|b| b.is_ascii_digit()))
            .ok_or_else(|| {
                FormatError::at_line(
                    line_number,
                    format!(
                        "source id `{}` is not a source index (named sources are not modelled)",
                        excerpt(id)
                    ),
                )
            })?;
        if by_index.insert(index, void_or(offset)).is_some() {
            return Err(FormatError::at_line(
                line_number,
                format!("source {index} appears twice"),
            ));
        }
    }
    let count = by_index
        .keys()
        .next_back()
        .map_or(0, |last| *last as usize + 1);
    let mut offsets = vec![None; count];
    for (index, offset) in by_index {
        offsets[index as usize] = offset;
    }
    Ok(offsets)
}
