//! `batchscope run` and `batchscope presets`: run a scenario with crashes and print the oracle's verdict.

use batchscope_check::oracle::{check_world, Report, Verdict};
use batchscope_engine::microbatch::scenario::Fault;
use batchscope_engine::microbatch::scenario::{presets, CrashPoint, Scenario};
use batchscope_engine::microbatch::trace;
use batchscope_engine::microbatch::upstream::RowKey;
use batchscope_engine::rng::Prng;
use clap::Args;
use std::path::{Path, PathBuf};

/// Arguments of `batchscope run`.
#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// A built-in scenario (see `batchscope presets`).
    #[arg(long, conflicts_with = "file")]
    pub preset: Option<String>,
    /// A scenario file (JSON).
    pub file: Option<PathBuf>,
    /// Seed of the world's PRNG (overrides the scenario's).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Trigger intervals over which records arrive (overrides the scenario's).
    #[arg(long)]
    pub batches: Option<u64>,
    /// Crash the driver at NAME@BATCH (get-offset, offset-log, source-commit, get-batch, task, sink-commit, commit-log, state-prepared); repeatable.
    #[arg(long = "crash", value_name = "NAME@N")]
    pub crash: Vec<String>,
    /// A failure inside batch N (task-fail, foreach-fail, checkpoint-deleted, torn-offset-log, metadata-lost, second-driver); repeatable.
    #[arg(long = "fault", value_name = "KIND@N")]
    pub fault: Vec<String>,
    /// Exit 1 unless the verdict is this (exactly-once, stopped, duplicates, data-loss, duplicates-and-loss, stuck).
    #[arg(long, value_name = "VERDICT")]
    pub expect: Option<String>,
    /// Print one JSON report instead of text.
    #[arg(long)]
    pub json: bool,
    /// Include every event in the JSON report.
    #[arg(long)]
    pub trace: bool,
    /// Print the trace in the Informal Trace Format (ITF, Apalache/Quint) instead of text.
    #[arg(long, conflicts_with_all = ["json", "trace"])]
    pub itf: bool,
    /// Write the simulated Spark checkpoint folder to this directory.
    #[arg(long, value_name = "DIR")]
    pub checkpoint_out: Option<PathBuf>,
    /// The Spark release the query runs on, e.g. 3.5 or 4.3 (overrides the scenario's).
    #[arg(long, value_name = "X.Y")]
    pub spark_version: Option<String>,
}

/// Loads the scenario named by `--preset` or a file, applying `--seed`, `--batches`,
/// `--crash` and `--fault`.
pub fn load_scenario(
    preset: Option<&str>,
    file: Option<&Path>,
    seed: Option<u64>,
    batches: Option<u64>,
    crash: &[String],
    fault: &[String],
) -> Result<Scenario, String> {
    let mut scenario = match (preset, file) {
        (Some(name), None) => {
            batchscope_engine::microbatch::scenario::preset(name).map_err(|e| e.to_string())?
        }
        (None, Some(path)) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("{}: cannot read scenario file: {e}", path.display()))?;
            Scenario::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?
        }
        (None, None) => {
            return Err(
                "give a scenario: --preset NAME or a FILE (see `batchscope presets`)".into(),
            )
        }
        (Some(_), Some(_)) => return Err("give either --preset or a FILE, not both".into()),
    };
    if let Some(s) = seed {
        scenario.seed = s;
    }
    if let Some(b) = batches {
        scenario.batches = b;
    }
    for c in crash {
        scenario
            .crashes
            .push(c.parse::<CrashPoint>().map_err(|e| e.to_string())?);
    }
    for f in fault {
        let fault = f.parse::<Fault>().map_err(|e| format!("--fault: {e}"))?;
        scenario.faults.push(fault);
    }
    scenario.validate().map_err(|e| e.to_string())?;
    Ok(scenario)
}

/// The scenario on the Spark release `--spark-version` names, validated again.
fn with_spark_version(mut scenario: Scenario, version: Option<&str>) -> Result<Scenario, String> {
    if let Some(v) = version {
        scenario.spark_version = Some(v.to_string());
        scenario
            .validate()
            .map_err(|e| format!("--spark-version: {e}"))?;
    }
    Ok(scenario)
}

/// Writes a checkpoint folder to disk (the files exactly as the simulation holds them).
pub fn write_folder(
    folder: &batchscope_engine::checkpoint::CheckpointFolder,
    dir: &Path,
) -> Result<(), String> {
    for (path, bytes) in folder.files() {
        let target = dir.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&target, bytes).map_err(|e| format!("{}: {e}", target.display()))?;
    }
    Ok(())
}

