//! The work budget: every preset, every scenario file and the benchmark's scenario are
//! accepted; a scenario over a limit is refused naming the field and the limit.

use batchscope_engine::microbatch::scenario::{preset, presets, CrashPoint, Scenario};
use batchscope_engine::microbatch::scenario::{MAX_EVENTS, MAX_LIST, MAX_RECORDS, MAX_TIME_MS};

fn scenario_files() -> Vec<(String, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("scenarios/ exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// The scenario of `benches/throughput.rs`: 1 M records over 256 channels, 40 intervals.
fn bench(name: &str) -> Scenario {
    let mut s = preset(name).expect("preset");
    s.upstream.channels = 256;
    s.batches = 40;
    s.upstream.records_per_batch = (1_000_000 / (256 * 40)) as u32;
    s.source.max_offsets_per_channel = 1_000_000;
    s.source.page_size = 100;
    s
}

#[test]
fn presets_scenario_files_and_the_benchmark_are_inside_the_budget() {
    for p in presets() {
        assert_eq!(p.scenario.validate(), Ok(()), "{}", p.name);
        assert!(p.scenario.work().events <= MAX_EVENTS);
    }
    let files = scenario_files();
    assert!(files.len() >= 2, "{files:?}");
    for (path, text) in files {
        Scenario::from_json(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    }
    for name in ["kafka-idempotent", "tablestore", "tablestore-append"] {
        let s = bench(name);
        assert_eq!(s.validate(), Ok(()), "{name}");
        assert!(s.work().records >= 990_000, "{:?}", s.work());
    }
}

fn refused(s: &Scenario, field: &str, limit: u64) {
    let e = s.validate().expect_err("over the budget");
    let line = e.to_string();
    assert!(
        e.field.contains(field) || e.reason.contains(field),
        "{line}"
    );
    assert!(
        line.contains(&limit.to_string()),
        "the limit is named: {line}"
    );
    assert!(!line.contains('\n'), "one line: {line}");
}

#[test]
fn each_limit_refuses_naming_the_field_and_the_limit() {
    let base = preset("tablestore").unwrap();

    let mut s = base.clone();
    s.upstream.records_per_batch = 3_000_000_000;
    refused(&s, "upstream.records_per_batch", MAX_RECORDS);

    let mut s = base.clone();
    s.trigger_interval_ms = u64::MAX;
    refused(&s, "trigger_interval_ms", MAX_TIME_MS);

    let mut s = base.clone();
    s.upstream.bursts = vec![batchscope_engine::microbatch::scenario::Burst {
        channel: 0,
        at_ms: u64::MAX,
        records: 1,
    }];
    refused(&s, "upstream.bursts[0].at_ms", MAX_TIME_MS);

    let mut s = base.clone();
    s.batches = 100_000;
    s.trigger_interval_ms = MAX_TIME_MS;
    refused(&s, "batches", MAX_TIME_MS);

    let mut s = base.clone();
    s.crashes = vec!["task@1".parse::<CrashPoint>().unwrap(); MAX_LIST + 1];
    refused(&s, "crashes", MAX_LIST as u64);

    // Few records, but a cap of one row per batch leaves a backlog of a million batches.
    let mut s = base.clone();
    s.upstream.channels = 64;
    s.upstream.records_per_batch = 3_000;
    s.batches = 10;
    s.source.max_offsets_per_channel = 1;
    s.source.page_size = 1;
    refused(&s, "trigger intervals", MAX_EVENTS);
}

#[test]
fn topology_presets_are_inside_the_budget_and_each_limit_refuses_naming_the_field() {
    use batchscope_engine::barrier::{self, budget};
    for (name, _) in barrier::presets() {
        let spec = barrier::preset(name).expect("preset");
        assert_eq!(spec.validate(), Ok(()), "{name}");
        assert!(spec.work().events <= budget::MAX_EVENTS);
    }
    let base = barrier::preset("shopping").unwrap();
    let refused = |spec: &barrier::TopologySpec, field: &str, limit: String| {
        let line = spec.validate().expect_err("over the budget").to_string();
        assert!(line.contains(field), "{line}");
        assert!(line.contains(&limit), "the limit is named: {line}");
    };

    let mut s = base.clone();
    s.barriers = u64::MAX;
    refused(&s, "barriers", budget::MAX_TIME_MS.to_string());

    let mut s = base.clone();
    s.cdc[0].generated_per_barrier = u32::MAX;
    refused(
        &s,
        "cdc.generated_per_barrier",
        budget::MAX_RECORDS.to_string(),
    );

    let mut s = base.clone();
    s.query.tables = vec![s.query.tables[0].clone(); budget::MAX_QUERY_TABLES + 1];
    refused(&s, "query.tables", budget::MAX_QUERY_TABLES.to_string());

    let mut s = base.clone();
    s.jobs[0].restart_ms = u64::MAX;
    refused(&s, "jobs[0].restart_ms", budget::MAX_TIME_MS.to_string());

    let mut s = base.clone();
    s.cdc[0].generated_per_barrier = 2_000;
    s.barriers = 20;
    refused(&s, "query.tables", budget::MAX_QUERY_ROWS.to_string());
}
