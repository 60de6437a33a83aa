//! `batchscope topology`: the JSON report's must-show numbers, bad topology files exiting 2
//! with the problem named, and the flags as clap parses them.

use batchscope_cli::topology::{report, run, topology_presets, topology_run, TopologyArgs};
use clap::{CommandFactory, Parser};

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: TopologyArgs,
}

fn args(line: &[&str]) -> TopologyArgs {
    let mut all = vec!["topology"];
    all.extend_from_slice(line);
    Cli::try_parse_from(all).expect("valid flags").args
}

fn json(line: &[&str]) -> serde_json::Value {
    let r = report(&args(line)).expect("report");
    serde_json::to_value(&r).unwrap()
}

#[test]
fn shopping_repeatable_read_never_mixes_but_read_uncommitted_does() {
    let v = json(&["--preset", "shopping", "--json"]);
    let c = &v["consistency"];
    assert_eq!(c["rr"]["inconsistent"], 0);
    assert!(c["ru"]["inconsistent"].as_u64().unwrap() > 0);
    assert_eq!(c["rc"]["inconsistent"], 0);
    assert_eq!(c["rr"]["queries"], v["events"]);
    assert_eq!(v["consistency_mode"], "strong");
}

#[test]
fn a_failure_after_precommit_rolls_back_read_committed_only() {
    let v = json(&["--preset", "shopping", "--json", "--fail", "price_job@2"]);
    assert!(v["consistency"]["rc"]["rolled_back"].as_u64().unwrap() > 0);
    assert_eq!(v["consistency"]["rr"]["rolled_back"], 0);
    assert_eq!(v["faults"][0]["fault"], "fail_before_written");
}

#[test]
fn without_barriers_every_level_sees_inconsistent_results() {
    for preset in ["shopping", "chain"] {
        let v = json(&["--preset", preset, "--json", "--no-barriers"]);
        for level in ["ru", "rc", "rr"] {
            assert!(
                v["consistency"][level]["inconsistent"].as_u64().unwrap() > 0,
                "{preset} {level}"
            );
        }
    }
}

#[test]
fn weak_consistency_never_mixes_transactions_at_read_committed_or_repeatable_read() {
    let v = json(&["--preset", "shopping", "--consistency", "weak", "--json"]);
    assert_eq!(v["consistency"]["rc"]["inconsistent"], 0);
    assert_eq!(v["consistency"]["rr"]["inconsistent"], 0);
    assert!(v["consistency"]["ru"]["inconsistent"].as_u64().unwrap() > 0);
}

#[test]
fn three_queries_agree_under_strong_and_disagree_under_weak() {
    let strong = json(&["--preset", "three-queries", "--json"]);
    for level in ["ru", "rc", "rr"] {
        assert_eq!(strong["consistency"][level]["disagreements"], 0, "{level}");
    }
    let weak = json(&[
        "--preset",
        "three-queries",
        "--consistency",
        "weak",
        "--json",
    ]);
    assert!(["ru", "rc", "rr"]
        .iter()
        .any(|l| weak["consistency"][l]["disagreements"].as_u64().unwrap() > 0));
    assert_eq!(weak["consistency"]["rc"]["inconsistent"], 0);
    assert_eq!(weak["consistency"]["rr"]["inconsistent"], 0);
    let lag = |v: &serde_json::Value| {
        v["consistency"]["rc"]["freshness"]["Query1"]["total"]
            .as_u64()
            .unwrap()
    };
    assert!(lag(&weak) < lag(&strong), "Weak is fresher");
}

