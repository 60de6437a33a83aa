//! Short texts for arrows and cells: UUIDs cut to 8 characters, offset JSON compacted.

use batchscope_engine::microbatch::event::EventKind;
use serde_json::Value;

/// Length a UUID is cut to in labels (`7f3a1c2e-…` → `7f3a1c2e`).
pub const UUID_SHORT: usize = 8;

/// Whether `s` looks like a hyphenated UUID (8-4-4-4-12 hex digits).
pub fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// Cuts every UUID inside `text` to its first 8 characters.
pub fn shorten_uuids(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text.is_char_boundary(i) && i + 36 <= text.len() && text.is_char_boundary(i + 36) {
            let cand = &text[i..i + 36];
            let boundary_before = i == 0 || !text.as_bytes()[i - 1].is_ascii_alphanumeric();
            let boundary_after = text
                .as_bytes()
                .get(i + 36)
                .is_none_or(|c| !c.is_ascii_alphanumeric());
            if boundary_before && boundary_after && is_uuid(cand) {
                out.push_str(&cand[..UUID_SHORT]);
                i += 36;
                continue;
            }
        }
        let ch = text[i..].chars().next().expect("inside the string");
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// A source offset as a reader wants to see it: a Kafka offset `{"cdc":{"0":3,"1":5}}` becomes
/// `{0:3,1:5}`, a channel-position offset becomes `{ch0:t:3,ch1:t:5}`, a UUID is cut to 8
/// characters; anything else is returned unchanged.
pub fn compact_offset(offset: &str) -> String {
    if is_uuid(offset) {
        return offset[..UUID_SHORT].to_string();
    }
    let Ok(Value::Object(topics)) = serde_json::from_str::<Value>(offset) else {
        return offset.to_string();
    };
    let mut parts = vec![];
    for (_, parts_of_topic) in topics {
        let Value::Object(map) = parts_of_topic else {
            return offset.to_string();
        };
        for (key, v) in map {
            let value = match &v {
                Value::Number(n) => n.to_string(),
                Value::Object(o) => match o.get("logPoint").and_then(Value::as_str) {
                    Some(lp) => lp.to_string(),
                    None => return offset.to_string(),
                },
                _ => return offset.to_string(),
            };
            parts.push(format!("{key}:{value}"));
        }
    }
    format!("{{{}}}", parts.join(","))
}

/// Replaces every balanced `{…}` JSON object inside `text` by its compact form, and cuts UUIDs.
pub fn compact_label(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let mut depth = 0i32;
        let mut end = None;
        for (i, c) in rest[start..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(start + i + 1);
                        break;
                    }
                }
                _ => {}
            }
        }
        match end {
            Some(end) => {
                out.push_str(&compact_offset(&rest[start..end]));
                rest = &rest[end..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    shorten_uuids(&out)
}

/// The label of an event's arrow: the engine's label with offsets compacted and UUIDs cut.
pub fn arrow_label(kind: &EventKind) -> String {
    arrow_label_of(kind, kind.label())
}

/// [`arrow_label`] in a scenario whose source is `source` (`EventKind::label_for`: a Kafka
/// task fetches).
pub fn arrow_label_for(
    kind: &EventKind,
    source: batchscope_engine::microbatch::scenario::SourceKind,
) -> String {
    arrow_label_of(kind, kind.label_for(source))
}

fn arrow_label_of(kind: &EventKind, label: String) -> String {
    let label = match kind {
        EventKind::Idle { until_ms } => format!("wait for trigger ({until_ms} ms)"),
        _ => label,
    };
    compact_label(&label)
}

/// Cuts `text` to at most `max` characters, ending with `…` when cut.
pub fn ellipsize(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
    s.push('…');
    s
}

/// Shows the bytes of a checkpoint file as text; a leading 0x00 marker byte (`sources/0/0`)
/// and any other control byte except newline appear as `\0`, `\x01`… so nothing is hidden.
pub fn file_text(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\0' => out.push_str("\\0"),
            '\n' => out.push('\n'),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Ascending ids as runs, `0–3, 5, 7–9`: a long run's `_spark_metadata` lists a thousand
/// batch ids, nearly always one run.
pub fn id_ranges(ids: &[u64]) -> String {
    let mut runs: Vec<(u64, u64)> = vec![];
    for &id in ids {
        match runs.last_mut() {
            Some((_, end)) if id == *end + 1 => *end = id,
            _ => runs.push((id, id)),
        }
    }
    runs.iter()
        .map(|&(a, b)| match b - a {
            0 => a.to_string(),
            1 => format!("{a}, {b}"),
            _ => format!("{a}–{b}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_ranges_join_consecutive_ids() {
        assert_eq!(id_ranges(&[]), "");
        assert_eq!(id_ranges(&[4]), "4");
        assert_eq!(
            id_ranges(&[0, 1, 2, 3, 5, 7, 8, 10, 11, 12]),
            "0–3, 5, 7, 8, 10–12"
        );
        let long: Vec<u64> = (0..1000).collect();
        assert_eq!(id_ranges(&long), "0–999");
    }
    use batchscope_engine::microbatch::event::Recovery;

    const U: &str = "eac8f321-1a2b-4c3d-8e9f-0123456789ab";

    #[test]
    fn uuids_are_recognised_and_cut_to_eight_characters() {
        assert!(is_uuid(U));
        assert!(!is_uuid("eac8f321-1a2b-4c3d-8e9f-0123456789az"));
        assert!(!is_uuid("t:17"));
        assert_eq!(
            shorten_uuids(&format!("putRow {U} ch0 = t:3")),
            "putRow eac8f321 ch0 = t:3"
        );
        assert_eq!(shorten_uuids(&format!("{U}\n{U}")), "eac8f321\neac8f321");
        // Non-ASCII text around a UUID survives.
        assert_eq!(shorten_uuids(&format!("→ {U} ✓")), "→ eac8f321 ✓");
    }

    #[test]
    fn offsets_are_compacted() {
        assert_eq!(compact_offset(r#"{"cdc":{"0":12,"1":12}}"#), "{0:12,1:12}");
        assert_eq!(
            compact_offset(
                r#"{"cdc#tunnel-cdc":{"ch0":{"logPoint":"t:3","offset":0},"ch1":{"logPoint":"finished","offset":0}}}"#
            ),
            "{ch0:t:3,ch1:finished}"
        );
        assert_eq!(compact_offset(U), "eac8f321");
        assert_eq!(compact_offset("not json"), "not json");
        assert_eq!(compact_offset(r#"{"a":[1]}"#), r#"{"a":[1]}"#);
    }

    #[test]
    fn arrow_labels_are_short() {
        let kind = EventKind::GetBatch {
            batch_id: 3,
            start: Some(r#"{"cdc":{"0":9,"1":9}}"#.into()),
            end: r#"{"cdc":{"0":12,"1":12}}"#.into(),
            partitions: vec![],
        };
        assert_eq!(arrow_label(&kind), "GetBatch({0:9,1:9}, {0:12,1:12})");
        let kind = EventKind::GetOffset {
            batch_id: 1,
            end: U.into(),
            rows_read: 0,
        };
        assert_eq!(arrow_label(&kind), "GetOffset → eac8f321");
        let kind = EventKind::Recovered {
            latest_offset: Some(3),
            latest_commit: Some(2),
            recovery: Recovery::Rerun { batch_id: 3 },
        };
        assert_eq!(arrow_label(&kind), "commits/3 missing: re-run 3");
        assert_eq!(
            arrow_label(&EventKind::Idle { until_ms: 2050 }),
            "wait for trigger (2050 ms)"
        );
        // An unbalanced brace is left alone.
        assert_eq!(compact_label("a {b"), "a {b");
    }

    #[test]
    fn ellipsize_cuts_long_text_only() {
        assert_eq!(ellipsize("short", 10), "short");
        assert_eq!(ellipsize("0123456789abc", 6), "01234…");
    }

    #[test]
    fn the_zero_marker_byte_is_shown() {
        let bytes = b"\0v2\neac8f321";
        assert_eq!(file_text(bytes), "\\0v2\neac8f321");
        assert_eq!(file_text(b"v1\n{}"), "v1\n{}");
        assert_eq!(file_text(b"a\x01b"), "a\\x01b");
    }
}
