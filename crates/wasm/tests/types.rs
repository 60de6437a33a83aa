//! The TypeScript interfaces in `types.d.ts` match the JSON the API really returns: every key
//! the engine emits is declared, and every required declared key is emitted (run natively).
#![cfg(not(target_arch = "wasm32"))]

use batchscope_wasm::{presets_json, Simulation, TYPESCRIPT_TYPES};
use serde_json::Value;
use std::collections::BTreeMap;

/// Declared fields of one interface: name → optional.
type Fields = BTreeMap<String, bool>;

struct Ts {
    interfaces: BTreeMap<String, Fields>,
    /// Event kind tag (`query-started`) → interface name.
    kinds: BTreeMap<String, String>,
}

fn parse_ts(text: &str) -> Ts {
    let mut interfaces = BTreeMap::new();
    let mut kinds = BTreeMap::new();
    let mut current: Option<(String, Fields)> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("export interface ") {
            let name = rest.trim_end_matches(" {").trim().to_string();
            current = Some((name, Fields::new()));
        } else if line == "}" {
            if let Some((name, fields)) = current.take() {
                interfaces.insert(name, fields);
            }
        } else if let Some((name, fields)) = current.as_mut() {
            // A field is a line indented by exactly four spaces: `    name?: type;`.
            let Some(decl) = line.strip_prefix("    ") else {
                continue;
            };
            if decl.starts_with(' ') || decl.starts_with("/**") || decl.starts_with('*') {
                continue;
            }
            let Some((field, ty)) = decl.split_once(':') else {
                continue;
            };
            let optional = field.ends_with('?');
            let field = field.trim_end_matches('?').to_string();
            if field == "type" {
                let tag = ty
                    .trim()
                    .trim_end_matches(';')
                    .trim_matches('"')
                    .to_string();
                kinds.insert(tag, name.clone());
            }
            fields.insert(field, optional);
        }
    }
    Ts { interfaces, kinds }
}

/// Which interface describes a nested field (arrays: each element).
const NESTED: &[(&str, &str, &str)] = &[
    ("BatchscopeEvent", "kind", "<event kind>"),
    ("SourceInitialized", "meta_rows", "ChannelToken"),
    ("SourceCommit", "checkpoints", "ChannelToken"),
    ("GetBatch", "partitions", "ChannelToken"),
    ("MetaRowWritten", "row", "ChannelToken"),
    ("State", "checkpoint_files", "CheckpointFile"),
    ("State", "meta_rows", "MetaRowState"),
    ("State", "tunnel_channels", "TunnelChannelState"),
    ("State", "sink", "SinkState"),
    ("State", "oracle", "OracleSoFar"),
    ("SinkState", "stores", "StoreState"),
    ("SinkState", "files", "SinkFileState"),
    ("StoreState", "rows", "SinkRow"),
    ("Report", "source", "SourceCounters"),
    ("Report", "anomalies", "Anomaly"),
    ("Report", "inevitable_at", "Moment"),
    ("Report", "avoidable_until", "Moment"),
    ("Preset", "scenario", "Scenario"),
    ("Scenario", "upstream", "UpstreamSpec"),
    ("Scenario", "source", "SourceSpec"),
    ("Scenario", "sink", "SinkSpec"),
];

fn check(ts: &Ts, interface: &str, value: &Value, path: &str) {
    let interface = if interface == "<event kind>" {
        let tag = value["type"].as_str().expect("event kind has a type");
        ts.kinds
            .get(tag)
            .unwrap_or_else(|| panic!("{path}: event kind `{tag}` has no interface in types.d.ts"))
            .as_str()
    } else {
        interface
    };
    let fields = ts
        .interfaces
        .get(interface)
        .unwrap_or_else(|| panic!("types.d.ts has no interface {interface}"));
    let object = value
        .as_object()
        .unwrap_or_else(|| panic!("{path}: expected an object for {interface}, got {value}"));
    for key in object.keys() {
        assert!(
            fields.contains_key(key),
            "{path}: key `{key}` is not declared in interface {interface}"
        );
    }
    for (field, optional) in fields {
        assert!(
            *optional || object.contains_key(field),
            "{path}: interface {interface} declares `{field}` but the JSON lacks it"
        );
    }
    for (owner, field, child) in NESTED {
        if *owner != interface {
            continue;
        }
        match object.get(*field) {
            Some(Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    check(ts, child, item, &format!("{path}.{field}[{i}]"));
                }
            }
            Some(v @ Value::Object(_)) => check(ts, child, v, &format!("{path}.{field}")),
            _ => {}
        }
    }
}

fn declares_literal(ts_text: &str, literal: &str) -> bool {
    ts_text.contains(&format!("\"{literal}\""))
}

