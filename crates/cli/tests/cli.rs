//! The `batchscope` binary as a user runs it: presets, run, exit codes, bad input.

mod common;

use common::{bad_input, batchscope, temp_file};
use std::process::Output;

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

#[test]
fn presets_lists_every_preset_name_first() {
    let out = batchscope(&["presets"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let names: Vec<&str> = text
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    for want in [
        "kafka-idempotent",
        "kafka-append",
        "tablestore",
        "tablestore-append",
        "tablestore-split",
        "pull-ahead",
        "auto-commit",
        "foreach-batch-multi",
        "sink-outage",
    ] {
        assert!(names.contains(&want), "{want} missing from:\n{text}");
    }
    assert!(
        text.lines().all(|l| l.split_whitespace().count() > 3),
        "each line has a description"
    );
}

#[test]
fn kafka_idempotent_survives_a_crash_after_the_sink_commit() {
    let out = batchscope(&[
        "run",
        "--preset",
        "kafka-idempotent",
        "--crash",
        "sink-commit@3",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let r = json(&out);
    assert_eq!(r["verdict"], "exactly-once");
    for key in [
        "preset",
        "seed",
        "batches_committed",
        "expected",
        "delivered",
        "duplicates",
        "lost",
        "duplicate_keys",
        "lost_keys",
        "verdict",
        "crashes",
    ] {
        assert!(r.get(key).is_some(), "report lacks {key}");
    }
    assert_eq!(r["crashes"], serde_json::json!(["sink-commit@3"]));
}

#[test]
fn kafka_append_duplicates_after_a_crash_between_sink_commit_and_commit_log() {
    let r = json(&batchscope(&[
        "run",
        "--preset",
        "kafka-append",
        "--crash",
        "sink-commit@3",
        "--json",
    ]));
    assert_eq!(r["verdict"], "duplicates");
    assert!(r["duplicates"].as_u64().unwrap() > 0);
    assert_eq!(r["lost"], 0);
}

#[test]
fn a_bad_run_names_its_anomalies_with_their_events_and_when_it_became_inevitable() {
    let args = [
        "run",
        "--preset",
        "kafka-append",
        "--crash",
        "sink-commit@3",
    ];
    let r = json(&batchscope(&[&args[..], &["--json", "--trace"]].concat()));
    let events = r["events"].as_array().unwrap();
    let anomalies = r["anomalies"].as_array().unwrap();
    let dup = anomalies.iter().find(|a| a["name"] == "duplicate").unwrap();
    assert_eq!(dup["keys"], r["duplicate_keys"]);
    let seqs: Vec<u64> = dup["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_u64().unwrap())
        .collect();
    let kind = |seq: u64| {
        events[seq as usize]["kind"]["type"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // The crash, then the re-run's writes into the sink.
    assert_eq!(kind(seqs[0]), "crashed");
    assert!(seqs[1..]
        .iter()
        .all(|&s| kind(s) == "task-finished" || kind(s) == "sink-committed"));
    let at = &r["inevitable_at"];
    let until = &r["avoidable_until"];
    assert_eq!(at["event"], seqs[0], "{at}");
    assert_eq!(until["event"].as_u64().unwrap() + 1, seqs[0]);
    assert!(at["line"]
        .as_str()
        .unwrap()
        .contains("CRASH at sink-commit@3"));
    let text = String::from_utf8(batchscope(&args).stdout).unwrap();
    let line = format!(
        "anomaly duplicate: {} keys {}",
        dup["keys"].as_array().unwrap().len(),
        r["duplicate_keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap())
            .collect::<Vec<_>>()
            .join(" ")
    );
    assert!(text.contains(&line), "{text}");
    assert!(text.contains(&format!("(#{} crash → ", seqs[0])), "{text}");
    assert!(
        text.contains(&format!("bad for good from #{} `CRASH", seqs[0])),
        "{text}"
    );
    // A good run has neither.
    let good = json(&batchscope(&[
        "run",
        "--preset",
        "kafka-idempotent",
        "--json",
    ]));
    assert!(good.get("anomalies").is_none());
    assert!(good["inevitable_at"].is_null());
}

#[test]
fn text_mode_prints_a_legend_one_line_per_event_and_the_reproducer() {
    let out = batchscope(&["run", "--preset", "tablestore", "--crash", "task@2"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("lanes:"), "legend");
    assert!(text.contains("CRASH at task@2"));
    assert!(text.contains("write offsets/0"));
    assert!(text.contains(
        "reproduce: batchscope run --preset tablestore --seed 7 --batches 6 --crash task@2"
    ));
}

#[test]
fn trace_includes_every_event_in_json() {
    let r = json(&batchscope(&[
        "run",
        "--preset",
        "kafka-append",
        "--json",
        "--trace",
    ]));
    let events = r["events"].as_array().unwrap();
    assert_eq!(events.len() as u64, r["steps"].as_u64().unwrap());
    assert_eq!(events[0]["kind"]["type"], "query-started");
}

#[test]
fn expect_sets_the_exit_code() {
    assert_eq!(
        batchscope(&[
            "run",
            "--preset",
            "kafka-append",
            "--crash",
            "sink-commit@3",
            "--expect",
            "duplicates"
        ])
        .status
        .code(),
        Some(0)
    );
    let out = batchscope(&[
        "run",
        "--preset",
        "kafka-append",
        "--crash",
        "sink-commit@3",
        "--expect",
        "exactly-once",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected exactly-once, got duplicates"));
}

#[test]
fn unknown_crash_points_and_presets_exit_2_naming_the_problem() {
    bad_input(
        &["run", "--preset", "kafka-append", "--crash", "explode@3"],
        "unknown crash point `explode`",
    );
    bad_input(
        &["run", "--preset", "kafka-append", "--crash", "task@x"],
        "batch `x` is not a batch id",
    );
    bad_input(
        &["run", "--preset", "kafka-append", "--crash", "task"],
        "must look like NAME@BATCH",
    );
    bad_input(&["run", "--preset", "nope"], "unknown preset `nope`");
    bad_input(
        &["run", "--preset", "kafka-append", "--expect", "fine"],
        "unknown verdict `fine`",
    );
    bad_input(&["run"], "--preset NAME or a FILE");
}

#[test]
fn malformed_scenario_files_exit_2_naming_the_field() {
    let cases = [
        ("syntax", "{ not json", "key must be a string"),
        (
            "missing",
            r#"{"batches": 3, "source": {"kind": "tablestore"}, "sink": {"kind": "upsert"}}"#,
            "missing field `upstream`",
        ),
        (
            "kind",
            r#"{"batches": 3, "upstream": {"channels": 2, "records_per_batch": 1}, "source": {"kind": "kinesis"}, "sink": {"kind": "upsert"}}"#,
            "unknown variant `kinesis`",
        ),
        (
            "zero",
            r#"{"batches": 3, "upstream": {"channels": 0, "records_per_batch": 1}, "source": {"kind": "tablestore"}, "sink": {"kind": "upsert"}}"#,
            "upstream.channels: must be between 1",
        ),
        (
            "typo",
            r#"{"batches": 3, "upstream": {"channels": 2, "records_per_batch": 1, "chanels": 3}, "source": {"kind": "tablestore"}, "sink": {"kind": "upsert"}}"#,
            "unknown field `chanels`",
        ),
        (
            "split",
            r#"{"batches": 3, "upstream": {"channels": 2, "records_per_batch": 1, "splits": [{"channel": 0, "at_ms": 10}]}, "source": {"kind": "replayable-log"}, "sink": {"kind": "upsert"}}"#,
            "upstream.splits[0]: partition splits need a Tunnel-based source",
        ),
        (
            "crash",
            r#"{"batches": 3, "upstream": {"channels": 2, "records_per_batch": 1}, "source": {"kind": "tablestore"}, "sink": {"kind": "upsert"}, "crashes": ["boom@1"]}"#,
            "unknown crash point `boom`",
        ),
    ];
    for (name, text, needle) in cases {
        let path = temp_file(&format!("cli-{name}"), &format!("{name}.json"), text);
        bad_input(&["run", path.to_str().unwrap()], needle);
    }
    bad_input(
        &["run", "/nonexistent/scenario.json"],
        "cannot read scenario file",
    );
}

#[test]
fn a_scenario_file_runs_like_a_preset() {
    let out = batchscope(&["run", "--preset", "tablestore", "--json"]);
    let preset = json(&out);
    let text = batchscope_engine::microbatch::scenario::preset("tablestore")
        .unwrap()
        .to_json();
    let path = temp_file("cli-tablestore", "tablestore.json", &text);
    let from_file = json(&batchscope(&["run", path.to_str().unwrap(), "--json"]));
    assert_eq!(preset, from_file);
}

#[test]
fn checkpoint_out_writes_spark_files_that_inspect_reads_back() {
    let dir = std::env::temp_dir().join(format!("batchscope-cli-{}-ckpt", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = batchscope(&[
        "run",
        "--preset",
        "tablestore",
        "--crash",
        "offset-log@5",
        "--checkpoint-out",
        dir.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let offsets0 = std::fs::read_to_string(dir.join("offsets/0")).unwrap();
    assert!(offsets0.starts_with("v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":"));
    assert!(!offsets0.ends_with('\n'));
    assert_eq!(
        std::fs::read_to_string(dir.join("commits/0")).unwrap(),
        "v1\n{\"nextBatchWatermarkMs\":0}"
    );
    let source0 = std::fs::read(dir.join("sources/0/0")).unwrap();
    assert_eq!(&source0[..4], b"\0v2\n");
    let inspect = json(&batchscope(&["inspect", dir.to_str().unwrap(), "--json"]));
    assert_eq!(inspect["restart"]["action"], "next");
}

#[test]
fn topology_shopping_reads_are_consistent_under_repeatable_read_only() {
    let r = json(&batchscope(&["topology", "--preset", "shopping", "--json"]));
    assert_eq!(r["consistency"]["rr"]["inconsistent"], 0);
    assert!(r["consistency"]["ru"]["inconsistent"].as_u64().unwrap() > 0);
    let failed = json(&batchscope(&[
        "topology",
        "--preset",
        "shopping",
        "--fail",
        "price_job@2",
        "--json",
    ]));
    assert!(failed["consistency"]["rc"]["rolled_back"].as_u64().unwrap() > 0);
    assert_eq!(failed["consistency"]["rr"]["rolled_back"], 0);
    let loose = json(&batchscope(&[
        "topology",
        "--preset",
        "shopping",
        "--no-barriers",
        "--json",
    ]));
    for level in ["ru", "rc", "rr"] {
        assert!(
            loose["consistency"][level]["inconsistent"]
                .as_u64()
                .unwrap()
                > 0,
            "{level}"
        );
    }
}

#[test]
fn topology_files_with_a_cycle_or_two_writers_exit_2_naming_them() {
    let mut spec: serde_json::Value =
        serde_json::from_str(include_str!("../../engine/src/barrier/presets/chain.json")).unwrap();
    let jobs = spec["jobs"].as_array_mut().unwrap();
    let mut second = jobs[0].clone();
    second["name"] = serde_json::json!("second_writer");
    jobs.push(second);
    let path = temp_file("cli-two-writers", "two-writers.json", &spec.to_string());
    bad_input(&["topology", path.to_str().unwrap()], "has two writers");
}

#[test]
fn continuous_epochs_explore_finds_duplicates_and_never_loss() {
    let r = json(&batchscope(&[
        "explore",
        "--preset",
        "continuous-epochs",
        "--json",
    ]));
    assert!(
        r["outcomes"]["duplicates"].as_u64().unwrap() > 0,
        "{}",
        r["outcomes"]
    );
    assert_eq!(r["outcomes"]["data-loss"], 0);
    assert_eq!(r["outcomes"]["duplicates-and-loss"], 0);
}

#[test]
fn a_reader_that_never_closes_is_stuck_and_the_idle_timeout_fix_commits() {
    let stuck = json(&batchscope(&[
        "run",
        "--preset",
        "reader-never-closes",
        "--json",
    ]));
    assert_eq!(stuck["verdict"], "stuck");
    assert_eq!(stuck["batches_committed"], 0);
    let fixed = json(&batchscope(&[
        "run",
        "--preset",
        "reader-idle-timeout",
        "--json",
    ]));
    // The batches end; PR #7476's next batch re-reads what followed each reader's one snapshot.
    assert_eq!(fixed["verdict"], "duplicates");
    assert_eq!(fixed["lost"], 0);
    assert!(fixed["batches_committed"].as_u64().unwrap() >= 2);
    let records = json(&batchscope(&[
        "explore",
        "--preset",
        "seatunnel-checkpoint-records",
        "--json",
    ]));
    // PR #7476: a reader restores from a `.prepared` the sink never took (loss), on top of the
    // failure-free re-reads (duplicates).
    assert!(
        records["outcomes"]["duplicates-and-loss"].as_u64().unwrap() > 0,
        "{}",
        records["outcomes"]
    );
    let committed_only = json(&batchscope(&[
        "explore",
        "--preset",
        "seatunnel-committed-only",
        "--json",
    ]));
    assert!(committed_only["outcomes"]["duplicates"].as_u64().unwrap() > 0);
    assert_eq!(committed_only["outcomes"]["data-loss"], 0);
    assert_eq!(committed_only["outcomes"]["duplicates-and-loss"], 0);
}

#[test]
fn every_preset_has_a_lesson_whose_tour_stops_are_all_reached_in_order() {
    let listed = String::from_utf8(batchscope(&["presets"]).stdout).unwrap();
    let mut names: Vec<&str> = listed
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    names.extend(["shopping", "chain"]);
    for name in names {
        let out = batchscope(&["lesson", name, "--json"]);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let r = json(&out);
        assert!(!r["title"].as_str().unwrap().is_empty(), "{name}");
        let steps = r["steps"].as_u64().unwrap();
        let at: Vec<u64> = r["stops"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                s["at"]
                    .as_u64()
                    .unwrap_or_else(|| panic!("{name}: a stop is never reached: {s}"))
            })
            .collect();
        assert!(at.len() >= 3, "{name}: {at:?}");
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{name}: {at:?}");
        assert_eq!(
            at.last(),
            Some(&steps),
            "{name}: the tour ends at the end of its run"
        );
    }
}

#[test]
fn the_tablestore_lesson_cites_the_tablestore_documentation_and_names_its_verdict() {
    let out = batchscope(&["lesson", "tablestore"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Stream computing implementation details"),
        "{text}"
    );
    assert!(text.contains("placeholder"), "{text}");
    assert!(text.contains("crash sink-commit@2"), "{text}");
    assert!(
        text.contains("Checkpoints one batch late — at event #"),
        "{text}"
    );
    assert!(
        text.contains("verdict of the tour's run: exactly-once"),
        "{text}"
    );
    // Another seed: the same stops, found in that seed's run.
    let r = json(&batchscope(&[
        "lesson",
        "tablestore",
        "--seed",
        "3",
        "--json",
    ]));
    assert_eq!(r["seed"], 3);
    assert!(r["stops"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["at"].is_u64()));
}

#[test]
fn an_unknown_lesson_names_the_known_ones() {
    let err = bad_input(&["lesson", "nope"], "unknown preset `nope`");
    assert!(
        err.contains("kafka-append") && err.contains("shopping"),
        "{err}"
    );
}

#[test]
fn the_dashboards_trace_export_is_the_clis_trace_json() {
    let out = batchscope(&[
        "run",
        "--preset",
        "kafka-append",
        "--crash",
        "sink-commit@3",
        "--json",
        "--trace",
    ]);
    let mut scenario = batchscope_engine::microbatch::scenario::preset("kafka-append").unwrap();
    scenario.crashes = vec!["sink-commit@3".parse().unwrap()];
    let (mut report, world) = batchscope_check::oracle::check_world(&scenario, false);
    batchscope_check::why::explain(&scenario, &mut report);
    let exported = batchscope_view::microbatch::export::trace_json(&report, world.events());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim_end(),
        exported.trim_end()
    );
}

#[test]
fn lessons_of_every_preset_cite_no_internal_document() {
    let listed = String::from_utf8(batchscope(&["presets"]).stdout).unwrap();
    for name in listed.lines().map(|l| l.split_whitespace().next().unwrap()) {
        for args in [vec!["lesson", name, "--json"], vec!["lesson", name]] {
            let out = batchscope(&args);
            assert!(out.status.success(), "{name}");
            let text = String::from_utf8(out.stdout).unwrap();
            for bad in ["SEMANTICS", "Seed 0", "seed 0", "§"] {
                assert!(!text.contains(bad), "{name}: `{bad}` in\n{text}");
            }
        }
    }
    // The descriptions `presets` prints, too.
    assert!(
        !listed.contains("seed 0") && !listed.contains("SEMANTICS"),
        "{listed}"
    );
}

#[test]
fn a_tablestore_rerun_from_a_finished_start_row_is_a_crash_loop_stuck() {
    let r = json(&batchscope(&[
        "run",
        "--preset",
        "tablestore-split",
        "--crash",
        "offset-log@4",
        "--json",
    ]));
    assert_eq!(r["verdict"], "stuck", "{r}");
    assert!(
        r["runs"].as_u64().unwrap() > 2,
        "restarts again and again: {r}"
    );
    let text = String::from_utf8(
        batchscope(&[
            "run",
            "--preset",
            "tablestore-split",
            "--crash",
            "offset-log@4",
        ])
        .stdout,
    )
    .unwrap();
    assert!(
        text.lines()
            .any(|l| l.contains("task 0 ch0") && l.contains("inferred from the connector's code")),
        "{text}"
    );
    // The lesson's crash is this one, and its tour's run ends stuck.
    let lesson = json(&batchscope(&["lesson", "tablestore-split", "--json"]));
    assert_eq!(lesson["setup"], "crash offset-log@4");
    assert_eq!(lesson["verdict"], "stuck");
}

#[test]
fn a_stuck_run_expects_every_record_that_arrived() {
    let r = json(&batchscope(&[
        "run",
        "--preset",
        "reader-never-closes",
        "--json",
    ]));
    assert_eq!(r["verdict"], "stuck");
    let expected = r["expected"].as_u64().unwrap();
    assert!(expected > 0, "{r}");
    assert_eq!(r["delivered"], 0);
    assert_eq!(r["lost"].as_u64(), Some(expected));
    let over_cap = json(&batchscope(&[
        "run",
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scenarios/tablestore-burst-over-cap.json"
        ),
        "--json",
    ]));
    assert_eq!(over_cap["verdict"], "stuck");
    assert!(over_cap["expected"].as_u64().unwrap() > 0, "{over_cap}");
    assert_eq!(over_cap["delivered"], 0);
}
