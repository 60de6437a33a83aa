//! `batchscope topology`: timestamp barriers across an ETL topology (FLIP-276) — runs a preset
//! or a topology file, prints one line per event or a JSON report of delays, snapshots and how
//! often the declared query saw mixed or rolled-back data at each consistency level.

use std::collections::BTreeMap;
use std::path::PathBuf;

use batchscope_engine::barrier::{
    self, BarrierEvent, BarrierEventKind, Consistency, ConsistencyTally, Fault, QueryResult,
    ReadLevel, TopologyRun, TopologySpec, TopologyWorld,
};
use serde::Serialize;

/// Consistency used for the report's counters.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ConsistencyArg {
    /// Every table at the minimum barrier over the queried tables and their upstream tables.
    #[default]
    Strong,
    /// Every table at its own latest barrier at the level (fresher; may mix barriers).
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
/// After every step the topology's declared query (avgPrice for `shopping`) is evaluated at
/// read-uncommitted (ru), read-committed (rc) and repeatable-read (rr); the report counts
/// results that mix barriers and results that went back to an earlier version.
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
    /// Once TABLE has WRITTEN the last barrier, roll TABLE and everything downstream back to
    /// BARRIER and replay from there (needs barriers)
    #[arg(long = "revise", value_name = "TABLE@BARRIER")]
    pub revise: Option<String>,
    /// No timestamp barriers: every job checkpoints on its own schedule
    #[arg(long)]
    pub no_barriers: bool,
    /// Print a JSON report instead of one line per event
    #[arg(long)]
    pub json: bool,
    /// PRNG seed for the generated CDC rows (default 1)
    #[arg(long)]
    pub seed: Option<u64>,
    /// Consistency of the counted queries; strong makes rc/rr consistent with barriers,
    /// weak lets rr mix barriers until they are COMMIT
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
            no_barriers: false,
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

/// Largest and latest value of a delay series.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MaxLast {
    /// Largest.
    pub max: u64,
    /// Latest.
    pub last: u64,
}

/// End-to-end delay per job and per table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DelayMs {
    /// Per job: snapshot of barrier N written minus all its inputs of N available.
    pub jobs: BTreeMap<String, MaxLast>,
    /// Per table: snapshot time minus CDC time of the newest record it covers.
    pub tables: BTreeMap<String, MaxLast>,
}

/// One snapshot in the report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SnapshotEntry {
    /// Snapshot id.
    pub id: u64,
    /// Barrier held (own checkpoint without barriers).
    pub barrier: u64,
    /// `COMMIT` (written in all tables) or `WRITTEN`.
    pub state: String,
}

