//! `batchscope explore`: every crash point (and pair) of a scenario, judged; counts per verdict,
//! the smallest counterexample of each bad verdict with the command that reproduces it.

use crate::run::load_scenario;
use batchscope_check::explore::map::{danger_map, DangerMap};
use batchscope_check::explore::{
    shard, Evidence, Explorer, Options, Origin, Property, Shard, ShardReport, Status, Summary,
};
use batchscope_check::oracle::Verdict;
use batchscope_view::microbatch::claims::claims;
use clap::{Args, Subcommand};
use serde::Serialize;
use std::io::IsTerminal;
use std::path::PathBuf;

/// Runs judged per chunk between progress-bar updates (large enough to keep every core busy).
const CHUNK: u64 = 128;

/// Arguments of `batchscope explore`.
#[derive(Args, Debug, Clone)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ExploreArgs {
    /// `merge`: combine shard reports.
    #[command(subcommand)]
    pub command: Option<ExploreCommand>,
    /// A built-in scenario (see `batchscope presets`).
    #[arg(long, conflicts_with = "file")]
    pub preset: Option<String>,
    /// A scenario file (JSON) without crashes.
    pub file: Option<PathBuf>,
    /// Faults per run: 1 (every crash point, outage, split alone), 2 (also every ordered pair)
    /// or 3 (also every ordered triple).
    #[arg(long, default_value_t = 1)]
    pub depth: u32,
    /// Crash the driver after every event of the run, not only at the named crash points
    /// (depth 1 to 3; depth 3 is millions of runs for a six-batch preset: shard it).
    #[arg(long)]
    pub every_event: bool,
    /// With `--every-event`: run every crash schedule, even one whose state after its crash an
    /// earlier run reached (without it such runs are judged by that run, and counted as pruned).
    #[arg(long)]
    pub no_prune: bool,
    /// With `--every-event`: print the danger map instead — for the run without crashes, the
    /// verdict one crash after each event causes, in windows of consecutive events named by
    /// the protocol steps on either side (depth 1).
    #[arg(long, requires = "every_event")]
    pub map: bool,
    /// Trigger intervals over which records arrive (overrides the scenario's).
    #[arg(long)]
    pub batches: Option<u64>,
    /// Seed of the world's PRNG (overrides the scenario's).
    #[arg(long)]
    pub seed: Option<u64>,
    /// A failure inside batch N kept in every explored run (task-fail, foreach-fail,
    /// checkpoint-deleted); repeatable. A scenario file lists its own under `faults`.
    #[arg(long = "fault", value_name = "KIND@N")]
    pub fault: Vec<String>,
    /// Explore one share of the runs, shard K of N (1 ≤ K ≤ N), and print its report as JSON
    /// for `batchscope explore merge`; the N reports merge into exactly the result of one
    /// process.
    #[arg(long, value_name = "K/N", conflicts_with = "map")]
    pub shard: Option<String>,
    /// Print one JSON object instead of text (no progress bar).
    #[arg(long)]
    pub json: bool,
}

/// What `batchscope explore` does besides exploring.
#[derive(Subcommand, Debug, Clone)]
pub enum ExploreCommand {
    /// Combine the reports of `explore --shard K/N`, all N of them, into exactly what one
    /// process prints (text, or `--json`).
    Merge(MergeArgs),
}

