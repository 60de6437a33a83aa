//! A checkpoint folder dropped on the dashboard as a `.zip` reads exactly as the CLI reads the
//! folder on disk: same files, same inspection.

use batchscope_cli::inspect::read_folder;
use batchscope_engine::checkpoint::{inspect, InspectOptions};
use batchscope_view::upload::{from_files, from_zip};
use std::path::Path;

const FIXTURES: &str = "tests/fixtures/spark-checkpoints";
const NAME: &str = "checkpoint-version-4.3.0-stateful-aggregation-killed-in-batch-2";

fn zip_bytes() -> Vec<u8> {
    std::fs::read(Path::new(FIXTURES).join("zip").join(format!("{NAME}.zip"))).unwrap()
}

#[test]
fn the_zip_holds_the_folder_and_inspects_the_same() {
    let on_disk = read_folder(&Path::new(FIXTURES).join(NAME)).unwrap();
    let upload = from_zip(&zip_bytes()).unwrap();
    assert_eq!(upload.root, NAME);
    assert_eq!(upload.folder, on_disk);
    assert!(upload.notes.is_empty(), "{:?}", upload.notes);
    let options = InspectOptions::default();
    let from_zip = inspect(&upload.folder, &options);
    assert_eq!(from_zip, inspect(&on_disk, &options));
    assert!(!from_zip.batches.is_empty());
}

#[test]
fn the_files_of_a_chosen_folder_read_as_the_folder() {
    let on_disk = read_folder(&Path::new(FIXTURES).join(NAME)).unwrap();
    let files = on_disk
        .files()
        .map(|(path, bytes)| (format!("{NAME}/{path}"), bytes.to_vec()))
        .collect();
    assert_eq!(from_files(files).unwrap().folder, on_disk);
}

#[test]
fn a_damaged_zip_is_an_error_that_says_so() {
    let mut bytes = zip_bytes();
    bytes.truncate(bytes.len() / 2);
    let error = from_zip(&bytes).unwrap_err();
    assert!(error.contains(".zip"), "{error}");
}
