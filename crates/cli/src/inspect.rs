//! `batchscope inspect`: read a real Spark checkpoint folder and predict what a restart does.
//!
//! The directory is read here (the only I/O); parsing and the restart decision are the
//! engine's (`batchscope_engine::checkpoint`), so the simulation and this command agree.

use batchscope_engine::checkpoint::{
    parse_initial_offset, restart_plan, CheckpointError, CheckpointFolder, RestartAction,
    COMMIT_LOG_DIR, METADATA_FILE, OFFSET_LOG_DIR,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// Arguments of `batchscope inspect`.
#[derive(clap::Args, Debug)]
pub struct InspectArgs {
    /// The checkpoint root (the folder holding `metadata`, `offsets/`, `commits/`).
    pub dir: PathBuf,
    /// Print the inspection as JSON instead of a text summary.
    #[arg(long)]
    pub json: bool,
}

/// Directory of source-private files inside the checkpoint root.
const SOURCES_DIR: &str = "sources";
/// Directory of state store files (binary; only counted).
const STATE_DIR: &str = "state";

/// Runs `batchscope inspect`; returns the process exit code (0 ok, 2 bad input with
/// one line on stderr naming the problem).
pub fn run(args: &InspectArgs) -> i32 {
    let folder = match read_folder(&args.dir) {
        Ok(folder) => folder,
        Err(message) => {
            eprintln!("error: {message}");
            return 2;
        }
    };
    let inspection = match inspect(&folder) {
        Ok(inspection) => inspection,
        Err(error) => {
            eprintln!("error: {}/{error}", args.dir.display());
            return 2;
        }
    };
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

/// Reads a checkpoint root into memory: `metadata`, `offsets/*`, `commits/*` and
/// `sources/**` with their bytes; `state/**` files are listed with empty content (they
/// are binary and only counted). Hidden files (Hadoop's `.crc`) and `*.tmp` files are
/// skipped. The error is one line naming the path and the reason.
pub fn read_folder(dir: &Path) -> Result<CheckpointFolder, String> {
    let shown = dir.display();
    let meta = fs::metadata(dir).map_err(|error| format!("{shown}: {error}"))?;
    if !meta.is_dir() {
        return Err(format!("{shown}: not a directory"));
    }
    let metadata_path = dir.join(METADATA_FILE);
    let offsets_dir = dir.join(OFFSET_LOG_DIR);
    if !metadata_path.is_file() && !offsets_dir.is_dir() {
        return Err(format!(
            "{shown}: not a Spark checkpoint folder (no `metadata` file and no `offsets/` \
             directory)"
        ));
    }
    let mut files = Vec::new();
    if metadata_path.is_file() {
        files.push((METADATA_FILE.to_owned(), read_file(&metadata_path)?));
    }
    for log_dir in [OFFSET_LOG_DIR, COMMIT_LOG_DIR] {
        collect(dir, log_dir, false, true, &mut files)?;
    }
    collect(dir, SOURCES_DIR, true, true, &mut files)?;
    collect(dir, STATE_DIR, true, false, &mut files)?;
    Ok(CheckpointFolder::from_files(files))
}

/// Reads the files of `root/relative`: its direct files, or every file below it when
/// `recursive`; with `contents == false` only the names are recorded.
fn collect(
    root: &Path,
    relative: &str,
    recursive: bool,
    contents: bool,
    files: &mut Vec<(String, Vec<u8>)>,
) -> Result<(), String> {
    let dir = root.join(relative);
    if !dir.is_dir() {
        return Ok(());
    }
    let entries = fs::read_dir(&dir).map_err(|error| format!("{}: {error}", dir.display()))?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|error| format!("{}: {error}", dir.display()))?;
        let name = entry
            .file_name()
            .into_string()
            .map_err(|name| format!("{}: file name {name:?} is not UTF-8", dir.display()))?;
        if name.starts_with('.') || name.ends_with(".tmp") {
            continue;
        }
        names.push(name);
    }
    names.sort();
    for name in names {
        let path = dir.join(&name);
        let child = format!("{relative}/{name}");
        if path.is_dir() {
            if recursive {
                collect(root, &child, recursive, contents, files)?;
            }
        } else if path.is_file() {
            let bytes = if contents {
                read_file(&path)?
            } else {
                Vec::new()
            };
            files.push((child, bytes));
        }
    }
    Ok(())
}

