//! `batchscope swarm`: random scenarios × random fault schedules from one seed, each run held to
//! the engine's invariants (`batchscope_check::swarm`); every violation is written into the
//! corpus with the `batchscope run FILE` line that reproduces it.

use batchscope_check::swarm::{swarm, Tally};
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Runs checked per slice between progress lines (each slice runs on every core).
const SLICE: u64 = 20_000;

/// Arguments of `batchscope swarm`.
#[derive(Args, Debug, Clone)]
pub struct SwarmArgs {
    /// The swarm's seed: run I of seed S is the same scenario on every machine.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How many runs to check.
    #[arg(long, default_value_t = 1000)]
    pub runs: u64,
    /// The first run's index (a long swarm split over machines: `--from 0`, `--from 500000` …).
    #[arg(long, default_value_t = 0)]
    pub from: u64,
    /// Where each violating run's scenario is written (`swarm-<seed>-<index>.json`); the test
    /// suite replays `crates/check/tests/swarm-corpus/`.
    #[arg(long, value_name = "DIR", default_value = "swarm-corpus")]
    pub corpus: PathBuf,
    /// Print the tally as JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The text report.
pub fn render_text(args: &SwarmArgs, t: &Tally, secs: f64, files: &[(u64, PathBuf)]) -> String {
    let rate = t.runs as f64 / secs.max(1e-9);
    let mut out = format!(
        "batchscope swarm: seed {} · runs {}..{} · {} runs in {secs:.1} s ({rate:.0} runs/s) · {} violations\n",
        args.seed,
        args.from,
        args.from + args.runs,
        t.runs,
        t.violations.len()
    );
    let list = |m: &std::collections::BTreeMap<String, u64>| {
        m.iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    out.push_str(&format!("  verdicts: {}\n", list(&t.verdicts)));
    out.push_str(&format!("  drawn: {}\n", list(&t.kinds)));
    out.push_str(&format!(
        "  restarts inspected {} · idempotent-sink runs {} · events {}\n",
        t.restarts_inspected, t.idempotent_runs, t.events
    ));
    for (index, v) in &t.violations {
        out.push_str(&format!(
            "violation [{}] run {index}: {}\n",
            v.invariant, v.detail
        ));
        if let Some((_, file)) = files.iter().find(|(i, _)| i == index) {
            out.push_str(&format!("  reproduce: batchscope run {}\n", file.display()));
        }
    }
    out
}

/// Writes each violating scenario into the corpus; the files by run index.
fn keep(
    corpus: &Path,
    bad: &[batchscope_engine::microbatch::scenario::Scenario],
) -> Result<Vec<(u64, PathBuf)>, String> {
    if bad.is_empty() {
        return Ok(vec![]);
    }
    std::fs::create_dir_all(corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
    bad.iter()
        .map(|s| {
            let index = s
                .name
                .rsplit('-')
                .next()
                .and_then(|i| i.parse().ok())
                .unwrap_or(0);
            let file = corpus.join(format!("{}.json", s.name));
            let json = serde_json::to_string_pretty(s).expect("a scenario serializes");
            std::fs::write(&file, json + "\n").map_err(|e| format!("{}: {e}", file.display()))?;
            Ok((index, file))
        })
        .collect()
}

/// Runs `batchscope swarm`; the exit code is 0 without violations, 1 with, 2 on bad input.
pub fn run(args: &SwarmArgs) -> i32 {
    if args.runs == 0 {
        eprintln!("error: --runs: at least 1");
        return 2;
    }
    let started = Instant::now();
    let mut tally = Tally::default();
    let mut bad = vec![];
    let mut next = args.from;
    let end = args.from.saturating_add(args.runs);
    while next < end {
        let n = SLICE.min(end - next);
        let (t, b) = swarm(args.seed, next, n);
        tally.absorb(t);
        bad.extend(b);
        next += n;
        if !args.json && end - args.from > SLICE {
            let secs = started.elapsed().as_secs_f64();
            eprintln!(
                "  {} runs · {:.0} runs/s · {} violations",
                tally.runs,
                tally.runs as f64 / secs.max(1e-9),
                tally.violations.len()
            );
        }
    }
    let secs = started.elapsed().as_secs_f64();
    let files = match keep(&args.corpus, &bad) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&tally).expect("a tally serializes")
        );
    } else {
        print!("{}", render_text(args, &tally, secs, &files));
    }
    i32::from(!tally.violations.is_empty())
}
