//! The lessons' claims through `batchscope explore`: every preset's claims hold when it is
//! explored at depth 1, at the named crash points and after every event (a lesson that says
//! what the explorer does not find fails here); the claim lines and the JSON `claims` of
//! kafka-append, with the verdict `batchscope run` gives; a violated and a never-reached claim;
//! none for a scenario file.

use batchscope_engine::microbatch::scenario::presets;
use batchscope_view::microbatch::claims::claims;
use serde_json::Value;
mod common;

use common::{batchscope, explore_json, temp_file};

/// The verdict `batchscope run --json ARGS…` gives.
fn run_verdict(args: &[&str]) -> String {
    let mut all = vec!["run", "--json"];
    all.extend_from_slice(args);
    let out = batchscope(&all);
    assert_eq!(out.status.code(), Some(0), "{args:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["verdict"].as_str().unwrap().to_string()
}

/// `batchscope explore ARGS…` as text.
fn explore_text(args: &[&str]) -> String {
    let mut all = vec!["explore"];
    all.extend_from_slice(args);
    let out = batchscope(&all);
    assert_eq!(out.status.code(), Some(0), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn claim_lines(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.starts_with("claim ")).collect()
}

#[test]
fn every_lesson_claim_holds_when_its_preset_is_explored() {
    for p in presets() {
        let words: Vec<&str> = claims(p.name).iter().map(|c| c.words).collect();
        assert!(!words.is_empty(), "{}: a lesson without a claim", p.name);
        for every_event in [false, true] {
            let mut args = vec!["--preset", p.name];
            if every_event {
                args.push("--every-event");
            }
            let v = explore_json(&args);
            let checked = v["claims"].as_array().unwrap();
            let got: Vec<&str> = checked
                .iter()
                .map(|c| c["claim"].as_str().unwrap())
                .collect();
            assert_eq!(got, words, "{args:?}");
            for c in checked {
                assert_eq!(
                    c["status"], "held",
                    "{args:?}: {} ({})",
                    c["claim"], c["evidence"]["text"]
                );
            }
        }
    }
}

#[test]
fn kafka_append_prints_its_claims_with_the_runs_that_decide_them() {
    let at_3 = run_verdict(&["--preset", "kafka-append", "--crash", "sink-commit@3"]);
    let text = explore_text(&["--preset", "kafka-append"]);
    let v = explore_json(&["--preset", "kafka-append"]);
    let runs = v["runs"].as_u64().unwrap();
    let words: Vec<&str> = claims("kafka-append").iter().map(|c| c.words).collect();
    assert_eq!(
        claim_lines(&text),
        vec![
            format!("claim held: {} (sink-commit@3 → {at_3})", words[0]),
            format!(
                "claim held: {} ({runs} runs, none data-loss or duplicates-and-loss)",
                words[1]
            ),
        ]
    );
    // The claims come last, after the summary.
    assert!(text.trim_end().ends_with(claim_lines(&text)[1]));
    let first = &v["claims"][0];
    assert_eq!(first["claim"], words[0]);
    assert_eq!(first["status"], "held");
    assert_eq!(first["property"]["kind"], "sometimes");
    assert_eq!(first["property"]["point"], "sink-commit");
    assert_eq!(first["property"]["batch"], 3);
    assert_eq!(first["evidence"]["cells"][0]["verdict"], at_3.as_str());
    let second = &v["claims"][1];
    assert_eq!(second["property"]["kind"], "never");
    assert_eq!(second["evidence"]["matching"], 0);
    assert_eq!(second["evidence"]["runs"], runs);
}

#[test]
fn a_claim_is_violated_or_never_reached_where_the_runs_say_so() {
    // Two batches: nothing arrives after batch 2, so its re-run reads what the first attempt
    // read.
    let args = ["--preset", "tablestore-two-phase", "--batches", "2"];
    let verdict = run_verdict(&[&args[..], &["--crash", "sink-commit@2"]].concat());
    let words = claims("tablestore-two-phase")[0].words;
    assert_ne!(verdict, "data-loss");
    assert_eq!(
        claim_lines(&explore_text(&args)),
        vec![format!(
            "claim VIOLATED: {words} (sink-commit@2 → {verdict})"
        )]
    );
    let v = explore_json(&args);
    assert_eq!(v["claims"][0]["status"], "violated");
    // One batch: no run crashes at sink-commit@2.
    let text = explore_text(&["--preset", "tablestore-two-phase", "--batches", "1"]);
    assert_eq!(
        claim_lines(&text),
        vec![format!(
            "claim never reached: {words} (no explored run crashed at sink-commit@2)"
        )]
    );
}

#[test]
fn a_scenario_file_has_no_claims() {
    let mut scenario = batchscope_engine::microbatch::scenario::preset("kafka-append").unwrap();
    scenario.crashes.clear();
    let scenario = serde_json::to_string(&scenario).unwrap();
    let path = temp_file("claims", "kafka-append.json", &scenario);
    let path = path.to_str().unwrap();
    assert!(claim_lines(&explore_text(&[path])).is_empty());
    assert_eq!(explore_json(&[path])["claims"], Value::Array(vec![]));
}

#[test]
fn the_lesson_lists_its_claims() {
    let out = batchscope(&["lesson", "kafka-append"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let (_, after) = text
        .split_once("Claims the explorer checks")
        .expect("a claims heading");
    for c in claims("kafka-append") {
        assert!(after.contains(&format!("  • {}\n", c.words)), "{}", c.words);
    }
}
