//! `batchscope inspect`: read a real Spark checkpoint folder (2.x to 4.3), say what a
//! restart does and why, and what Spark would fail on.
//!
//! The directory is read here (the only I/O); parsing, the restart dry-run and the linter
//! are the engine's (`batchscope_engine::checkpoint::inspect`), so the simulation, this
//! command and the dashboard agree.

use crate::inspect_input::gone_input_files;
use crate::store;
use batchscope_engine::checkpoint::{byte_limit, is_ignored_name};
pub use batchscope_engine::checkpoint::{inspect, InspectOptions, Inspection};
use batchscope_engine::checkpoint::{
    CheckpointFolder, RestartOptions, Severity, SourceId, SparkVersion, COMMIT_LOG_DIR,
    METADATA_FILE, OFFSET_LOG_DIR, SINK_LOG_DIR, SOURCES_DIR, STATE_DIR,
};
use batchscope_engine::microbatch::scenario::SinkKind;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};

/// Arguments of `batchscope inspect`.
#[derive(clap::Args, Debug, Default)]
pub struct InspectArgs {
    /// The checkpoint root (the folder holding `metadata`, `offsets/`, `commits/`), or its
    /// URL in an object store: s3://bucket/prefix (or s3a://), az://container/prefix (or
    /// azure://, abfss://container@account.dfs.core.windows.net/prefix, wasbs://),
    /// gs://bucket/prefix, file:///absolute/path; configured from the standard AWS_*,
    /// AZURE_*, GOOGLE_* environment variables.
    #[arg(value_name = "DIR|URL")]
    pub dir: PathBuf,
    /// Print the inspection as JSON instead of a text summary.
    #[arg(long)]
    pub json: bool,
    /// The file sink's output folder: its `_spark_metadata/` manifest says whether a
    /// re-run batch is skipped.
    #[arg(long, value_name = "DIR")]
    pub sink: Option<PathBuf>,
    /// What the restart means for this kind of sink: file, upsert, append, foreach-batch,
    /// two-phase, batch-id-in-memory.
    #[arg(long, value_name = "KIND", value_parser = parse_sink_kind)]
    pub sink_kind: Option<SinkKind>,
    /// A conf the restarted query sets (KEY=VALUE, repeatable); compared with the confs
    /// Spark restores from the offset metadata.
    #[arg(long, value_name = "KEY=VALUE", value_parser = parse_conf)]
    pub conf: Vec<(String, String)>,
    /// The Spark release that restarts the query (e.g. 3.5, 4.3); rules differ by release.
    #[arg(long, value_name = "VERSION", value_parser = parse_spark, default_value = "4.3")]
    pub spark: SparkVersion,
    /// The restarted query enables async progress tracking.
    #[arg(long)]
    pub async_progress_tracking: bool,
    /// The restarted query's sources: a count (`2`) or names (`orders,users`).
    #[arg(long, value_name = "N|NAMES", value_parser = parse_sources)]
    pub sources: Option<QuerySources>,
    /// Seconds each request to an object store may take before the command gives up
    /// (default 10, or BATCHSCOPE_STORE_TIMEOUT_SECS).
    #[arg(long, value_name = "SECS")]
    pub timeout_secs: Option<u64>,
}

/// The sources of the restarted query, as `--sources` gives them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuerySources(pub Vec<SourceId>);

fn parse_sink_kind(text: &str) -> Result<SinkKind, String> {
    SinkKind::parse(text).ok_or_else(|| {
        let names: Vec<&str> = SinkKind::ALL.iter().map(|k| k.name()).collect();
        format!("`{text}` is not a sink kind: {}", names.join(", "))
    })
}

fn parse_conf(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_owned(), value.to_owned())),
        _ => Err(format!("`{text}` is not KEY=VALUE")),
    }
}

fn parse_spark(text: &str) -> Result<SparkVersion, String> {
    SparkVersion::parse(text).ok_or_else(|| format!("`{text}` is not a Spark version like 3.5"))
}