/// Arguments of `batchscope explore merge`.
#[derive(Args, Debug, Clone)]
pub struct MergeArgs {
    /// The shard reports (JSON files written by `explore --shard K/N`), in any order.
    #[arg(required = true)]
    pub reports: Vec<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `batchscope explore merge`; returns the exit code (0 merged, 2 bad input).
pub fn merge(args: &MergeArgs) -> i32 {
    let mut reports = vec![];
    for path in &args.reports {
        let shown = path.display();
        let read = std::fs::read_to_string(path)
            .map_err(|e| format!("{shown}: {e}"))
            .and_then(|text| {
                serde_json::from_str::<ShardReport>(&text)
                    .map_err(|e| format!("{shown}: not a shard report of `explore --shard`: {e}"))
            });
        match read {
            Ok(r) => reports.push(r),
            Err(e) => {
                eprintln!("error: {e}");
                return 2;
            }
        }
    }
    let (summary, origin) = match shard::merge(&reports) {
        Ok(merged) => merged,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    match args.json {
        true => println!("{}", report_json(&summary, &origin)),
        false => print!("{}", render_text(&summary, &origin)),
    }
    0
}

/// A lesson's claim checked against an exploration (`explore --json`'s `claims`).
#[derive(Debug, Serialize)]
pub struct ClaimCheck {
    /// The claim in the lesson's words.
    pub claim: &'static str,
    /// What the explorer checks.
    pub property: Property,
    /// Held, violated or never reached.
    pub status: Status,
    /// Why.
    pub evidence: Evidence,
}

/// The claims of the explored preset's lesson, checked (none for a scenario file).
pub fn check_claims(summary: &Summary, origin: &Origin) -> Vec<ClaimCheck> {
    let Origin::Preset(name) = origin else {
        return vec![];
    };
    claims(name)
        .into_iter()
        .map(|c| {
            let check = c.property.check(summary, origin);
            ClaimCheck {
                claim: c.words,
                property: c.property,
                status: check.status,
                evidence: check.evidence,
            }
        })
        .collect()
}

/// `explore --json`: the summary with its reproducing commands, and the lesson's claims.
fn report_json(summary: &Summary, origin: &Origin) -> String {
    #[derive(Serialize)]
    struct Report<'a> {
        #[serde(flatten)]
        summary: &'a Summary,
        claims: Vec<ClaimCheck>,
    }
    let report = Report {
        summary: &summary.with_commands(origin),
        claims: check_claims(summary, origin),
    };
    serde_json::to_string_pretty(&report).expect("summary serializes")
}

/// One line per claim: `claim held: WORDS (EVIDENCE)`.
fn render_claims(summary: &Summary, origin: &Origin) -> String {
    check_claims(summary, origin)
        .iter()
        .map(|c| {
            let status = match c.status {
                Status::Held => "held",
                Status::Violated => "VIOLATED",
                Status::NeverReached => "never reached",
            };
            format!("claim {status}: {} ({})\n", c.claim, c.evidence.text)
        })
        .collect()
}

/// The text report: counts per verdict, counterexamples with commands, the matrix, the
/// coverage, and the lesson's claims checked (a preset's).
pub fn render_text(summary: &Summary, origin: &Origin) -> String {
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    let sites = if summary.every_event {
        "events crashed after"
    } else {
        "crash points"
    };
    line(format!(
        "batchscope explore: {} · seed {} · batches {} · depth {} · {} runs, {} pruned ({} {sites}, {} outage/split faults)",
        summary.scenario,
        summary.seed,
        summary.batches,
        summary.depth,
        summary.runs,
        summary.pruned,
        summary.crash_points,
        summary.faults.len()
    ));
    for v in Verdict::ALL {
        line(format!("  {:<20} {}", v.name(), summary.outcomes[&v]));
    }
    if summary.counterexamples.is_empty() {
        line("no crash point loses or duplicates data: every run is exactly-once".into());
    }
    for c in &summary.counterexamples {
        line(format!(
            "{}: {} → duplicates {}, lost {}",
            c.outcome.verdict,
            c.outcome.schedule(),
            c.outcome.duplicates,
            c.outcome.lost
        ));
        line(format!("  reproduce: {}", c.command(origin)));
    }
    line(String::new());
    line("single crash × batch (. exactly-once, D duplicates, L data-loss, X both, S stuck, T stopped (restart: none), blank: not reached)".into());
    let header: String = summary
        .matrix
        .batches
        .iter()
        .map(|b| format!("{b:>3}"))
        .collect();
    line(format!("  {:<14}{header}", "batch"));
    for row in &summary.matrix.rows {
        let cells: String = row
            .verdicts
            .iter()
            .map(|v| format!("{:>3}", v.map_or(" ", cell)))
            .collect();
        line(format!("  {:<14}{cells}", row.point));
    }
    line(String::new());
    let c = &summary.coverage;
    line(format!(
        "crash windows: {} crashed in, {} passed without a crash",
        c.windows.len(),
        c.never_crashed.len()
    ));
    for (before, after) in &c.never_crashed {
        line(format!("  never crashed: {before} → {after}"));
    }
    let reached = c.points.len() - c.unreached.len();
    line(match c.unreached.is_empty() {
        true => format!("named crash points: all {reached} reached"),
        false => format!(
            "named crash points: {reached} reached; never reached: {}",
            c.unreached.join(", ")
        ),
    });
    if summary.inexact_forks > 0 {
        line(format!(
            "note: {} forked runs did not fire where expected and were replayed from zero",
            summary.inexact_forks
        ));
    }
    let claims = render_claims(summary, origin);
    if !claims.is_empty() {
        out.push('\n');
        out.push_str(&claims);
    }
    out
}

/// The danger map as text: one line per window.
pub fn render_map(map: &DangerMap) -> String {
    let mut out = format!(
        "batchscope explore --map: {} · seed {} · batches {} · one driver crash after each of {} events\n",
        map.scenario, map.seed, map.batches, map.events
    );
    for w in &map.windows {
        out.push_str(&format!("  {}: {}\n", w.span(), w.outcome()));
    }
    out
}

fn cell(v: Verdict) -> &'static str {
    match v {
        Verdict::ExactlyOnce => ".",
        Verdict::Stopped => "T",
        Verdict::Duplicates => "D",
        Verdict::DataLoss => "L",
        Verdict::DuplicatesAndLoss => "X",
        Verdict::Stuck => "S",
    }
}

