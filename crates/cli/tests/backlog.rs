//! The backlog crash loop as a user runs it: the crash-loop preset is stuck on one logged
//! batch whose tasks run out of memory, its twin is exactly-once, and a bad memory budget or
//! restart change is one line and exit 2.

mod common;

use common::{bad_input, batchscope, temp_file};

fn stdout(args: &[&str]) -> String {
    let out = batchscope(args);
    assert!(out.status.code().is_some(), "{args:?}: no exit code");
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn the_crash_loop_re_runs_the_logged_batch_after_the_limit_changed() {
    let text = stdout(&["run", "--preset", "backlog-crash-loop"]);
    assert!(text.contains("verdict: stuck"), "{text}");
    let oom = |l: &&str| l.contains("query failed") && l.contains("OutOfMemoryError");
    assert!(text.lines().filter(oom).count() > 2, "{text}");
    let restarts = text
        .lines()
        .filter(|l| l.contains("restart (maxOffsetsPerTrigger 6)"))
        .count();
    assert!(restarts > 2, "{text}");
    assert!(text.contains("a batch already in offsets/ keeps its logged range"));
    let twin = stdout(&["run", "--preset", "backlog-limited"]);
    assert!(twin.contains("verdict: exactly-once"), "{twin}");
    assert!(!twin.contains("OutOfMemoryError"), "{twin}");
}

#[test]
fn both_presets_are_listed() {
    let list = stdout(&["presets"]);
    for name in ["backlog-crash-loop", "backlog-limited"] {
        assert!(list.lines().any(|l| l.starts_with(name)), "{name}:\n{list}");
    }
}

#[test]
fn a_bad_budget_or_restart_change_is_one_line_and_exit_2() {
    let base = |source: &str, extra: &str| {
        format!(
            r#"{{"name":"b","batches":4,"upstream":{{"channels":1,"records_per_batch":2}},"source":{{"kind":"{source}"}},"sink":{{"kind":"upsert"}}{extra}}}"#
        )
    };
    let cases = [
        (
            base("replayable-log", r#","task_memory_records":0"#),
            "task_memory_records: must be greater than 0",
        ),
        (
            base(
                "replayable-log",
                r#","on_restart":{"from":1,"max_offset_per_trigger":6}"#,
            ),
            "unknown field `max_offset_per_trigger`",
        ),
        (
            base(
                "replayable-log",
                r#","on_restart":{"from":0,"max_offsets_per_trigger":6}"#,
            ),
            "on_restart.from: must be at least 1",
        ),
        (
            base(
                "tablestore",
                r#","on_restart":{"max_offsets_per_trigger":6}"#,
            ),
            "on_restart.max_offsets_per_trigger: only the Kafka-like log",
        ),
        (
            base("replayable-log", r#","on_restart":{"from":1}"#),
            "on_restart: changes nothing: give max_offsets_per_trigger, sources or async_progress",
        ),
    ];
    for (i, (json, needle)) in cases.iter().enumerate() {
        let path = temp_file("backlog", &format!("bad-{i}.json"), json);
        let err = bad_input(&["run", path.to_str().expect("path")], needle);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}
