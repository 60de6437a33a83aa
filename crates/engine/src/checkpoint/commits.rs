//! `commits/<batchId>`: one entry of Spark's commit log (`CommitLog`, `CommitMetadata`),
//! written after the sink finished batch N (SEMANTICS.md §1.4).

use super::format::{json_object, optional_long, parse_version_line, split_lines, FormatError};
use serde::{Deserialize, Serialize};

/// Highest commit-log version Spark reads (`CommitLog.MAX_VERSION`; v2 = checkpoint
/// format v2 with state store unique ids).
pub const COMMIT_LOG_MAX_VERSION: u32 = 2;

/// One commit-log entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommitMetadata {
    /// File format version, 1 or 2.
    pub version: u32,
    /// Watermark for the next batch (`nextBatchWatermarkMs`, Spark 2.4+). `None` = the
    /// key is absent, the `{}` body of Spark 2.2/2.3; Spark then reads it as 0 and takes
    /// the watermark from the offset log instead (SPARK-24699).
    pub next_batch_watermark_ms: Option<i64>,
    /// `stateUniqueIds` of version 2: operator id -> per partition -> state store
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
            (2, Some(value)) if !value.is_null() => {
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
