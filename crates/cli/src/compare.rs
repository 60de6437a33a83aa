//! `batchscope compare A B`: two scenarios (presets or files) with the same seed and crashes;
//! prints both verdicts, the first diverging event and what differs.

use batchscope_check::compare::{compare, compare_matrices, CellDifference, Comparison};
use batchscope_engine::microbatch::scenario::{CrashPoint, Scenario};
use clap::Args;
use std::path::Path;

/// Arguments of `batchscope compare`.
#[derive(Args, Debug, Clone)]
pub struct CompareArgs {
    /// The first scenario: a preset name (see `batchscope presets`) or a scenario file (JSON).
    pub a: String,
    /// The second scenario: a preset name or a scenario file.
    pub b: String,
    /// Crash both drivers at NAME@BATCH (get-offset, offset-log, source-commit, get-batch, task, sink-commit, commit-log, state-prepared); repeatable.
    #[arg(long = "crash", value_name = "NAME@N")]
    pub crash: Vec<String>,
    /// Seed of both runs (default: the first scenario's).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Also crash both at every single crash point (the explorer's matrix) and list the
    /// points where their verdicts differ.
    #[arg(long)]
    pub matrix: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// A preset by name, or a file when `what` names one (or ends in `.json`).
pub fn load(what: &str) -> Result<Scenario, String> {
    let path = Path::new(what);
    if path.is_file() || what.ends_with(".json") {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{what}: cannot read scenario file: {e}"))?;
        return Scenario::from_json(&text).map_err(|e| format!("{what}: {e}"));
    }
    batchscope_engine::microbatch::scenario::preset(what).map_err(|e| e.to_string())
}

/// Both scenarios loaded, with `--seed` and `--crash` applied to both.
pub fn inputs(args: &CompareArgs) -> Result<(Scenario, Scenario), String> {
    let mut a = load(&args.a)?;
    let mut b = load(&args.b)?;
    for c in &args.crash {
        let point = c
            .parse::<CrashPoint>()
            .map_err(|e| format!("--crash: {e}"))?;
        a.crashes.push(point);
        b.crashes.push(point);
    }
    if let Some(seed) = args.seed {
        a.seed = seed;
        b.seed = seed;
    }
    a.validate().map_err(|e| format!("{}: {e}", args.a))?;
    b.validate().map_err(|e| format!("{}: {e}", args.b))?;
    Ok((a, b))
}

/// The comparison as text: both verdicts, the first divergence, the differences.
pub fn text(c: &Comparison) -> Vec<String> {
    let crashes = if c.crashes.is_empty() {
        "no crashes".to_string()
    } else {
        c.crashes.join(", ")
    };
    let width = c.a.name.len().max(c.b.name.len());
    let mut out = vec![format!("seed {} · {crashes}", c.seed)];
    for (tag, side) in [("A", &c.a), ("B", &c.b)] {
        let r = &side.report;
        out.push(format!(
            "{tag} {:width$}  {}  (delivered {} · duplicates {} · lost {} · checkpoint files {} · end {} ms)",
            side.name, side.verdict, r.delivered, r.duplicates, r.lost, side.checkpoint_files, r.end_ms
        ));
    }
    match &c.first_divergence {
        None => out.push("the traces are equal: no divergence".to_string()),
        Some(d) => {
            out.push(format!("first divergence at event {}:", d.index));
            let end = "(trace ended)".to_string();
            out.push(format!("  A {}", d.a.as_ref().unwrap_or(&end)));
            out.push(format!("  B {}", d.b.as_ref().unwrap_or(&end)));
        }
    }
    if c.differences.is_empty() {
        out.push("no differences at the end".to_string());
    } else {
        out.push("differences (A | B):".to_string());
        let w = c
            .differences
            .iter()
            .map(|d| d.what.len())
            .max()
            .unwrap_or(0);
        for d in &c.differences {
            out.push(format!("  {:w$}  {} | {}", d.what, d.a, d.b));
        }
    }
    out
}

/// The crash points whose verdicts differ, one per line.
pub fn matrix_text(cells: &[CellDifference]) -> Vec<String> {
    if cells.is_empty() {
        return vec!["every single crash point: the same verdict for both".to_string()];
    }
    let name = |v: Option<batchscope_check::Verdict>| {
        v.map_or("not reached".to_string(), |v| v.to_string())
    };
    let mut out = vec![format!(
        "{} crash points judged differently (A | B):",
        cells.len()
    )];
    for c in cells {
        out.push(format!("  {:18} {} | {}", c.crash, name(c.a), name(c.b)));
    }
    out
}

/// Runs `batchscope compare`; returns the exit code (0 compared, 2 bad input).
pub fn run(args: &CompareArgs) -> i32 {
    let (a, b) = match inputs(args) {
        Ok(pair) => pair,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let comparison = compare(&a, &b);
    let cells = args.matrix.then(|| compare_matrices(&a, &b));
    if args.json {
        let mut value = serde_json::to_value(&comparison).expect("a comparison serializes");
        if let Some(cells) = &cells {
            value["matrix_differences"] = serde_json::to_value(cells).expect("cells serialize");
        }
        println!("{}", serde_json::to_string_pretty(&value).expect("JSON"));
    } else {
        for line in text(&comparison) {
            println!("{line}");
        }
        if let Some(cells) = &cells {
            for line in matrix_text(cells) {
                println!("{line}");
            }
        }
    }
    0
}
