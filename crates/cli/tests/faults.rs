//! Failures inside a batch (`--fault`, `faults` in a scenario file), who restarts a failed
//! query (`restart`), lost checkpoints and `startingOffsets`, as a user runs them.

mod common;

use common::{bad_input, batchscope, temp_file};
use std::process::Output;

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

fn run(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.push("--json");
    json(&batchscope(&all))
}

fn n(v: &serde_json::Value, key: &str) -> u64 {
    v[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} missing: {v}"))
}

/// The events of a run (`--trace`), as JSON values.
fn events(args: &[&str]) -> Vec<serde_json::Value> {
    let mut all = args.to_vec();
    all.push("--trace");
    run(&all)["events"].as_array().expect("events").clone()
}

fn count(events: &[serde_json::Value], kind: &str) -> usize {
    events.iter().filter(|e| e["kind"]["type"] == kind).count()
}

/// A preset's scenario as JSON, to edit into a scenario file.
fn preset_json(name: &str) -> serde_json::Value {
    let scenario = batchscope_engine::microbatch::scenario::preset(name).expect("preset");
    serde_json::from_str(&scenario.to_json()).expect("scenario JSON")
}

#[test]
fn a_failed_task_attempt_duplicates_into_an_append_sink_and_not_into_the_file_sink() {
    let calm = run(&["--preset", "tablestore-append"]);
    assert_eq!(calm["verdict"], "exactly-once");
    let failed = run(&["--preset", "tablestore-append", "--fault", "task-fail@3"]);
    assert!(n(&failed, "duplicates") > 0, "{failed}");
    assert_eq!(n(&failed, "lost"), 0, "{failed}");
    // No driver crash: one run of the driver, the task retried inside it.
    assert_eq!(n(&failed, "runs"), 1);
    let file = run(&["--preset", "kafka-idempotent", "--fault", "task-fail@3"]);
    assert_eq!(file["verdict"], "exactly-once", "{file}");
    assert!(
        n(&file, "orphan_files") > 0,
        "the failed attempt's file is an orphan"
    );
    let trace = events(&["--preset", "tablestore-append", "--fault", "task-fail@3"]);
    assert_eq!(count(&trace, "task-failed"), 1);
    assert_eq!(count(&trace, "crashed"), 0);
}

#[test]
fn a_task_that_fails_more_than_max_failures_fails_the_query() {
    let mut s = preset_json("tablestore-append");
    s["task_max_failures"] = 1.into();
    s["faults"] = serde_json::json!(["task-fail@3"]);
    let path = temp_file("faults-max", "s.json", &s.to_string());
    let r = run(&[path.to_str().unwrap()]);
    // local[N]: one attempt, the job aborts, the query fails and a scheduler restarts it.
    assert_eq!(n(&r, "runs"), 2, "{r}");
    let trace = events(&[path.to_str().unwrap()]);
    assert_eq!(count(&trace, "query-failed"), 1);
    assert!(n(&r, "duplicates") > 0, "{r}");
}

#[test]
fn a_foreach_batch_function_that_throws_after_writing_duplicates_on_the_rerun() {
    let calm = run(&["--preset", "foreach-batch-multi"]);
    assert_eq!(calm["verdict"], "exactly-once");
    let r = run(&[
        "--preset",
        "foreach-batch-multi",
        "--fault",
        "foreach-fail@3",
    ]);
    assert!(n(&r, "duplicates") > 0, "{r}");
    assert_eq!(n(&r, "lost"), 0, "{r}");
    assert_eq!(n(&r, "runs"), 2, "the query failed and was restarted");
}

#[test]
fn a_deleted_checkpoint_loses_with_latest_and_duplicates_with_earliest() {
    let latest = run(&["--preset", "checkpoint-deleted-latest"]);
    assert!(n(&latest, "lost") > 0, "{latest}");
    let earliest = run(&["--preset", "checkpoint-deleted-earliest"]);
    assert!(n(&earliest, "duplicates") > 0, "{earliest}");
    assert_eq!(n(&earliest, "lost"), 0, "{earliest}");
    // The same fault on another preset, from the command line.
    let r = run(&[
        "--preset",
        "kafka-append",
        "--fault",
        "checkpoint-deleted@2",
    ]);
    assert!(
        n(&r, "duplicates") > 0,
        "kafka-append reads from earliest: {r}"
    );
    let trace = events(&[
        "--preset",
        "kafka-append",
        "--fault",
        "checkpoint-deleted@2",
    ]);
    assert_eq!(count(&trace, "checkpoint-deleted"), 1);
    let created: Vec<bool> = trace
        .iter()
        .filter(|e| e["kind"]["type"] == "query-started")
        .map(|e| e["kind"]["created"].as_bool().unwrap())
        .collect();
    assert_eq!(
        created,
        vec![true, true],
        "the restart is a new query: {created:?}"
    );
}

