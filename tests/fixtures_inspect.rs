//! Acceptance: every real Spark checkpoint folder in tests/fixtures/spark-checkpoints
//! is read from disk, inspected, and gets the restart decision Spark would take.

use batchscope_cli::inspect::read_folder;
use batchscope_engine::checkpoint::{inspect, InspectOptions};
use std::fs;
use std::path::Path;

/// (folder, action, batch, words the reason must contain). Decisions follow
/// `MicroBatchExecution.populateStartOffsets` (SEMANTICS.md §1.5) on the folders as
/// copied (upstream files the index could not serve are absent; see fixtures README).
const EXPECTED: &[(&str, &str, Option<u64>, &str)] = &[
    // offsets 1, 2, 4: re-running 4 needs offsets/3 ("batch 3 doesn't exist").
    (
        "checkpoint-test-offsetId-commitId-inconsistent",
        "fail",
        None,
        "offsets/3 is missing",
    ),
    // Spark 2.1 had no commit log: the last planned batch always re-runs.
    (
        "checkpoint-version-2.1.0",
        "rerun",
        Some(1),
        "offsets/1 has no commits/1",
    ),
    // offsets/0 + commits/1: C > L matches no branch, batch 0 stays constructed.
    (
        "checkpoint-version-2.3.1-flatMapGroupsWithState-state-format-1",
        "rerun",
        Some(0),
        "commits/1 is ahead",
    ),
    (
        "checkpoint-version-2.3.1-without-commit-log-metadata",
        "rerun",
        Some(1),
        "offsets/1",
    ),
    (
        "checkpoint-version-2.4.3-kafka-include-headers-default",
        "rerun",
        Some(0),
        "offsets/0",
    ),
    (
        "checkpoint-version-3.2.0-deduplication-with-repartition",
        "rerun",
        Some(1),
        "offsets/1",
    ),
    (
        "checkpoint-version-4.0.0-tws-unsaferow",
        "rerun",
        Some(1),
        "offsets/1",
    ),
];

#[test]
fn every_fixture_checkpoint_gets_sparks_restart_decision() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/spark-checkpoints");
    let mut folders: Vec<String> = fs::read_dir(&root)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.starts_with("checkpoint-"))
        .collect();
    folders.sort();
    let listed: Vec<&str> = EXPECTED.iter().map(|(name, ..)| *name).collect();
    assert_eq!(
        folders, listed,
        "every fixture folder needs an expected decision"
    );
    for (name, action, batch, reason) in EXPECTED {
        let folder = read_folder(&root.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let inspection = inspect(&folder, &InspectOptions::default());
        assert!(inspection.query_id.is_some(), "{name}");
        assert_eq!(inspection.restart.action, *action, "{name}");
        assert_eq!(inspection.restart.batch, *batch, "{name}");
        let problems: Vec<&str> = inspection
            .problems
            .iter()
            .map(|p| p.message.as_str())
            .collect();
        let text = format!("{} {}", inspection.restart.reason, problems.join(" "));
        assert!(text.contains(reason), "{name}: {text}");
        assert!(inspection
            .batches
            .iter()
            .all(|b| !b.has_offsets || !b.offsets.is_empty()));
    }
}
