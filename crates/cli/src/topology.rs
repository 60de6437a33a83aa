//! `batchscope topology`: timestamp barriers across an ETL topology (FLIP-276) — parses the
//! arguments into a recorded run, has `batchscope_check::topology` judge it, and prints one
//! line per event (`barrier::trace::line`) or the JSON report of delays, snapshots and how
//! often the declared query saw mixed or rolled-back data at each consistency level.

use std::path::PathBuf;

use batchscope_engine::barrier::{
    self, trace, Consistency, Fault, ReadLevel, TopologyRun, TopologySpec,
};

pub use batchscope_check::topology::{DelayMs, MaxLast, SnapshotEntry, TopologyReport};
/// The text trace, now in the engine next to the micro-batch `trace::line`.
pub use batchscope_engine::barrier::trace::{line as event_line, LEGEND};

/// Consistency used for the report's counters.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ConsistencyArg {
    /// Every query at the minimum version over the tables all the queries depend on: queries
    /// asked at one moment agree.
    #[default]
    Strong,
    /// Every query at its own latest consistent version: fresher, queries may disagree.
    Weak,
}

impl From<ConsistencyArg> for Consistency {
    fn from(c: ConsistencyArg) -> Self {
        match c {
            ConsistencyArg::Strong => Consistency::Strong,
            ConsistencyArg::Weak => Consistency::Weak,
        }
    }
}

/// Run an ETL topology with FLIP-276 timestamp barriers (or without, for contrast).
///
/// After every step the topology's named queries (avgPrice for `shopping`) are evaluated at
/// read-uncommitted (ru), read-committed (rc) and repeatable-read (rr); the report counts
/// results that mix barriers, results that went back to an earlier version, and moments at
/// which two queries disagree, and prints each query's value history.
#[derive(clap::Args, Debug, Clone)]
pub struct TopologyArgs {
    /// Preset name (`shopping` when neither a preset nor a file is given)
    #[arg(long, conflicts_with = "file")]
    pub preset: Option<String>,
    /// Topology file (JSON, same format as the presets)
    pub file: Option<PathBuf>,
    /// Global barriers the MetaService issues
    #[arg(long, default_value_t = 5)]
    pub barriers: u64,
    /// Fail JOB after barrier BARRIER is PRECOMMIT (processed in all tables) and before its
    /// sink table has WRITTEN it; the job restarts from its last checkpoint and replays.
    /// (A job whose table other jobs read fails after PROCESSED: PRECOMMIT waits for its
    /// snapshot.) Repeatable.
    #[arg(long = "fail", value_name = "JOB@BARRIER")]
    pub fail: Vec<String>,
    /// Once TABLE has WRITTEN the last barrier, revise its BARRIER: with the corrected rows the
    /// topology ships for it (its `revisions`), or the same data if none; TABLE and everything
    /// downstream roll back to the checkpoint before BARRIER and recompute (needs barriers)
    #[arg(long = "revise", value_name = "TABLE@BARRIER")]
    pub revise: Option<String>,
    /// Timestamp barriers per checkpoint (FLIP-276: barriers 1, 2, 3 in checkpoint 1); a failed
    /// job restores its last complete checkpoint and replays the barriers after it. Default:
    /// the topology's setting (1)
    #[arg(long, value_name = "N")]
    pub barriers_per_checkpoint: Option<u64>,
    /// Snapshots a table keeps besides its newest before the MetaService expires older ones
    /// that no reader uses (default: the topology's setting, 2)
    #[arg(long, value_name = "N")]
    pub snapshot_retention: Option<u64>,
    /// No timestamp barriers: every job checkpoints on its own schedule
    #[arg(long)]
    pub no_barriers: bool,
    /// How long a failed job stays down before it restores its checkpoint, for every job
    /// (default: each job's `restart_ms`); against a Kafka table's transaction timeout
    #[arg(long, value_name = "MS")]
    pub restart_ms: Option<u64>,
    /// Every streaming reader without a snapshot guard records its progress under a Paimon
    /// `consumer-id`, so expiry keeps the snapshots it will still read
    #[arg(long)]
    pub consumer_id: bool,
    /// Print a JSON report instead of one line per event
    #[arg(long)]
    pub json: bool,
    /// PRNG seed for the generated CDC rows (default 1)
    #[arg(long)]
    pub seed: Option<u64>,
    /// Consistency among the topology's queries (FLIP-276): strong makes them agree, weak lets
    /// each read its own latest version; neither mixes transactions within one query at rc/rr
    #[arg(long, value_enum, default_value_t = ConsistencyArg::Strong)]
    pub consistency: ConsistencyArg,
}