#[test]
fn text_mode_tells_the_avg_price_story_at_each_level() {
    let r = report(&args(&["--preset", "shopping"])).unwrap();
    let lines = batchscope_cli::topology::summary_lines(&r);
    let story = |level: &str| {
        lines
            .iter()
            .find(|l| l.trim_start().starts_with(&format!("avgPrice at {level}:")))
            .cloned()
            .unwrap_or_else(|| panic!("no {level} line in {lines:?}"))
    };
    let values = |line: &str| -> Vec<String> {
        line.split(": ")
            .nth(1)
            .unwrap()
            .split("  [")
            .next()
            .unwrap()
            .split(" -> ")
            .map(|v| v.split(" after #").next().unwrap().to_string())
            .filter(|v| v != "–" && !v.starts_with("– "))
            .collect()
    };
    let ru = values(&story("Read Uncommitted"));
    let expected: Vec<String> = {
        // The seed's story, from the preset's two rows of user 1 / item 1: price/amount of the
        // first; both prices over the first amount (mixed); both prices over both amounts.
        let spec = batchscope_engine::barrier::preset("shopping").unwrap();
        let (r0, r1) = (&spec.cdc[0].records[0], &spec.cdc[0].records[1]);
        let text = |n: i64, d: i64| batchscope_check::topology::ratio_text(n as f64 / d as f64);
        let a = text(r0.price, r0.amount);
        let b = text(r0.price + r1.price, r0.amount);
        let c = text(r0.price + r1.price, r0.amount + r1.amount);
        vec![a, format!("{b} (mixed)"), c]
    };
    assert_eq!(ru[..3], expected[..], "{ru:?}");
    let rc = values(&story("Read Committed"));
    assert_eq!(rc, vec![expected[0].clone(), expected[2].clone()]);
}

#[test]
fn the_report_has_delays_and_snapshots_per_table() {
    let v = json(&["--preset", "shopping", "--barriers", "3"]);
    for t in ["shopping", "user_item_amount", "user_item_price"] {
        let snaps = v["snapshots"][t].as_array().unwrap();
        assert_eq!(snaps.len(), 3, "{t}");
        assert_eq!(snaps[0]["id"], 1);
        assert_eq!(snaps[2]["barrier"], 3);
        assert_eq!(snaps[2]["state"], "COMMIT");
        assert!(v["delay_ms"]["tables"][t]["max"].as_u64().unwrap() > 0);
    }
    let amount = &v["delay_ms"]["jobs"]["amount_job"];
    assert!(amount["max"].as_u64().unwrap() >= amount["last"].as_u64().unwrap());
    assert_eq!(v["job_to_optimise"], "amount_job");
    let row = &v["final_query"]["rows"][0];
    assert_eq!(row["on"], serde_json::json!([1, 1]));
    assert!((row["ratio"].as_f64().unwrap() - 2500.0 / 300.0).abs() < 1e-9);
}

#[test]
fn revision_is_reported_and_replays() {
    let r = report(&args(&["--preset", "chain", "--revise", "table1@1"])).unwrap();
    assert!(r
        .trace
        .iter()
        .any(|e| format!("{:?}", e.kind).starts_with("Revised")));
    assert!(r.consistency["rr"].rolled_back > 0);
    assert_eq!(r.snapshots["table3"].len(), 5);
}

#[test]
fn a_revision_with_corrected_rows_changes_the_final_answer_consistently() {
    let plain = json(&["--preset", "chain", "--json"]);
    let revised = json(&["--preset", "chain", "--revise", "table1@1", "--json"]);
    assert_ne!(plain["final_query"], revised["final_query"]);
    assert_eq!(revised["final_query"]["consistent"], true);
    for level in ["rc", "rr"] {
        assert_eq!(revised["consistency"][level]["inconsistent"], 0, "{level}");
    }
    let rev = &revised["revisions"][0];
    assert_eq!(rev["table"], "table1");
    assert!(rev["corrected_rows"].as_u64().unwrap() > 0);
}

