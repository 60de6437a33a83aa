//! The skeleton both URL parsers share (micro-batch [`crate::microbatch::url::parse`] and topology
//! [`crate::topology::parse_topology`]): the `key=value` pairs of a hash, percent-decoding,
//! whole numbers, on/off flags, comma lists, and the error that names the parameter.

use std::fmt;

/// One thing wrong with a URL, naming the parameter and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UrlError {
    /// The parameter (`seed`, `crash`…).
    pub param: String,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for UrlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.param, self.reason)
    }
}

/// The error for `param`.
pub fn error(param: &str, reason: String) -> UrlError {
    UrlError {
        param: param.to_string(),
        reason,
    }
}

/// The decoded `(key, value)` pairs of a hash (with or without the leading `#`), in order; a
/// key without `=` has an empty value.
pub fn pairs(hash: &str) -> impl Iterator<Item = (String, String)> + '_ {
    let hash = hash.strip_prefix('#').unwrap_or(hash);
    hash.split('&').filter(|p| !p.is_empty()).map(|pair| {
        let (key, raw) = pair.split_once('=').unwrap_or((pair, ""));
        (percent_decode(key), percent_decode(raw))
    })
}

/// The items of a comma list, blanks skipped (not trimmed: the caller's error quotes them).
pub fn items(value: &str) -> impl Iterator<Item = &str> {
    value.split(',').filter(|s| !s.trim().is_empty())
}

/// A whole number ≥ 0; `what` names it in the error (`a seed`).
pub fn number(param: &str, value: &str, what: &str) -> Result<u64, UrlError> {
    value.trim().parse::<u64>().map_err(|_| {
        error(
            param,
            format!("`{value}` is not {what} (a whole number ≥ 0)"),
        )
    })
}

/// An on/off flag: `1`, `true`, `on` or `0`, `false`, `off`.
pub fn flag(param: &str, value: &str) -> Result<bool, UrlError> {
    match value.trim() {
        "1" | "true" | "on" => Ok(true),
        "0" | "false" | "off" => Ok(false),
        _ => Err(error(param, format!("`{value}` is not 1 or 0"))),
    }
}

/// Decodes `%XX` escapes and `+` (some apps re-encode `@` and `,` when a link is shared).
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 3;
                    }
                    Err(_) => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
