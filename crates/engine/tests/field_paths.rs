//! The field a scenario's or topology's parse error names, read back from the text up to where
//! serde_json stopped (`spec_json::parse_naming_field`), against the path `serde_path_to_error`
//! tracks while deserializing: every preset broken one field at a time, and cut short.

use batchscope_engine::barrier::{self, TopologySpec};
use batchscope_engine::microbatch::scenario::presets;
use batchscope_engine::microbatch::scenario::Scenario;
use batchscope_engine::spec_json::parse_naming_field;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use serde_path_to_error::Segment;

/// Whether serde_json stopped at the first byte of a value (after a `:`, a `[` or a `,`).
fn starts_value(text: &str, e: &serde_json::Error) -> bool {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(e.line() - 1)
        .map(str::len)
        .sum();
    let last = line_start + e.column() - 1;
    let before = text[..last].trim_end();
    before.ends_with([':', '[', ','])
}

/// The path `serde_path_to_error` names, without the segments it cannot name (`?`: a key it did
/// not read), or `None` where it names no field; `None` for a text that ends too soon, or that is
/// not JSON other than where a value begins, which the parser names by line and column alone.
fn tracked<T: DeserializeOwned>(text: &str) -> Result<(), Option<String>> {
    let mut de = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize::<_, T>(&mut de).map_err(|e| {
        if e.inner().is_eof() || e.inner().is_syntax() && !starts_value(text, e.inner()) {
            return None;
        }
        let mut path = String::new();
        for segment in e.path().iter() {
            match segment {
                Segment::Seq { index } => path.push_str(&format!("[{index}]")),
                Segment::Map { key } | Segment::Enum { variant: key } => {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(key);
                }
                Segment::Unknown => {}
            }
        }
        (!path.is_empty()).then_some(path)
    })?;
    de.end().map_err(|_| None)
}

/// Every way of breaking `value` one place at a time: each value replaced by values of other
/// types, each object's keys removed one by one, an unknown key added to each object.
fn broken(value: &Value) -> Vec<Value> {
    fn at(root: &Value, pointer: &str, out: &mut Vec<Value>) {
        let here = root.pointer(pointer).expect("a pointer found by the walk");
        for other in [
            json!("x"),
            json!(-1),
            json!(1.5),
            json!([]),
            json!({}),
            json!(null),
            json!(true),
            json!(["x"]),
            json!([{}]),
        ] {
            if &other != here {
                let mut copy = root.clone();
                *copy.pointer_mut(pointer).expect("same pointer") = other;
                out.push(copy);
            }
        }
        match here {
            Value::Object(map) => {
                for key in map.keys() {
                    let mut copy = root.clone();
                    copy.pointer_mut(pointer)
                        .and_then(Value::as_object_mut)
                        .expect("an object")
                        .remove(key);
                    out.push(copy);
                    at(
                        root,
                        &format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1")),
                        out,
                    );
                }
                let mut copy = root.clone();
                copy.pointer_mut(pointer)
                    .and_then(Value::as_object_mut)
                    .expect("an object")
                    .insert("no_such_field".into(), json!(1));
                out.push(copy);
            }
            Value::Array(items) => {
                for index in 0..items.len() {
                    at(root, &format!("{pointer}/{index}"), out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    at(value, "", &mut out);
    out
}

/// Checks every broken form of `value`, pretty and compact, every 7th prefix of its text and
/// the text with a stray character at every 11th place;
/// returns how many texts failed to parse.
fn agree<T: DeserializeOwned>(name: &str, value: &Value) -> usize {
    let mut texts = Vec::new();
    for broken in broken(value) {
        texts.push(serde_json::to_string_pretty(&broken).unwrap());
        texts.push(serde_json::to_string(&broken).unwrap());
    }
    let whole = serde_json::to_string_pretty(value).unwrap();
    texts.extend(
        (0..whole.len())
            .step_by(7)
            .filter(|&n| whole.is_char_boundary(n))
            .map(|n| whole[..n].to_string()),
    );
    // Not JSON at every 11th place: a stray character.
    texts.extend(
        (0..whole.len())
            .step_by(11)
            .filter(|&n| whole.is_char_boundary(n))
            .map(|n| format!("{}@{}", &whole[..n], &whole[n..])),
    );
    texts.push(format!("{whole} x"));
    let mut failed = 0;
    for text in &texts {
        let read = parse_naming_field::<T>(text)
            .map(|_| ())
            .map_err(|(field, _)| field);
        assert_eq!(read, tracked::<T>(text), "{name}: {text}");
        failed += usize::from(read.is_err());
    }
    failed
}

#[test]
fn every_broken_scenario_names_the_field_serde_tracks() {
    let mut failed = 0;
    for preset in presets() {
        let value = serde_json::to_value(&preset.scenario).unwrap();
        failed += agree::<Scenario>(preset.name, &value);
    }
    // The fields no preset sets, set, so that they are broken too.
    let mut every = serde_json::to_value(&presets()[0].scenario).unwrap();
    every["faults"] = json!(["task-fail@3", "checkpoint-deleted@2"]);
    every["restart"] = json!({"after_ms": 500});
    every["crash_after_events"] = json!([4, 9]);
    every["execution"] = json!("continuous");
    every["upstream"]["splits"] = json!([{"channel": 0, "at_ms": 1500}]);
    every["upstream"]["bursts"] = json!([{"channel": 1, "at_ms": 500, "records": 3}]);
    every["upstream"]["idle"] = json!([{"from_ms": 0, "to_ms": 700}]);
    every["sink"]["outages"] = json!([{"from_ms": 1000, "to_ms": 2000}]);
    let text = every.to_string();
    parse_naming_field::<Scenario>(&text).unwrap_or_else(|e| panic!("{e:?}: {text}"));
    failed += agree::<Scenario>("every field set", &every);
    // The comparison above holds for errors, not only for texts that happen to parse.
    assert!(
        failed > 1000,
        "only {failed} broken scenarios failed to parse"
    );
}

#[test]
fn every_broken_topology_names_the_field_serde_tracks() {
    let mut failed = 0;
    for (name, _) in barrier::presets() {
        let spec = barrier::preset(name).expect("a listed preset");
        let value = serde_json::to_value(&spec).unwrap();
        failed += agree::<TopologySpec>(name, &value);
    }
    assert!(
        failed > 100,
        "only {failed} broken topologies failed to parse"
    );
}

#[test]
fn a_scenario_error_names_the_field_and_where() {
    let mut value = serde_json::to_value(&presets()[0].scenario).unwrap();
    value["upstream"]["channels"] = json!("five");
    let error = Scenario::from_json(&serde_json::to_string_pretty(&value).unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("upstream.channels: invalid type: string \"five\""),
        "{error}"
    );
    assert!(error.contains(" at line "), "{error}");
}