/// What a reproduce line names: a preset, or the scenario file it was read from.
#[derive(Clone, Copy, Debug)]
pub enum Origin<'a> {
    /// `--preset NAME`.
    Preset(&'a str),
    /// A scenario file's path.
    File(&'a Path),
    /// Neither is known (the scenario's name is quoted).
    Named,
}

impl<'a> Origin<'a> {
    /// The origin of a run given `--preset` or a file.
    pub fn of(preset: Option<&'a str>, file: Option<&'a Path>) -> Origin<'a> {
        match (preset, file) {
            (Some(p), _) => Origin::Preset(p),
            (None, Some(f)) => Origin::File(f),
            (None, None) => Origin::Named,
        }
    }
}

/// A path or name quoted for a POSIX shell (single quotes, `'` escaped).
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// The command that reproduces a run: its preset or file, seed, batches, crashes and faults.
/// Crashes and faults the preset or the file already lists are not repeated as options (the
/// file is read again; repeating them would arm them twice).
pub fn reproduce_command(s: &Scenario, origin: Origin) -> String {
    let (what, base) = match origin {
        Origin::Preset(p) => (
            format!("--preset {p}"),
            batchscope_engine::microbatch::scenario::preset(p).ok(),
        ),
        Origin::File(f) => (
            shell_quote(&f.display().to_string()),
            std::fs::read_to_string(f)
                .ok()
                .and_then(|t| Scenario::from_json(&t).ok()),
        ),
        Origin::Named => (shell_quote(&s.name), None),
    };
    let (base_crashes, base_faults) = base.map(|b| (b.crashes, b.faults)).unwrap_or_default();
    let mut crashes_left = base_crashes;
    let crashes: String = s
        .crashes
        .iter()
        .filter(|c| match crashes_left.iter().position(|b| b == *c) {
            Some(i) => {
                crashes_left.remove(i);
                false
            }
            None => true,
        })
        .map(|c| format!(" --crash {c}"))
        .collect();
    let mut faults_left = base_faults;
    let faults: String = s
        .faults
        .iter()
        .filter(|f| match faults_left.iter().position(|b| b == *f) {
            Some(i) => {
                faults_left.remove(i);
                false
            }
            None => true,
        })
        .map(|f| format!(" --fault {f}"))
        .collect();
    format!(
        "batchscope run {what} --seed {} --batches {}{crashes}{faults}",
        s.seed, s.batches
    )
}

/// Up to 12 keys, then how many more.
fn list(keys: &[RowKey]) -> String {
    let shown: Vec<String> = keys.iter().take(12).map(RowKey::to_string).collect();
    let more = keys.len().saturating_sub(12);
    if more > 0 {
        format!("{} … (+{more})", shown.join(" "))
    } else {
        shown.join(" ")
    }
}

/// The lines of a query stopped for good (`restart: none`): what it never delivered.
fn print_stopped(report: &Report) {
    println!(
        "  the query failed and nobody restarted it (restart: none): {} never delivered are still upstream for its next start (unread, not lost)",
        if report.unread == 1 {
            "1 record".to_string()
        } else {
            format!("{} records", report.unread)
        }
    );
    if !report.unread_keys.is_empty() {
        println!("  unread keys: {}", list(&report.unread_keys));
    }
}

/// One line per anomaly, then when the bad outcome became inevitable.
fn print_why(report: &Report, events: &[batchscope_engine::microbatch::event::Event]) {
    for a in &report.anomalies {
        let n = a.keys.len();
        let keys = match n {
            0 => String::new(),
            1 => format!("1 key {} ", list(&a.keys)),
            _ => format!("{n} keys {} ", list(&a.keys)),
        };
        println!(
            "  anomaly {}: {keys}({})",
            a.name.as_str(),
            batchscope_check::why::proof_text(a, events)
        );
    }
    if let Some(why) = batchscope_check::anomaly::when_text(
        report.inevitable_at.as_ref(),
        report.avoidable_until.as_ref(),
        events,
    ) {
        println!("  why: {why}");
    }
}