fn read_file(path: &Path) -> Result<Vec<u8>, String> {
    fs::read(path).map_err(|error| format!("{}: {error}", path.display()))
}

/// What `inspect` found; its JSON form is a contract other tools parse.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inspection {
    /// The query id from `metadata`; `None` if the file is absent.
    pub query_id: Option<String>,
    /// Version of the latest offset entry (what Spark keeps using); `None` without one.
    pub offset_log_version: Option<u32>,
    /// Every batch id found in the offset log or the commit log, ascending.
    pub batches: Vec<BatchSummary>,
    /// Latest offset-log batch id (`L`).
    pub latest_offset: Option<u64>,
    /// Latest commit-log batch id (`C`).
    pub latest_commit: Option<u64>,
    /// Source-private folders `sources/<index>/`.
    pub sources: Vec<SourceSummary>,
    /// Number of files under `state/` (binary, not read).
    pub state_files: u64,
    /// What Spark does on restart.
    pub restart: RestartSummary,
    /// Things that are off but do not stop Spark.
    pub warnings: Vec<String>,
}

/// One batch id of the logs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchSummary {
    /// The batch id.
    pub batch_id: u64,
    /// Whether `offsets/<batch_id>` exists (a commit can outlive its purged offsets).
    pub has_offsets: bool,
    /// Raw offset text per source in plan order; `None` = `-` (no offset yet).
    pub offsets: Vec<Option<String>>,
    /// `batchWatermarkMs` of the offset metadata; `None` without metadata.
    pub batch_watermark_ms: Option<i64>,
    /// `batchTimestampMs` of the offset metadata; `None` without metadata.
    pub batch_timestamp_ms: Option<i64>,
    /// Whether `commits/<batch_id>` exists.
    pub committed: bool,
    /// `nextBatchWatermarkMs` of the commit; `None` if absent (`{}` of Spark 2.2/2.3)
    /// or not committed.
    pub next_batch_watermark_ms: Option<i64>,
}

/// One `sources/<index>/` folder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceSummary {
    /// Source index in plan order.
    pub index: u32,
    /// Files below it, relative to the checkpoint root, sorted.
    pub files: Vec<String>,
    /// Body of `sources/<index>/0` when it is an initial-offset file (0x00 + `v<N>\n` +
    /// body: Kafka JSON, Tablestore UUID); `None` otherwise.
    pub initial_offset: Option<String>,
    /// Version line of that initial-offset file (0 = Spark 2.1.0 form without one).
    pub initial_offset_version: Option<u32>,
}

/// The restart decision in the JSON contract's words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestartSummary {
    /// `fresh`, `rerun`, `next` or `fail`.
    pub action: String,
    /// The batch that runs (re-run or next); `None` for fresh and fail.
    pub batch: Option<u64>,
    /// One sentence why.
    pub reason: String,
}

/// Reads every log entry of the folder and predicts the restart. Any offsets, commits
/// or metadata file that does not parse is an error naming it.
pub fn inspect(folder: &CheckpointFolder) -> Result<Inspection, CheckpointError> {
    let query_id = folder.query_metadata()?.map(|meta| meta.id);
    let offset_ids = folder.offset_log_ids();
    let commit_ids = folder.commit_log_ids();
    let mut ids: Vec<u64> = offset_ids.iter().chain(&commit_ids).copied().collect();
    ids.sort_unstable();
    ids.dedup();
    let mut batches = Vec::new();
    let mut offset_log_version = None;
    for batch_id in ids {
        let offsets = folder.offsets(batch_id)?;
        let commit = folder.commit(batch_id)?;
        if let Some(seq) = &offsets {
            offset_log_version = Some(seq.version);
        }
        let metadata = offsets.as_ref().and_then(|seq| seq.metadata.as_ref());
        batches.push(BatchSummary {
            batch_id,
            has_offsets: offsets.is_some(),
            offsets: offsets
                .as_ref()
                .map(|seq| seq.offsets.clone())
                .unwrap_or_default(),
            batch_watermark_ms: metadata.map(|m| m.batch_watermark_ms),
            batch_timestamp_ms: metadata.map(|m| m.batch_timestamp_ms),
            committed: commit.is_some(),
            next_batch_watermark_ms: commit.and_then(|c| c.next_batch_watermark_ms),
        });
    }
    let plan = restart_plan(folder)?;
    let (action, batch) = match &plan.action {
        RestartAction::Fresh => ("fresh", Some(0)),
        RestartAction::Rerun { batch_id } => ("rerun", Some(*batch_id)),
        RestartAction::Next { batch_id } => ("next", Some(*batch_id)),
        RestartAction::Fail { .. } => ("fail", None),
    };
    let mut warnings = Vec::new();
    if query_id.is_none() {
        warnings.push(
            "there is no `metadata` file: Spark gives the query a new id when it starts".to_owned(),
        );
    }
    warnings.extend(plan.warnings);
    let (sources, source_warnings) = sources(folder);
    warnings.extend(source_warnings);
    let state_files = folder
        .files()
        .filter(|(path, _)| path.starts_with("state/"))
        .count() as u64;
    Ok(Inspection {
        query_id,
        offset_log_version,
        batches,
        latest_offset: offset_ids.last().copied(),
        latest_commit: commit_ids.last().copied(),
        sources,
        state_files,
        restart: RestartSummary {
            action: action.to_owned(),
            batch,
            reason: plan.reason,
        },
        warnings,
    })
}

