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
                "4",
            ][..],
            "--every-event: --depth must be 1, 2 or 3",
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
            "--every-event: --depth must be 1, 2 or 3",
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

#[test]
fn the_danger_map_shows_a_duplicates_window_from_each_append_to_commits_n() {
    let args = ["--preset", "kafka-append", "--every-event", "--map"];
    let map = explore_json(&args);
    let windows = map["windows"].as_array().unwrap();
    // The run's batches with rows, from its own trace.
    let run = batchscope(&["run", "--preset", "kafka-append", "--json", "--trace"]);
    let run: Value = serde_json::from_slice(&run.stdout).unwrap();
    let events = run["events"].as_array().unwrap();
    assert_eq!(map["events"].as_u64().unwrap() as usize, events.len());
    let batches: std::collections::BTreeSet<u64> = events
        .iter()
        .filter(|e| e["kind"]["type"] == "task-finished" && e["kind"]["rows"].as_u64() > Some(0))
        .map(|e| e["kind"]["batch_id"].as_u64().unwrap())
        .collect();
    assert!(!batches.is_empty());
    let mut out = vec!["explore"];
    out.extend_from_slice(&args);
    let text = String::from_utf8(batchscope(&out).stdout).unwrap();
    for b in batches {
        let commit = format!("write commits/{b}");
        let w = windows
            .iter()
            .find(|w| {
                w["before"]["line"]
                    .as_str()
                    .is_some_and(|l| l.ends_with(&commit))
            })
            .unwrap_or_else(|| panic!("no window ends at {commit}: {map}"));
        assert_eq!(w["verdict"], "duplicates", "{w}");
        let first = &events[w["after"]["event"].as_u64().unwrap() as usize]["kind"];
        assert_eq!(first["type"], "task-finished", "{w}");
        assert_eq!(first["batch_id"].as_u64(), Some(b));
        let line = format!("between `task {}: ", first["partition"].as_u64().unwrap());
        let end = format!("and `{commit}` (#{}): duplicates", w["before"]["event"]);
        assert!(
            text.lines().any(|l| l.contains(&line) && l.ends_with(&end)),
            "{text}"
        );
    }
    bad_input(
        &["explore", "--preset", "kafka-append", "--map"],
        "--every-event",
    );
    bad_input(
        &[
            "explore",
            "--preset",
            "kafka-append",
            "--every-event",
            "--map",
            "--depth",
            "2",
        ],
        "--map",
    );
}
