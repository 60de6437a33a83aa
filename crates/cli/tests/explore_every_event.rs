//! `batchscope explore --every-event` through the binary: the JSON reports runs, pruned runs
//! and coverage; de-duplication changes no count; the output is the same twice; depth 3 at the
//! named points; a bad combination of options is one line on stderr and exit code 2.

use serde_json::Value;
mod common;

use common::{bad_input, batchscope, explore_json};

#[test]
fn every_event_json_reports_runs_pruned_and_coverage() {
    let args = [
        "--preset",
        "tablestore-two-phase",
        "--batches",
        "2",
        "--every-event",
        "--depth",
        "2",
    ];
    let v = explore_json(&args);
    assert_eq!(v["every_event"], true);
    let runs = v["runs"].as_u64().unwrap();
    let pruned = v["pruned"].as_u64().unwrap();
    assert!(pruned > 0 && pruned < runs, "{pruned} of {runs}");
    let windows = v["coverage"]["windows"].as_array().unwrap();
    assert!(windows
        .iter()
        .any(|w| w["before"] == "offset-log-written" && w["points"][0] == "offset-log"));
    assert!(v["coverage"]["unreached"]
        .as_array()
        .unwrap()
        .contains(&Value::from("state-prepared")));
    // Without de-duplication: every count the same, nothing pruned.
    let mut all: Vec<&str> = args.to_vec();
    all.push("--no-prune");
    let full = explore_json(&all);
    assert_eq!(full["pruned"], 0);
    for field in ["runs", "outcomes", "runs_by_depth"] {
        assert_eq!(v[field], full[field], "{field}");
    }
    // The same output twice.
    assert_eq!(explore_json(&args), v);
}

#[test]
fn every_event_finds_each_bad_verdict_the_named_points_find() {
    let named = explore_json(&["--preset", "kafka-append", "--batches", "3"]);
    let every = explore_json(&[
        "--preset",
        "kafka-append",
        "--batches",
        "3",
        "--every-event",
    ]);
    for (verdict, n) in named["outcomes"].as_object().unwrap() {
        if verdict != "exactly-once" {
            assert!(every["outcomes"][verdict].as_u64().unwrap() >= n.as_u64().unwrap());
        }
    }
    assert!(every["outcomes"]["duplicates"].as_u64().unwrap() > 0);
}

#[test]
fn depth_three_explores_triples_of_named_points() {
    let v = explore_json(&["--preset", "kafka-append", "--batches", "1", "--depth", "3"]);
    let two = explore_json(&["--preset", "kafka-append", "--batches", "1", "--depth", "2"]);
    assert!(v["runs_by_depth"]["3"].as_u64().unwrap() > 0);
    assert_eq!(v["runs_by_depth"]["1"], two["runs_by_depth"]["1"]);
    assert_eq!(v["runs_by_depth"]["2"], two["runs_by_depth"]["2"]);
}

#[test]
fn the_text_report_names_pruned_runs_and_unreached_points() {
    let out = batchscope(&[
        "explore",
        "--preset",
        "tablestore",
        "--batches",
        "2",
        "--every-event",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(" pruned ("), "{text}");
    assert!(text.contains("never reached: state-prepared"), "{text}");
}

#[test]
fn every_event_with_a_bad_option_is_one_line_and_exit_2() {
    for (args, needle) in [
        (
            &[
                "explore",
                "--preset",
                "tablestore",
                "--every-event",
                "--depth",
                "3",
            ][..],
            "--every-event: --depth must be 1 or 2",
        ),
        (
            &[
                "explore",
                "--preset",
                "tablestore",
                "--every-event",
                "--depth",
                "0",
            ][..],
            "--every-event: --depth must be 1 or 2",
        ),
        (
            &["explore", "--preset", "tablestore", "--no-prune"][..],
            "--no-prune: only with --every-event",
        ),
        (
            &["explore", "--preset", "nope", "--every-event"][..],
            "unknown preset",
        ),
    ] {
        let err = bad_input(args, needle);
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}