fn print_text(
    report: &Report,
    world: &batchscope_engine::microbatch::World,
    scenario: &Scenario,
    origin: Origin,
) {
    println!("{}", trace::legend(scenario.source.kind));
    for e in world.events() {
        println!("{}", trace::line_for(e, scenario.source.kind));
    }
    println!();
    println!("verdict: {}", report.verdict);
    println!(
        "  expected {} · delivered {} · duplicates {} · lost {}{} · batches committed {} · driver runs {}",
        report.expected,
        report.delivered,
        report.duplicates,
        report.lost,
        if report.unread > 0 { format!(" · unread {}", report.unread) } else { String::new() },
        report.batches_committed,
        report.runs
    );
    if !report.duplicate_keys.is_empty() {
        println!("  duplicate keys: {}", list(&report.duplicate_keys));
    }
    if !report.lost_keys.is_empty() {
        println!("  lost keys: {}", list(&report.lost_keys));
    }
    if !report.aged_out_keys.is_empty() {
        println!(
            "  aged out (retention deleted them before a task read them; failOnDataLoss=false skipped them): {}",
            list(&report.aged_out_keys)
        );
    }
    if !report.wrong_values.is_empty() {
        println!("  wrong values: {}", report.wrong_values.join("; "));
    }
    if report.rewrites > 0 {
        println!("  rewrites absorbed by the upsert key: {}", report.rewrites);
    }
    if report.orphan_files > 0 {
        println!(
            "  orphan files (invisible, not in _spark_metadata): {}",
            report.orphan_files
        );
    }
    if report.source.rows_read_ahead > 0 {
        println!(
            "  pull-ahead cost: {} rows read in get_offset, cache peak {} rows",
            report.source.rows_read_ahead, report.source.rows_cached_peak
        );
    }
    if !report.crashes_unreached.is_empty() {
        println!(
            "  crash points never reached: {}",
            report.crashes_unreached.join(", ")
        );
    }
    if !world.pending_faults().is_empty() {
        let names: Vec<String> = world
            .pending_faults()
            .iter()
            .map(|f| f.to_string())
            .collect();
        println!("  faults never reached: {}", names.join(", "));
    }
    if world.phase() == &batchscope_engine::microbatch::Phase::Stopped {
        print_stopped(report);
    }
    print_why(report, world.events());
    println!("reproduce: {}", reproduce_command(scenario, origin));
}

/// Runs `batchscope run`; returns the exit code (0 completed, 1 `--expect` not met, 2 bad input).
pub fn run(args: &RunArgs) -> i32 {
    let expect = match args
        .expect
        .as_deref()
        .map(|v| Verdict::from_name(v).ok_or(v))
    {
        Some(Err(v)) => {
            let names: Vec<&str> = Verdict::ALL.iter().map(|v| v.name()).collect();
            eprintln!(
                "error: --expect: unknown verdict `{v}` (known: {})",
                names.join(", ")
            );
            return 2;
        }
        Some(Ok(v)) => Some(v),
        None => None,
    };
    let scenario = match load_scenario(
        args.preset.as_deref(),
        args.file.as_deref(),
        args.seed,
        args.batches,
        &args.crash,
        &args.fault,
    )
    .and_then(|s| with_spark_version(s, args.spark_version.as_deref()))
    {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let origin = Origin::of(args.preset.as_deref(), args.file.as_deref());
    let (mut report, world) = check_world(&scenario, args.trace);
    if let Some(dir) = &args.checkpoint_out {
        if let Err(e) = write_folder(&world.checkpoint, dir) {
            eprintln!("error: --checkpoint-out: {e}");
            return 2;
        }
    }
    if args.itf {
        let source = reproduce_command(&scenario, origin);
        println!(
            "{}",
            batchscope_check::itf::trace(&scenario, &report, &source)
        );
        return exit_code(expect, &report, &scenario, origin);
    }
    batchscope_check::why::explain(&scenario, &mut report);
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).expect("report serializes")
        );
    } else {
        println!(
            "batchscope run: {} · seed {} ({}) · batches {} · crashes [{}] · faults [{}]",
            scenario.name,
            scenario.seed,
            Prng::ALGORITHM,
            scenario.batches,
            report.crashes.join(", "),
            scenario
                .faults
                .iter()
                .map(|f| f.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        print_text(&report, &world, &scenario, origin);
    }
    exit_code(expect, &report, &scenario, origin)
}

/// 1 when `--expect` names another verdict than the report's, else 0.
fn exit_code(expect: Option<Verdict>, report: &Report, scenario: &Scenario, origin: Origin) -> i32 {
    match expect {
        Some(v) if v != report.verdict => {
            eprintln!(
                "expected {v}, got {} — reproduce: {}",
                report.verdict,
                reproduce_command(scenario, origin)
            );
            1
        }
        _ => 0,
    }
}

/// Lines of `batchscope presets`: the name first, then a one-line description.
pub fn preset_lines() -> Vec<String> {
    let width = presets().iter().map(|p| p.name.len()).max().unwrap_or(0);
    presets()
        .iter()
        .map(|p| format!("{:<width$}  {}", p.name, p.description))
        .collect()
}