fn sources(folder: &CheckpointFolder) -> (Vec<SourceSummary>, Vec<String>) {
    let mut by_index: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    let mut warnings = Vec::new();
    for (path, _) in folder.files() {
        let Some(rest) = path.strip_prefix("sources/") else {
            continue;
        };
        let index_text = rest.split('/').next().unwrap_or_default();
        match index_text.parse::<u32>() {
            Ok(index) if rest.contains('/') => {
                by_index.entry(index).or_default().push(path.to_owned())
            }
            _ => warnings.push(format!(
                "{path}: not inside a `sources/<index>/` folder; ignored"
            )),
        }
    }
    let summaries = by_index
        .into_iter()
        .map(|(index, files)| {
            let initial = folder
                .read(&format!("sources/{index}/0"))
                .and_then(|bytes| parse_initial_offset(bytes).ok());
            SourceSummary {
                index,
                files,
                initial_offset_version: initial.as_ref().map(|(version, _)| *version),
                initial_offset: initial.map(|(_, body)| body),
            }
        })
        .collect();
    (summaries, warnings)
}

/// A readable summary: query id, a table of batches, sources, the restart line.
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
    let offset_log = match (i.offset_log_version, i.latest_offset) {
        (Some(version), Some(id)) => format!("v{version}, latest offsets/{id}"),
        _ => "empty".to_owned(),
    };
    let commit_log = i
        .latest_commit
        .map_or_else(|| "empty".to_owned(), |id| format!("latest commits/{id}"));
    let _ = writeln!(out, "offset log: {offset_log}; commit log: {commit_log}");
    if !i.batches.is_empty() {
        let _ = writeln!(
            out,
            "{:>8}  {:<9}  {:>12}  {:>14}  {:>15}  offsets",
            "batch", "committed", "watermark_ms", "timestamp_ms", "next_wm_ms"
        );
        for batch in &i.batches {
            let offsets = if batch.has_offsets {
                batch
                    .offsets
                    .iter()
                    .map(|o| o.clone().unwrap_or_else(|| "-".to_owned()))
                    .collect::<Vec<_>>()
                    .join(" | ")
            } else {
                "(no offsets file)".to_owned()
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
            "source {}: {} file(s)",
            source.index,
            source.files.len()
        );
        if let Some(initial) = &source.initial_offset {
            let _ = write!(out, ", initial offset {initial}");
        }
        out.push('\n');
    }
    if i.state_files > 0 {
        let _ = writeln!(out, "state: {} file(s)", i.state_files);
    }
    let restart = match (i.restart.action.as_str(), i.restart.batch) {
        ("rerun", Some(batch)) => format!("re-run batch {batch}"),
        ("next", Some(batch)) => format!("run next batch {batch}"),
        ("fresh", _) => "start fresh at batch 0".to_owned(),
        ("fail", _) => "fails".to_owned(),
        (other, _) => other.to_owned(),
    };
    let _ = writeln!(out, "restart: {restart} ({})", i.restart.reason);
    for warning in &i.warnings {
        let _ = writeln!(out, "warning: {warning}");
    }
    out
}
