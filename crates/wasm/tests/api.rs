//! The JavaScript API on wasm32: create, step, crash, converge, judge, and clear errors.
//!
//! Runs under `wasm-bindgen-test-runner` in Node (see `scripts/test-wasm.sh`); natively this
//! file compiles to an empty test binary (the same behaviour is covered natively by
//! `tests/types.rs` and the engine's tests).
#![cfg(target_arch = "wasm32")]

#[allow(dead_code)]
#[path = "../../engine/tests/common/golden.rs"]
mod golden;

use batchscope_wasm::{presets_json, verdict_names, ApiError, Simulation};
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

fn json(text: &str) -> Value {
    serde_json::from_str(text).expect("the API returns JSON")
}

/// The message JavaScript sees when the error is thrown.
fn js_message(e: ApiError) -> String {
    let value: JsValue = e.into();
    let error: js_sys::Error = value.dyn_into().expect("thrown as a JavaScript Error");
    error.message().into()
}

#[wasm_bindgen_test]
fn kafka_append_crashed_after_the_sink_commit_of_batch_3_duplicates_the_batch() {
    let mut sim = Simulation::from_preset("kafka-append", None).unwrap();
    sim.crash("sink-commit@3").unwrap();
    let first = json(&sim.step());
    assert_eq!(first["seq"], 0);
    assert_eq!(first["kind"]["type"], "query-started");
    let state = json(&sim.state_json());
    assert_eq!(
        state["oracle"]["verdict"],
        Value::Null,
        "no verdict mid-run"
    );
    assert_eq!(
        state["crashes_pending"],
        serde_json::json!(["sink-commit@3"])
    );

    assert!(sim.step_until_converged(100_000));
    let report = json(&sim.report_json().unwrap());
    assert_eq!(report["verdict"], "duplicates");
    assert_eq!(
        report["crashes_fired"],
        serde_json::json!(["sink-commit@3"])
    );
    assert!(report["duplicates"].as_u64().unwrap() > 0);
    assert_eq!(sim.verdict().as_deref(), Some("duplicates"));

    let state = json(&sim.state_json());
    assert_eq!(state["converged"], true);
    assert_eq!(state["oracle"]["verdict"], "duplicates");
    assert_eq!(state["oracle"]["duplicates"], report["duplicates"]);
    assert_eq!(state["crashes_fired"], serde_json::json!(["sink-commit@3"]));
    let events = json(&sim.events_json());
    assert_eq!(events.as_array().unwrap().len() as u64, report["steps"]);

    // Arming through the API before the first step gives the pinned trace of the engine's test.
    let pinned = golden::GOLDEN
        .iter()
        .find(|g| g.preset == "kafka-append" && g.seed == 7 && g.crashes == ["sink-commit@3"])
        .expect("pinned run");
    assert_eq!(sim.trace_hash(), format!("0x{:016x}", pinned.hash));
}

#[wasm_bindgen_test]
fn crash_now_is_recorded_and_a_replay_of_the_scenario_gives_the_same_trace() {
    let mut sim = Simulation::from_preset("kafka-idempotent", Some(u64::MAX)).unwrap();
    assert!(!sim.crash_now(), "nothing to crash before the first event");
    while json(&sim.step())["kind"]["type"] != "commit-log-written" {}
    assert!(sim.crash_now());
    let crashed = json(&sim.step());
    assert_eq!(crashed["kind"]["type"], "crashed");
    assert_eq!(crashed["kind"]["point"], Value::Null);
    assert!(sim.step_until_converged(100_000));
    assert_eq!(json(&sim.report_json().unwrap())["verdict"], "exactly-once");

    let scenario = sim.scenario_json();
    assert!(
        json(&scenario)["crash_after_events"]
            .as_array()
            .unwrap()
            .len()
            == 1
    );
    // The seed above 2^53 survives the JSON text exactly.
    assert_eq!(json(&scenario)["seed"].as_u64(), Some(u64::MAX));
    let mut replay = Simulation::from_scenario_json(&scenario).unwrap();
    assert!(replay.step_until_converged(100_000));
    assert_eq!(replay.trace_hash(), sim.trace_hash());
}