fn parse_sources(text: &str) -> Result<QuerySources, String> {
    if let Ok(count) = text.parse::<u32>() {
        return Ok(QuerySources((0..count).map(SourceId::Index).collect()));
    }
    let names: Vec<SourceId> = text
        .split(',')
        .map(|name| SourceId::Name(name.trim().to_owned()))
        .collect();
    if names
        .iter()
        .any(|id| matches!(id, SourceId::Name(name) if name.is_empty()))
    {
        return Err(format!("`{text}` is not a count or a list of source names"));
    }
    Ok(QuerySources(names))
}

impl InspectArgs {
    /// Arguments for a folder with every option at its default.
    pub fn for_dir(dir: impl Into<PathBuf>) -> InspectArgs {
        InspectArgs {
            dir: dir.into(),
            spark: SparkVersion::LATEST,
            ..InspectArgs::default()
        }
    }
}

/// Runs `batchscope inspect`; returns the process exit code (0 ok, 2 bad input with
/// one line on stderr naming the problem).
pub fn run(args: &InspectArgs) -> i32 {
    let (folder, notes) = match read_checkpoint(args) {
        Ok(read) => read,
        Err(message) => {
            eprintln!("error: {message}");
            return 2;
        }
    };
    let sink = match &args.sink {
        Some(dir) => match read_sink(dir) {
            Ok(sink) => Some(sink),
            Err(message) => {
                eprintln!("error: {message}");
                return 2;
            }
        },
        None => None,
    };
    let restart = RestartOptions {
        spark: args.spark,
        async_progress_tracking: args.async_progress_tracking,
        query_sources: args.sources.clone().map(|sources| sources.0),
    };
    let options = InspectOptions {
        input_files_gone: gone_input_files(&folder, &restart),
        restart,
        conf: args.conf.iter().cloned().collect::<BTreeMap<_, _>>(),
        sink_kind: args.sink_kind,
        sink,
    };
    let mut inspection = inspect(&folder, &options);
    inspection.notes.extend(notes);
    if args.json {
        match serde_json::to_string_pretty(&inspection) {
            Ok(json) => println!("{json}"),
            Err(error) => {
                eprintln!("error: cannot write the inspection as JSON: {error}");
                return 2;
            }
        }
    } else {
        print!("{}", render_text(&inspection));
    }
    0
}

/// Reads the checkpoint that `args.dir` names: a folder, or a URL of an object store
/// (`crate::store`), with the same limits and notes.
fn read_checkpoint(args: &InspectArgs) -> Result<(CheckpointFolder, Vec<String>), String> {
    match args.dir.to_str().filter(|text| store::looks_like_url(text)) {
        Some(url) => store::read_url(url, store::timeout(args.timeout_secs)?),
        None => read_folder_with_notes(&args.dir),
    }
}

pub use batchscope_engine::checkpoint::{
    MAX_DEPTH, MAX_ENTRIES, MAX_FILE_BYTES, MAX_LOG_FILE_BYTES, MAX_NOTES, MAX_TOTAL_BYTES,
};

/// Reads a checkpoint root into memory: `metadata`, `offsets/*`, `commits/*` and
/// `sources/**` with their bytes; `state/**` files are listed with empty content (they
/// are binary and only counted). Hidden files (Hadoop's `.crc`) and `*.tmp` files are
/// skipped. The error is one line naming the path and the reason. Damage is not an
/// error: see [`read_folder_with_notes`], which also returns what was skipped.
pub fn read_folder(dir: &Path) -> Result<CheckpointFolder, String> {
    read_folder_with_notes(dir).map(|(folder, _)| folder)
}

