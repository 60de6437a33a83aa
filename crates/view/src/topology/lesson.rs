//! The lesson and the guided tour of each topology preset, and the engine's simplifications.

use crate::tour_runner::resolve_in_order;
use batchscope_engine::barrier::{self, BarrierEvent, BarrierEventKind};

/// A topology preset's lesson: the seed's questions, answered with what is on screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopoLesson {
    /// Heading.
    pub title: &'static str,
    /// The seed question it answers.
    pub question: &'static str,
    /// Short paragraphs: what to watch and why.
    pub paragraphs: Vec<&'static str>,
    /// A link (hash) that shows the point of the lesson, and what it shows.
    pub try_hash: &'static str,
    /// What that link shows.
    pub try_text: &'static str,
}

/// The lesson of a topology preset (an unknown name gets the general one).
pub fn topology_lesson(name: &str) -> TopoLesson {
    match name {
        "chain" => TopoLesson {
            title: "Table1 → Table2 → Table3: alignment across jobs",
            question: "Seed 003: how do barriers flow across ETL jobs, how is E2E delay from CDC to Table3 defined, and which job to optimise?",
            paragraphs: vec![
                "The MetaService issues a global timestamp barrier every second; it travels through the tables: a job reads barrier N of an upstream table only once that table WROTE a snapshot of N.",
                "join_job reads table1 and table2 (= sum of table1). Watch its input edges: when barrier N of table1 arrives first, the join buffers it (\"aligns\") until barrier N of table2 arrives, so it never joins two different versions of the data.",
                "The query reads table2 and table3 together (amountShare). With Strong consistency every table is read at the minimum barrier over them and the tables they are computed from, so the share is always a true fraction.",
                "End-to-end delay of a table = when its snapshot of barrier N was written − CDC time of the newest record N covers. A job's delay = its snapshot time − the time all its inputs of N were available. The chart names the job with the largest mean delay: optimise it first, since every downstream table inherits its delay.",
                "Revise: pick table1 and a WRITTEN barrier — table1 and everything downstream roll back to it and replay the same CDC range, nothing lost or repeated.",
            ],
            try_hash: "#mode=topology&topology=chain&seed=1&fail=sum_job@2&level=rc&consistency=strong&at=0",
            try_text: "sum_job fails at barrier 2: watch join_job wait and table3 stay consistent",
        },
        _ => TopoLesson {
            title: "avgPrice across two tables: timestamp barriers",
            question: "Seed 003: how do timestamp barriers make a query across tables consistent, and what does each consistency level return?",
            paragraphs: vec![
                "CDC → ingest_shopping → shopping → amount_job / price_job → user_item_amount / user_item_price. avgPrice = totalPrice / totalAmount joins the two tables: it is only right if both reflect the same CDC records.",
                "Each barrier is one transaction: PROCESSED in a table when its records are written, WRITTEN when a snapshot holds it; PRECOMMIT once PROCESSED in all tables, COMMIT once WRITTEN in all.",
                "Read Uncommitted reads the latest data: price_job is faster, so user_item_price already holds 2500 while user_item_amount still holds 100 — avgPrice 25, a result that mixes barriers.",
                "Read Committed reads PRECOMMIT barriers: 10, then 8.333 once barrier 2 is PROCESSED everywhere. If a job fails after PRECOMMIT but before WRITTEN, its table loses barrier 2 and the answer rolls back to 10.",
                "Repeatable Read reads WRITTEN snapshots only: 10 until the snapshots of barrier 2 exist, then 8.333 for ever — snapshots are never rolled back. Strong reads every table at the same (minimum) barrier; Weak reads each at its latest, fresher but may mix barriers until COMMIT.",
                "Delay: per table, snapshot time − CDC time of the newest record it covers; per job, snapshot time − when its inputs were ready. The chart names the job to optimise. Revise a table: it and everything downstream roll back to a WRITTEN barrier and replay the same CDC data.",
            ],
            try_hash: "#mode=topology&topology=shopping&seed=1&fail=price_job@2&level=rc&consistency=strong&at=0",
            try_text: "price_job fails after barrier 2 is PRECOMMIT: Read Committed goes 10 → 8.333 → 10",
        },
    }
}

/// Where a topology tour stop pauses: the first step after the previous stop that matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopoMoment {
    /// The MetaService issues barrier N.
    Issued(u64),
    /// A join buffers one input until the other's barrier arrives (alignment).
    Aligning,
    /// The first table to PROCESS barrier N after its root table (a job's output).
    JobProcessed(u64),
    /// Barrier N is PRECOMMIT (PROCESSED in every table).
    Precommit(u64),
    /// Barrier N is COMMIT (WRITTEN in every table).
    Commit(u64),
    /// A job fails.
    JobFailed,
    /// A job restarts from its checkpoint.
    JobRecovered,
    /// The end of the run.
    End,
}

