//! FLIP-276's Strong consistency with several CDC sources: "Query gets the minimum version of
//! all the related tables according to the source tables and the dependencies between them …
//! Query1, Query2 and Query3 will get Min(table1 version, table2 version) for table1 and table2,
//! Min(table3 version) for table3." The `three-queries` preset feeds table3 from its own CDC
//! source, cdc3, through a slow job: table1/table2 queries must not wait for it.

use batchscope_engine::barrier::{
    preset, related_groups, Consistency, OperatorSpec, QuerySpec, ReadLevel, TableSpec,
    TopologySpec, TopologyWorld,
};

fn visible(w: &TopologyWorld, table: &str, level: ReadLevel) -> u64 {
    let t = w.table(table).expect("table");
    match level {
        ReadLevel::RepeatableRead => t.written(),
        _ => t.processed(),
    }
}

#[test]
fn strong_reads_each_group_of_related_tables_at_its_own_minimum() {
    let mut w = TopologyWorld::new(preset("three-queries").expect("preset"), 1).expect("valid");
    assert_eq!(
        w.strong_groups(),
        [vec!["table1", "table2"], vec!["table3"]]
    );
    let mut ahead_of_table3 = 0;
    while w.step().is_some() {
        for level in [ReadLevel::ReadCommitted, ReadLevel::RepeatableRead] {
            let t12 = visible(&w, "table1", level).min(visible(&w, "table2", level));
            let t3 = visible(&w, "table3", level);
            for q in w.named_queries(level, Consistency::Strong) {
                let r = w.query(&q);
                assert!(r.consistent, "{} at {level:?}: {:?}", r.name, r.reads);
                for read in &r.reads {
                    let want = if read.table == "table3" { t3 } else { t12 };
                    assert_eq!(
                        read.barrier,
                        want,
                        "step {}: {} reads {} at {level:?}",
                        w.steps(),
                        r.name,
                        read.table
                    );
                }
            }
            if t12 > t3 {
                ahead_of_table3 += 1;
            }
        }
    }
    assert!(
        ahead_of_table3 > 0,
        "table3 lags: table1/table2 queries read newer barriers than table3 holds"
    );
}

/// A job joining table2 and table3 ties the two sources together: every table is then related
/// and read at one minimum, as with a single source.
#[test]
fn a_job_joining_the_two_sources_makes_every_table_related() {
    let mut spec: TopologySpec = preset("three-queries").expect("preset");
    spec.tables.push(TableSpec {
        name: "table4".into(),
        columns: vec!["userId".into(), "totalAmount".into(), "totalPrice".into()],
        kind: Default::default(),
        transaction_timeout_ms: None,
    });
    let mut join = spec.jobs[1].clone();
    join.name = "join_job".into();
    join.sources = vec!["table2".into(), "table3".into()];
    join.operators = vec![OperatorSpec::Join {
        on: vec!["userId".into()],
    }];
    join.sink = "table4".into();
    spec.jobs.push(join);
    spec.queries.push(QuerySpec {
        name: "Query4".into(),
        tables: vec!["table4".into()],
        on: vec![],
        ratio: None,
    });
    spec.validate().expect("valid");
    let w = TopologyWorld::new(spec, 1).expect("valid");
    assert_eq!(
        w.strong_groups(),
        [vec!["table1", "table2", "table3", "table4"]]
    );
    // Without Query4 in scope, table1 and table3 stay apart: relation goes through the tables
    // the queries depend on.
    let scope: Vec<String> = ["table1", "table3"].map(String::from).to_vec();
    assert_eq!(
        related_groups(w.meta(), &scope),
        [vec!["table1"], vec!["table3"]]
    );
}

#[test]
fn one_cdc_source_makes_every_table_one_group() {
    for name in ["shopping", "chain"] {
        let w = TopologyWorld::new(preset(name).expect("preset"), 1).expect("valid");
        assert_eq!(w.strong_groups().len(), 1, "{name}");
    }
}

fn three_queries_with(edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v = serde_json::to_value(preset("three-queries").expect("preset")).unwrap();
    edit(&mut v);
    v.to_string()
}

#[test]
fn cdc_sources_are_one_object_or_a_named_list_and_bad_ones_are_refused() {
    // One source as an object keeps working, named `cdc`.
    let shopping = preset("shopping").expect("preset");
    assert_eq!(shopping.cdc.len(), 1);
    assert_eq!(shopping.cdc[0].name, "cdc");
    let three = preset("three-queries").expect("preset");
    let names: Vec<&str> = three.cdc.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["cdc", "cdc3"]);
    let cases: Vec<(String, &str, &str)> = vec![
        (
            three_queries_with(|v| v["cdc"][1]["name"] = "prices".into()),
            "cdc[1].name",
            "starts with `cdc`",
        ),
        (
            three_queries_with(|v| v["cdc"][1]["name"] = "cdc".into()),
            "cdc[1].name",
            "declared twice",
        ),
        (
            three_queries_with(|v| v["cdc"] = serde_json::json!([])),
            "cdc",
            "at least one CDC source",
        ),
        (
            three_queries_with(|v| v["jobs"][2]["sources"][0] = "cdc9".into()),
            "jobs[2].sources[0]",
            "unknown CDC source `cdc9`",
        ),
        (
            three_queries_with(|v| v["tables"][2]["name"] = "cdc_table3".into()),
            "tables[2].name",
            "name CDC sources",
        ),
        (
            three_queries_with(|v| v["cdc"][1]["records"][0]["atMs"] = 99_000.into()),
            "cdc[1].records[0].at_ms",
            "after the last barrier",
        ),
    ];
    for (text, field, reason) in cases {
        let e = TopologySpec::from_json(&text).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("{field}: ")) && e.contains(reason),
            "{field}: {e}"
        );
    }
}