/// Like [`read_folder`], and returns the report lines about what was skipped. Bounded for
/// damaged folders: symbolic links below the root are never followed (so no loop can be
/// entered; each is a note), at most [`MAX_ENTRIES`] entries per folder, log files over
/// [`MAX_LOG_FILE_BYTES`], `sources/` files over [`MAX_FILE_BYTES`] and beyond
/// [`MAX_TOTAL_BYTES`] in total are skipped, `sources/` and `state/` are read
/// [`MAX_DEPTH`] levels deep; a FIFO, socket or device is never opened (its type is
/// checked first); a directory where a file is expected, a name that is not
/// UTF-8 and a read error are notes too. Errors only when `dir` is not a directory or
/// holds neither a `metadata` file nor an `offsets/` directory.
pub fn read_folder_with_notes(dir: &Path) -> Result<(CheckpointFolder, Vec<String>), String> {
    let shown = dir.display();
    let meta = fs::metadata(dir).map_err(|error| format!("{shown}: {error}"))?;
    if !meta.is_dir() {
        return Err(format!("{shown}: not a directory"));
    }
    let kind = |name: &str| fs::symlink_metadata(dir.join(name)).ok();
    let metadata_entry = kind(METADATA_FILE);
    let offsets_entry = kind(OFFSET_LOG_DIR);
    if metadata_entry.is_none() && !offsets_entry.as_ref().is_some_and(|m| m.is_dir()) {
        return Err(format!(
            "{shown}: not a Spark checkpoint folder (no `metadata` file and no `offsets/` \
             directory)"
        ));
    }
    let mut reader = Reader::default();
    let mut files = Vec::new();
    if metadata_entry.is_some() {
        reader.file(dir, METADATA_FILE, true, &mut files);
    }
    for log_dir in [OFFSET_LOG_DIR, COMMIT_LOG_DIR] {
        reader.collect(dir, log_dir, 0, false, true, &mut files);
    }
    reader.collect(dir, SOURCES_DIR, 0, true, true, &mut files);
    reader.collect(dir, STATE_DIR, 0, true, false, &mut files);
    reader.unknown_entries(dir);
    Ok((CheckpointFolder::from_files(files), reader.finish()))
}

/// The bounded disk reader: what it has read so far and the notes about what it skipped.
#[derive(Default)]
struct Reader {
    bytes: u64,
    notes: Vec<String>,
    dropped_notes: usize,
}

impl Reader {
    fn note(&mut self, line: String) {
        if self.notes.len() < MAX_NOTES {
            self.notes.push(line);
        } else {
            self.dropped_notes += 1;
        }
    }

    fn finish(mut self) -> Vec<String> {
        if self.dropped_notes > 0 {
            self.notes.push(format!(
                "{} more skipped entries not listed",
                self.dropped_notes
            ));
        }
        self.notes
    }