/// The same values as the command line without flags (library callers and tests).
impl Default for TopologyArgs {
    fn default() -> Self {
        TopologyArgs {
            preset: None,
            file: None,
            barriers: 5,
            fail: Vec::new(),
            revise: None,
            barriers_per_checkpoint: None,
            snapshot_retention: None,
            no_barriers: false,
            restart_ms: None,
            consumer_id: false,
            json: false,
            seed: None,
            consistency: ConsistencyArg::Strong,
        }
    }
}

/// Built-in topologies: name and one-line description.
pub fn topology_presets() -> Vec<(&'static str, &'static str)> {
    barrier::presets()
}

fn split_at_sign(flag: &str, value: &str) -> Result<(String, u64), String> {
    let (name, n) = value
        .rsplit_once('@')
        .ok_or_else(|| format!("{flag} {value}: expected NAME@BARRIER"))?;
    let n = n
        .parse::<u64>()
        .map_err(|_| format!("{flag} {value}: `{n}` is not a barrier number"))?;
    Ok((name.to_string(), n))
}

fn load_spec(args: &TopologyArgs) -> Result<TopologySpec, String> {
    match (&args.preset, &args.file) {
        (Some(_), Some(_)) => Err("give either --preset or a file, not both".into()),
        (_, Some(path)) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
            TopologySpec::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
        }
        (name, None) => {
            let name = name.as_deref().unwrap_or("shopping");
            barrier::preset(name).ok_or_else(|| {
                let known: Vec<&str> = topology_presets().iter().map(|p| p.0).collect();
                format!(
                    "--preset: unknown preset `{name}` (known: {})",
                    known.join(", ")
                )
            })
        }
    }
}

/// Builds the recorded run the arguments describe.
pub fn topology_run(args: &TopologyArgs) -> Result<TopologyRun, String> {
    let mut spec = load_spec(args)?;
    if args.barriers == 0 {
        return Err("--barriers: must be at least 1".into());
    }
    spec.no_barriers |= args.no_barriers;
    if let Some(n) = args.barriers_per_checkpoint {
        if n == 0 || n > args.barriers {
            return Err(format!(
                "--barriers-per-checkpoint {n}: must be between 1 and --barriers {}",
                args.barriers
            ));
        }
        spec.barriers_per_checkpoint = n;
    }
    if let Some(n) = args.snapshot_retention {
        spec.snapshot_retention = n;
    }
    for j in &mut spec.jobs {
        if let Some(ms) = args.restart_ms {
            j.restart_ms = ms;
        }
        if args.consumer_id && j.snapshot_guard == barrier::SnapshotGuard::None {
            j.snapshot_guard = barrier::SnapshotGuard::ConsumerId;
        }
    }
    let mut faults = Vec::new();
    for f in &args.fail {
        let (job, barrier) = split_at_sign("--fail", f)?;
        if barrier == 0 || barrier > args.barriers {
            return Err(format!(
                "--fail {f}: barrier must be between 1 and --barriers {}",
                args.barriers
            ));
        }
        faults.push(Fault::FailBeforeWritten { job, barrier });
    }
    if let Some(r) = &args.revise {
        let (table, barrier) = split_at_sign("--revise", r)?;
        if barrier == 0 || barrier > args.barriers {
            return Err(format!(
                "--revise {r}: barrier must be between 1 and --barriers {}",
                args.barriers
            ));
        }
        faults.push(Fault::ReviseAfterWritten {
            table,
            barrier,
            written: args.barriers,
        });
    }
    Ok(TopologyRun {
        spec,
        seed: args.seed.unwrap_or(1),
        barriers: args.barriers,
        faults,
    })
}

/// Runs the topology to the end; the judge evaluates the declared query after every step.
pub fn report(args: &TopologyArgs) -> Result<TopologyReport, String> {
    let run = topology_run(args)?;
    batchscope_check::topology::report(run, args.consistency.into()).map_err(|e| e.to_string())
}

fn level_name(level: ReadLevel) -> &'static str {
    match level {
        ReadLevel::ReadUncommitted => "Read Uncommitted",
        ReadLevel::ReadCommitted => "Read Committed",
        ReadLevel::RepeatableRead => "Repeatable Read",
    }
}

