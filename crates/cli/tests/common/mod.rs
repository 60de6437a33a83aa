//! Helpers the binary's test files share: run `batchscope`, check bad input, write temp files.
#![allow(dead_code)] // Each test binary uses a different subset.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the built `batchscope` binary with `args`.
pub fn batchscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_batchscope"))
        .args(args)
        .output()
        .expect("binary runs")
}

/// Runs `args`, which must be rejected: exit code 2, `needle` in stderr, nothing on stdout.
/// Returns stderr for further checks.
pub fn bad_input(args: &[&str], needle: &str) -> String {
    let out = batchscope(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let err = String::from_utf8(out.stderr).expect("stderr is UTF-8");
    assert!(
        err.contains(needle),
        "{args:?}: stderr `{err}` lacks `{needle}`"
    );
    assert!(out.stdout.is_empty(), "nothing on stdout for bad input");
    err
}

/// Writes `text` to `file` in a directory of this test process named after `tag`.
pub fn temp_file(tag: &str, file: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("batchscope-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(file);
    std::fs::write(&path, text).unwrap();
    path
}

/// `batchscope explore --json ARGS…`, which must succeed; its JSON.
pub fn explore_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["explore", "--json"];
    all.extend_from_slice(args);
    let out = batchscope(&all);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("explore --json prints JSON")
}
