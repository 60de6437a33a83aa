//! Rules shared by every Spark checkpoint log file: how lines are split and how the
//! `v<N>` version line is read (`MetadataVersionUtil`, `HDFSMetadataLog`).

use serde::{Deserialize, Serialize};
use std::fmt;

/// What is wrong inside one checkpoint file. The file name is added by
/// [`super::CheckpointError::Format`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FormatError {
    /// 1-based line number the problem is on, when it is about one line.
    pub line: Option<u32>,
    /// What is wrong, e.g. "expected a version line like `v1`, found `x1`".
    pub message: String,
}

impl FormatError {
    /// A problem on one line (1-based).
    pub fn at_line(line: u32, message: impl Into<String>) -> Self {
        FormatError {
            line: Some(line),
            message: message.into(),
        }
    }

    /// A problem with the file as a whole.
    pub fn whole(message: impl Into<String>) -> Self {
        FormatError {
            line: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for FormatError {}

/// Splits text into lines the way Spark reads its logs: `scala.io.Source.getLines`
/// uses `java.io.BufferedReader.readLine`, for which `\n`, `\r\n` and a lone `\r` all
/// end a line and a terminator at the very end does not start one more (empty) line.
/// So a trailing newline is accepted and CRLF files read the same as LF files, exactly
/// as Spark reads them (Spark itself never writes `\r`).
pub(crate) fn split_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                lines.push(&text[start..i]);
                i += 1;
                start = i;
            }
            b'\r' => {
                lines.push(&text[start..i]);
                i += 1;
                if i < bytes.len() && bytes[i] == b'\n' {
                    i += 1;
                }
                start = i;
            }
            _ => i += 1,
        }
    }
    if start < bytes.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// Shows a piece of file text inside a one-line message: escaped and cut short.
pub(crate) fn excerpt(text: &str) -> String {
    const MAX_CHARS: usize = 60;
    let escaped: String = text.escape_debug().collect();
    if escaped.chars().count() > MAX_CHARS {
        let cut: String = escaped.chars().take(MAX_CHARS).collect();
        format!("{cut}...")
    } else {
        escaped
    }
}

/// Reads a version line `v<N>` (`MetadataVersionUtil.validateVersion`): `v` followed
/// by a positive decimal number; a version above `max_supported` is refused, as Spark
/// refuses to read logs written by a newer Spark.
pub(crate) fn parse_version_line(
    text: &str,
    max_supported: u32,
    line: u32,
) -> Result<u32, FormatError> {
    let malformed = || {
        FormatError::at_line(
            line,
            format!(
                "expected a version line like `v1`, found `{}`",
                excerpt(text)
            ),
        )
    };
    let digits = text.strip_prefix('v').ok_or_else(malformed)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(malformed());
    }
    let version: u32 = digits.parse().map_err(|_| malformed())?;
    if version == 0 {
        return Err(malformed());
    }
    if version > max_supported {
        return Err(FormatError::whole(format!(
            "log version v{version} is newer than the supported v{max_supported}"
        )));
    }
    Ok(version)
}

/// Reads a JSON field that Spark declares as a Scala `Long`; absent means `None`.
pub(crate) fn optional_long(
    object: &serde_json::Map<String, serde_json::Value>,
    key: &str,
) -> Result<Option<i64>, String> {
    match object.get(key) {
        None => Ok(None),
        Some(value) => value
            .as_i64()
            .map(Some)
            .ok_or_else(|| format!("`{key}` must be a whole number (a Java long), found {value}")),
    }
}

/// Parses text that must be one JSON object.
pub(crate) fn json_object(
    text: &str,
) -> Result<serde_json::Map<String, serde_json::Value>, String> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(object)) => Ok(object),
        Ok(other) => Err(format!(
            "expected a JSON object, found `{}`",
            excerpt(&other.to_string())
        )),
        Err(error) => Err(format!("not valid JSON ({error}): `{}`", excerpt(text))),
    }
}

/// Writes a string as a JSON string literal (quotes and escapes).
pub(crate) fn json_string(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_like_buffered_reader() {
        assert_eq!(split_lines("v1\n{}\n0"), vec!["v1", "{}", "0"]);
        assert_eq!(split_lines("v1\n{}\n0\n"), vec!["v1", "{}", "0"]);
        assert_eq!(split_lines("v1\r\n{}\r\n0"), vec!["v1", "{}", "0"]);
        assert_eq!(split_lines("v1\n\n-"), vec!["v1", "", "-"]);
        assert_eq!(split_lines("v1\n\n"), vec!["v1", ""]);
        assert!(split_lines("").is_empty());
    }

    #[test]
    fn version_line_errors_say_what_was_found() {
        assert_eq!(parse_version_line("v2", 2, 1), Ok(2));
        assert_eq!(
            parse_version_line("x1", 2, 1).unwrap_err().to_string(),
            "line 1: expected a version line like `v1`, found `x1`"
        );
        for bad in ["v", "v0", "v-1", "v1x", "", "v 1", "v99999999999"] {
            assert!(parse_version_line(bad, 2, 1).is_err(), "{bad}");
        }
        assert_eq!(
            parse_version_line("v9", 2, 1).unwrap_err().to_string(),
            "log version v9 is newer than the supported v2"
        );
    }
}