#[test]
fn a_batch_id_kept_in_a_driver_field_is_forgotten_by_a_restart() {
    let calm = run(&["--preset", "batch-id-in-memory"]);
    assert_eq!(calm["verdict"], "exactly-once");
    let r = run(&["--preset", "batch-id-in-memory", "--crash", "sink-commit@3"]);
    assert!(n(&r, "duplicates") > 0, "{r}");
    // The same crash with the sink whose batch ids live in its own log: exactly-once.
    let file = run(&["--preset", "kafka-idempotent", "--crash", "sink-commit@3"]);
    assert_eq!(file["verdict"], "exactly-once");
}

#[test]
fn an_unknown_fault_kind_exits_2_with_one_line_naming_it() {
    let err = bad_input(
        &["run", "--preset", "kafka-append", "--fault", "disk-full@3"],
        "disk-full",
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    bad_input(
        &["run", "--preset", "kafka-append", "--fault", "task-fail"],
        "KIND@BATCH",
    );
    bad_input(
        &[
            "run",
            "--preset",
            "kafka-append",
            "--fault",
            "foreach-fail@3",
        ],
        "foreach-batch",
    );
    // A fault in a batch the run never reaches is named, not silently dropped.
    let out = batchscope(&["run", "--preset", "kafka-append", "--fault", "task-fail@40"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("faults never reached: task-fail@40"),
        "{text}"
    );
    let mut s = preset_json("kafka-append");
    s["faults"] = serde_json::json!(["boom@1"]);
    let path = temp_file("faults-bad", "s.json", &s.to_string());
    bad_input(&["run", path.to_str().unwrap()], "boom");
}

#[test]
fn restart_none_ends_the_run_with_the_query_stopped_and_its_unread_records_not_lost() {
    let mut s = preset_json("foreach-batch-multi");
    s["faults"] = serde_json::json!(["foreach-fail@3"]);
    s["restart"] = "none".into();
    let path = temp_file("faults-none", "s.json", &s.to_string());
    let r = run(&[path.to_str().unwrap()]);
    assert_eq!(n(&r, "runs"), 1, "nobody restarted it: {r}");
    // Later batches never ran: their records are still upstream, unread, not lost.
    assert_eq!(n(&r, "lost"), 0, "{r}");
    assert!(n(&r, "unread") > 0, "{r}");
    assert_eq!(r["verdict"], "stopped", "{r}");
    let text = String::from_utf8(batchscope(&["run", path.to_str().unwrap()]).stdout).unwrap();
    assert!(text.contains("restart is none"), "{text}");
    assert!(text.contains("verdict: stopped"), "{text}");
    assert!(
        text.contains(&format!(
            "{} records never delivered are still upstream",
            n(&r, "unread")
        )),
        "{text}"
    );
    // The default: a job scheduler restarts it, and says so in the trace.
    let default = String::from_utf8(
        batchscope(&[
            "run",
            "--preset",
            "foreach-batch-multi",
            "--fault",
            "foreach-fail@3",
        ])
        .stdout,
    )
    .unwrap();
    assert!(
        default.contains("Spark does not restart a failed query; a job scheduler restarts it"),
        "{default}"
    );
    // `{"after_ms": N}`: the restart comes N ms after the failure.
    s["restart"] = serde_json::json!({ "after_ms": 4000 });
    let path = temp_file("faults-after", "s.json", &s.to_string());
    let trace = events(&[path.to_str().unwrap()]);
    let failed = trace
        .iter()
        .find(|e| e["kind"]["type"] == "query-failed")
        .expect("the query fails");
    let restarted = trace
        .iter()
        .find(|e| e["kind"]["type"] == "query-started" && e["run"] == 2)
        .expect("the query restarts");
    assert!(
        restarted["at_ms"].as_u64().unwrap() >= failed["at_ms"].as_u64().unwrap() + 4000,
        "{failed} {restarted}"
    );
    s["restart"] = "always".into();
    let path = temp_file("faults-shape", "s.json", &s.to_string());
    bad_input(&["run", path.to_str().unwrap()], "restart");
}

#[test]
fn the_reproduce_line_names_the_scenario_file() {
    let mut s = preset_json("kafka-append");
    s["faults"] = serde_json::json!(["task-fail@2"]);
    let path = temp_file("faults-repro", "my scenario.json", &s.to_string());
    let out = batchscope(&["run", path.to_str().unwrap(), "--crash", "sink-commit@3"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("reproduce:"))
        .expect("a reproduce line");
    assert!(line.contains(path.to_str().unwrap()), "{line}");
    assert!(line.contains("--crash sink-commit@3"), "{line}");
    assert!(
        !line.contains("--fault"),
        "the file lists its own fault: {line}"
    );
    let preset = String::from_utf8(
        batchscope(&["run", "--preset", "kafka-append", "--fault", "task-fail@2"]).stdout,
    )
    .unwrap();
    assert!(
        preset.contains("--preset kafka-append --seed 7 --batches 6 --fault task-fail@2"),
        "{preset}"
    );
}

#[test]
fn only_v1_sources_get_the_extra_get_batch_on_restart() {
    // Spark 3's Kafka reader is the V2 KafkaMicroBatchStream: not asked again.
    let kafka = events(&["--preset", "kafka-idempotent", "--crash", "commit-log@2"]);
    assert_eq!(count(&kafka, "crashed"), 1);
    assert_eq!(count(&kafka, "recovery-get-batch"), 0);
    // The V1 KafkaSource (the V2 reader disabled) is, and so is Tablestore's V1 Source.
    let v1 = events(&["--preset", "kafka-v1-source", "--crash", "commit-log@2"]);
    assert_eq!(count(&v1, "recovery-get-batch"), 1);
    let tablestore = events(&["--preset", "tablestore", "--crash", "commit-log@2"]);
    assert_eq!(count(&tablestore, "recovery-get-batch"), 1);
    // SeaTunnel's source is a V2 MicroBatchStream.
    let seatunnel = events(&["--preset", "reader-idle-timeout", "--crash", "commit-log@1"]);
    assert_eq!(count(&seatunnel, "crashed"), 1);
    assert_eq!(count(&seatunnel, "recovery-get-batch"), 0);
}

#[test]
fn only_the_kafka_like_log_takes_another_source_api() {
    let mut s = preset_json("tablestore");
    s["source"]["api"] = serde_json::json!("v2");
    let path = temp_file("faults-api", "tablestore-v2.json", &s.to_string());
    let err = bad_input(&["run", path.to_str().unwrap()], "source.api");
    assert!(err.contains("V1 `Source`"), "{err}");
    let mut s = preset_json("seatunnel-checkpoint-records");
    s["upstream"]["splits"] = serde_json::json!([{ "channel": 0, "at_ms": 2500 }]);
    let path = temp_file("faults-api", "seatunnel-split.json", &s.to_string());
    bad_input(&["run", path.to_str().unwrap()], "upstream.splits[0]");
}

#[test]
fn a_kafka_source_starts_at_latest_unless_told_earliest() {
    let mut s = preset_json("kafka-append");
    // Records already in the topic before the query's first trigger.
    s["upstream"]["bursts"] = serde_json::json!([{ "channel": 0, "at_ms": 0, "records": 5 }]);
    s["source"]
        .as_object_mut()
        .unwrap()
        .remove("starting_offsets");
    let path = temp_file("faults-latest", "latest.json", &s.to_string());
    let init = |path: &std::path::Path| {
        events(&[path.to_str().unwrap()])
            .into_iter()
            .find(|e| e["kind"]["type"] == "source-initialized")
            .map(|e| e["kind"]["contents"].as_str().unwrap().to_string())
            .expect("sources/0/0 is written")
    };
    let latest = init(&path);
    assert!(
        !latest.contains("\"0\":0"),
        "latest skips the burst: {latest}"
    );
    s["source"]["starting_offsets"] = "earliest".into();
    let path = temp_file("faults-earliest", "earliest.json", &s.to_string());
    let earliest = init(&path);
    assert!(earliest.contains("\"0\":0"), "{earliest}");
    let with_latest = run(&[temp_file("faults-latest2", "l.json", &{
        let mut l = s.clone();
        l["source"]
            .as_object_mut()
            .unwrap()
            .remove("starting_offsets");
        l.to_string()
    })
    .to_str()
    .unwrap()]);
    let with_earliest = run(&[path.to_str().unwrap()]);
    assert!(
        n(&with_latest, "expected") < n(&with_earliest, "expected"),
        "latest never reads the records that were there before it started"
    );
}
