//! The `batchscope` binary: parses arguments and hands over to the library's commands.

use batchscope_cli::{compare, explore, inspect, lesson, run, schema, swarm, topology};
use clap::{Parser, Subcommand};

/// Deterministic simulator of streaming fault tolerance: run protocols, crash them, judge the sink.
#[derive(Parser, Debug)]
#[command(name = "batchscope", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List the built-in scenarios, one per line: name, then what it shows.
    Presets,
    /// Run a scenario (with crashes) to convergence and print the exactly-once verdict.
    Run(run::RunArgs),
    /// Crash a scenario at every crash point (and pair), judge each run, print the counterexamples
    /// and whether the preset lesson's claims held.
    Explore(explore::ExploreArgs),
    /// Read a real Spark checkpoint folder (or its s3://, az://, gs:// URL): batches, offsets, commits, and what a restart would do.
    Inspect(inspect::InspectArgs),
    /// Timestamp barriers across an ETL topology (FLIP-276): consistency levels, delay, failover, revision.
    Topology(topology::TopologyArgs),
    /// A preset's lesson and guided tour: what to watch, and at which event each stop pauses.
    Lesson(lesson::LessonArgs),
    /// Print the JSON Schema of scenario files (default) or topology files.
    Schema(schema::SchemaArgs),
    /// Run two scenarios with the same seed and crashes: both verdicts, where the traces part, what differs.
    Compare(compare::CompareArgs),
    /// Random scenarios and faults from one seed, each run held to the engine's invariants.
    Swarm(swarm::SwarmArgs),
}

fn main() {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`batchscope run … | head`) would
    // panic; a command-line tool ends quietly instead, as `cat` does.
    sigpipe::reset();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            std::process::exit(code);
        }
    };
    let code = match &cli.command {
        Command::Presets => {
            for line in run::preset_lines() {
                println!("{line}");
            }
            0
        }
        Command::Run(args) => run::run(args),
        Command::Explore(args) => explore::run(args),
        Command::Inspect(args) => inspect::run(args),
        Command::Topology(args) => topology::run(args),
        Command::Lesson(args) => lesson::run(args),
        Command::Schema(args) => schema::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Swarm(args) => swarm::run(args),
    };
    std::process::exit(code);
}
