//! `commits/<batchId>`: one entry of Spark's commit log (`CommitLog`, `CommitMetadata`),
//! written after the sink finished batch N (SEMANTICS.md §1.4).

use super::format::{json_object, optional_long, parse_version_line, split_lines, FormatError};
use serde::{Deserialize, Serialize};

/// Highest commit-log version Spark reads (`CommitLog.MAX_VERSION`): v2 = checkpoint
/// format v2 with state store unique ids, v3 = v2 plus `sinkMetadataMap` (sink
/// evolution, Spark 4.2+).
pub const COMMIT_LOG_MAX_VERSION: u32 = 3;

/// One commit-log entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommitMetadata {
    /// File format version, 1, 2 or 3.
    pub version: u32,
    /// Watermark for the next batch (`nextBatchWatermarkMs`, Spark 2.4+). `None` = the
    /// key is absent, the `{}` body of Spark 2.2/2.3; Spark then reads it as 0 and takes
    /// the watermark from the offset log instead (SPARK-24699).
    pub next_batch_watermark_ms: Option<i64>,
    /// `stateUniqueIds` of versions 2 and 3: operator id -> per partition -> state store
    /// checkpoint ids. Kept as JSON; ignored when reading version 1, as Spark does.
    pub state_unique_ids: Option<serde_json::Value>,
}

impl CommitMetadata {
    /// What Spark 2.4+ writes by default: `v1\n{"nextBatchWatermarkMs":<ms>}`.
    pub fn v1(next_batch_watermark_ms: i64) -> Self {
        CommitMetadata {
            version: 1,
            next_batch_watermark_ms: Some(next_batch_watermark_ms),
            state_unique_ids: None,
        }
    }

    /// What Spark 2.2/2.3 wrote: `v1\n{}`.
    pub fn legacy_empty() -> Self {
        CommitMetadata {
            version: 1,
            next_batch_watermark_ms: None,
            state_unique_ids: None,
        }
    }

    /// The JSON body as json4s writes it: present fields only, declaration order.
    pub fn to_json(&self) -> String {
        let mut fields = Vec::new();
        if let Some(ms) = self.next_batch_watermark_ms {
            fields.push(format!("\"nextBatchWatermarkMs\":{ms}"));
        }
        if let Some(ids) = &self.state_unique_ids {
            fields.push(format!("\"stateUniqueIds\":{ids}"));
        }
        format!("{{{}}}", fields.join(","))
    }

    /// The exact bytes `CommitLog.serialize` writes: `v<N>\n<json>`, no trailing newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        format!("v{}\n{}", self.version, self.to_json()).into_bytes()
    }

    /// Reads an entry as `CommitLog.readCommitMetadata` does: the version line is
    /// trimmed, a missing second line reads as `{}`, later lines are ignored.
    pub fn parse(text: &str) -> Result<CommitMetadata, FormatError> {
        let lines = split_lines(text);
        let Some(first) = lines.first() else {
            return Err(FormatError::whole(
                "empty file: expected a version line like `v1`",
            ));
        };
        let version = parse_version_line(first.trim(), COMMIT_LOG_MAX_VERSION, 1)?;
        let body = lines.get(1).copied().unwrap_or("{}");
        let object = json_object(body)
            .map_err(|message| FormatError::at_line(2, format!("commit metadata: {message}")))?;
        let next_batch_watermark_ms = optional_long(&object, "nextBatchWatermarkMs")
            .map_err(|message| FormatError::at_line(2, message))?;
        let state_unique_ids = match (version, object.get("stateUniqueIds")) {
            (2 | 3, Some(value)) if !value.is_null() => {
                check_state_unique_ids(value).map_err(|m| FormatError::at_line(2, m))?;
                Some(value.clone())
            }
            _ => None,
        };
        Ok(CommitMetadata {
            version,
            next_batch_watermark_ms,
            state_unique_ids,
        })
    }
}

/// One entry of `sinkMetadataMap` (`SinkMetadataInfo`, commit log v3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SinkMetadataInfo {
    /// The sink's name (`DataStreamWriter.name`, or Spark's default sink name).
    pub sink_name: String,
    /// The latest offset committed to the sink, as JSON text, or `-`.
    pub commit_offset: String,
    /// The sink implementation (e.g. a class name).
    pub provider_name: String,
    /// Whether this is the active sink; older sinks are kept with `false`.
    pub is_active: bool,
}

/// Reads the `sinkMetadataMap` of a commit-log entry (version 3; empty for 1 and 2),
/// sorted by the map's key.
pub fn parse_commit_sinks(text: &str) -> Result<Vec<SinkMetadataInfo>, FormatError> {
    let commit = CommitMetadata::parse(text)?;
    if commit.version < 3 {
        return Ok(Vec::new());
    }
    let lines = split_lines(text);
    let object = json_object(lines.get(1).copied().unwrap_or("{}"))
        .map_err(|message| FormatError::at_line(2, message))?;
    let Some(map) = object.get("sinkMetadataMap") else {
        return Ok(Vec::new());
    };
    let map = map
        .as_object()
        .ok_or_else(|| FormatError::at_line(2, "`sinkMetadataMap` must be a JSON object"))?;
    let mut sinks = Vec::new();
    for (key, info) in map {
        let text_field = |name: &str| {
            info.get(name)
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| {
                    FormatError::at_line(2, format!("sink `{key}`: `{name}` must be a string"))
                })
        };
        sinks.push(SinkMetadataInfo {
            sink_name: text_field("sinkName")?,
            commit_offset: text_field("commitOffset")?,
            provider_name: text_field("providerName")?,
            is_active: info
                .get("isActive")
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(true),
        });
    }
    Ok(sinks)
}

/// `stateUniqueIds` is `Map[Long, Array[Array[String]]]` in Spark.
fn check_state_unique_ids(value: &serde_json::Value) -> Result<(), String> {
    let shape_error = || {
        "`stateUniqueIds` must map operator ids to arrays (per partition) of arrays of strings"
            .to_owned()
    };
    let operators = value.as_object().ok_or_else(shape_error)?;
    for (operator, partitions) in operators {
        if operator.parse::<i64>().is_err() {
            return Err(format!(
                "`stateUniqueIds` key `{operator}` is not an operator id"
            ));
        }
        let partitions = partitions.as_array().ok_or_else(shape_error)?;
        for ids in partitions {
            let ids = ids.as_array().ok_or_else(shape_error)?;
            if !ids.iter().all(serde_json::Value::is_string) {
                return Err(shape_error());
            }
        }
    }
    Ok(())
}