#[test]
fn checkpoints_of_two_barriers_restore_the_checkpoint_and_replay_the_barriers_after_it() {
    let clean = json(&[
        "--preset",
        "shopping",
        "--barriers-per-checkpoint",
        "2",
        "--json",
    ]);
    let v = json(&[
        "--preset",
        "shopping",
        "--barriers-per-checkpoint",
        "2",
        "--fail",
        "price_job@4",
        "--json",
    ]);
    let f = &v["failovers"][0];
    let restored = f["restored_checkpoint"].as_u64().unwrap();
    let replayed: Vec<u64> = f["replayed_barriers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_u64().unwrap())
        .collect();
    assert!(replayed.len() >= 2, "{f}");
    // The checkpoint restored holds the barriers just before the replayed ones.
    let cp = v["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["checkpoint"] == restored)
        .unwrap();
    let last = cp["barriers"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .as_u64()
        .unwrap();
    assert_eq!(replayed[0], last + 1);
    assert_eq!(v["final_query"], clean["final_query"]);
    assert_eq!(
        v["snapshots"], clean["snapshots"],
        "the same snapshots after the replay"
    );
    let e = report(&args(&["--barriers-per-checkpoint", "0"])).unwrap_err();
    assert!(
        e.starts_with("--barriers-per-checkpoint 0: must be between 1"),
        "{e}"
    );
}

#[test]
fn the_report_has_lineage_and_expired_and_held_snapshots() {
    let v = json(&[
        "--preset",
        "three-queries",
        "--snapshot-retention",
        "0",
        "--json",
    ]);
    let sources = v["lineage"]["__META_JOB_SOURCE"].as_array().unwrap();
    assert!(sources
        .iter()
        .any(|r| r["job_id"] == "amount_job" && r["table_name"] == "table1"));
    let sinks = v["lineage"]["__META_JOB_SINK"].as_array().unwrap();
    assert!(sinks
        .iter()
        .any(|r| r["job_id"] == "amount_job" && r["table_name"] == "table2"));
    assert!(v["expired_snapshots"]["table2"]
        .as_array()
        .is_some_and(|l| !l.is_empty()));
    let held = v["held_snapshots"]["table1"].as_array().unwrap();
    assert!(held.iter().any(|h| h["held_by"]
        .as_array()
        .unwrap()
        .iter()
        .any(|b| b.as_str().unwrap().starts_with("rr:"))));
    let wide = json(&["--preset", "three-queries", "--json"]);
    let count = |v: &serde_json::Value| {
        v["expired_snapshots"].as_object().map_or(0, |m| {
            m.values()
                .map(|l| l.as_array().unwrap().len())
                .sum::<usize>()
        })
    };
    assert!(
        count(&wide) < count(&v),
        "a larger retention expires fewer snapshots"
    );
}

fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!("batchscope-{}-{name}", std::process::id()));
    std::fs::write(&p, text).unwrap();
    p
}

fn chain_with(edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v = serde_json::to_value(batchscope_engine::barrier::preset("chain").unwrap()).unwrap();
    edit(&mut v);
    v.to_string()
}

#[test]
fn topology_files_with_a_cycle_or_two_writers_exit_2_naming_the_problem() {
    let two = temp_file(
        "two-writers.json",
        &chain_with(|v| v["jobs"][2]["sink"] = "table2".into()),
    );
    let a = args(&[two.to_str().unwrap()]);
    assert_eq!(run(&a), 2);
    let e = report(&a).unwrap_err();
    assert!(
        e.ends_with("table `table2` has two writers: `sum_job` and `join_job`"),
        "{e}"
    );
    assert!(e.starts_with(two.to_str().unwrap()), "names the file: {e}");

    let cycle = temp_file(
        "cycle.json",
        &chain_with(|v| {
            v["jobs"][0]["sources"] = serde_json::json!(["table2"]);
            v["jobs"][0]["name"] = "back_job".into();
        }),
    );
    let a = args(&[cycle.to_str().unwrap()]);
    assert_eq!(run(&a), 2);
    let e = report(&a).unwrap_err();
    assert!(
        e.contains("cycle: table1 → sum_job → table2 → back_job → table1"),
        "{e}"
    );
    std::fs::remove_file(two).unwrap();
    std::fs::remove_file(cycle).unwrap();
}

#[test]
fn bad_flags_name_the_flag() {
    let e = report(&args(&["--fail", "price_job"])).unwrap_err();
    assert!(
        e.starts_with("--fail price_job: expected NAME@BARRIER"),
        "{e}"
    );
    let e = report(&args(&["--fail", "nobody@2"])).unwrap_err();
    assert_eq!(e, "fail: unknown job `nobody`");
    let e = report(&args(&["--fail", "price_job@9"])).unwrap_err();
    assert!(e.contains("between 1 and --barriers 5"), "{e}");
    let e = report(&args(&["--revise", "shopping@1", "--no-barriers"])).unwrap_err();
    assert!(e.contains("needs timestamp barriers"), "{e}");
    let e = report(&args(&["--preset", "nope"])).unwrap_err();
    assert!(
        e.contains(
            "unknown preset `nope` (known: shopping, chain, three-queries, kafka-2pc-timeout"
        ),
        "{e}"
    );
    let e = report(&args(&["/no/such/topology.json"])).unwrap_err();
    assert!(e.starts_with("/no/such/topology.json: cannot read"), "{e}");
    assert_eq!(run(&args(&["--preset", "nope"])), 2);
    assert!(Cli::try_parse_from(["topology", "--preset", "chain", "f.json"]).is_err());
}

#[test]
fn help_says_when_the_fault_strikes_and_presets_are_listed() {
    let help = Cli::command().render_long_help().to_string();
    assert!(help.contains("PRECOMMIT"), "{help}");
    assert!(help.contains("JOB@BARRIER"));
    let names: Vec<&str> = topology_presets().iter().map(|p| p.0).collect();
    assert_eq!(
        names,
        vec![
            "shopping",
            "chain",
            "three-queries",
            "kafka-2pc-timeout",
            "paimon-expired-snapshot",
            "group-offset-lag",
            "notify-twice"
        ]
    );
}

#[test]
fn the_same_flags_give_the_same_run() {
    let a = args(&["--preset", "chain", "--seed", "9", "--fail", "join_job@3"]);
    assert_eq!(topology_run(&a).unwrap(), topology_run(&a).unwrap());
    let one = report(&a).unwrap().trace;
    let two = report(&a).unwrap().trace;
    assert_eq!(one, two);
    assert_eq!(run(&a), 0);
    let d = TopologyArgs::default();
    assert_eq!(
        d.barriers,
        args(&[]).barriers,
        "Default matches the command line"
    );
}

/// Every point of every value history, in the runs the lessons and the audit use: the event
/// it names (`after #N`) is the trace's event #N, and that event is the one that changed the
/// answer — the query gives the point's value with events #0..=N applied and another value
/// without #N.
#[test]
fn every_value_history_point_names_the_trace_event_that_changed_the_answer() {
    use batchscope_check::topology::{moment, value_text};
    use batchscope_engine::barrier::{ReadLevel, TopologyWorld};
    let runs: &[&[&str]] = &[
        &["--preset", "shopping"],
        &["--preset", "shopping", "--fail", "price_job@2"],
        &[
            "--preset",
            "three-queries",
            "--consistency",
            "weak",
            "--fail",
            "amount_job@2",
        ],
        &["--preset", "chain", "--revise", "table1@1"],
        &["--preset", "chain", "--no-barriers"],
    ];
    for line in runs {
        let a = args(line);
        let r = report(&a).unwrap();
        let run = topology_run(&a).unwrap();
        // The world after each number of steps: worlds[k] has events #0..k applied.
        let mut w = TopologyWorld::from_run(run).unwrap();
        let mut worlds = vec![w.clone()];
        while w.step().is_some() {
            worlds.push(w.clone());
        }
        assert_eq!(worlds.len() as u64, r.events + 1, "{line:?}");
        let value = |k: usize, level: ReadLevel, name: &str| -> String {
            let world = &worlds[k];
            let results = moment(world, level, a.consistency.into());
            let (res, spec) = results
                .iter()
                .zip(world.spec().all_queries())
                .find(|(_, s)| s.name == name)
                .unwrap();
            value_text(res, spec.ratio.is_some())
        };
        for level in ReadLevel::ALL {
            for (name, points) in &r.consistency[level.short()].values {
                for p in points {
                    let n = p.after_event as usize;
                    assert_eq!(r.trace[n].step, p.after_event, "{line:?}: the trace's #{n}");
                    assert_eq!(
                        value(n + 1, level, name),
                        p.value,
                        "{line:?} {name} after #{n}"
                    );
                    if n > 0 {
                        assert_ne!(
                            value(n, level, name),
                            p.value,
                            "{line:?} {name} {level:?}: #{n} did not change the answer"
                        );
                    }
                }
            }
        }
    }
}

/// The must-show line of the shopping run: Read Uncommitted's 25 appears after the event that
/// PROCESSED barrier 2 in user_item_price, and the text names that event's number.
#[test]
fn read_uncommitted_shows_25_after_the_processed_event_that_caused_it() {
    let r = report(&args(&["--preset", "shopping"])).unwrap();
    let lines = batchscope_cli::topology::summary_lines(&r);
    let ru = lines
        .iter()
        .find(|l| l.trim_start().starts_with("avgPrice at Read Uncommitted:"))
        .unwrap();
    let n: u64 = ru
        .split(" -> ")
        .find(|p| p.starts_with("25 (mixed)"))
        .and_then(|p| p.rsplit_once("after #"))
        .map(|(_, n)| n.split_whitespace().next().unwrap().parse().unwrap())
        .unwrap_or_else(|| panic!("no 25 in {ru}"));
    let line = batchscope_cli::topology::event_line(&r.trace[n as usize]);
    assert!(
        line.contains(&format!("#{n} ")) && line.contains("PROCESSED user_item_price barrier 2"),
        "{line}"
    );
}

/// The final rows of the declared query, by their join key.
fn final_rows(v: &serde_json::Value) -> std::collections::BTreeMap<String, serde_json::Value> {
    v["final_query"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["on"].to_string(), r["columns"].clone()))
        .collect()
}

