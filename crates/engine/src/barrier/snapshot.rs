//! Paimon snapshot files (SEMANTICS §5.2): the `snapshot-<id>` JSON a table gets for every
//! barrier it has WRITTEN, parsed and printed the way Jackson's default pretty printer does.

use std::io;

use serde::{Deserialize, Serialize};

/// Paimon's snapshot format version (`Snapshot.CURRENT_VERSION`).
pub const SNAPSHOT_VERSION: u32 = 3;

/// One Paimon snapshot file. Field order is Paimon's; absent optional fields are omitted
/// (Paimon ≥ 1.x omits nulls); unknown fields are ignored on read, as in Java.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaimonSnapshot {
    /// Snapshot format version (3).
    pub version: u32,
    /// Only in very recent writers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// Snapshot id, dense from 1.
    pub id: u64,
    /// Schema used.
    pub schema_id: u64,
    /// Manifest list of all earlier changes.
    pub base_manifest_list: String,
    /// Size of the base manifest list file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_manifest_list_size: Option<i64>,
    /// Manifest list of this snapshot's changes.
    pub delta_manifest_list: String,
    /// Size of the delta manifest list file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta_manifest_list_size: Option<i64>,
    /// Changelog manifest list, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changelog_manifest_list: Option<String>,
    /// Size of the changelog manifest list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changelog_manifest_list_size: Option<i64>,
    /// Index manifest, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_manifest: Option<String>,
    /// Writer id; stable across restarts of a streaming job.
    pub commit_user: String,
    /// Only in very recent writers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writer_version: Option<String>,
    /// Flink streaming: the checkpoint id — here the timestamp barrier; batch: `i64::MAX`.
    pub commit_identifier: i64,
    /// `APPEND`, `COMPACT`, `OVERWRITE`, `ANALYZE`.
    pub commit_kind: String,
    /// Commit time (simulated ms here).
    pub time_millis: i64,
    /// Records in all files.
    pub total_record_count: i64,
    /// Records in this snapshot's new files.
    pub delta_record_count: i64,
    /// Records in the changelog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changelog_record_count: Option<i64>,
    /// Input watermark.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watermark: Option<i64>,
    /// Row-tracking counter (recent writers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_row_id: Option<i64>,
}

impl PaimonSnapshot {
    /// Parses a snapshot file's text.
    pub fn from_json(text: &str) -> Result<Self, String> {
        serde_json::from_str(text).map_err(|e| format!("snapshot JSON: {e}"))
    }

    /// Prints the file as Java Paimon writes it: two-space indent, `" : "`, no final newline.
    pub fn to_paimon_json(&self) -> String {
        let mut out = Vec::new();
        let mut ser =
            serde_json::Serializer::with_formatter(&mut out, JacksonPrettyFormatter::default());
        self.serialize(&mut ser)
            .expect("a snapshot always serializes");
        String::from_utf8(out).expect("serde_json writes UTF-8")
    }
}

/// Jackson's `DefaultPrettyPrinter`: like serde_json's pretty printer but with `" : "` between
/// key and value and `{ }` / `[ ]` for empty containers.
#[derive(Default)]
struct JacksonPrettyFormatter {
    indent: usize,
    has_value: bool,
}

impl JacksonPrettyFormatter {
    fn newline_indent<W: ?Sized + io::Write>(&self, w: &mut W) -> io::Result<()> {
        w.write_all(b"\n")?;
        for _ in 0..self.indent {
            w.write_all(b"  ")?;
        }
        Ok(())
    }

    fn open<W: ?Sized + io::Write>(&mut self, w: &mut W, c: &[u8]) -> io::Result<()> {
        self.indent += 1;
        self.has_value = false;
        w.write_all(c)
    }

    fn close<W: ?Sized + io::Write>(&mut self, w: &mut W, c: &[u8]) -> io::Result<()> {
        self.indent -= 1;
        if self.has_value {
            self.newline_indent(w)?;
        } else {
            w.write_all(b" ")?;
        }
        w.write_all(c)
    }

    fn item<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        self.newline_indent(w)
    }
}

impl serde_json::ser::Formatter for JacksonPrettyFormatter {
    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"[")
    }
    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"]")
    }
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.item(w, first)
    }
    fn end_array_value<W: ?Sized + io::Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"{")
    }
    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"}")
    }
    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.item(w, first)
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b" : ")
    }
    fn end_object_value<W: ?Sized + io::Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}
