//! The work budget from the command line: a scenario too big to run exits 2 with one line
//! naming the field and the limit, before anything runs (no abort, no stack trace).

mod common;

use common::{bad_input, batchscope, temp_file};

#[test]
fn three_billion_records_per_batch_is_refused_in_one_line_naming_the_field() {
    let path = temp_file(
        "budget",
        "huge.json",
        r#"{"name":"huge","batches":6,"upstream":{"channels":3,"records_per_batch":3000000000},
            "source":{"kind":"tablestore"},"sink":{"kind":"upsert"}}"#,
    );
    let err = bad_input(
        &["run", path.to_str().unwrap()],
        "upstream.records_per_batch",
    );
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    let limit = batchscope_engine::microbatch::scenario::MAX_RECORDS.to_string();
    assert!(err.contains(&limit), "the limit {limit} is named: {err}");
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{err}"
    );
}

#[test]
fn a_batches_override_over_the_budget_is_refused_like_a_file() {
    let err = bad_input(
        &[
            "run",
            "--preset",
            "kafka-append",
            "--batches",
            "100000000000",
        ],
        "batches",
    );
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
}

#[test]
fn the_tablestore_burst_over_the_channel_cap_ends_stuck() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/tablestore-burst-over-cap.json"
    );
    let out = batchscope(&["run", path, "--expect", "stuck"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
