//! The JSON Schemas of scenario and topology files: `schemas/` holds what the types generate,
//! every preset and every `scenarios/*.json` validates, and the schema and the engine's validator
//! agree — what the schema rejects the validator rejects too, naming the same field.

mod common;

use batchscope_cli::schema::{schema_text, SchemaKind};
use batchscope_engine::barrier::{self, TopologySpec};
use batchscope_engine::microbatch::scenario::{presets, Scenario};
use common::batchscope;
use serde_json::Value;
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn validator(kind: SchemaKind) -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(&schema_text(kind)).expect("schema is JSON");
    jsonschema::validator_for(&schema).expect("a valid JSON Schema")
}

fn schema_errors(v: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    v.iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect()
}

#[test]
fn shipped_schemas_equal_the_generated_ones() {
    for (kind, file) in [
        (SchemaKind::Scenario, "scenario.schema.json"),
        (SchemaKind::Topology, "topology.schema.json"),
    ] {
        let path = repo().join("schemas").join(file);
        let shipped = std::fs::read_to_string(&path).expect("schemas/ file exists");
        assert_eq!(
            shipped,
            schema_text(kind),
            "{} is stale: regenerate with `batchscope schema {kind:?}` (lower case) > {}",
            path.display(),
            path.display()
        );
    }
}

#[test]
fn schema_descriptions_cite_public_sources_only() {
    for kind in [SchemaKind::Scenario, SchemaKind::Topology] {
        let text = schema_text(kind);
        for internal in ["SEMANTICS", "§", "seed 0", "Seed 0"] {
            assert!(
                !text.contains(internal),
                "{kind:?}: an editor shows this schema's descriptions; `{internal}` is no public source"
            );
        }
    }
}