#[wasm_bindgen_test]
fn a_bad_scenario_is_rejected_naming_the_field() {
    let mut scenario = json(&presets_json())[0]["scenario"].clone();
    scenario["upstream"]["channels"] = 0.into();
    let e = Simulation::from_scenario_json(&scenario.to_string())
        .err()
        .expect("zero channels is rejected");
    assert_eq!(e.field, "upstream.channels");
    assert!(js_message(e).starts_with("upstream.channels: must be between 1 and"));

    let typo = r#"{"batches": 3, "upstream": {"chanels": 2, "records_per_batch": 1},
        "source": {"kind": "tablestore"}, "sink": {"kind": "upsert"}}"#;
    let e = Simulation::from_scenario_json(typo)
        .err()
        .expect("typo rejected");
    assert!(js_message(e).contains("unknown field `chanels`"));

    let e = Simulation::from_preset("kafka", None)
        .err()
        .expect("unknown preset");
    assert_eq!(e.field, "preset");
    assert!(
        js_message(e).contains("kafka-idempotent"),
        "lists the known presets"
    );
}

#[wasm_bindgen_test]
fn a_bad_crash_point_is_rejected_naming_it() {
    let mut sim = Simulation::from_preset("tablestore", None).unwrap();
    let e = sim.crash("sink-comit@3").expect_err("unknown name");
    assert_eq!(e.field, "crash point");
    let message = js_message(e);
    assert!(
        message.contains("unknown crash point `sink-comit`"),
        "{message}"
    );
    assert!(
        message.contains("sink-commit"),
        "lists the known names: {message}"
    );
    let e = sim.crash("task@two").expect_err("bad batch");
    assert!(e.reason.contains("batch `two`"), "{}", e.reason);
    let e = sim.crash("task").expect_err("no batch");
    assert!(e.reason.contains("NAME@BATCH"), "{}", e.reason);
    assert_eq!(
        json(&sim.state_json())["crashes_pending"],
        serde_json::json!([])
    );
}

#[wasm_bindgen_test]
fn the_report_waits_for_the_end_of_the_run() {
    let mut sim = Simulation::from_preset("tablestore", None).unwrap();
    sim.step();
    let e = sim.report_json().expect_err("not finished");
    assert!(js_message(e).starts_with("report: the run has not finished"));
    assert_eq!(sim.verdict(), None);
    assert!(sim.step_until_converged(100_000));
    assert_eq!(sim.verdict().as_deref(), Some("exactly-once"));
}

#[wasm_bindgen_test]
fn the_state_shows_the_tablestore_meta_table_and_tunnel() {
    let mut sim = Simulation::from_preset("tablestore-split", None).unwrap();
    assert!(sim.step_until_converged(100_000));
    let state = json(&sim.state_json());
    let channels = state["tunnel_channels"].as_array().unwrap();
    assert_eq!(
        channels.len(),
        4,
        "two channels, one split into two children"
    );
    assert!(channels.iter().any(|c| c["parent"] == "ch0"));
    assert!(!state["meta_rows"].as_array().unwrap().is_empty());
    let files = state["checkpoint_files"].as_array().unwrap();
    assert!(files.iter().any(|f| f["path"] == "metadata"));
    assert!(files.iter().any(|f| f["path"] == "commits/0"));
    assert_eq!(state["oracle"]["missing"], 0);
}

#[wasm_bindgen_test]
fn presets_and_verdicts_are_listed() {
    let presets = json(&presets_json());
    let names: Vec<&str> = presets
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"kafka-append") && names.contains(&"tablestore-split"));
    assert_eq!(verdict_names()[0], "exactly-once");
}