    /// The names in `dir` (sorted, hidden and `*.tmp` left out), at most [`MAX_ENTRIES`].
    fn names(&mut self, dir: &Path, relative: &str) -> Vec<String> {
        let entries = match fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(error) => {
                self.note(format!("{relative}: cannot be listed ({error}); skipped"));
                return Vec::new();
            }
        };
        let mut names = Vec::new();
        for (seen, entry) in entries.enumerate() {
            if seen >= MAX_ENTRIES {
                self.note(format!(
                    "{relative}: more than {MAX_ENTRIES} entries; the rest not read"
                ));
                break;
            }
            let entry = match entry {
                Ok(entry) => entry,
                Err(error) => {
                    self.note(format!(
                        "{relative}: listing failed ({error}); the rest not read"
                    ));
                    break;
                }
            };
            match entry.file_name().into_string() {
                Ok(name) if is_ignored_name(&name) => {}
                Ok(name) => names.push(name),
                Err(name) => self.note(format!(
                    "{relative}/{}: file name is not UTF-8; skipped",
                    name.to_string_lossy()
                )),
            }
        }
        names.sort();
        names
    }

    /// Reads the files of `root/relative`: its direct files, or every file below it when
    /// `recursive` (at most [`MAX_DEPTH`] deep); with `contents == false` only the names
    /// are recorded.
    fn collect(
        &mut self,
        root: &Path,
        relative: &str,
        depth: usize,
        recursive: bool,
        contents: bool,
        files: &mut Vec<(String, Vec<u8>)>,
    ) {
        let dir = root.join(relative);
        match fs::symlink_metadata(&dir) {
            Ok(meta) if meta.is_dir() => {}
            Ok(meta) if meta.file_type().is_symlink() => {
                return self.note(format!("{relative}: symbolic link; not followed"));
            }
            Ok(_) => return self.note(format!("{relative}: not a directory; skipped")),
            Err(_) => return,
        }
        if depth > MAX_DEPTH {
            return self.note(format!(
                "{relative}: nested deeper than {MAX_DEPTH}; skipped"
            ));
        }
        for name in self.names(&dir, relative) {
            let child = format!("{relative}/{name}");
            let is_dir = fs::symlink_metadata(dir.join(&name)).is_ok_and(|m| m.is_dir());
            if is_dir && recursive {
                self.collect(root, &child, depth + 1, recursive, contents, files);
            } else {
                self.file(root, &child, contents, files);
            }
        }
    }

    /// Reads one file expected at `root/relative`, or notes why it is skipped.
    fn file(
        &mut self,
        root: &Path,
        relative: &str,
        contents: bool,
        files: &mut Vec<(String, Vec<u8>)>,
    ) {
        let path = root.join(relative);
        let meta = match fs::symlink_metadata(&path) {
            Ok(meta) => meta,
            Err(error) => return self.note(format!("{relative}: {error}; skipped")),
        };
        let file_type = meta.file_type();
        if file_type.is_symlink() {
            return self.note(format!("{relative}: symbolic link; not followed"));
        }
        if file_type.is_dir() {
            return self.note(format!(
                "{relative}: a directory where a file is expected; skipped"
            ));
        }
        if !file_type.is_file() {
            return self.note(format!(
                "{relative}: not a regular file (a FIFO, socket or device); not opened"
            ));
        }
        if !contents {
            files.push((relative.to_owned(), Vec::new()));
            return;
        }
        let limit = byte_limit(relative);
        if meta.len() > limit {
            return self.note(format!(
                "{relative}: {} bytes, over the {limit}-byte limit; skipped",
                meta.len()
            ));
        }
        if self.bytes + meta.len() > MAX_TOTAL_BYTES {
            return self.note(format!(
                "{relative}: over the {MAX_TOTAL_BYTES}-byte limit for the folder; skipped"
            ));
        }
        let mut bytes = Vec::new();
        let read = fs::File::open(&path).and_then(|file| file.take(limit).read_to_end(&mut bytes));
        match read {
            Ok(_) => {
                self.bytes += bytes.len() as u64;
                files.push((relative.to_owned(), bytes));
            }
            Err(error) => self.note(format!("{relative}: cannot be read ({error}); skipped")),
        }
    }

    /// Notes the top-level entries of the checkpoint root that Spark does not write.
    fn unknown_entries(&mut self, dir: &Path) {
        let known = [
            METADATA_FILE,
            OFFSET_LOG_DIR,
            COMMIT_LOG_DIR,
            SOURCES_DIR,
            STATE_DIR,
        ];
        for name in self.names(dir, ".") {
            if !known.contains(&name.as_str()) {
                self.note(format!("{name}: not part of a Spark checkpoint; ignored"));
            }
        }
    }
}

/// Reads the `_spark_metadata/` entries of a file sink's output folder (bounded like
/// [`read_folder_with_notes`]; skipped entries are left out).
pub fn read_sink(dir: &Path) -> Result<CheckpointFolder, String> {
    let shown = dir.display();
    if !dir.join(SINK_LOG_DIR).is_dir() {
        return Err(format!(
            "{shown}: not a file sink output folder (no `{SINK_LOG_DIR}/` directory)"
        ));
    }
    let mut files = Vec::new();
    Reader::default().collect(dir, SINK_LOG_DIR, 0, false, true, &mut files);
    Ok(CheckpointFolder::from_files(files))
}

