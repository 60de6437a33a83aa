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
    // Written by pyspark 3.5.9 / 4.3.0 in the conformance suite, driver killed inside
    // batch 2; the restarted Spark re-ran batch 2 (docs/CONFORMANCE.md).
    // The input file batch 2 read was deleted after the kill (and is gone here too):
    // Spark re-ran batch 2 all the same, without its rows (warning input_file_missing).
    (
        "checkpoint-version-3.5.9-input-deleted-killed-in-batch-2",
        "rerun",
        Some(2),
        "offsets/2 has no commits/2",
    ),
    (
        "checkpoint-version-4.3.0-input-deleted-killed-in-batch-2",
        "rerun",
        Some(2),
        "offsets/2 has no commits/2",
    ),
    (
        "checkpoint-version-3.5.9-stateful-aggregation-killed-in-batch-2",
        "rerun",
        Some(2),
        "offsets/2 has no commits/2",
    ),
    (
        "checkpoint-version-4.3.0-named-sources-killed-in-batch-2",
        "rerun",
        Some(2),
        "offsets/2 has no commits/2",
    ),
    (
        "checkpoint-version-4.3.0-stateful-aggregation-killed-in-batch-2",
        "rerun",
        Some(2),
        "offsets/2 has no commits/2",
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
    let mut listed: Vec<&str> = EXPECTED.iter().map(|(name, ..)| *name).collect();
    listed.sort_unstable();
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

fn inspect_fixture(name: &str) -> batchscope_engine::checkpoint::Inspection {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/spark-checkpoints");
    let folder = read_folder(&root.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    inspect(&folder, &InspectOptions::default())
}

/// Spark 4.3 with source evolution: offset log v2 with `src_a:`/`src_b:` lines and
/// `sources/<name>/` file-source logs.
#[test]
fn named_sources_of_spark_4_3_are_reported_by_name() {
    let inspection = inspect_fixture("checkpoint-version-4.3.0-named-sources-killed-in-batch-2");
    assert_eq!(inspection.format.offset_log, Some(2));
    assert_eq!(inspection.format.commit_log, Some(1));
    assert!(inspection.format.named_sources);
    let json = serde_json::to_value(&inspection).unwrap();
    let sources: Vec<(String, String)> = json["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap().to_owned(),
                s["kind"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        sources,
        vec![
            ("src_a".to_owned(), "file".to_owned()),
            ("src_b".to_owned(), "file".to_owned())
        ]
    );
    let files = fs::read_dir(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/spark-checkpoints")
            .join("checkpoint-version-4.3.0-named-sources-killed-in-batch-2/sources/src_a"),
    )
    .unwrap()
    .count() as u64;
    assert_eq!(inspection.sources[0].private_files, files);
    assert_eq!(json["restart"]["action"], "rerun");
    assert_eq!(json["restart"]["batch"], 2);
    assert_eq!(json["restart"]["rule"], "last_batch_uncommitted");
    assert_eq!(json["restart"]["end_offsets"][0]["id"], "src_a");
    assert_eq!(json["problems"], serde_json::json!([]));
}

/// A running count: `state/0/0/<v>.delta` up to the version the killed batch wrote.
#[test]
fn state_of_a_stateful_aggregation_is_counted_per_operator() {
    for name in [
        "checkpoint-version-3.5.9-stateful-aggregation-killed-in-batch-2",
        "checkpoint-version-4.3.0-stateful-aggregation-killed-in-batch-2",
    ] {
        stateful_aggregation(name);
    }
}

fn stateful_aggregation(name: &str) {
    let inspection = inspect_fixture(name);
    let state = inspection.state.as_ref().expect("a state report");
    assert_eq!(state.operators.len(), 1);
    let operator = &state.operators[0];
    let partition = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/spark-checkpoints")
        .join(name)
        .join("state/0/0");
    let newest = fs::read_dir(&partition)
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".delta").and_then(|v| v.parse::<u64>().ok()))
        .max();
    assert_eq!(operator.latest_version, newest);
    assert_eq!(operator.partitions, 1);
    // Batch 2 re-runs from the state batch 1 left (version 2).
    assert_eq!(inspection.restart.state_version, Some(2));
    assert!(inspection.problems.is_empty(), "{:?}", inspection.problems);
}