#[test]
fn schema_command_prints_the_scenario_schema_with_its_parts() {
    let out = batchscope(&["schema", "scenario"]);
    assert_eq!(out.status.code(), Some(0));
    let schema: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    for part in ["upstream", "source", "sink"] {
        assert!(
            schema["properties"].get(part).is_some(),
            "`{part}` under properties"
        );
    }
    let topology = batchscope(&["schema", "topology"]);
    let topology: Value = serde_json::from_slice(&topology.stdout).expect("JSON");
    for part in ["cdc", "tables", "jobs", "query"] {
        assert!(topology["properties"].get(part).is_some(), "`{part}`");
    }
    let bad = batchscope(&["schema", "nope"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn every_preset_and_scenario_file_validates() {
    let v = validator(SchemaKind::Scenario);
    for p in presets() {
        let json: Value = serde_json::from_str(&p.scenario.to_json()).expect("JSON");
        let errors = schema_errors(&v, &json);
        assert!(errors.is_empty(), "preset {}: {errors:?}", p.name);
    }
    let mut files = 0;
    for entry in std::fs::read_dir(repo().join("scenarios")).expect("scenarios/") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read");
        let json: Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(
            json["$schema"],
            "../schemas/scenario.schema.json",
            "{} names its schema",
            path.display()
        );
        let errors = schema_errors(&v, &json);
        assert!(errors.is_empty(), "{}: {errors:?}", path.display());
        // The engine reads a file that names its schema.
        Scenario::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        files += 1;
    }
    assert!(files > 0, "scenarios/ has files");
    let tv = validator(SchemaKind::Topology);
    for (name, _) in barrier::presets() {
        let spec = barrier::preset(name).expect("preset");
        let json = serde_json::to_value(&spec).expect("JSON");
        let errors = schema_errors(&tv, &json);
        assert!(errors.is_empty(), "topology preset {name}: {errors:?}");
    }
}

/// Every leaf of `value` with its serde path (`upstream.idle[0].from_ms`).
fn leaves(value: &Value, path: String, out: &mut Vec<(String, Value)>) {
    let join = |key: &str| {
        if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        }
    };
    match value {
        Value::Object(map) => map.iter().for_each(|(k, v)| leaves(v, join(k), out)),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .for_each(|(i, v)| leaves(v, format!("{path}[{i}]"), out)),
        leaf => out.push((path, leaf.clone())),
    }
}

/// A value of another JSON type than `leaf`.
fn wrong_type(leaf: &Value) -> Value {
    match leaf {
        Value::String(_) => Value::from(7),
        Value::Bool(_) | Value::Null => Value::from("x"),
        _ => Value::from("seven"),
    }
}

fn set(root: &mut Value, path: &str, to: Value) {
    let pointer: String = path
        .replace('[', ".")
        .replace(']', "")
        .split('.')
        .map(|s| format!("/{s}"))
        .collect();
    *root.pointer_mut(&pointer).expect("path exists") = to;
}

#[test]
fn schema_and_validator_reject_the_same_scenarios_naming_the_field() {
    let v = validator(SchemaKind::Scenario);
    let mut checked = 0;
    for p in presets() {
        let good: Value = serde_json::from_str(&p.scenario.to_json()).expect("JSON");
        let mut all = Vec::new();
        leaves(&good, String::new(), &mut all);
        for (path, leaf) in all {
            let mut bad = good.clone();
            set(&mut bad, &path, wrong_type(&leaf));
            assert!(
                !schema_errors(&v, &bad).is_empty(),
                "{}: the schema accepts a wrong type at {path}",
                p.name
            );
            let err = Scenario::from_json(&bad.to_string())
                .expect_err("the validator rejects a wrong type");
            assert_eq!(err.field, path, "{}: {err}", p.name);
            checked += 1;
        }
        // An unknown field and a missing required one, at the top and in each part.
        for part in ["", "upstream", "source", "sink"] {
            let mut bad = good.clone();
            let object = if part.is_empty() {
                &mut bad
            } else {
                &mut bad[part]
            };
            object["surplus"] = Value::from(1);
            assert!(!schema_errors(&v, &bad).is_empty(), "{part}.surplus");
            let err = Scenario::from_json(&bad.to_string()).expect_err("unknown field");
            assert!(err.to_string().contains("surplus"), "{err}");
        }
        for required in ["batches", "upstream", "source", "sink"] {
            let mut bad = good.clone();
            bad.as_object_mut().expect("object").remove(required);
            assert!(!schema_errors(&v, &bad).is_empty(), "without {required}");
            let err = Scenario::from_json(&bad.to_string()).expect_err("missing field");
            assert!(err.to_string().contains(required), "{err}");
        }
    }
    assert!(checked > 100, "checked {checked} wrong types");
    // What only the validator sees (a value in range for the type, but not for the model) is
    // also named by field.
    let mut zero = serde_json::to_value(presets()[0].scenario.clone()).expect("JSON");
    zero["upstream"]["channels"] = Value::from(0);
    assert!(
        schema_errors(&v, &zero).is_empty(),
        "the schema checks types"
    );
    let err = Scenario::from_json(&zero.to_string()).expect_err("no channels");
    assert_eq!(err.field, "upstream.channels", "{err}");
    let mut crash = serde_json::to_value(presets()[0].scenario.clone()).expect("JSON");
    crash["crashes"] = serde_json::json!(["sink-commit@x"]);
    assert!(!schema_errors(&v, &crash).is_empty(), "crash pattern");
    let err = Scenario::from_json(&crash.to_string()).expect_err("bad crash");
    assert_eq!(err.field, "crashes[0]", "{err}");
}

#[test]
fn schema_and_validator_reject_the_same_topologies_naming_the_field() {
    let v = validator(SchemaKind::Topology);
    for (name, _) in barrier::presets() {
        let good = serde_json::to_value(barrier::preset(name).expect("preset")).expect("JSON");
        let mut all = Vec::new();
        leaves(&good, String::new(), &mut all);
        for (path, leaf) in all {
            let mut bad = good.clone();
            set(&mut bad, &path, wrong_type(&leaf));
            if path.ends_with(".op") || path.ends_with(".fault") {
                continue; // A tag: a wrong tag is an unknown variant.
            }
            assert!(!schema_errors(&v, &bad).is_empty(), "{name}: {path}");
            let err = TopologySpec::from_json(&bad.to_string()).expect_err("wrong type");
            // serde buffers an operator (tagged by `op`) and a fault (tagged by `fault`), so a
            // wrong type inside one names the element (`jobs[1].operators[0]`, `faults[0]`);
            // everything else names the leaf itself.
            let text = err.to_string();
            let text = text.strip_prefix("topology JSON: ").unwrap_or(&text);
            let named = text.split(": ").next().unwrap_or_default();
            let exact = named == path;
            let tagged = named.contains(".operators[") || named.starts_with("faults[");
            let operator = tagged && path.starts_with(named);
            assert!(exact || operator, "{name}: {path}: {err}");
        }
    }
}
