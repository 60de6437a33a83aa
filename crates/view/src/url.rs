//! What every link of the page shares: [`PageLink`], what the page root reads of a link
//! before a dashboard's own parser does (which dashboard, present mode, the embed form), and the
//! skeleton both dashboards' parsers share (micro-batch [`crate::microbatch::url::parse`] and
//! topology [`crate::topology::parse_topology`]): the `key=value` pairs of a hash,
//! percent-decoding, whole numbers, on/off flags, comma lists, and the error that names the
//! parameter.

use std::fmt;

/// Which dashboard a link opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dashboard {
    /// Spark micro-batches (any link without `mode=`).
    Micro,
    /// FLIP-276 timestamp barriers across an ETL topology (`mode=topology`).
    Topology,
    /// A real Spark checkpoint folder dropped on the page (`mode=inspect`).
    Inspect,
}

impl Dashboard {
    /// The hash that opens the dashboard's default page (without `#`; empty for micro-batch).
    pub fn hash(self) -> &'static str {
        match self {
            Dashboard::Micro => "",
            Dashboard::Topology => "mode=topology",
            Dashboard::Inspect => "mode=inspect",
        }
    }
}

/// What the page root reads of a link, once, before the dashboard it opens reads the rest:
/// which dashboard (`mode=`), present mode (`present=1`) and the embed form (`embed=1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageLink {
    /// The dashboard the link opens.
    pub dashboard: Dashboard,
    /// `present=1`: laid out for a projector.
    pub present: bool,
    /// `embed=1`: without the header, for a slide or a post.
    pub embed: bool,
}

impl PageLink {
    /// Reads `hash` (with or without its `#`). Never fails: a `mode=` other than `topology` or
    /// `inspect` is the micro-batch dashboard's (whose parser names what is wrong), and a flag
    /// is on only as `=1`.
    pub fn parse(hash: &str) -> PageLink {
        let mut link = PageLink {
            dashboard: Dashboard::Micro,
            present: false,
            embed: false,
        };
        for (key, value) in pairs(hash) {
            match (key.as_str(), value.as_str()) {
                ("mode", "topology") => link.dashboard = Dashboard::Topology,
                ("mode", "inspect") => link.dashboard = Dashboard::Inspect,
                ("present", "1") => link.present = true,
                ("embed", "1") => link.embed = true,
                _ => {}
            }
        }
        link
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_link_names_the_dashboard_and_the_layout() {
        let link = PageLink::parse("#mode=topology&topology=chain&present=1");
        assert_eq!(link.dashboard, Dashboard::Topology);
        assert!(link.present && !link.embed);
        assert_eq!(
            PageLink::parse("mode=inspect&embed=1").dashboard,
            Dashboard::Inspect
        );
        assert!(PageLink::parse("mode=inspect&embed=1").embed);
        let micro = PageLink::parse("#preset=tablestore&seed=7&present=10&xpresent=1");
        assert_eq!(micro.dashboard, Dashboard::Micro);
        assert!(!micro.present, "a flag is on only as =1");
        assert_eq!(
            PageLink::parse("#mode=top%6Flogy").dashboard,
            Dashboard::Topology
        );
        assert_eq!(PageLink::parse("").dashboard, Dashboard::Micro);
    }
}