/// The text summary after the trace: per level the counts, then each query's value history
/// (`avgPrice: 10 after #11 -> 25 (mixed) after #22 -> 8.333 after #24`, each value with the
/// trace's number of the event after which it appeared).
pub fn summary_lines(report: &TopologyReport) -> Vec<String> {
    let mut out = Vec::new();
    for level in ReadLevel::ALL {
        let t = &report.consistency[level.short()];
        out.push(format!(
            "{} ({}): {} queries, {} inconsistent, {} rolled back, {} disagreements",
            level_name(level),
            level.short(),
            t.queries,
            t.inconsistent,
            t.rolled_back,
            t.disagreements
        ));
        for (name, values) in &t.values {
            let story: Vec<String> = values
                .iter()
                .map(|p| {
                    let mixed = if p.consistent { "" } else { " (mixed)" };
                    format!("{}{mixed} after #{}", p.value, p.after_event)
                })
                .collect();
            let lag = t.freshness.get(name).map_or(0, |l| l.max);
            let unit = if report.no_barriers {
                "own checkpoints"
            } else {
                "barriers"
            };
            out.push(format!(
                "  {name} at {}: {}  [lags at most {lag} {unit}]",
                level_name(level),
                story.join(" -> ")
            ));
        }
    }
    out
}

/// One line per job failover: when it failed, the checkpoint restored and what it replayed.
pub fn failover_lines(report: &TopologyReport) -> Vec<String> {
    let mut out = Vec::new();
    for f in &report.failovers {
        let when = trace::fail_phase(f.phase, f.in_flight, &f.table);
        if report.no_barriers {
            out.push(format!(
                "failover: {} {when} — restored its own checkpoint {}, lost {:?}",
                f.job, f.restored_checkpoint, f.lost_barriers
            ));
        } else {
            out.push(format!(
                "failover: {} {when} — restored checkpoint {} (barriers up to {}), replayed barriers {:?}",
                f.job, f.restored_checkpoint, f.restored_barrier, f.replayed_barriers
            ));
        }
    }
    out
}

/// Kafka transactions (the rows lost to the broker's timeout) and each job's checkpoint
/// counts and latest restore, as Flink's web UI shows them.
pub fn sink_lines(report: &TopologyReport) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(k) = &report.kafka {
        let aborted: Vec<String> = k
            .transactions
            .iter()
            .filter(|t| t.state == barrier::TxnState::Aborted)
            .map(|t| format!("{} barrier {} ({} rows)", t.table, t.barrier, t.rows))
            .collect();
        out.push(format!(
            "kafka: {} rows committed, {} rows lost{}",
            k.committed_rows,
            k.lost_rows,
            if aborted.is_empty() {
                String::new()
            } else {
                format!(
                    " — transactions aborted by the broker: {}",
                    aborted.join(", ")
                )
            }
        ));
    }
    for (job, s) in &report.checkpoint_history {
        let c = s.counts;
        let restore = s.latest.restored.as_ref().map_or(String::new(), |r| {
            format!("; latest restore: checkpoint {} at {} ms", r.id, r.at_ms)
        });
        out.push(format!(
            "checkpoints {job}: triggered {}, in progress {}, completed {}, failed {}, restored {}{restore}",
            c.total, c.in_progress, c.completed, c.failed, c.restored
        ));
    }
    out
}

/// Runs `batchscope topology`: 0 when the run completed, 2 on bad input (one line on stderr).
pub fn run(args: &TopologyArgs) -> i32 {
    let report = match report(args) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("batchscope topology: {e}");
            return 2;
        }
    };
    if args.json {
        match serde_json::to_string_pretty(&report) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("batchscope topology: cannot print the report: {e}");
                return 2;
            }
        }
        return 0;
    }
    println!(
        "topology {} seed {} barriers {} {} consistency {:?}",
        report.topology,
        report.seed,
        report.barriers,
        if report.no_barriers {
            "no-barriers"
        } else {
            "barriers"
        },
        report.consistency_mode
    );
    println!("{}", trace::LEGEND);
    for e in &report.trace {
        println!("{}", trace::line_for(e, report.no_barriers));
    }
    for line in summary_lines(&report) {
        println!("{line}");
    }
    let unit = if report.no_barriers {
        "own checkpoint"
    } else {
        "barrier"
    };
    for line in failover_lines(&report) {
        println!("{line}");
    }
    for line in revision_lines(&report)
        .into_iter()
        .chain(sink_lines(&report))
    {
        println!("{line}");
    }
    for line in lineage_lines(&report) {
        println!("{line}");
    }
    if report.held_snapshots.values().any(|l| !l.is_empty()) {
        println!(
            "snapshots held past the retention during the run (a history, not the final state: one \
             may have expired later; readers at Strong and at Weak both count):"
        );
    }
    for (t, list) in &report.held_snapshots {
        for h in list {
            println!(
                "snapshot held: {t} snapshot-{} ({unit} {}) by {}",
                h.snapshot_id,
                h.barrier,
                h.held_by.join(", ")
            );
        }
    }
    for (t, list) in &report.expired_snapshots {
        let ids: Vec<String> = list
            .iter()
            .map(|s| format!("snapshot-{}", s.snapshot_id))
            .collect();
        println!("snapshots expired: {t} {}", ids.join(", "));
    }
    for line in delay_lines(&report) {
        println!("{line}");
    }
    0
}

