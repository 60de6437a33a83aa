//! The input files a re-run batch reads, from the file source's own log
//! (`FileStreamSourceLog`, `sources/<id>/<n>`), and what the restart does when one of them
//! is gone (`spark.sql.files.ignoreMissingFiles`).
//!
//! A file source's offset is `{"logOffset":n}`; its log entry `n` lists the files it
//! chose for that offset, each as `{"path":…,"timestamp":…,"batchId":n}` (compacted
//! entries keep the `batchId`). A re-run of batch `L` reads the files whose `batchId` lies
//! in `(logOffset of offsets/L-1, logOffset of offsets/L]` (`FileStreamSource.getBatch`):
//! `offsets/L` is final, so the files are the logged ones whatever `maxFilesPerTrigger`
//! the restarted query sets. Pure: the caller checks whether the files still exist.

use super::folder::CheckpointFolder;
use super::format::{json_object, split_lines};
use super::lint::{Problem, Severity};
use super::offsets::SourceId;
use super::restart::{RestartAction, RestartPlan};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// One input file the re-run batch reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputFile {
    /// The source that logged it.
    pub source: SourceId,
    /// The file's URI as the source logged it (`file:///…`, `s3a://…`).
    pub path: String,
    /// The source's own batch counter (`batchId` of the log entry = `logOffset`).
    pub log_batch_id: u64,
    /// Whether the file is gone: `None` when nobody checked (the engine reads no disk;
    /// `batchscope inspect` checks local `file:` URIs).
    pub missing: Option<bool>,
}

/// What the re-run batch reads, and why the current limits do not change it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RerunInput {
    /// The batch that runs again.
    pub batch: u64,
    /// Its input files, in log order; empty when no file source logged any.
    pub files: Vec<InputFile>,
    /// One sentence: the logged range is final.
    pub rule: String,
}

/// The input files of the batch a restart re-runs, for every file source of `offsets/L`;
/// `None` unless the restart re-runs a batch whose end offsets name a file source.
/// `gone`, when given, lists the input files the caller checked and found gone (see
/// `InspectOptions::input_files_gone`): local `file:` URIs are then marked.
pub fn rerun_input(
    folder: &CheckpointFolder,
    plan: &RestartPlan,
    gone: Option<&BTreeSet<String>>,
) -> Option<RerunInput> {
    let (RestartAction::Rerun { batch_id }, Some(end)) = (&plan.action, &plan.end) else {
        return None;
    };
    let mut files = Vec::new();
    let mut any_file_source = false;
    for source in &end.sources {
        let Some(to) = source.offset.as_deref().and_then(log_offset) else {
            continue;
        };
        any_file_source = true;
        let from = plan
            .start
            .as_ref()
            .and_then(|start| start.offset_of(&source.id))
            .and_then(log_offset);
        files.extend(logged_files(folder, &source.id, from, to));
    }
    if let Some(gone) = gone {
        for file in files.iter_mut().filter(|f| local_path(&f.path).is_some()) {
            file.missing = Some(gone.contains(&file.path));
        }
    }
    any_file_source.then(|| RerunInput {
        batch: *batch_id,
        files,
        rule: format!(
            "offsets/{batch_id} is final: the re-run reads exactly the files the file source \
             logged for it (FileStreamSource.getBatch over its log), whatever \
             maxFilesPerTrigger the restarted query sets; a new limit applies from batch {}",
            batch_id + 1
        ),
    })
}

/// `n` of a file source's offset text `{"logOffset":n}`.
fn log_offset(offset: &str) -> Option<u64> {
    json_object(offset).ok()?.get("logOffset")?.as_u64()
}

/// The files of `sources/<id>/` whose `batchId` is in `(from, to]`, in log order.
fn logged_files(
    folder: &CheckpointFolder,
    id: &SourceId,
    from: Option<u64>,
    to: u64,
) -> Vec<InputFile> {
    let prefix = format!("sources/{id}/");
    let mut seen = BTreeSet::new();
    let mut files = Vec::new();
    let mut entries: Vec<(u64, &[u8])> = folder
        .files()
        .filter_map(|(path, bytes)| {
            let name = path.strip_prefix(&prefix)?;
            let digits = name.strip_suffix(".compact").unwrap_or(name);
            Some((digits.parse::<u64>().ok()?, bytes))
        })
        .collect();
    entries.sort_by_key(|(entry, _)| *entry);
    for (_, bytes) in entries {
        let Ok(text) = std::str::from_utf8(bytes) else {
            continue;
        };
        let lines = split_lines(text);
        if lines.first() != Some(&"v1") {
            continue;
        }
        for line in &lines[1..] {
            let Ok(object) = json_object(line) else {
                continue;
            };
            let path = object.get("path").and_then(|p| p.as_str());
            let batch = object.get("batchId").and_then(serde_json::Value::as_u64);
            let (Some(path), Some(batch)) = (path, batch) else {
                continue;
            };
            let in_range = batch <= to && from.is_none_or(|from| batch > from);
            if in_range && seen.insert(path.to_owned()) {
                files.push(InputFile {
                    source: id.clone(),
                    path: path.to_owned(),
                    log_batch_id: batch,
                    missing: None,
                });
            }
        }
    }
    files
}

/// The local path of a `file:` URI (`file:///x`, `file:/x`), percent-escapes decoded;
/// `None` for any other scheme.
pub fn local_path(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("file:")?;
    let rest = rest.strip_prefix("//").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let hex = bytes
            .get(index + 1..index + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[index], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                index += 3;
            }
            (byte, _) => {
                out.push(byte);
                index += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// Spark's warning for an input file that is gone when the re-run lists it
/// (`HadoopFSUtils.listLeafFiles`); `<path>` stands for the file's path. Checked against
/// Spark 4.3.0 and 3.5.9 by the conformance suite (`input-deleted`).
pub const MISSING_INPUT_WARNING: &str =
    "The directory <path> was not found. Was it deleted very recently?";

/// Adds the re-run's input to the restart steps, and a problem per input file that is gone.
pub fn explain_input(
    input: Option<&RerunInput>,
    steps: &mut Vec<String>,
    problems: &mut Vec<Problem>,
) {
    let Some(input) = input else {
        return;
    };
    let names: Vec<&str> = input.files.iter().map(|f| f.path.as_str()).collect();
    steps.push(format!(
        "{}: {}.",
        input.rule,
        if names.is_empty() {
            "none".to_owned()
        } else {
            names.join(", ")
        }
    ));
    for file in input.files.iter().filter(|f| f.missing == Some(true)) {
        problems.push(
            Problem::new(
                "input_file_missing",
                Severity::Warning,
                Some(file.path.clone()),
                format!(
                    "batch {} re-runs over {}, which is gone: the re-run lists its logged files \
                     as root paths of a new file index, and a root path that is gone is \
                     dropped (HadoopFSUtils.listLeafFiles, SPARK-27676), whatever \
                     spark.sql.files.ignoreMissingFiles says; its rows are not read again",
                    input.batch, file.path
                ),
            )
            .says(MISSING_INPUT_WARNING),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_become_local_paths() {
        assert_eq!(
            local_path("file:///tmp/a b.json"),
            Some("/tmp/a b.json".into())
        );
        assert_eq!(
            local_path("file:/tmp/a%20b.json"),
            Some("/tmp/a b.json".into())
        );
        assert_eq!(local_path("s3a://bucket/a.json"), None);
        assert_eq!(local_path("file:relative"), None);
    }
}
