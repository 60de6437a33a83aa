//! A real checkpoint folder handed to the dashboard — a `.zip` of it, or the files of a
//! folder chosen or dropped in the browser — read in memory with the limits of
//! `batchscope inspect`'s disk reader, then inspected by the engine exactly as the CLI does.
//!
//! Nothing leaves the browser: the bytes are read locally and parsed here.

use batchscope_engine::checkpoint::{find_root, Admit, CheckpointFolder, Intake, MAX_ENTRIES};
use std::io::{Cursor, Read};

/// A checkpoint folder read from the user's files, with what was skipped.
#[derive(Clone, Debug, PartialEq)]
pub struct Upload {
    /// The folder's files (paths relative to the checkpoint root).
    pub folder: CheckpointFolder,
    /// Where the checkpoint root was found inside what was given (`""` = at the top).
    pub root: String,
    /// One line per thing skipped (a file over its limit, a file Spark does not write, …).
    pub notes: Vec<String>,
}

/// The path of `path` below `root`, when it is below it.
fn below<'a>(root: &str, path: &'a str) -> Option<&'a str> {
    if root.is_empty() {
        return Some(path);
    }
    path.strip_prefix(root)?.strip_prefix('/')
}

fn no_root(what: &str) -> String {
    format!(
        "{what} holds no Spark checkpoint folder: no `metadata` file and no `offsets/` \
         directory at any level"
    )
}

/// Reads a `.zip` of a checkpoint folder (the folder itself or its parent zipped). Errors
/// name what is wrong: not a `.zip`, or no checkpoint inside. Entries that cannot be read
/// (encrypted, an unsupported compression, a name outside the archive) are notes.
pub fn from_zip(bytes: &[u8]) -> Result<Upload, String> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|error| format!("not a readable .zip archive ({error})"))?;
    if archive.len() > MAX_ENTRIES {
        return Err(format!(
            "the archive lists {} entries, more than the {MAX_ENTRIES} a checkpoint folder is \
             read with",
            archive.len()
        ));
    }
    let names: Vec<String> = archive.file_names().map(str::to_owned).collect();
    let root = find_root(names.iter().map(String::as_str)).ok_or_else(|| no_root("the archive"))?;
    let mut intake = Intake::new();
    for index in 0..archive.len() {
        let mut entry = match archive.by_index(index) {
            Ok(entry) => entry,
            Err(error) => {
                let name = names.get(index).map(String::as_str).unwrap_or("?");
                intake.note(format!(
                    "{name}: cannot be read from the archive ({error}); skipped"
                ));
                continue;
            }
        };
        if entry.is_dir() {
            continue;
        }
        let Some(safe) = entry.enclosed_name() else {
            intake.note(format!(
                "{}: a name outside the archive; skipped",
                entry.name()
            ));
            continue;
        };
        let Some(path) = safe.to_str().map(|p| p.replace('\\', "/")) else {
            continue;
        };
        if let Some(relative) = below(&root, &path) {
            let relative = relative.to_owned();
            let size = entry.size();
            intake.offer(&relative, size, &mut entry as &mut dyn Read);
        }
    }
    let (folder, notes) = intake.finish();
    Ok(Upload {
        folder,
        root,
        notes,
    })
}

/// Reads the files of a folder chosen or dropped in the browser, each given by its path
/// (`webkitRelativePath`, `/`-separated, starting with the folder's name) and bytes.
pub fn from_files(files: Vec<(String, Vec<u8>)>) -> Result<Upload, String> {
    let listed: Vec<(String, u64)> = files
        .iter()
        .map(|(path, bytes)| (path.clone(), bytes.len() as u64))
        .collect();
    let mut selection = Selection::of(&listed)?;
    for (index, bytes) in files.into_iter().map(|(_, bytes)| bytes).enumerate() {
        selection.give(index, bytes);
    }
    Ok(selection.finish())
}