/// A revision corrects the row it means and keeps the rest of the barrier: in `shopping`,
/// user 3's order of item 2 — generated into barrier 1 next to the corrected row of user 1 —
/// keeps the totals the unrevised run computes (6 and 132 with seed 1), and only user 1's
/// row of item 1 changes.
#[test]
fn a_revision_keeps_the_orders_it_does_not_correct() {
    let plain = json(&["--preset", "shopping", "--json"]);
    let revised = json(&["--preset", "shopping", "--revise", "shopping@1", "--json"]);
    let (before, after) = (final_rows(&plain), final_rows(&revised));
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>()
    );
    let changed: Vec<&String> = before.keys().filter(|k| before[*k] != after[*k]).collect();
    assert_eq!(changed, vec!["[1,1]"], "only the corrected order changes");
    assert_eq!(after["[3,2]"], before["[3,2]"]);
    let rev = &revised["revisions"][0];
    assert_eq!(rev["replaced"].as_array().unwrap().len(), 1);
    assert_eq!(rev["replaced"][0]["cdc_offset"], 0);
    // Barrier 1 held two CDC records in the unrevised run: one is corrected, one kept.
    assert_eq!(rev["kept_rows"], 1);
}

/// A revision with corrected rows gives what a failure-free run gives when the CDC record was
/// right from the start (`chain` and `shopping`): the whole barrier is kept but that record.
#[test]
fn a_revised_run_equals_a_clean_run_on_the_corrected_cdc_record() {
    for (preset, revise) in [("shopping", "shopping@1"), ("chain", "table1@1")] {
        let revised = json(&["--preset", preset, "--revise", revise, "--json"]);
        let fix = &revised["revisions"][0]["replaced"][0];
        let (was, now) = (&fix["before"], &fix["after"]);
        let mut spec =
            serde_json::to_value(batchscope_engine::barrier::preset(preset).unwrap()).unwrap();
        spec["revisions"] = serde_json::json!([]);
        // One CDC source, written as a list of one (several sources are a list).
        let record = spec["cdc"][0]["records"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|r| {
                serde_json::json!([r["userId"], r["itemId"], r["amount"], r["price"]]) == *was
            })
            .expect("the corrected row replaces an explicit CDC record");
        for (i, field) in ["userId", "itemId", "amount", "price"].iter().enumerate() {
            record[field] = now[i].clone();
        }
        let file = temp_file(&format!("{preset}-corrected.json"), &spec.to_string());
        let clean = json(&[file.to_str().unwrap(), "--json"]);
        assert_eq!(final_rows(&clean), final_rows(&revised), "{preset}");
        assert_eq!(clean["final_query"]["consistent"], true);
    }
}

