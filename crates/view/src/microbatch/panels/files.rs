//! The Checkpoint-folder panel: its files in a readable order, and the files an event writes.

use crate::microbatch::labels::file_text;
use batchscope_engine::microbatch::event::EventKind;
use batchscope_engine::microbatch::World;

/// One file of the checkpoint folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointFile {
    /// Path inside the folder (`offsets/3`).
    pub path: String,
    /// Its folder (`offsets`, `sources/0`, or empty for `metadata`).
    pub dir: String,
    /// Its name (`3`).
    pub name: String,
    /// Exact contents as text, the leading 0x00 of `sources/0/0` shown as `\0`.
    pub text: String,
    /// Size in bytes.
    pub bytes: usize,
    /// Written by the step on screen.
    pub new: bool,
}

/// The files an event writes into the checkpoint folder.
pub fn files_written_by(kind: &EventKind) -> Vec<String> {
    match kind {
        EventKind::QueryStarted { created: true, .. } => vec!["metadata".into()],
        EventKind::SourceInitialized { path, .. } => vec![path.clone()],
        EventKind::OffsetLogWritten { batch_id, .. }
        | EventKind::OffsetLogTorn { batch_id, .. } => {
            vec![format!("offsets/{batch_id}")]
        }
        EventKind::CommitLogWritten { batch_id, .. } => vec![format!("commits/{batch_id}")],
        EventKind::StateFile { path, .. } => vec![path.clone()],
        _ => vec![],
    }
}

fn sort_key(path: &str) -> (u8, String, u64) {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    let rank = match dir {
        "" => 0,
        "offsets" => 1,
        "commits" => 2,
        _ => 3,
    };
    (rank, dir.to_string(), name.parse().unwrap_or(u64::MAX))
}

/// The checkpoint folder: `metadata`, `offsets/N`, `commits/N` (numerically), `sources/…`.
pub fn checkpoint_files(world: &World) -> Vec<CheckpointFile> {
    let new = world
        .events()
        .last()
        .map(|e| files_written_by(&e.kind))
        .unwrap_or_default();
    let mut files: Vec<CheckpointFile> = world
        .checkpoint
        .files()
        .map(|(path, bytes)| {
            let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
            CheckpointFile {
                path: path.to_string(),
                dir: dir.to_string(),
                name: name.to_string(),
                text: file_text(bytes),
                bytes: bytes.len(),
                new: new.iter().any(|p| p == path),
            }
        })
        .collect();
    files.sort_by_key(|f| sort_key(&f.path));
    files
}
