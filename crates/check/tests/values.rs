//! Keys and values: an upsert sink that keeps a running sum per user is judged on its values,
//! so a re-run that adds a batch twice is a failure the oracle names, though no key repeats.

use batchscope_check::oracle::{check, check_world, Verdict};
use batchscope_engine::microbatch::scenario::{CrashPoint, Scenario, SinkKind};
use std::collections::BTreeMap;

const RUNNING_SUM: &str = include_str!("../../../scenarios/kafka-running-sum.json");

fn scenario(crash: Option<&str>) -> Scenario {
    let mut s = Scenario::from_json(RUNNING_SUM).expect("the scenario file is valid");
    s.crashes
        .extend(crash.map(|c| c.parse::<CrashPoint>().expect("crash point")));
    s
}

#[test]
fn a_running_sum_that_adds_a_replayed_batch_twice_is_named_by_its_wrong_values() {
    let clean = check(&scenario(None));
    assert_eq!(clean.verdict, Verdict::ExactlyOnce);
    assert!(clean.wrong_values.is_empty());

    let (report, world) = check_world(&scenario(Some("sink-commit@3")), false);
    // The sums, recomputed here from the upstream: every record's amount once, per user.
    let mut want: BTreeMap<String, u64> = BTreeMap::new();
    for r in world.upstream.records() {
        *want.entry(format!("user-{}", r.user_id)).or_insert(0) += r.amount;
    }
    let key = |r| world.sink.row_key(r).to_string();
    let mut wrong: Vec<String> = world
        .sink
        .visible()
        .filter(|r| want[&key(r)] != world.sink.value_of(r, &world.upstream))
        .map(key)
        .collect();
    wrong.sort();
    assert!(
        !wrong.is_empty(),
        "the re-run of batch 3 added its rows twice"
    );
    assert!(world
        .sink
        .visible()
        .all(|r| world.sink.value_of(r, &world.upstream) >= want[&key(r)]));
    // Every key appears once: counting keys alone would call this exactly-once.
    let keys: Vec<String> = world.sink.visible().map(key).collect();
    assert_eq!(keys.len(), want.len());
    assert_eq!(report.verdict, Verdict::Duplicates, "{report:?}");
    let duplicated: Vec<String> = report
        .duplicate_keys
        .iter()
        .map(|k| k.to_string())
        .collect();
    assert_eq!(duplicated, wrong);
    assert_eq!(report.wrong_values.len(), wrong.len());
    for (line, key) in report.wrong_values.iter().zip(&wrong) {
        assert!(line.starts_with(&format!("{key}: ")), "{line}");
        assert!(line.ends_with(&format!("expected {}", want[key])), "{line}");
    }
    assert_eq!(report.lost, 0);
}

#[test]
fn the_same_crash_into_an_upsert_of_records_is_exactly_once() {
    let mut s = scenario(Some("sink-commit@3"));
    s.sink.value = Default::default();
    let r = check(&s);
    assert_eq!(r.verdict, Verdict::ExactlyOnce, "{r:?}");
    assert!(r.rewrites > 0, "the replayed rows overwrote themselves");
    assert!(r.wrong_values.is_empty());
}

#[test]
fn a_running_sum_needs_an_upsert_sink() {
    let mut s = scenario(None);
    s.sink.kind = SinkKind::Append;
    let err = Scenario::from_json(&serde_json::to_string(&s).expect("serializes"))
        .expect_err("a running sum in an append sink is refused");
    assert!(err.to_string().contains("sink.value"), "{err}");
}
