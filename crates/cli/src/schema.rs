//! `batchscope schema [scenario|topology]`: prints the JSON Schema of scenario or topology files,
//! generated from the engine's types (the files in `schemas/` are this output).

use batchscope_engine::schema::{scenario_schema, topology_schema};
use clap::{Args, ValueEnum};

/// Which file kind's schema to print.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaKind {
    /// A micro-batch or continuous scenario (`batchscope run FILE`).
    Scenario,
    /// An ETL topology (`batchscope topology FILE`).
    Topology,
}

/// Arguments of `batchscope schema`.
#[derive(Args, Debug, Clone)]
pub struct SchemaArgs {
    /// The kind of file.
    #[arg(value_enum, default_value = "scenario")]
    pub kind: SchemaKind,
}

/// The schema's text, pretty-printed with a final newline (as shipped in `schemas/`).
pub fn schema_text(kind: SchemaKind) -> String {
    let value = match kind {
        SchemaKind::Scenario => scenario_schema(),
        SchemaKind::Topology => topology_schema(),
    };
    let mut text = serde_json::to_string_pretty(&value).expect("a schema serializes");
    text.push('\n');
    text
}

/// Prints the schema; always succeeds.
pub fn run(args: &SchemaArgs) -> i32 {
    print!("{}", schema_text(args.kind));
    0
}
