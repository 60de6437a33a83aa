//! JSON Schemas of scenario and topology files, generated from the serde types with `schemars`.
//! A leaf above both worlds: it reads their spec types, and nothing of the engine reads it.

use schemars::gen::SchemaGenerator;
use schemars::schema::{InstanceType, Schema, SchemaObject, StringValidation};
use schemars::JsonSchema;
use serde_json::Value;

use crate::barrier::TopologySpec;
use crate::microbatch::scenario::{CrashKind, CrashPoint, Fault, FaultKind, Restart, Scenario};
use crate::spec_json::SCHEMA_KEY;

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
            "description": "Who restarts a failed query: nobody (\"none\": the run ends there, and the verdict is `stopped` when nothing was duplicated or lost, the records the query never delivered counted as `unread`), or a job scheduler after N ms ({\"after_ms\": N}).",
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

#[cfg(test)]
mod tests {
    use crate::microbatch::scenario::Scenario;

    #[test]
    fn a_file_broken_before_any_field_names_the_scenario() {
        let error = Scenario::from_json("{").unwrap_err().to_string();
        assert!(error.starts_with("scenario: "), "{error}");
    }
}