fn runs() -> Vec<Simulation> {
    let cases: &[(&str, &[&str])] = &[
        ("kafka-idempotent", &["commit-log@2"]),
        ("kafka-append", &["sink-commit@3"]),
        ("tablestore", &["task@2"]),
        ("tablestore-append", &["source-commit@2"]),
        ("tablestore-split", &["offset-log@3"]),
        ("tablestore-two-phase", &["task@1"]),
        ("pull-ahead", &["get-batch@2"]),
        ("auto-commit", &["task@3"]),
        ("foreach-batch-multi", &["sink-commit@1"]),
        ("sink-outage", &["get-offset@1"]),
        ("continuous-epochs", &["sink-commit@2"]),
        ("reader-idle-timeout", &["task@1"]),
        ("seatunnel-checkpoint-records", &["sink-commit@0"]),
        ("seatunnel-committed-only", &["sink-commit@0"]),
        ("checkpoint-deleted-latest", &[]),
        ("batch-id-in-memory", &["sink-commit@3"]),
    ];
    let mut sims: Vec<Simulation> = cases
        .iter()
        .map(|(preset, crashes)| {
            let mut sim = Simulation::from_preset(preset, None).expect("preset exists");
            for c in *crashes {
                sim.crash(c).expect("valid crash point");
            }
            sim
        })
        .collect();
    // Faults inside a batch and a query nobody restarts, from scenario JSON.
    for (preset, extra) in [
        ("tablestore-append", r#"{"faults":["task-fail@2"]}"#),
        (
            "foreach-batch-multi",
            r#"{"faults":["foreach-fail@2"],"restart":"none"}"#,
        ),
    ] {
        let mut scenario: Value = serde_json::from_str(
            &batchscope_engine::microbatch::scenario::preset(preset)
                .unwrap()
                .to_json(),
        )
        .unwrap();
        let extra: Value = serde_json::from_str(extra).unwrap();
        for (k, v) in extra.as_object().unwrap() {
            scenario[k] = v.clone();
        }
        sims.push(Simulation::from_scenario_json(&scenario.to_string()).expect("valid scenario"));
    }
    sims
}

#[test]
fn event_state_and_report_json_match_the_typescript_interfaces() {
    let ts = parse_ts(TYPESCRIPT_TYPES);
    let mut kinds_seen = std::collections::BTreeSet::new();
    for mut sim in runs() {
        let mut steps = 0;
        while !sim.is_converged() && steps < 10_000 {
            let event: Value = serde_json::from_str(&sim.step()).unwrap();
            kinds_seen.insert(event["kind"]["type"].as_str().unwrap().to_string());
            check(&ts, "BatchscopeEvent", &event, "event");
            let state: Value = serde_json::from_str(&sim.state_json()).unwrap();
            check(&ts, "State", &state, "state");
            let phase = state["phase"]["phase"].as_str().unwrap();
            assert!(
                TYPESCRIPT_TYPES.contains(&format!("phase: \"{phase}\"")),
                "phase `{phase}` is not in the Phase type"
            );
            steps += 1;
        }
        let report: Value = serde_json::from_str(&sim.report_json().unwrap()).unwrap();
        check(&ts, "Report", &report, "report");
        assert!(declares_literal(
            TYPESCRIPT_TYPES,
            report["verdict"].as_str().unwrap()
        ));
        let scenario: Value = serde_json::from_str(&sim.scenario_json()).unwrap();
        check(&ts, "Scenario", &scenario, "scenario");
    }
    // The runs above must cover the common kinds, or the check proves little.
    for kind in [
        "query-started",
        "recovered",
        "source-initialized",
        "trigger-fired",
        "get-offset",
        "offset-log-written",
        "source-commit",
        "get-batch",
        "add-batch",
        "task-read",
        "meta-row-written",
        "task-finished",
        "sink-committed",
        "commit-log-written",
        "idle",
        "crashed",
        "sink-write-failed",
        "query-failed",
        "epoch-advanced",
        "reader-polled",
        "state-file",
        "task-failed",
        "checkpoint-deleted",
    ] {
        assert!(
            kinds_seen.contains(kind),
            "no run produced a `{kind}` event"
        );
    }
    // Every kind the interfaces declare is one of the engine's.
    assert_eq!(
        ts.kinds.len(),
        batchscope_engine::microbatch::event::tag::EventTag::ALL.len(),
        "types.d.ts declares {:?}",
        ts.kinds
    );
}

#[test]
fn presets_json_matches_the_preset_interface() {
    let ts = parse_ts(TYPESCRIPT_TYPES);
    let presets: Value = serde_json::from_str(&presets_json()).unwrap();
    let list = presets.as_array().unwrap();
    assert_eq!(
        list.len(),
        batchscope_engine::microbatch::scenario::presets().len()
    );
    for (i, p) in list.iter().enumerate() {
        check(&ts, "Preset", p, &format!("presets[{i}]"));
        for literal in [
            p["scenario"]["source"]["kind"].as_str().unwrap(),
            p["scenario"]["sink"]["kind"].as_str().unwrap(),
        ] {
            assert!(
                declares_literal(TYPESCRIPT_TYPES, literal),
                "`{literal}` missing"
            );
        }
    }
}

#[test]
fn every_crash_kind_and_verdict_is_a_typescript_literal() {
    for kind in batchscope_engine::microbatch::scenario::CrashKind::ALL {
        assert!(
            declares_literal(TYPESCRIPT_TYPES, kind.name()),
            "{}",
            kind.name()
        );
    }
    for v in batchscope_check::Verdict::ALL {
        assert!(declares_literal(TYPESCRIPT_TYPES, v.name()), "{}", v.name());
    }
}