/// What `topology --json` prints.
#[derive(Clone, Debug, Serialize)]
pub struct TopologyReport {
    /// Topology name.
    pub topology: String,
    /// Seed used.
    pub seed: u64,
    /// Barriers issued.
    pub barriers: u64,
    /// Run without barriers.
    pub no_barriers: bool,
    /// Consistency of the counted queries: `strong` or `weak`.
    pub consistency_mode: Consistency,
    /// Faults injected.
    pub faults: Vec<Fault>,
    /// Events emitted.
    pub events: u64,
    /// End-to-end delay.
    pub delay_ms: DelayMs,
    /// The job contributing most delay.
    pub job_to_optimise: Option<String>,
    /// Snapshots per table.
    pub snapshots: BTreeMap<String, Vec<SnapshotEntry>>,
    /// Per level `ru`, `rc`, `rr`: queries, inconsistent, rolled_back.
    pub consistency: BTreeMap<String, ConsistencyTally>,
    /// The declared query at repeatable read once the run drained.
    pub final_query: QueryResult,
    /// Every event (printed in text mode; not in the JSON).
    #[serde(skip)]
    pub trace: Vec<BarrierEvent>,
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
        if barrier >= args.barriers {
            return Err(format!(
                "--revise {r}: barrier must be below --barriers {} so that something is rolled back",
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

/// Runs the topology to the end, evaluating the declared query after every step.
pub fn report(args: &TopologyArgs) -> Result<TopologyReport, String> {
    let run = topology_run(args)?;
    let consistency: Consistency = args.consistency.into();
    let mut world = TopologyWorld::from_run(run.clone()).map_err(|e| e.to_string())?;
    let mut tallies: Vec<ConsistencyTally> = vec![ConsistencyTally::default(); 3];
    while world.step().is_some() {
        for (t, level) in tallies.iter_mut().zip(ReadLevel::ALL) {
            t.observe(&world.query(&world.declared_query(level, consistency)));
        }
    }
    let delays = world.delays();
    let max_last = |s: &[barrier::DelaySeries]| {
        s.iter()
            .map(|d| {
                (
                    d.name.clone(),
                    MaxLast {
                        max: d.max_ms(),
                        last: d.last_ms(),
                    },
                )
            })
            .collect()
    };
    let committed = if run.spec.no_barriers {
        0
    } else {
        world.meta().committed
    };
    let snapshots = world
        .tables()
        .iter()
        .map(|t| {
            let list = t
                .snapshots
                .iter()
                .map(|s| SnapshotEntry {
                    id: s.snapshot.id,
                    barrier: s.barrier,
                    state: if s.barrier <= committed {
                        "COMMIT"
                    } else {
                        "WRITTEN"
                    }
                    .into(),
                })
                .collect();
            (t.name.clone(), list)
        })
        .collect();
    Ok(TopologyReport {
        topology: run.spec.name.clone(),
        seed: run.seed,
        barriers: run.barriers,
        no_barriers: run.spec.no_barriers,
        consistency_mode: consistency,
        faults: run.faults.clone(),
        events: world.steps(),
        delay_ms: DelayMs {
            jobs: max_last(&delays.jobs),
            tables: max_last(&delays.tables),
        },
        job_to_optimise: delays.job_to_optimise,
        snapshots,
        consistency: ReadLevel::ALL
            .iter()
            .map(|l| l.short().to_string())
            .zip(tallies)
            .collect(),
        final_query: world.query(&world.declared_query(ReadLevel::RepeatableRead, consistency)),
        trace: world.trace().to_vec(),
    })
}

/// Legend printed before the events in text mode.
pub const LEGEND: &str = "\
legend: CDC record arrives (and is streamed to root tables) | ISSUE MetaService issues a barrier |
        EMIT source emits a barrier's records then the barrier (waiting = join buffers it) |
        CKPT own checkpoint (no barriers) | PROCESSED sink aligned and wrote the barrier |
        HELD fault holds a snapshot | WRITTEN snapshot created | PRECOMMIT processed in all tables |
        COMMIT written in all tables | FAIL / RECOVER job failover | REVISE roll back downstream";

/// One line for an event.
pub fn event_line(e: &BarrierEvent) -> String {
    let what = match &e.kind {
        BarrierEventKind::CdcRecord { record, written } => {
            let to: Vec<String> = written
                .iter()
                .map(|w| format!("{}@{}", w.table, w.barrier))
                .collect();
            format!(
                "CDC       offset {} row {:?} -> {}",
                record.offset,
                record.row,
                if to.is_empty() { "-".to_string() } else { to.join(", ") }
            )
        }
        BarrierEventKind::BarrierIssued {
            barrier,
            cdc_offset_start,
            cdc_offset_end,
        } => format!("ISSUE     barrier {barrier} = cdc offsets [{cdc_offset_start}, {cdc_offset_end})"),
        BarrierEventKind::SourceEmit {
            job,
            input,
            barrier,
            records,
            waiting_for,
        } => {
            let wait = if waiting_for.is_empty() {
                String::new()
            } else {
                format!(" (waiting for {})", waiting_for.join(", "))
            };
            let what = if *records == 0 && input == barrier::CDC_SOURCE {
                // A stateless job streamed the records as they arrived; only the barrier is new.
                "the barrier (records already streamed)".to_string()
            } else {
                format!("{records} records")
            };
            format!("EMIT      {job} <- {input} barrier {barrier}: {what}{wait}")
        }
        BarrierEventKind::CheckpointTriggered {
            job,
            checkpoint,
            records,
        } => format!("CKPT      {job} checkpoint {checkpoint}: {records} records"),
        BarrierEventKind::Processed {
            job,
            table,
            barrier,
            records,
        } => format!("PROCESSED {table} barrier {barrier} by {job}: {records} records"),
        BarrierEventKind::SnapshotHeld { job, barrier } => {
            format!("HELD      {job} snapshot of barrier {barrier} until PRECOMMIT")
        }
        BarrierEventKind::SnapshotWritten {
            table,
            barrier,
            snapshot_id,
            total_record_count,
            ..
        } => format!(
            "WRITTEN   {table} snapshot-{snapshot_id} barrier {barrier} ({total_record_count} rows)"
        ),
        BarrierEventKind::Precommit { barrier } => format!("PRECOMMIT barrier {barrier}"),
        BarrierEventKind::Commit { barrier } => format!("COMMIT    barrier {barrier}"),
        BarrierEventKind::JobFailed {
            job,
            table,
            restored_barrier,
            lost_barriers,
        } => format!(
            "FAIL      {job}: {table} loses barriers {lost_barriers:?}, restart from checkpoint {restored_barrier}"
        ),
        BarrierEventKind::JobRecovered {
            job,
            from_barrier,
            replay,
        } => {
            let r: Vec<String> = replay
                .iter()
                .map(|r| format!("{}=[{}, {})", r.barrier, r.cdc_offset_start, r.cdc_offset_end))
                .collect();
            format!(
                "RECOVER   {job} from barrier {from_barrier}{}",
                if r.is_empty() { String::new() } else { format!(", replays cdc {}", r.join(" ")) }
            )
        }
        BarrierEventKind::Revised {
            table,
            barrier,
            tables,
            jobs,
        } => format!(
            "REVISE    {table} back to barrier {barrier}: tables {} restart jobs {}",
            tables.join(", "),
            jobs.join(", ")
        ),
    };
    format!("{:>6} ms #{:<4} {what}", e.at_ms, e.step)
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
    println!("{LEGEND}");
    for e in &report.trace {
        println!("{}", event_line(e));
    }
    for level in ReadLevel::ALL.map(ReadLevel::short) {
        let t = &report.consistency[level];
        println!(
            "{level}: {} queries, {} inconsistent, {} rolled back",
            t.queries, t.inconsistent, t.rolled_back
        );
    }
    if let Some(j) = &report.job_to_optimise {
        let d = &report.delay_ms.jobs[j];
        println!(
            "job to optimise: {j} (delay max {} ms, last {} ms)",
            d.max, d.last
        );
    }
    0
}
