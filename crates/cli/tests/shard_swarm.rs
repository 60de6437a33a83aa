//! `batchscope explore --shard K/N` and `explore merge`, and `batchscope swarm`, through the
//! binary: two shards merge into exactly what one process prints (JSON and text); reports that
//! do not fit, and bad options, are one line on stderr and exit code 2; a swarm slice is clean.

mod common;

use common::{bad_input, batchscope, explore_json, temp_file};

const EXPLORATION: [&str; 7] = [
    "--preset",
    "tablestore",
    "--batches",
    "3",
    "--every-event",
    "--depth",
    "2",
];

/// The report of shard `k` of `n`, written to a file.
fn shard_file(k: u32, n: u32) -> std::path::PathBuf {
    let shard = format!("{k}/{n}");
    let mut args = vec!["explore"];
    args.extend_from_slice(&EXPLORATION);
    args.extend_from_slice(&["--shard", &shard]);
    let out = batchscope(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    temp_file("shards", &format!("shard-{k}-of-{n}.json"), &text)
}

#[test]
fn two_shards_merge_into_the_single_process_result() {
    let single = explore_json(&EXPLORATION);
    let (a, b) = (shard_file(1, 2), shard_file(2, 2));
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let out = batchscope(&["explore", "merge", b, a, "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let merged: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(single["pruned"].as_u64().unwrap() > 0);
    assert_eq!(merged, single);
    // The preset's claims too.
    assert!(!single["claims"].as_array().unwrap().is_empty());
    // The text report too, word for word.
    let mut text_args = vec!["explore"];
    text_args.extend_from_slice(&EXPLORATION);
    let whole = batchscope(&text_args);
    let merged_text = batchscope(&["explore", "merge", a, b]);
    assert_eq!(
        String::from_utf8(merged_text.stdout).unwrap(),
        String::from_utf8(whole.stdout).unwrap()
    );
    // One shard alone is not the exploration.
    let err = bad_input(&["explore", "merge", a], "missing shards: 2/2");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn what_is_not_a_shard_report_is_one_line_and_exit_2() {
    let junk = temp_file("shards", "junk.json", "{\"runs\": 3}");
    let junk = junk.to_str().unwrap();
    for (args, needle) in [
        (
            vec!["explore", "merge", junk],
            "not a shard report of `explore --shard`",
        ),
        (
            vec!["explore", "merge", "/nonexistent/shard.json"],
            "/nonexistent/shard.json",
        ),
        (
            vec!["explore", "--preset", "tablestore", "--shard", "3/2"],
            "`3/2` is not K/N",
        ),
        (vec!["swarm", "--runs", "0"], "--runs: at least 1"),
    ] {
        let err = bad_input(&args, needle);
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

#[test]
fn a_swarm_slice_holds_every_invariant() {
    let corpus = std::env::temp_dir().join(format!("batchscope-swarm-{}", std::process::id()));
    let corpus = corpus.to_str().unwrap();
    let out = batchscope(&["swarm", "--seed", "7", "--runs", "300", "--corpus", corpus]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.starts_with("batchscope swarm: seed 7 · runs 0..300 · 300 runs in "),
        "{text}"
    );
    assert!(text.contains(" · 0 violations\n"), "{text}");
    assert!(text.contains("restarts inspected "), "{text}");
    let json = batchscope(&["swarm", "--seed", "7", "--runs", "300", "--json"]);
    let tally: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(tally["runs"], 300);
    assert_eq!(tally["violations"], serde_json::json!([]));
}
