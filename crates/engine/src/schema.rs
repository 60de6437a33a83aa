//! JSON Schemas of scenario and topology files, generated from the serde types with `schemars`,
//! and the `$schema` key that lets a file name its schema (editors complete and check it).

use std::borrow::Cow;

use schemars::gen::SchemaGenerator;
use schemars::schema::{InstanceType, Schema, SchemaObject, StringValidation};
use schemars::JsonSchema;
use serde_json::Value;
use serde_path_to_error::Segment;

use crate::barrier::TopologySpec;
use crate::scenario::{CrashKind, CrashPoint, Fault, FaultKind, Restart, Scenario};

/// The key a scenario or topology file may use to name its JSON Schema; the engine ignores it.
pub const SCHEMA_KEY: &str = "$schema";

/// Path of the scenario schema in the repository, relative to `scenarios/`.
pub const SCENARIO_SCHEMA_REF: &str = "../schemas/scenario.schema.json";

/// Path of the topology schema in the repository, relative to a topology file in `scenarios/`.
pub const TOPOLOGY_SCHEMA_REF: &str = "../schemas/topology.schema.json";

/// A string `NAME@BATCH` whose name is one of `names`, described by `description`.
fn name_at_batch(names: &[&str], description: &str) -> Schema {
    let mut object = SchemaObject {
        instance_type: Some(InstanceType::String.into()),
        string: Some(Box::new(StringValidation {
            pattern: Some(format!("^({})@(0|[1-9][0-9]*)$", names.join("|"))),
            ..Default::default()
        })),
        ..Default::default()
    };
    object.metadata().description = Some(description.to_string());
    object.into()
}

impl JsonSchema for CrashPoint {
    fn schema_name() -> String {
        "CrashPoint".to_string()
    }

    /// A string `NAME@BATCH`, as `CrashPoint`'s `FromStr` reads it.
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = CrashKind::ALL.iter().map(|k| k.name()).collect();
        name_at_batch(
            &names,
            "A driver crash at a named protocol step of a batch, NAME@BATCH (e.g. sink-commit@3).",
        )
    }
}

impl JsonSchema for Fault {
    fn schema_name() -> String {
        "Fault".to_string()
    }

    /// A string `KIND@BATCH`, as `Fault`'s `FromStr` reads it.
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = FaultKind::ALL.iter().map(|k| k.name()).collect();
        name_at_batch(
            &names,
            "A failure inside a batch, KIND@BATCH: task-fail (one task attempt fails and is \
             retried), foreach-fail (the foreachBatch function throws), checkpoint-deleted \
             (the checkpoint folder is deleted after a crash).",
        )
    }
}

impl JsonSchema for Restart {
    fn schema_name() -> String {
        "Restart".to_string()
    }

    /// `"none"` or `{"after_ms": N}`, as `Restart`'s `Deserialize` reads it.
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let schema = serde_json::json!({
            "description": "Who restarts a failed query: nobody (\"none\"), or a job scheduler after N ms ({\"after_ms\": N}).",
            "oneOf": [
                { "type": "string", "enum": ["none"] },
                {
                    "type": "object",
                    "required": ["after_ms"],
                    "additionalProperties": false,
                    "properties": { "after_ms": { "type": "integer", "format": "uint64", "minimum": 0 } }
                }
            ]
        });
        serde_json::from_value(schema).expect("a valid schema")
    }
}

/// The JSON Schema (draft-07) of a scenario file.
pub fn scenario_schema() -> Value {
    with_schema_key(schemars::schema_for!(Scenario), "batchscope scenario")
}

/// The JSON Schema (draft-07) of a topology file.
pub fn topology_schema() -> Value {
    with_schema_key(schemars::schema_for!(TopologySpec), "batchscope topology")
}

/// The schema as JSON, with a title and `$schema` allowed as a property (the root objects deny
/// unknown fields, and a file names its schema with that key).
fn with_schema_key(root: schemars::schema::RootSchema, title: &str) -> Value {
    let mut value = serde_json::to_value(root).expect("a schema serializes");
    if let Some(object) = value.as_object_mut() {
        object.insert("title".into(), Value::String(title.into()));
        if let Some(Value::Object(properties)) = object.get_mut("properties") {
            properties.insert(
                SCHEMA_KEY.into(),
                serde_json::json!({
                    "description": "The JSON Schema this file follows (ignored by batchscope).",
                    "type": "string"
                }),
            );
        }
    }
    value
}

/// `text` without a top-level `$schema` key, so a file that names its schema parses with
/// `deny_unknown_fields`. Text without the key is returned as it is (errors keep their line and
/// column); with it, the object is written again without that key.
pub fn without_schema_key(text: &str) -> Cow<'_, str> {
    if !text.contains(SCHEMA_KEY) {
        return Cow::Borrowed(text);
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(mut object)) if object.contains_key(SCHEMA_KEY) => {
            object.remove(SCHEMA_KEY);
            Cow::Owned(serde_json::to_string_pretty(&object).expect("a JSON object serializes"))
        }
        _ => Cow::Borrowed(text),
    }
}

/// Parses `text` as `T`; on failure, the dotted path of the field serde stopped at
/// (`upstream.channels`, `jobs[1].sink`; `None` for the whole file) and serde's message.
pub fn parse_naming_field<T: serde::de::DeserializeOwned>(
    text: &str,
) -> Result<T, (Option<String>, String)> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        // A path of no segment, or of segments serde cannot name (`?`: before any field was
        // entered, as in a truncated file), names no field. Read from the segments, not from
        // the path written out.
        let path = e.path();
        let named = path.iter().any(|s| !matches!(s, Segment::Unknown));
        (named.then(|| path.to_string()), e.into_inner().to_string())
    })?;
    de.end().map_err(|e| (None, e.to_string()))?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use crate::Scenario;

    #[test]
    fn a_file_broken_before_any_field_names_the_scenario() {
        let error = Scenario::from_json("{").unwrap_err().to_string();
        assert!(error.starts_with("scenario: "), "{error}");
    }
}