/// The files of a folder to read, decided from their paths and sizes before any byte is
/// read (the browser reads a file asynchronously, and a file over its limit is never read).
#[derive(Debug)]
pub struct Selection {
    root: String,
    intake: Intake,
    wanted: Vec<Option<(String, Admit)>>,
}

impl Selection {
    /// Decides on every file `(path, size)`; errors when no checkpoint root is among them.
    pub fn of(files: &[(String, u64)]) -> Result<Selection, String> {
        let root = find_root(files.iter().map(|(path, _)| path.as_str()))
            .ok_or_else(|| no_root("the folder"))?;
        let mut intake = Intake::new();
        let wanted = files
            .iter()
            .map(|(path, size)| {
                let relative = below(&root, path)?;
                match intake.admit(relative, *size) {
                    Admit::Skip => None,
                    admit => Some((relative.to_owned(), admit)),
                }
            })
            .collect();
        Ok(Selection {
            root,
            intake,
            wanted,
        })
    }

    /// Whether the bytes of file `index` are to be read.
    pub fn wants_bytes(&self, index: usize) -> bool {
        matches!(self.wanted.get(index), Some(Some((_, Admit::Contents(_)))))
    }

    /// Hands over file `index` (its bytes when [`Selection::wants_bytes`], else anything:
    /// they are not kept).
    pub fn give(&mut self, index: usize, bytes: Vec<u8>) {
        match self.wanted.get(index) {
            Some(Some((relative, Admit::Contents(_)))) => self.intake.push(relative, bytes),
            Some(Some((relative, Admit::NameOnly))) => self.intake.push_name(relative),
            _ => {}
        }
    }

    /// The folder read.
    pub fn finish(self) -> Upload {
        let (folder, notes) = self.intake.finish();
        Upload {
            folder,
            root: self.root,
            notes,
        }
    }
}

/// Whether `bytes` start like a `.zip` archive (a local file header or an empty archive).
pub fn looks_like_zip(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06")
}

/// How a file's bytes are shown: its text when it is UTF-8, else a hex dump of its first
/// `limit` bytes (Spark's state files are binary).
pub fn file_preview(bytes: &[u8], limit: usize) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) if text.len() <= limit => text.to_owned(),
        Ok(text) => {
            let cut = (0..=limit)
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(0);
            format!("{}\n… ({} bytes in all)", &text[..cut], bytes.len())
        }
        Err(_) => {
            let mut out = String::new();
            for (row, chunk) in bytes.chunks(16).take(limit / 16).enumerate() {
                let hex: Vec<String> = chunk.iter().map(|b| format!("{b:02x}")).collect();
                out.push_str(&format!("{:08x}  {}\n", row * 16, hex.join(" ")));
            }
            if bytes.len() > limit {
                out.push_str(&format!("… ({} bytes in all)\n", bytes.len()));
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_found_below_its_parent() {
        let upload = from_files(vec![
            ("q/metadata".into(), b"{\"id\":\"x\"}".to_vec()),
            ("q/offsets/0".into(), b"v1\n{}\n0".to_vec()),
            ("q/readme.txt".into(), b"hi".to_vec()),
        ])
        .unwrap();
        assert_eq!(upload.root, "q");
        let names: Vec<&str> = upload.folder.files().map(|(p, _)| p).collect();
        assert_eq!(names, ["metadata", "offsets/0"]);
        assert_eq!(upload.notes.len(), 1, "{:?}", upload.notes);
    }

    #[test]
    fn bad_input_names_what_is_wrong() {
        assert!(from_zip(b"not a zip").unwrap_err().contains(".zip"));
        let err = from_files(vec![("photos/a.jpg".into(), vec![1])]).unwrap_err();
        assert!(err.contains("no `metadata` file"), "{err}");
    }

    #[test]
    fn binary_files_are_shown_as_hex() {
        let text = file_preview(&[0xff, 0, 1], 64);
        assert!(text.starts_with("00000000  ff 00 01"), "{text}");
        assert_eq!(file_preview(b"v1\n{}", 64), "v1\n{}");
    }
}
