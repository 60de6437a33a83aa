//! Retention and `failOnDataLoss` as a user runs them: the skip preset's report marks the
//! records retention deleted as aged out, the fail preset stops with Spark's message, and a
//! bad retention is one line and exit 2.

mod common;

use common::{bad_input, batchscope, temp_file};

fn stdout(args: &[&str]) -> String {
    let out = batchscope(args);
    assert!(out.status.code().is_some(), "{args:?}: no exit code");
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn the_skip_preset_marks_every_lost_record_aged_out() {
    let text = stdout(&["run", "--preset", "kafka-retention-skip", "--json"]);
    let r: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(r["verdict"], "data-loss");
    let lost = r["lost"].as_u64().expect("lost");
    assert!(lost > 0);
    assert_eq!(r["aged_out"].as_u64(), Some(lost));
    assert_eq!(r["aged_out_keys"], r["lost_keys"]);
    let names: Vec<&str> = (r["anomalies"].as_array().expect("anomalies").iter())
        .map(|a| a["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["aged-out"]);
}

#[test]
fn the_fail_preset_stops_with_the_fail_on_data_loss_message() {
    let text = stdout(&["run", "--preset", "kafka-retention-fail"]);
    let failed = text
        .lines()
        .filter(|l| l.contains("query failed") && l.contains("Cannot fetch offset"))
        .count();
    assert!(failed > 2, "a restart loop on the aged-out range:\n{text}");
    assert!(text.contains(r#"set the source option "failOnDataLoss" to "false""#));
    assert!(text.contains("verdict: stuck"), "{text}");
    // Without retention the same outage loses nothing.
    let json = stdout(&["run", "--preset", "sink-outage", "--json"]);
    assert!(!json.contains("aged_out"), "{json}");
}

#[test]
fn both_presets_are_listed() {
    let list = stdout(&["presets"]);
    for name in ["kafka-retention-fail", "kafka-retention-skip"] {
        assert!(list.lines().any(|l| l.starts_with(name)), "{name}:\n{list}");
    }
}

#[test]
fn a_bad_retention_is_one_line_and_exit_2() {
    let base = |source: &str| {
        format!(
            r#"{{"name":"r","batches":4,"upstream":{{"channels":1,"records_per_batch":2}},"source":{source},"sink":{{"kind":"upsert"}}}}"#
        )
    };
    let cases = [
        (
            r#"{"kind":"replayable-log","retention_ms":0}"#,
            "source.retention_ms: must be greater than 0",
        ),
        (
            r#"{"kind":"tablestore","retention_ms":100}"#,
            "source.retention_ms: only the Kafka-like log",
        ),
        (
            r#"{"kind":"tablestore","fail_on_data_loss":false}"#,
            "source.fail_on_data_loss:",
        ),
        (
            r#"{"kind":"replayable-log","retention_ms":"soon"}"#,
            "source.retention_ms",
        ),
    ];
    for (i, (source, needle)) in cases.iter().enumerate() {
        let path = temp_file("retention", &format!("bad-{i}.json"), &base(source));
        let err = bad_input(&["run", path.to_str().expect("path")], needle);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}