#[test]
fn a_revision_key_that_is_not_a_column_is_named() {
    let bad = temp_file(
        "bad-key.json",
        &chain_with(|v| v["revisions"][0]["key"] = serde_json::json!(["orderId"])),
    );
    let e = report(&args(&[bad.to_str().unwrap()])).unwrap_err();
    assert!(
        e.contains("revisions[0].key") && e.contains("`orderId`"),
        "{e}"
    );
}

/// The job to optimise is answered per table, among the jobs on that table's path from CDC
/// (FLIP-276 asks it "from CDC to Table2"): in a topology with two branches, the job with the
/// largest delay overall is on one branch only, and the other branch's tables name a job of
/// their own path.
#[test]
fn the_job_to_optimise_is_chosen_per_table_among_the_jobs_on_its_path() {
    let file =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/topologies/delaypaths.json");
    let v = json(&[file.to_str().unwrap(), "--json"]);
    let jobs = v["delay_ms"]["jobs"].as_object().unwrap();
    let mean = |j: &str| jobs[j]["mean"].as_u64().unwrap();
    let lineage = &v["lineage"]["jobs"];
    let writer = |t: &str| {
        lineage
            .as_array()
            .unwrap()
            .iter()
            .find(|j| j["sink"] == t)
            .map(|j| {
                (
                    j["name"].as_str().unwrap().to_string(),
                    j["sources"].clone(),
                )
            })
            .unwrap()
    };
    let per_table = v["jobs_to_optimise"].as_array().unwrap();
    assert_eq!(
        per_table.len(),
        v["delay_ms"]["tables"].as_object().unwrap().len()
    );
    for t in per_table {
        // The path: the table's writer, then the writers of its sources, up to CDC.
        let mut path = vec![];
        let mut todo = vec![t["table"].as_str().unwrap().to_string()];
        while let Some(table) = todo.pop() {
            let (job, sources) = writer(&table);
            path.push(job);
            todo.extend(
                sources
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter_map(|s| s.as_str())
                    .filter(|s| *s != "cdc")
                    .map(str::to_string),
            );
        }
        let listed: Vec<String> = t["path"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j.as_str().unwrap().to_string())
            .collect();
        path.sort();
        let mut sorted = listed.clone();
        sorted.sort();
        assert_eq!(sorted, path, "{t}");
        let best = listed.iter().map(|j| mean(j)).max().unwrap();
        assert_eq!(t["mean_ms"].as_u64().unwrap(), best, "{t}");
        assert!(listed.iter().any(|j| *j == t["job"]), "{t}");
    }
    // The slowest job overall is not on the path of the table with the largest delay.
    let slowest = jobs.keys().max_by_key(|j| mean(j)).unwrap();
    let tables = v["delay_ms"]["tables"].as_object().unwrap();
    let worst = tables
        .keys()
        .max_by_key(|t| tables[*t]["mean"].as_u64().unwrap())
        .unwrap();
    let worst_entry = per_table
        .iter()
        .find(|t| t["table"] == worst.as_str())
        .unwrap();
    assert!(!worst_entry["path"]
        .as_array()
        .unwrap()
        .iter()
        .any(|j| j == slowest.as_str()));
    assert_eq!(v["job_to_optimise"], worst_entry["job"]);
    assert_ne!(v["job_to_optimise"], slowest.as_str());
}
