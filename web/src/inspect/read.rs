//! Reads what the user hands the Inspect page — a dropped `.zip`, a dropped folder, or the
//! files of a folder picked with the file chooser — into a checkpoint folder, locally: no
//! byte leaves the browser. A file over its limit is never read (its size decides first).

use batchscope_view::upload::{from_zip, looks_like_zip, Selection, Upload};
use js_sys::{Array, Promise, Uint8Array};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    DataTransfer, File, FileList, FileSystemDirectoryEntry, FileSystemEntry, FileSystemFileEntry,
};

/// A `.zip` larger than this is refused before it is read (the folder limit is 256 MiB).
pub const MAX_ZIP_BYTES: f64 = 256.0 * 1024.0 * 1024.0;
/// At most this many files are listed from a dropped folder.
const MAX_LISTED: usize = 100_000;

/// The bytes of a file.
pub async fn bytes_of(file: &File) -> Result<Vec<u8>, String> {
    let buffer = JsFuture::from(file.array_buffer())
        .await
        .map_err(|_| format!("{}: cannot be read", file.name()))?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

/// Reads a `.zip` file of a checkpoint folder.
pub async fn read_zip(file: &File) -> Result<Upload, String> {
    if file.size() > MAX_ZIP_BYTES {
        return Err(format!(
            "{}: {} bytes, larger than the {} a checkpoint folder is read with",
            file.name(),
            file.size(),
            MAX_ZIP_BYTES
        ));
    }
    let bytes = bytes_of(file).await?;
    if !looks_like_zip(&bytes) {
        return Err(format!(
            "{}: not a .zip archive (drop a checkpoint folder, or a .zip of one)",
            file.name()
        ));
    }
    from_zip(&bytes).map_err(|error| format!("{}: {error}", file.name()))
}

/// Reads the files of a folder, each with its path (`webkitRelativePath` or the path found
/// by walking a dropped folder).
pub async fn read_folder(files: Vec<(String, File)>) -> Result<Upload, String> {
    let listed: Vec<(String, u64)> = files
        .iter()
        .map(|(path, file)| (path.clone(), file.size() as u64))
        .collect();
    let mut selection = Selection::of(&listed)?;
    for (index, (_, file)) in files.iter().enumerate() {
        let bytes = if selection.wants_bytes(index) {
            bytes_of(file).await?
        } else {
            Vec::new()
        };
        selection.give(index, bytes);
    }
    Ok(selection.finish())
}

/// The files a file chooser returned, with their paths inside the chosen folder.
pub fn chosen_files(list: &FileList) -> Vec<(String, File)> {
    (0..list.length())
        .filter_map(|i| list.get(i))
        .map(|file| {
            let relative = js_sys::Reflect::get(&file, &"webkitRelativePath".into())
                .ok()
                .and_then(|value| value.as_string())
                .unwrap_or_default();
            let path = if relative.is_empty() {
                file.name()
            } else {
                relative
            };
            (path, file)
        })
        .collect()
}

/// What was dropped: a single `.zip` file, or a folder (walked), or loose files.
pub async fn read_drop(data: &DataTransfer) -> Result<Upload, String> {
    let items = data.items();
    let mut entries = Vec::new();
    for i in 0..items.length() {
        if let Some(entry) = items
            .get(i)
            .and_then(|item| item.webkit_get_as_entry().ok().flatten())
        {
            entries.push(entry);
        }
    }
    if let [entry] = entries.as_slice() {
        if entry.is_directory() {
            let mut files = Vec::new();
            walk(entry.clone(), String::new(), &mut files).await?;
            return read_folder(files).await;
        }
    }
    let files = data
        .files()
        .map(|list| chosen_files(&list))
        .unwrap_or_default();
    match files.as_slice() {
        [] => Err("nothing to read was dropped: drop a checkpoint folder, or a .zip of one".into()),
        [(_, file)] if file.name().to_ascii_lowercase().ends_with(".zip") => read_zip(file).await,
        _ => read_folder(files).await,
    }
}

/// Lists the files below a dropped folder entry into `out` with their paths.
async fn walk(
    entry: FileSystemEntry,
    prefix: String,
    out: &mut Vec<(String, File)>,
) -> Result<(), String> {
    let mut stack = vec![(entry, prefix)];
    while let Some((entry, prefix)) = stack.pop() {
        let path = if prefix.is_empty() {
            entry.name()
        } else {
            format!("{prefix}/{}", entry.name())
        };
        if entry.is_file() {
            let file_entry: FileSystemFileEntry = entry.unchecked_into();
            let promise = Promise::new(&mut |resolve, reject| {
                file_entry.file_with_callback_and_callback(&resolve, &reject);
            });
            let file: File = JsFuture::from(promise)
                .await
                .map_err(|_| format!("{path}: cannot be read"))?
                .unchecked_into();
            out.push((path, file));
            if out.len() > MAX_LISTED {
                return Err(format!("the folder holds more than {MAX_LISTED} files"));
            }
        } else if entry.is_directory() {
            let dir: FileSystemDirectoryEntry = entry.unchecked_into();
            let reader = dir.create_reader();
            loop {
                let promise = Promise::new(&mut |resolve, reject| {
                    let _ = reader.read_entries_with_callback_and_callback(&resolve, &reject);
                });
                let batch: Array = JsFuture::from(promise)
                    .await
                    .map_err(|_| format!("{path}: cannot be listed"))?
                    .unchecked_into();
                if batch.length() == 0 {
                    break;
                }
                for child in batch.iter() {
                    stack.push((child.unchecked_into(), path.clone()));
                }
            }
        }
    }
    Ok(())
}