/// A readable summary: formats, batches, sources, state, the restart step by step and
/// the problems.
pub fn render_text(i: &Inspection) -> String {
    let mut out = String::new();
    let none = || "-".to_owned();
    let _ = writeln!(
        out,
        "query id: {}",
        i.query_id
            .clone()
            .unwrap_or_else(|| "(no metadata file)".to_owned())
    );
    let offset_log = match (i.format.offset_log, i.latest_offset) {
        (Some(version), Some(id)) => format!(
            "v{version}{}, latest offsets/{id}",
            if i.format.named_sources {
                " (named sources)"
            } else {
                ""
            }
        ),
        (None, Some(id)) => format!("unreadable, latest offsets/{id}"),
        _ => "empty".to_owned(),
    };
    let commit_log = match (i.format.commit_log, i.latest_commit) {
        (Some(version), Some(id)) => format!("v{version}, latest commits/{id}"),
        (None, Some(id)) => format!("unreadable, latest commits/{id}"),
        _ => "empty".to_owned(),
    };
    let _ = writeln!(out, "offset log: {offset_log}; commit log: {commit_log}");
    if !i.batches.is_empty() {
        let _ = writeln!(
            out,
            "{:>8}  {:<9}  {:>12}  {:>14}  {:>15}  offsets",
            "batch", "committed", "watermark_ms", "timestamp_ms", "next_wm_ms"
        );
        for batch in &i.batches {
            let offsets = if !batch.has_offsets {
                "(no offsets file)".to_owned()
            } else if batch.offset_version.is_none() {
                "(unreadable)".to_owned()
            } else {
                batch
                    .offsets
                    .iter()
                    .map(|o| format!("{}={}", o.id, o.offset.as_deref().unwrap_or("-")))
                    .collect::<Vec<_>>()
                    .join(" | ")
            };
            let _ = writeln!(
                out,
                "{:>8}  {:<9}  {:>12}  {:>14}  {:>15}  {}",
                batch.batch_id,
                if batch.committed { "yes" } else { "no" },
                batch
                    .batch_watermark_ms
                    .map_or_else(none, |v| v.to_string()),
                batch
                    .batch_timestamp_ms
                    .map_or_else(none, |v| v.to_string()),
                batch
                    .next_batch_watermark_ms
                    .map_or_else(none, |v| v.to_string()),
                offsets
            );
        }
    }
    for source in &i.sources {
        let _ = write!(
            out,
            "source {}: {}, {} private file(s)",
            source.id, source.kind, source.private_files
        );
        if let Some(log) = &source.file_log {
            let _ = write!(
                out,
                ", file-source log up to entry {} ({} compact), {} input file(s)",
                log.latest_entry.map_or_else(none, |v| v.to_string()),
                log.compact_entries.len(),
                log.input_files
            );
        }
        if let Some(initial) = &source.initial_offset {
            let _ = write!(out, ", initial offset {initial}");
        }
        out.push('\n');
    }
    if let Some(state) = &i.state {
        for op in &state.operators {
            let _ = writeln!(
                out,
                "state operator {}: {} partition(s), {} file(s), latest version {}",
                op.operator_id,
                op.partitions,
                op.files,
                op.latest_version.map_or_else(none, |v| v.to_string())
            );
        }
    }
    if let Some(sink) = &i.sink {
        let _ = writeln!(
            out,
            "file sink manifest: latest batch {}",
            sink.latest_batch.map_or_else(none, |v| v.to_string())
        );
    }
    render_restart(i, &mut out);
    out
}

/// The restart, its input and restored confs, the problems and the notes.
fn render_restart(i: &Inspection, out: &mut String) {
    let restart = match (i.restart.action.as_str(), i.restart.batch) {
        ("rerun", Some(batch)) => format!("re-run batch {batch}"),
        ("next", Some(batch)) => format!("run next batch {batch}"),
        ("fresh", _) => "start fresh at batch 0".to_owned(),
        ("fail", _) => "fails".to_owned(),
        (other, _) => other.to_owned(),
    };
    let _ = writeln!(
        out,
        "restart (Spark {}): {restart} ({})",
        i.spark, i.restart.reason
    );
    let _ = writeln!(out, "  rule: {}", i.restart.rule);
    for (n, step) in i.restart.steps.iter().enumerate().skip(1) {
        let _ = writeln!(out, "  {n}. {step}");
    }
    if let Some(error) = &i.restart.spark_error {
        let _ = writeln!(out, "  Spark: {error}");
    }
    for file in i.rerun_input.iter().flat_map(|input| &input.files) {
        let state = match file.missing {
            Some(true) => "gone",
            Some(false) => "present",
            None => "not checked",
        };
        let _ = writeln!(out, "  input: {} ({state})", file.path);
    }
    if i.problems.is_empty() {
        let _ = writeln!(out, "problems: none");
    }
    for problem in &i.problems {
        let severity = match problem.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let _ = writeln!(out, "{severity} [{}]: {}", problem.code, problem.message);
        if let Some(says) = &problem.spark_says {
            let _ = writeln!(out, "  Spark: {says}");
        }
    }
    for note in &i.notes {
        let _ = writeln!(out, "note: {note}");
    }
}
