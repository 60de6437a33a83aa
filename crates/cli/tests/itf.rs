//! `batchscope run --itf`: the trace in the Informal Trace Format, read back with the `itf`
//! crate (Informal Systems' reader of Apalache's traces).

mod common;

use common::{bad_input, batchscope};
use serde::Deserialize;
use std::collections::BTreeSet;

/// One state as `batchscope run --itf` writes it.
#[derive(Debug, Deserialize)]
#[allow(dead_code)] // Every field is read by the decoder; the test compares a few.
struct State {
    event: Event,
    batch: i64,
    run: i64,
    at_ms: i64,
    offsets: i64,
    commits: i64,
    sink_rows: i64,
    crashes_fired: BTreeSet<String>,
}

#[derive(Debug, Deserialize)]
struct Event {
    tag: String,
    label: String,
}

#[test]
fn itf_output_parses_with_the_itf_crate_one_state_per_event() {
    let scenario = {
        let mut s = batchscope_engine::microbatch::scenario::preset("kafka-append").unwrap();
        s.crashes.push("sink-commit@3".parse().unwrap());
        s
    };
    let (report, world) = batchscope_check::oracle::check_world(&scenario, false);
    let out = batchscope(&[
        "run",
        "--preset",
        "kafka-append",
        "--crash",
        "sink-commit@3",
        "--itf",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let trace = itf::trace_from_str::<State>(&text).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(trace.states.len() as u64, report.steps);
    assert_eq!(trace.meta.format.as_deref(), Some("ITF"));
    assert!(trace.vars.contains(&"sink_rows".to_string()));
    for (i, (state, event)) in trace.states.iter().zip(world.events()).enumerate() {
        assert_eq!(state.meta.index, Some(i as u64));
        assert_eq!(state.value.event.tag, event.kind.name());
        assert_eq!(state.value.event.label, event.kind.label());
        assert_eq!(state.value.at_ms, event.at_ms as i64);
        assert_eq!(state.value.run, i64::from(event.run));
    }
    let last = &trace.states.last().unwrap().value;
    assert_eq!(last.sink_rows as u64, report.delivered);
    assert_eq!(last.commits as u64 + 1, report.batches_committed);
    let fired: Vec<String> = last.crashes_fired.iter().cloned().collect();
    assert_eq!(fired, report.crashes_fired);
    bad_input(
        &["run", "--preset", "kafka-append", "--itf", "--json"],
        "--json",
    );
}