/// One line per revision: what it corrected (each corrected row and the row it replaced) or
/// that it replayed the same data, and the tables rolled back.
pub fn revision_lines(report: &TopologyReport) -> Vec<String> {
    let mut out = Vec::new();
    for r in &report.revisions {
        let what = match r.kept_rows {
            Some(kept) if r.corrected_rows > 0 => format!(
                "corrected {}; {} kept",
                trace::corrections(&r.replaced),
                trace::other_rows(kept)
            ),
            _ => "the same data replayed".to_string(),
        };
        out.push(format!(
            "revision: {} barrier {} ({what}): {} rolled back to barrier {} and recomputed",
            r.table,
            r.barrier,
            r.tables.join(", "),
            r.rolled_back_to
        ));
    }
    out
}

/// The MetaService's lineage: what each job reads and writes, then FLIP-276's lineage query
/// over its system tables, run for every table some job reads (the tables written by the jobs
/// reading it).
pub fn lineage_lines(report: &TopologyReport) -> Vec<String> {
    let mut out: Vec<String> = report
        .lineage
        .jobs
        .iter()
        .map(|j| {
            format!(
                "lineage: {} reads {} and writes {}",
                j.name,
                j.sources.join(", "),
                j.sink
            )
        })
        .collect();
    let mut read: Vec<&str> = report
        .lineage
        .job_source
        .iter()
        .map(|r| r.table_name.as_str())
        .collect();
    read.sort_unstable();
    read.dedup();
    if !read.is_empty() {
        out.push(
            "lineage query (FLIP-276): SELECT T.table_name FROM __META_JOB_SOURCE S JOIN \
             __META_JOB_SINK T ON S.job_id = T.job_id WHERE S.table_name = ?"
                .to_string(),
        );
    }
    for t in read {
        out.push(format!(
            "  {t} -> {}",
            report.lineage.sinks_of_readers(t).join(", ")
        ));
    }
    if report.related_groups.len() > 1 {
        let groups: Vec<String> = report
            .related_groups
            .iter()
            .map(|g| format!("{{{}}}", g.join(", ")))
            .collect();
        out.push(format!(
            "related tables (each group read at its own minimum version under Strong): {}",
            groups.join(" ")
        ));
    }
    out
}

/// The delay summary: the definitions (batchscope's: FLIP-276 asks how to define the delay
/// and which job to optimise, it does not say), then per table its delay and the job to
/// optimise on its path, the worst table marked.
pub fn delay_lines(report: &TopologyReport) -> Vec<String> {
    let mut out = vec![
        "end-to-end delay, batchscope's definitions (FLIP-276 asks how to define it, it does not): \
         a table's = its snapshot's time - CDC time of the newest record it covers; a job's = \
         its snapshot's time - all its inputs of that barrier available; the job to optimise for \
         a table = the job on its path from CDC with the largest mean job delay"
            .to_string(),
    ];
    let table_mean = |t: &str| report.delay_ms.tables.get(t).map_or(0, |d| d.mean);
    // The first table with the largest mean delay: the one `job_to_optimise` answers for.
    let worst = report
        .jobs_to_optimise
        .iter()
        .rev()
        .max_by_key(|t| table_mean(&t.table))
        .map(|t| t.table.clone());
    for t in &report.jobs_to_optimise {
        let d = &report.delay_ms.tables[&t.table];
        let mark = if worst.as_deref() == Some(t.table.as_str()) {
            " (the largest)"
        } else {
            ""
        };
        out.push(format!(
            "delay {}: mean {} ms, max {} ms{mark}; job to optimise: {} (mean job delay {} ms; path {})",
            t.table,
            d.mean,
            d.max,
            t.job,
            t.mean_ms,
            t.path.join(" -> ")
        ));
    }
    out
}
