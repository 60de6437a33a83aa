//! `batchscope inspect URL` without a server: a `file://` URL goes through `object_store` and
//! the engine's `Intake`, and must read every fixture folder (and a damaged one) exactly as
//! the disk reader does; a bad URL is refused in one line; URLs parse without a server.

use batchscope_cli::inspect::read_folder_with_notes;
use batchscope_cli::store::{
    disk_order, looks_like_url, parse_url, read_url, timeout, Scheme, DEFAULT_TIMEOUT_SECS,
};
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

#[test]
fn parses_each_scheme() {
    let s3 = parse_url("s3://bucket/some/prefix/").unwrap();
    assert_eq!(
        (s3.scheme, s3.bucket.as_str(), s3.prefix.as_str()),
        (Scheme::S3, "bucket", "some/prefix")
    );
    for text in ["az://box/cp", "azure://box/cp", "AZ://box/cp"] {
        let az = parse_url(text).unwrap();
        assert_eq!((az.scheme, az.bucket.as_str()), (Scheme::Azure, "box"));
        assert_eq!(az.prefix, "cp");
    }
    let abfss = parse_url("abfss://box@acct.dfs.core.windows.net/jobs/q1").unwrap();
    assert_eq!(
        (abfss.scheme, abfss.bucket.as_str()),
        (Scheme::Azure, "box")
    );
    assert_eq!(
        (abfss.account.as_deref(), abfss.prefix.as_str()),
        (Some("acct"), "jobs/q1")
    );
    assert_eq!(parse_url("s3a://b/p").unwrap().scheme, Scheme::S3);
    let gs = parse_url("gs://b").unwrap();
    assert_eq!(
        (gs.scheme, gs.bucket.as_str(), gs.prefix.as_str()),
        (Scheme::Gcs, "b", "")
    );
    let file = parse_url("file:///tmp/cp/").unwrap();
    assert_eq!(
        (file.scheme, file.prefix.as_str()),
        (Scheme::File, "/tmp/cp")
    );
}

#[test]
fn rejects_other_schemes_and_missing_parts_in_one_line() {
    for (text, says) in [
        ("ftp://host/cp", "`ftp://` is not a store"),
        ("hdfs://nn/cp", "`hdfs://` is not a store"),
        ("s3:///prefix", "no bucket or container name"),
        ("az://", "no bucket or container name"),
        ("file://relative/cp", "absolute path"),
        ("abfss://box@/cp", "no storage account"),
    ] {
        let error = parse_url(text).unwrap_err();
        assert!(error.starts_with(text) && error.contains(says), "{error}");
        assert!(!error.contains('\n'), "{error}");
    }
}

#[test]
fn tells_urls_from_folder_paths() {
    assert!(looks_like_url("s3://b/p") && looks_like_url("ftp://x"));
    assert!(!looks_like_url("/tmp/cp") && !looks_like_url("cp") && !looks_like_url("://x"));
    assert!(!looks_like_url("a b://x"));
}

#[test]
fn orders_keys_as_the_disk_reader_meets_them() {
    let mut keys = [
        "zz.txt",
        "state/0/0/1.delta",
        "sources/0-x/a",
        "sources/0/0",
        "commits/0",
        "offsets/1",
        "offsets/0",
        "metadata",
    ];
    keys.sort_by_key(|k| disk_order(k));
    assert_eq!(
        keys,
        [
            "metadata",
            "offsets/0",
            "offsets/1",
            "commits/0",
            "sources/0/0",
            "sources/0-x/a",
            "state/0/0/1.delta",
            "zz.txt"
        ]
    );
}

#[test]
fn the_timeout_comes_from_the_flag_first_and_is_never_zero() {
    assert_eq!(timeout(Some(3)), Ok(Duration::from_secs(3)));
    assert!(timeout(Some(0)).unwrap_err().contains("at least 1 second"));
}
