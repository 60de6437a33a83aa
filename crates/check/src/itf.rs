//! A run's trace in the Informal Trace Format (ITF) that Apalache and Quint read and write:
//! what `batchscope run --itf` prints and the dashboard's Export menu saves.
//!
//! The format (Apalache ADR-015, <https://apalache-mc.org/docs/adr/015adr-trace.html>): one
//! JSON object with `#meta`, `vars` (the variable names) and `states`, one object per state
//! with `#meta: {"index": i}` and a value for every variable. Integers are JSON numbers while
//! they fit in ±(2^53 − 1) and `{"#bigint": "…"}` beyond; records are JSON objects, sets
//! `{"#set": […]}`, maps `{"#map": [[key, value], …]}`.
//!
//! State `i` is the world right after event `#i` of the trace, so there are as many states as
//! events. Its variables:
//! - `event`: the event, a record `{ "tag": kind name (`sink-committed`), "label": its arrow
//!   label }`;
//! - `batch`: the batch (or epoch) the event belongs to, `-1` for none;
//! - `run`: the driver run (1 + restarts); `at_ms`: simulated time of the event;
//! - `offsets`, `commits`: the latest `offsets/N` and `commits/N` in the checkpoint folder,
//!   `-1` for none;
//! - `sink_rows`: rows visible in the sink (with repeats);
//! - `crashes_fired`: the set of crashes fired so far (`sink-commit@3`,
//!   `after-event@SEQ`).

use crate::oracle::Report;
use crate::progress::fired_crash_names;
use batchscope_engine::microbatch::scenario::Scenario;
use batchscope_engine::microbatch::World;
use serde_json::{json, Value};

/// The variables of every state, in the order `vars` lists them.
pub const VARS: [&str; 8] = [
    "event",
    "batch",
    "run",
    "at_ms",
    "offsets",
    "commits",
    "sink_rows",
    "crashes_fired",
];

/// The largest magnitude an ITF integer may have as a plain JSON number.
const MAX_PLAIN: i128 = (1 << 53) - 1;

/// An ITF integer: a JSON number, or `{"#bigint": "…"}` beyond 2^53 − 1.
pub fn int(n: i128) -> Value {
    if n.abs() <= MAX_PLAIN {
        json!(n as i64)
    } else {
        json!({ "#bigint": n.to_string() })
    }
}

/// A number that may be absent, `-1` for none.
fn id(n: Option<u64>) -> Value {
    int(n.map_or(-1, i128::from))
}

/// The run of `scenario` (judged as `report`) as one ITF trace, pretty-printed; `source` is the
/// command that reproduces it.
pub fn trace(scenario: &Scenario, report: &Report, source: &str) -> String {
    let mut world = World::new(scenario.clone());
    let mut states = Vec::with_capacity(report.steps as usize);
    for index in 0..report.steps {
        let e = world.step();
        let fired: Vec<Value> = fired_crash_names(&world)
            .into_iter()
            .map(Value::String)
            .collect();
        states.push(json!({
            "#meta": { "index": index },
            "event": { "tag": e.kind.name(), "label": e.kind.label() },
            "batch": int(e.kind.batch_id().map_or(-1, i128::from)),
            "run": int(i128::from(e.run)),
            "at_ms": int(i128::from(e.at_ms)),
            "offsets": id(world.checkpoint.latest_offset_id()),
            "commits": id(world.checkpoint.latest_commit_id()),
            "sink_rows": int(i128::from(world.sink.visible_len())),
            "crashes_fired": { "#set": fired },
        }));
    }
    let doc = json!({
        "#meta": {
            "format": "ITF",
            "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html",
            "source": source,
            "description": format!(
                "batchscope micro-batch run of {} (verdict {}): state i is the world right after event #i",
                scenario.name, report.verdict
            ),
        },
        "vars": VARS,
        "states": states,
    });
    serde_json::to_string_pretty(&doc).expect("an ITF trace serializes")
}

#[cfg(test)]
mod tests {
    use super::int;

    #[test]
    fn integers_beyond_2_pow_53_are_bigints() {
        let plain = (1_i128 << 53) - 1;
        assert_eq!(int(plain), serde_json::json!(plain as i64));
        assert_eq!(int(-plain), serde_json::json!(-plain as i64));
        let big = 1_i128 << 53;
        assert_eq!(int(big), serde_json::json!({ "#bigint": big.to_string() }));
        assert_eq!(
            int(-big),
            serde_json::json!({ "#bigint": (-big).to_string() })
        );
    }
}
