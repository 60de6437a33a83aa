//! Text snapshots of `batchscope run`: the legend, one line per event and the verdict, held to
//! the files in `tests/snapshots/`, which the engine wrote. After a change to the trace that is
//! meant, rewrite them with the command in [`UPDATE_COMMAND`] and read the diff.

mod common;

use common::batchscope;
use std::fs;
use std::path::PathBuf;

/// Set (to anything) to write the snapshots from today's output instead of comparing.
const UPDATE: &str = "UPDATE_SNAPSHOTS";

/// The one command that rewrites every snapshot of this file.
const UPDATE_COMMAND: &str = "UPDATE_SNAPSHOTS=1 cargo test -p batchscope-cli --test snapshot";

/// Holds `actual` to `tests/snapshots/NAME.txt`, or writes it there when [`UPDATE`] is set.
fn assert_snapshot(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.txt"));
    if std::env::var_os(UPDATE).is_some() {
        fs::write(&path, actual).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let expected = fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; write it with {UPDATE_COMMAND}", path.display()));
    if expected == actual {
        return;
    }
    let (want, got): (Vec<&str>, Vec<&str>) =
        (expected.lines().collect(), actual.lines().collect());
    let first = (0..want.len().max(got.len()))
        .find(|&i| want.get(i) != got.get(i))
        .unwrap_or(want.len());
    let line = |lines: &[&str]| {
        lines
            .get(first)
            .map_or("(no line)".to_string(), |l| l.to_string())
    };
    panic!(
        "{} differs from the output (expected {} lines, got {}); first at line {}:\n\
         expected: {}\n     got: {}\n\n\
         the whole output:\n{actual}\n\
         If the change is meant, rewrite the snapshot with\n  {UPDATE_COMMAND}\nand read its diff.",
        path.display(),
        want.len(),
        got.len(),
        first + 1,
        line(&want),
        line(&got),
    );
}

#[test]
fn kafka_append_crashed_after_the_sink_commit_of_batch_3() {
    let out = batchscope(&[
        "run",
        "--preset",
        "kafka-append",
        "--crash",
        "sink-commit@3",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let text = String::from_utf8(out.stdout).expect("the trace is UTF-8");
    assert_snapshot("kafka-append-sink-commit-3", &text);
}
