//! `bench-report DIR DOC`: renders the performance table from the measurements
//! `scripts/bench.sh` wrote to DIR, writes DOC (`docs/PERFORMANCE.md`) with it, keeping DOC's
//! hand-written text below the table, and prints the table.

use batchscope_tools::bench::document::{document, Context};
use batchscope_tools::bench::measurements::Measurements;
use batchscope_tools::bench::table::table;
use std::path::Path;
use std::process::{exit, Command};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, doc] = args.as_slice() else {
        eprintln!("usage: bench-report DIR DOC (the measurements' folder, docs/PERFORMANCE.md)");
        exit(2);
    };
    if let Err(e) = report(Path::new(dir), Path::new(doc)) {
        eprintln!("bench-report: {e}");
        exit(1);
    }
}

fn report(dir: &Path, doc: &Path) -> Result<(), String> {
    let m = Measurements::read(dir)?;
    let previous = std::fs::read_to_string(doc).map_err(|e| format!("{}: {e}", doc.display()))?;
    let text =
        document(&context(), &m, &previous).map_err(|e| format!("{}: {e}", doc.display()))?;
    std::fs::write(doc, text).map_err(|e| format!("{}: {e}", doc.display()))?;
    println!("\n{}\n\n(written to {})", table(&m), doc.display());
    Ok(())
}

/// The first line a command prints, or `unknown`.
fn output(program: &str, args: &[&str]) -> String {
    let out = Command::new(program).args(args).output().ok();
    let text = out
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let line = text.lines().next().unwrap_or("").trim();
    if line.is_empty() { "unknown" } else { line }.to_string()
}

/// The value of the first `label: value` line of a `/proc` file that starts with `label`.
fn proc_field(file: &str, label: &str) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().find(|l| l.starts_with(label))?;
    Some(line.split_once(':')?.1.trim().to_string())
}

fn context() -> Context {
    let model = proc_field("/proc/cpuinfo", "model name").unwrap_or("unknown".into());
    let kb: Option<f64> = proc_field("/proc/meminfo", "MemTotal")
        .and_then(|v| v.split_whitespace().next()?.parse().ok());
    let memory = kb.map_or("unknown".into(), |kb| {
        format!("{:.1} GiB", kb / 1_048_576.0)
    });
    let chromium = output("/usr/bin/chromium", &["--version"]);
    let chromium = chromium
        .split_whitespace()
        .collect::<Vec<_>>()
        .windows(2)
        .find(|w| w[0] == "Chromium")
        .map_or("unknown".into(), |w| format!("Chromium {}", w[1]));
    Context {
        date: output("date", &["-u", "+%Y-%m-%d %H:%M UTC"]),
        machine: format!("{} cores, {model}, {memory} memory", output("nproc", &[])),
        rustc: output("rustc", &["--version"]),
        node: output("node", &["--version"]),
        chromium,
    }
}