/// Runs the exploration to the end, with a progress bar when `bar` is set.
pub fn explore(explorer: &mut Explorer, bar: bool) -> Summary {
    let pb = bar.then(|| {
        let pb = indicatif::ProgressBar::new(explorer.total());
        pb.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} runs · {per_sec} · eta {eta}",
            )
            .expect("template parses"),
        );
        pb
    });
    loop {
        let p = explorer.run_chunk(CHUNK);
        if let Some(pb) = &pb {
            pb.set_length(p.total);
            pb.set_position(p.done);
        }
        if p.finished {
            break;
        }
    }
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    explorer.summary()
}

/// The options allowed together: depth 1 to 3 at the named crash points, 1 or 2 after every
/// event; `--no-prune` only after every event.
fn check_options(args: &ExploreArgs) -> Result<(), String> {
    match (args.every_event, args.depth) {
        (_, d) if args.map && d != 1 => Err(format!(
            "--map: one crash per run, so --depth must be 1, got {d}"
        )),
        _ if args.no_prune && !args.every_event => Err(
            "--no-prune: only with --every-event (named crash points are not de-duplicated)".into(),
        ),
        (_, 1..=3) => Ok(()),
        (false, d) => Err(format!("--depth: must be 1, 2 or 3, got {d}")),
        (true, d) => Err(format!("--every-event: --depth must be 1, 2 or 3, got {d}")),
    }
}

/// Runs `batchscope explore`; returns the exit code (0 done, 2 bad input).
pub fn run(args: &ExploreArgs) -> i32 {
    if let Some(ExploreCommand::Merge(m)) = &args.command {
        return merge(m);
    }
    if let Err(e) = check_options(args) {
        eprintln!("error: {e}");
        return 2;
    }
    let shard = match args.shard.as_deref().map(Shard::parse).transpose() {
        Ok(shard) => shard,
        Err(e) => {
            eprintln!("error: --shard: {e}");
            return 2;
        }
    };
    let scenario = match load_scenario(
        args.preset.as_deref(),
        args.file.as_deref(),
        args.seed,
        args.batches,
        &[],
        &args.fault,
    ) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let origin = match (&args.preset, &args.file) {
        (Some(p), _) => Origin::Preset(p.clone()),
        (None, Some(f)) => Origin::File(f.display().to_string()),
        (None, None) => unreachable!("load_scenario requires one"),
    };
    if let (Origin::File(path), false) = (&origin, args.fault.is_empty()) {
        eprintln!("error: {path}: --fault: list the faults in the scenario file (`faults`), so the reproducing commands find them there");
        return 2;
    }
    if let Origin::File(path) = &origin {
        // The explorer places crashes itself; a file's own crashes would make the
        // reproducing commands (`run FILE --crash …`) differ from what was explored.
        if !scenario.crashes.is_empty() || !scenario.crash_after_events.is_empty() {
            eprintln!(
                "error: {path}: crashes / crash_after_events: explore places crashes itself; remove them from the scenario"
            );
            return 2;
        }
    }
    if args.map {
        let map = danger_map(&scenario);
        match args.json {
            true => println!(
                "{}",
                serde_json::to_string_pretty(&map).expect("a map serializes")
            ),
            false => print!("{}", render_map(&map)),
        }
        return 0;
    }
    let options = Options {
        every_event: args.every_event,
        // Named crash points lie apart in simulated time, so two rarely reach one state (none
        // on the tablestore preset at depth 3): keying them costs more than it saves.
        prune: args.every_event && !args.no_prune,
        shard,
        // Printed in the order shards merge in (`shard::ordered`): the smallest bad runs.
        every_bad_run: true,
    };
    let mut explorer = Explorer::with_options(scenario, args.depth, options);
    let bar = !args.json && std::io::stderr().is_terminal();
    let summary = shard::ordered(explore(&mut explorer, bar));
    if let Some(report) = explorer.shard_report(&origin) {
        println!(
            "{}",
            serde_json::to_string(&report).expect("a shard report serializes")
        );
    } else if args.json {
        println!("{}", report_json(&summary, &origin));
    } else {
        print!("{}", render_text(&summary, &origin));
    }
    0
}
