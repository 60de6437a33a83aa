//! `batchscope inspect URL` without a server: a `file://` URL goes through `object_store` and
//! the engine's `Intake`, and must read every fixture folder (and a damaged one) exactly as
//! the disk reader does; a bad URL is refused in one line.

use batchscope_cli::inspect::read_folder_with_notes;
use batchscope_cli::store::{read_url, DEFAULT_TIMEOUT_SECS};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/spark-checkpoints")
}

fn url_of(dir: &Path) -> String {
    format!(
        "file://{}",
        dir.canonicalize().expect("an existing folder").display()
    )
}

fn same_as_disk(dir: &Path) {
    let disk = read_folder_with_notes(dir).expect("the disk reader reads it");
    let store = read_url(&url_of(dir), Duration::from_secs(DEFAULT_TIMEOUT_SECS))
        .expect("the store reader reads it");
    assert_eq!(store, disk, "{}", dir.display());
}

#[test]
fn a_file_url_reads_every_fixture_folder_as_the_disk_reader_does() {
    let mut seen = 0;
    for entry in fs::read_dir(fixtures()).expect("the fixtures") {
        let dir = entry.expect("an entry").path();
        if dir.join("metadata").is_file() || dir.join("offsets").is_dir() {
            same_as_disk(&dir);
            seen += 1;
        }
    }
    assert!(seen >= 8, "only {seen} fixture folders");
}

#[test]
fn a_file_url_notes_what_the_disk_reader_notes() {
    let dir = std::env::temp_dir().join(format!("batchscope-store-urls-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let source = fixtures().join("checkpoint-version-4.3.0-stateful-aggregation-killed-in-batch-2");
    let status = Command::new("cp").arg("-r").arg(&source).arg(&dir).status();
    assert!(status.is_ok_and(|s| s.success()), "copy the fixture");
    fs::write(dir.join("offsets/.3.crc"), b"x").unwrap();
    fs::write(dir.join("commits/4.tmp"), b"x").unwrap();
    fs::write(dir.join("README"), b"stray").unwrap();
    fs::write(dir.join("zz-notes"), b"stray").unwrap();
    fs::write(dir.join("offsets/9"), vec![b'x'; 2 * 1024 * 1024]).unwrap();
    let (_, notes) = read_folder_with_notes(&dir).unwrap();
    assert_eq!(notes.len(), 3, "{notes:?}");
    same_as_disk(&dir);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn bad_urls_are_one_line_and_exit_code_2() {
    for url in [
        "ftp://host/cp",
        "file://relative/cp",
        "s3://",
        "file:///no/such/checkpoint",
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_batchscope"))
            .args(["inspect", "--json", url])
            .output()
            .expect("run batchscope");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{url}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{url}: {stderr}");
        assert!(stderr.starts_with(&format!("error: {url}: ")), "{stderr}");
    }
}
