//! `batchscope compare`: both verdicts (each equal to what `batchscope run` says for that side),
//! the first diverging event (where the engine's traces part), the differences, and bad input.

mod common;

use batchscope_check::compare::same_inputs;
use batchscope_engine::microbatch::scenario::{preset, Scenario};
use batchscope_engine::microbatch::trace;
use batchscope_engine::microbatch::World;
use common::{bad_input, batchscope, temp_file};
use serde_json::Value;

fn json(args: &[&str]) -> Value {
    let out = batchscope(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}");
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// The events of a scenario run to its end by the engine.
fn events(s: &Scenario) -> Vec<batchscope_engine::microbatch::event::Event> {
    let mut world = World::new(s.clone());
    batchscope_check::liveness::run(&mut world, batchscope_check::liveness::Limit::JUDGE);
    world.events().to_vec()
}

#[test]
fn append_vs_idempotent_under_a_sink_commit_crash() {
    let c = json(&[
        "compare",
        "kafka-append",
        "kafka-idempotent",
        "--crash",
        "sink-commit@3",
        "--json",
    ]);
    // Each side's verdict is what `run` reports for that preset with the crash.
    for (side, name) in [("a", "kafka-append"), ("b", "kafka-idempotent")] {
        let run = json(&[
            "run",
            "--preset",
            name,
            "--crash",
            "sink-commit@3",
            "--json",
        ]);
        assert_eq!(c[side]["verdict"], run["verdict"], "{side}");
        assert_eq!(c[side]["report"]["delivered"], run["delivered"], "{side}");
    }
    assert_ne!(c["a"]["verdict"], c["b"]["verdict"]);
    assert_eq!(c["crashes"], serde_json::json!(["sink-commit@3"]));

    // The first divergence is where the engine's two traces part.
    let mut a = preset("kafka-append").unwrap();
    a.crashes.push("sink-commit@3".parse().unwrap());
    let (a, b) = same_inputs(&a, &preset("kafka-idempotent").unwrap());
    let (ea, eb) = (events(&a), events(&b));
    let i = c["first_divergence"]["index"].as_u64().expect("index") as usize;
    assert_eq!(ea[..i], eb[..i]);
    assert_ne!(ea[i], eb[i]);
    assert_eq!(c["first_divergence"]["a"], trace::line(&ea[i]));
    assert_eq!(c["first_divergence"]["b"], trace::line(&eb[i]));

    // The differences name the verdict and the rows delivered, with both sides' values.
    let diffs = c["differences"].as_array().expect("differences");
    let row = |what: &str| diffs.iter().find(|d| d["what"] == what).cloned();
    let verdict = row("verdict").expect("verdict differs");
    assert_eq!(verdict["a"], c["a"]["verdict"]);
    let delivered = row("rows delivered").expect("rows delivered differ");
    assert_eq!(
        delivered["a"],
        c["a"]["report"]["delivered"].to_string().as_str()
    );
}

#[test]
fn text_output_names_both_verdicts_and_the_divergence() {
    let out = batchscope(&[
        "compare",
        "kafka-append",
        "kafka-idempotent",
        "--crash",
        "sink-commit@3",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let c = json(&[
        "compare",
        "kafka-append",
        "kafka-idempotent",
        "--crash",
        "sink-commit@3",
        "--json",
    ]);
    for side in ["a", "b"] {
        let verdict = c[side]["verdict"].as_str().unwrap();
        assert!(text.contains(verdict), "{verdict} in:\n{text}");
        let line = c["first_divergence"][side].as_str().unwrap();
        assert!(text.contains(line), "{line} in:\n{text}");
    }
    let index = c["first_divergence"]["index"].to_string();
    assert!(
        text.contains(&format!("first divergence at event {index}")),
        "{text}"
    );
}

#[test]
fn a_file_against_a_preset_with_the_same_seed() {
    let mut s = preset("kafka-append").unwrap();
    s.name = "five-channels".into();
    s.upstream.channels = 5;
    s.seed = 99;
    let path = temp_file("compare", "five.json", &s.to_json());
    let c = json(&["compare", path.to_str().unwrap(), "kafka-append", "--json"]);
    assert_eq!(c["a"]["name"], "five-channels");
    assert_eq!(c["seed"], 99);
    assert_eq!(c["b"]["report"]["seed"], 99, "B runs with A's seed");
    assert!(c["first_divergence"].is_object(), "five channels vs three");
    let same = json(&[
        "compare",
        "tablestore",
        "tablestore",
        "--seed",
        "5",
        "--json",
    ]);
    assert!(same["first_divergence"].is_null());
    assert_eq!(same["differences"], serde_json::json!([]));
    assert_eq!(same["a"]["report"]["seed"], 5);
}

#[test]
fn the_matrix_lists_the_crash_points_judged_differently() {
    let c = json(&[
        "compare",
        "kafka-append",
        "kafka-idempotent",
        "--matrix",
        "--json",
    ]);
    let cells = c["matrix_differences"].as_array().expect("cells");
    assert!(!cells.is_empty());
    for cell in cells {
        let crash = cell["crash"].as_str().unwrap();
        for (side, name) in [("a", "kafka-append"), ("b", "kafka-idempotent")] {
            let run = json(&["run", "--preset", name, "--crash", crash, "--json"]);
            assert_eq!(cell[side], run["verdict"], "{crash} {side}");
        }
    }
    let out = batchscope(&["compare", "kafka-append", "kafka-idempotent", "--matrix"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(&format!("{} crash points judged differently", cells.len())),
        "{text}"
    );
}

#[test]
fn bad_input_is_named() {
    bad_input(
        &["compare", "nope", "kafka-append"],
        "unknown preset `nope`",
    );
    bad_input(
        &["compare", "kafka-append", "tablestore", "--crash", "boom@1"],
        "boom",
    );
    let mut v: Value = serde_json::from_str(&preset("tablestore").unwrap().to_json()).unwrap();
    v["upstream"]["channels"] = "five".into();
    let path = temp_file("compare", "bad.json", &v.to_string());
    bad_input(
        &["compare", "tablestore", path.to_str().unwrap()],
        "upstream.channels",
    );
    bad_input(
        &["compare", "missing-file.json", "tablestore"],
        "missing-file.json",
    );
}
