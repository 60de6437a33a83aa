//! The `metadata` file (`StreamMetadata`, the query id) and the source-private
//! initial-offset files `sources/<i>/0` (Kafka, Tablestore; SEMANTICS.md §1.4, §3.2, §6).

use super::format::{excerpt, json_object, json_string, parse_version_line, FormatError};
use serde::{Deserialize, Serialize};

/// The `metadata` file at the checkpoint root: the query id, written once on first start.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryMetadata {
    /// The query id, a UUID in its usual text form.
    pub id: String,
}

impl QueryMetadata {
    /// The exact bytes Spark writes (json4s): `{"id":"<uuid>"}`, no newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        format!("{{\"id\":{}}}", json_string(&self.id)).into_bytes()
    }

    /// Reads the file as Spark does: any JSON layout (fixture
    /// `query-metadata-logs-version-2.1.0.txt` is pretty-printed), unknown keys ignored.
    /// The id must be a UUID, since `StreamExecution` parses it with `UUID.fromString`.
    pub fn parse(text: &str) -> Result<QueryMetadata, FormatError> {
        let object = json_object(text).map_err(FormatError::whole)?;
        let id = match object.get("id") {
            Some(serde_json::Value::String(id)) => id.clone(),
            Some(other) => {
                return Err(FormatError::whole(format!(
                    "`id` must be a string, found {other}"
                )))
            }
            None => return Err(FormatError::whole("missing the `id` key")),
        };
        if uuid::Uuid::try_parse(&id).is_err() {
            return Err(FormatError::whole(format!(
                "`id` is not a UUID: `{}`",
                excerpt(&id)
            )));
        }
        Ok(QueryMetadata { id })
    }
}

/// The marker byte that starts an initial-offset file (SPARK-19517 compatibility).
pub const INITIAL_OFFSET_MARKER: u8 = 0x00;

/// Bytes of a source-private initial-offset file such as `sources/0/0`:
/// `0x00`, `v<version>\n`, then the body with no newline. Kafka writes version 1 with
/// its partition-offset JSON; Tablestore writes version 2 with a bare batch UUID.
pub fn initial_offset_bytes(version: u32, body: &str) -> Vec<u8> {
    let mut bytes = vec![INITIAL_OFFSET_MARKER];
    bytes.extend_from_slice(format!("v{version}\n").as_bytes());
    bytes.extend_from_slice(body.as_bytes());
    bytes
}

/// Reads an initial-offset file as `KafkaSourceInitialOffsetWriter.deserialize` does
/// and returns (version, body). Spark discards the first byte whatever it is; this
/// reader insists on `0x00`, so other files under `sources/` (a file source's log
/// starts with `v1`) are told apart. Content without a version line is the Spark 2.1.0
/// form and comes back as version 0. The caller checks the version against what its
/// source supports (Kafka 1, Tablestore 2).
pub fn parse_initial_offset(bytes: &[u8]) -> Result<(u32, String), FormatError> {
    let Some((&marker, rest)) = bytes.split_first() else {
        return Err(FormatError::whole("empty file"));
    };
    if marker != INITIAL_OFFSET_MARKER {
        return Err(FormatError::whole(format!(
            "byte 0: expected the 0x00 marker of an initial-offset file, found 0x{marker:02x}"
        )));
    }
    let content = std::str::from_utf8(rest)
        .map_err(|_| FormatError::whole("not valid UTF-8 after the 0x00 marker"))?;
    if content.is_empty() {
        return Err(FormatError::whole("nothing after the 0x00 marker"));
    }
    if !content.starts_with('v') {
        return Ok((0, content.to_owned()));
    }
    let Some(newline) = content.find('\n') else {
        return Err(FormatError::at_line(
            1,
            "failed to detect the log file version line (no newline after it)",
        ));
    };
    let version = parse_version_line(&content[..newline], u32::MAX, 1)?;
    Ok((version, content[newline + 1..].to_owned()))
}