impl TopoMoment {
    /// Whether this step is the moment (never true for [`TopoMoment::End`]).
    pub fn matches(&self, event: &BarrierEvent) -> bool {
        use BarrierEventKind as K;
        match (*self, &event.kind) {
            (TopoMoment::Issued(n), K::BarrierIssued { barrier, .. }) => *barrier == n,
            (TopoMoment::Aligning, K::SourceEmit { waiting_for, .. }) => !waiting_for.is_empty(),
            (TopoMoment::JobProcessed(n), K::Processed { barrier, job, .. }) => {
                *barrier == n && !job.starts_with("ingest")
            }
            (TopoMoment::Precommit(n), K::Precommit { barrier }) => *barrier == n,
            (TopoMoment::Commit(n), K::Commit { barrier }) => *barrier == n,
            (TopoMoment::JobFailed, K::JobFailed { .. }) => true,
            (TopoMoment::JobRecovered, K::JobRecovered { .. }) => true,
            _ => false,
        }
    }
}

/// One pause of a topology tour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopoStop {
    /// Where playback pauses.
    pub at: TopoMoment,
    /// A few words.
    pub title: &'static str,
    /// What to look at, and why.
    pub text: &'static str,
}

/// A topology preset's guided tour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopoTour {
    /// The link the tour starts from (the lesson's `try_hash`: its fault, level, consistency).
    pub hash: &'static str,
    /// The pauses, in the order they happen.
    pub stops: Vec<TopoStop>,
}

/// For each stop, the cursor (steps shown) where playback pauses; `None` if never reached.
pub fn topo_stop_cursors(stops: &[TopoStop], trace: &[BarrierEvent]) -> Vec<Option<usize>> {
    resolve_in_order(
        stops.len(),
        trace,
        |i| stops[i].at == TopoMoment::End,
        |i, e| stops[i].at.matches(e),
    )
}

const fn topo_stop(at: TopoMoment, title: &'static str, text: &'static str) -> TopoStop {
    TopoStop { at, title, text }
}

/// The tour of a topology preset (an unknown name gets the shopping one).
pub fn topology_tour(name: &str) -> TopoTour {
    use TopoMoment::*;
    let hash = topology_lesson(name).try_hash;
    let stops = match name {
        "chain" => vec![
            topo_stop(Issued(1), "A global barrier",
                "The MetaService issues barrier 1: CDC offsets up to here belong to transaction 1. It travels through table1, table2 and table3 in turn."),
            topo_stop(Aligning, "The join aligns",
                "join_job got barrier 1 of table1 first. It buffers that input until barrier 1 of table2 arrives, so it never joins two versions of the data."),
            topo_stop(Precommit(1), "PRECOMMIT",
                "Barrier 1 is PROCESSED in every table: Read Committed can read it now."),
            topo_stop(Commit(1), "COMMIT",
                "Every table has a snapshot of barrier 1 (WRITTEN): Repeatable Read reads it, and it is never rolled back."),
            topo_stop(JobFailed, "sum_job fails",
                "table2 loses barrier 2, which it had PROCESSED but not WRITTEN. join_job keeps waiting for table2's barrier 2: table3 never mixes versions."),
            topo_stop(JobRecovered, "Restart from the checkpoint",
                "sum_job restarts from its snapshot of barrier 1 and replays barrier 2 from table1 — the same records."),
            topo_stop(Commit(2), "Barrier 2 commits",
                "Late, but complete: the failure cost delay, not consistency."),
            topo_stop(End, "Where the delay goes",
                "The chart gives each table's end-to-end delay and names the job with the largest mean delay: optimise it first."),
        ],
        _ => vec![
            topo_stop(Issued(1), "A global barrier",
                "The MetaService issues barrier 1: the first CDC offsets form transaction 1. Every table will hold it in the same state."),
            topo_stop(JobProcessed(1), "PROCESSED, not yet everywhere",
                "price_job is faster: user_item_price has barrier 1 while user_item_amount does not. Read Uncommitted would already mix them."),
            topo_stop(Precommit(1), "PRECOMMIT",
                "Barrier 1 is PROCESSED in all tables: Read Committed reads it (avgPrice 10)."),
            topo_stop(Commit(1), "COMMIT",
                "Snapshots of barrier 1 exist in all tables (WRITTEN): Repeatable Read reads them."),
            topo_stop(Precommit(2), "Barrier 2 PRECOMMIT",
                "Read Committed moves to barrier 2: avgPrice 8.333. price_job has not written its snapshot yet."),
            topo_stop(JobFailed, "price_job fails",
                "user_item_price loses barrier 2 (PROCESSED, not WRITTEN): Read Committed rolls back to 10. Repeatable Read never saw barrier 2 — snapshots are never rolled back."),
            topo_stop(JobRecovered, "Replay from the checkpoint",
                "price_job restarts from barrier 1 and replays barrier 2 from the same shopping snapshot."),
            topo_stop(Commit(2), "Barrier 2 commits",
                "All tables hold barrier 2: every level reads 8.333 now."),
            topo_stop(End, "Where the delay goes",
                "The chart gives each table's end-to-end delay and names the job to optimise."),
        ],
    };
    TopoTour { hash, stops }
}

/// The engine's list of simplifications, one item a line.
pub fn simplifications() -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for line in barrier::SIMPLIFICATIONS.lines() {
        if let Some(item) = line.strip_prefix("- ") {
            out.push(item.to_string());
        } else if let Some(last) = out.last_mut() {
            last.push(' ');
            last.push_str(line.trim());
        } else {
            out.push(line.trim().to_string());
        }
    }
    out
}
