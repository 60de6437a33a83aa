//! The lesson and the guided tour of each topology preset, and the engine's simplifications.

use crate::tour_runner::resolve_in_order;
use batchscope_engine::barrier::{self, BarrierEvent, BarrierEventKind};

/// A topology preset's lesson: FLIP-276's questions, answered with what is on screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopoLesson {
    /// Heading.
    pub title: &'static str,
    /// The FLIP-276 question it answers.
    pub question: &'static str,
    /// Short paragraphs: what to watch and why.
    pub paragraphs: Vec<&'static str>,
    /// A link (hash) that shows the point of the lesson, and what it shows.
    pub try_hash: &'static str,
    /// What that link shows.
    pub try_text: &'static str,
}

/// What the lesson index lists of a topology lesson: its question and link (its title is apart,
/// [`topology_title`]: the index does not show it, so the page that lists the lessons does not
/// carry the titles).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TopoHeading {
    /// The question it answers, naming its public source.
    pub question: &'static str,
    /// A link (hash) that shows the point of the lesson.
    pub try_hash: &'static str,
}

/// The heading of a topology preset's lesson (an unknown name gets the general one).
pub fn topology_title(name: &str) -> &'static str {
    match name {
        "chain" => "table1 → table2 → table3: alignment across jobs (this project's own chain)",
        "three-queries" => "Query1, Query2, Query3: Strong vs Weak consistency",
        "kafka-2pc-timeout" => "A Kafka sink down longer than its transaction timeout",
        "paimon-expired-snapshot" => "A Paimon reader restored onto an expired snapshot",
        "group-offset-lag" => "The checkpoint and the consumer group",
        "notify-twice" => "A checkpoint notified twice",
        _ => "avgPrice across two tables: timestamp barriers",
    }
}

/// The question and link of a topology preset's lesson (an unknown name gets the general
/// one): apart from the lesson's paragraphs, so the page that lists the lessons does not carry
/// them.
pub fn topology_heading(name: &str) -> TopoHeading {
    match name {
        "chain" => TopoHeading {
            question: "FLIP-276 (Flink wiki): how do barriers flow across ETL jobs, how is E2E delay defined, which job to optimise, and how is a table revised?",
            try_hash: "#mode=topology&topology=chain&seed=1&fail=sum_job@2&level=rc&consistency=strong&at=0",
        },
        "three-queries" => TopoHeading {
            question: "FLIP-276 (Flink wiki, \"Data Consistency Type\"): what do several queries asked at the same moment see?",
            try_hash: "#mode=topology&topology=three-queries&seed=1&fail=amount_job@2&level=rc&consistency=weak&at=0",
        },
        "kafka-2pc-timeout" => TopoHeading {
            question: "Flink's KafkaSink, exactly-once: a job down longer than transaction.timeout.ms?",
            try_hash: "#mode=topology&topology=kafka-2pc-timeout&seed=1&level=rc&consistency=strong&at=0",
        },
        "paimon-expired-snapshot" => TopoHeading {
            question: "Paimon (apache/paimon #9533): why is a restored reader stuck, and does consumer-id help?",
            try_hash: "#mode=topology&topology=paimon-expired-snapshot&seed=1&level=rc&consistency=strong&at=0",
        },
        "group-offset-lag" => TopoHeading {
            question: "Flink's KafkaSource (FLINK-33484): is the group's lag real, and which offset does a restart use?",
            try_hash: "#mode=topology&topology=group-offset-lag&seed=1&level=rc&consistency=strong&at=0",
        },
        "notify-twice" => TopoHeading {
            question: "Flink's CheckpointListener: what if a restored checkpoint is notified again?",
            try_hash: "#mode=topology&topology=notify-twice&seed=1&level=rc&consistency=strong&at=0",
        },
        _ => TopoHeading {
            question: "FLIP-276 (Flink wiki): how do timestamp barriers make a query across tables consistent, and what does each consistency level return?",
            try_hash: "#mode=topology&topology=shopping&seed=1&fail=price_job@2&level=rc&consistency=strong&at=0",
        },
    }
}

/// The lesson of a topology preset (an unknown name gets the general one).
pub fn topology_lesson(name: &str) -> TopoLesson {
    let title = topology_title(name);
    let TopoHeading { question, try_hash } = topology_heading(name);
    let (paragraphs, try_text) = match super::failure_lessons::paragraphs(name) {
        Some(p) => p,
        None => match name {
        "chain" => (
            vec![
            "This chain is batchscope's own shape, not a figure of the FLIP. The MetaService issues a global timestamp barrier every second; it travels through the tables: a job reads barrier N of an upstream table only once that table WROTE a snapshot of N.",
            "join_job reads table1 and table2 (= sum of table1). Watch its input edges: when barrier N of table1 arrives first, the join buffers it (\"aligns\") until barrier N of table2 arrives, so it never joins two different versions of the data.",
            "The query reads table2 and table3 together (amountShare). Read Committed reads a barrier once it is PROCESSED, and Repeatable Read once it is WRITTEN, in every table this query depends on (table2, table3 and table1 they are computed from), so the share is always a true fraction — with Strong or Weak consistency alike.",
            "End-to-end delay, as batchscope defines it (FLIP-276 asks how to define it and which ETL job to optimise, and leaves the answer open): a table's delay = when its snapshot of barrier N was written − CDC time of the newest record N covers; a job's delay = its snapshot time − the time all its inputs of N were available. The job to optimise for a table is, of the jobs on its path from CDC, the one with the largest mean job delay: the chart names it for the table with the largest delay, and `batchscope topology` lists it for every table.",
            "Revise: the preset ships a corrected row for table1's barrier 1; it replaces the row of the barrier with the same userId and itemId, and the barrier's other rows are kept. table1 and everything downstream roll back to the checkpoint before that barrier and recompute with the corrected row: the final answer changes. Read Committed and Repeatable Read both see the roll-back — a revision is the one thing that moves Repeatable Read back (FLIP-276: \"roll back to a specified checkpoint in all downstream cascaded ETL jobs and tables\").",
            ],
            "sum_job fails at barrier 2: watch join_job wait and table3 stay consistent",
        ),
        "three-queries" => (
            vec![
            "The FLIP's example: Query1 = SELECT * FROM table1, Query2 = table1 JOIN table2, Query3 = table1 JOIN table2 JOIN table3. The panel asks all three at the same moment. Here table1 and table2 (amounts summed per user from table1) come from the CDC source cdc; table3 (prices summed per user) comes from a second CDC source, cdc3, through the slower price_job.",
            "Strong, in the FLIP's words: \"It will guarantee strong data consistency among queries above. Query gets the minimum version of all the related tables according to the source tables and the dependencies between them, which ensure data consistency between related tables. For the examples above, Query1, Query2 and Query3 will get Min(table1 version, table2 version) for table1 and table2, Min(table3 version) for table3.\"",
            "Our reading (the FLIP defines \"related\" only through that example): tables computed from a common CDC source are related, and a table the queries depend on that is computed from two sources (say, a join of table2 and table3) relates both; each group of related tables is read at its own minimum version. The example holds only if table3 shares no source with table1 and table2, which is why this preset feeds table3 from its own source. So Query1 and Query2 read table1 and table2 at Min(table1 version, table2 version) and never wait for the slow table3; Query3 reads table3 at Min(table3 version), and its join is consistent because no record of cdc3 is in table1 or table2. With a single CDC source every table is related and Strong becomes one minimum over all of them.",
            "Weak: \"It doesn't guarantee the data consistency among queries above, but only the data consistency of a single query\". Each query reads its own latest consistent version: Query1 needs only table1, so it moves on while Query2 still waits for amount_job — fresher, but at that moment Query1 and Query2 read different versions of table1 (a disagreement).",
            "Neither choice lets one query mix transactions: at Read Committed a query reads a barrier only once it is PROCESSED in every related table this query depends on (in our reading, those fed by a common CDC source: table3, fed by cdc3, stands apart), at Repeatable Read once it is WRITTEN in every one (under Strong, the tables of the queries it must agree with count too). PRECOMMIT and COMMIT are those moments for all the tables at once, so under Weak Query1 (table1 only) reads a barrier before it is PRECOMMIT. Read Uncommitted reads whatever is written, so it can mix within a query but the queries see the same latest data.",
            "When amount_job fails after barrier 2 is PRECOMMIT, table2 loses barrier 2: at Read Committed Query2 and Query3 roll back. Under Weak, Query1 (table1 only) keeps barrier 2; under Strong it rolls back with the others, so the three still agree.",
            ],
            "Weak at Read Committed: Query1 runs ahead of Query2 and Query3 on table1; amount_job fails at barrier 2",
        ),
        _ => (
            vec![
            "CDC → ingest_shopping → shopping → amount_job / price_job → user_item_amount / user_item_price. avgPrice = totalPrice / totalAmount joins the two tables: it is only right if both reflect the same CDC records.",
            "Each barrier is one transaction: PROCESSED in a table when its records are written, WRITTEN when a snapshot holds it; PRECOMMIT once PROCESSED in all tables, COMMIT once WRITTEN in all.",
            "Read Uncommitted reads the latest data: price_job is faster, so user_item_price already holds 2500 while user_item_amount still holds 100 — avgPrice 25, a result that mixes barriers.",
            "Read Committed reads a barrier once it is PROCESSED in every table this query depends on — here all three, so just as the barrier becomes PRECOMMIT: 10, then 8.333 once barrier 2 is PROCESSED everywhere. If a job fails after PRECOMMIT but before WRITTEN, its table loses barrier 2 and the answer rolls back to 10.",
            "Repeatable Read reads a barrier once it is WRITTEN in every table this query depends on — here all three, so just as it becomes COMMIT: 10 until the snapshots of barrier 2 exist everywhere, then 8.333 — a job failure never takes a snapshot away; only a revision rolls it back. Strong vs Weak is about several queries asked together (see the three-queries preset); with one query they read the same.",
            "Delay, as batchscope defines it (the FLIP asks how to define it, it does not): per table, snapshot time − CDC time of the newest record it covers; per job, snapshot time − when its inputs were ready. The job to optimise for a table is the job on its path from CDC with the largest mean job delay. Revise a table: the preset ships a corrected row that replaces the row of the barrier with the same userId and itemId (the rest of the barrier is kept); the table and everything downstream roll back to the checkpoint before the revised barrier and recompute.",
            "A checkpoint is not a barrier: FLIP-276 stores <checkpoint, barrier> pairs, e.g. barriers 1, 2, 3 in checkpoint 1. Here each checkpoint holds one barrier unless the run says otherwise (batchscope topology --barriers-per-checkpoint 2): a failed job then restores its last complete checkpoint and replays every barrier after it from the stored <barrier, offset> ranges, producing the same data — barriers its table had already WRITTEN are recomputed and not committed twice.",
            ],
            "price_job fails after barrier 2 is PRECOMMIT: Read Committed goes 10 → 8.333 → 10",
        ),
    },
    };
    TopoLesson {
        title,
        question,
        paragraphs,
        try_hash,
        try_text,
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
    /// A Kafka table's transaction was committed.
    TxnCommitted,
    /// A Kafka table's transaction was found aborted.
    TxnAborted,
    /// A restored checkpoint is notified complete again; `true`: the committer threw.
    Renotified(bool),
    /// A job's restart strategy gives up.
    GaveUp,
    /// A reader finds the snapshot it reads expired.
    ExpiredRead,
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
            (TopoMoment::TxnCommitted, K::TransactionCommitted { .. }) => true,
            (TopoMoment::TxnAborted, K::TransactionAborted { .. }) => true,
            (TopoMoment::Renotified(t), K::CommitRenotified { threw, .. }) => *threw == t,
            (TopoMoment::GaveUp, K::JobFailed { gave_up_after, .. }) => gave_up_after.is_some(),
            (TopoMoment::ExpiredRead, K::ExpiredSnapshotRead { .. }) => true,
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
    if let Some(stops) = failure_tour(name) {
        return TopoTour { hash, stops };
    }
    let stops = match name {
        "chain" => vec![
            topo_stop(Issued(1), "A global barrier",
                "The MetaService issues barrier 1: CDC offsets up to here belong to transaction 1. It travels through table1, table2 and table3 in turn."),
            topo_stop(Aligning, "The join aligns",
                "join_job got barrier 1 of table1 first. It buffers that input until barrier 1 of table2 arrives, so it never joins two versions of the data."),
            topo_stop(Precommit(1), "PRECOMMIT",
                "Barrier 1 is PROCESSED in every table: Read Committed can read it now."),
            topo_stop(Commit(1), "COMMIT",
                "Every table has a snapshot of barrier 1 (WRITTEN): Repeatable Read reads it. A job failure never rolls it back; only a revision does."),
            topo_stop(JobFailed, "sum_job fails",
                "table2 loses barrier 2, which it had PROCESSED but not WRITTEN. join_job keeps waiting for table2's barrier 2: table3 never mixes versions."),
            topo_stop(JobRecovered, "Restart from the checkpoint",
                "sum_job restarts from its snapshot of barrier 1 and replays barrier 2 from table1 — the same records."),
            topo_stop(Commit(2), "Barrier 2 commits",
                "Every table holds barrier 2: late, but complete. The failure cost delay, not consistency."),
            topo_stop(End, "Where the delay goes",
                "The chart gives each table's end-to-end delay (batchscope's definition) and, for the table with the largest, the job on its path with the largest mean delay: optimise it first."),
        ],
        "three-queries" => vec![
            topo_stop(Issued(1), "A global barrier",
                "The MetaService issues barrier 1 to both CDC sources, cdc and cdc3. Three queries are asked after every step: Query1 (table1), Query2 (table1 JOIN table2), Query3 (all three)."),
            topo_stop(JobProcessed(1), "table2 before table3",
                "amount_job has barrier 1 in table2; price_job, reading cdc3, is slower. Under Weak, Query1 read barrier 1 of table1 as soon as table1 had it. Under Strong, table1 and table2 are read at Min(table1 version, table2 version) without waiting for table3, which is not related to them (our reading of the FLIP's rule)."),
            topo_stop(Precommit(1), "PRECOMMIT everywhere",
                "Barrier 1 is PROCESSED in every table: all three queries read barrier 1 at Read Committed, Strong or Weak."),
            topo_stop(Precommit(2), "Barrier 2",
                "Barrier 2 is PROCESSED in every table. Under Strong the queries always read the same version of table1; under Weak they agree again only once the slow table caught up."),
            topo_stop(JobFailed, "amount_job fails",
                "table2 loses barrier 2 (PRECOMMIT, not WRITTEN): at Read Committed Query2 and Query3 roll back. Under Weak Query1 keeps barrier 2 of table1; under Strong it rolls back too, and the three still agree."),
            topo_stop(End, "Fresher or in agreement",
                "The report counts the moments at which two queries disagreed (Weak only) and how many barriers each query lagged (Strong lags more)."),
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
                "Barrier 2 is PROCESSED in all tables: Read Committed moves to it, avgPrice 8.333. price_job has not written its snapshot yet."),
            topo_stop(JobFailed, "price_job fails",
                "user_item_price loses barrier 2 (PROCESSED, not WRITTEN): Read Committed rolls back to 10. Repeatable Read never saw barrier 2 — a job failure never takes a snapshot away."),
            topo_stop(JobRecovered, "Replay from the checkpoint",
                "price_job restarts from barrier 1 and replays barrier 2 from the same shopping snapshot."),
            topo_stop(Commit(2), "Barrier 2 commits",
                "All tables hold barrier 2: every level reads 8.333 now."),
            topo_stop(End, "Where the delay goes",
                "The chart gives each table's end-to-end delay and, per table, the job to optimise on its path (batchscope's definitions: the FLIP asks the question)."),
        ],
    };
    TopoTour { hash, stops }
}

/// The tours of the presets about failures around the barriers (two-phase sinks, committers,
/// expired snapshots); `None` for the others.
fn failure_tour(name: &str) -> Option<Vec<TopoStop>> {
    use TopoMoment::*;
    Some(match name {
        "kafka-2pc-timeout" => vec![
            topo_stop(TxnCommitted, "A transaction commits",
                "Barrier 1 is COMMIT: to_kafka commits its Kafka transaction and orders_topic's rows of barrier 1 become visible to read_committed consumers."),
            topo_stop(JobFailed, "to_kafka fails after the pre-commit",
                "Its checkpoint holds barrier 2's pre-committed transaction; the commit into orders_topic was still to come. The job stays down for its restart time."),
            topo_stop(JobRecovered, "The restore, after the timeout",
                "to_kafka restores the checkpoint holding barrier 2's transaction and replays only what came after it: barrier 2's rows are not read again."),
            topo_stop(TxnAborted, "Aborted: rows lost",
                "The broker aborted the transaction once it had been open longer than transaction.timeout.ms. Nothing will write those rows of orders_topic again: lost (Flink's Kafka connector documentation, FLINK-23839)."),
            topo_stop(End, "Count what was lost",
                "The checkpoint panel shows one restore; the report counts the rows of the aborted transaction as lost. Run it again with --restart-ms 30000 in the CLI: within the timeout, nothing is lost."),
        ],
        "paimon-expired-snapshot" => vec![
            topo_stop(JobFailed, "enrich_job fails",
                "order_totals loses barrier 2, not yet WRITTEN. enrich_job restores checkpoint 1: the next snapshot it will read is the one of barrier 2. It stays down while ingest_orders writes on."),
            topo_stop(JobRecovered, "Restored onto an expired snapshot",
                "Expiry removed the snapshot of barrier 2 while enrich_job was down: no consumer-id kept it."),
            topo_stop(ExpiredRead, "OutOfRangeException",
                "enrich_job's read fails: the snapshot has expired. The job fails and restores the same checkpoint — the next restart will ask for the same snapshot (apache/paimon #9533)."),
            topo_stop(GaveUp, "Stuck, then given up",
                "Every restart failed the same way; the restart strategy gives up and enrich_job stays FAILED, order_totals stuck at barrier 1 — the run's last event. The checkpoint panel counts the restores of the same checkpoint, one per attempt. With --consumer-id the snapshot would have been kept."),
        ],
        "group-offset-lag" => vec![
            topo_stop(Commit(1), "The group moves on COMMIT",
                "Barrier 1 is COMMIT, WRITTEN in every table — late, because slow_job's snapshot took long. Only now is fast_job's first checkpoint notified and its offsets committed to the consumer group. Compare the two markers in the checkpoint panel."),
            topo_stop(JobFailed, "fast_job fails",
                "orders loses barrier 4, not yet WRITTEN. fast_job's checkpoint holds more of the stream than the group offset: a monitor reading the group shows lag that is not there."),
            topo_stop(JobRecovered, "The restore uses the checkpoint",
                "fast_job resumes from its checkpoint's offsets, not from the group's older ones: nothing is read twice, nothing skipped."),
            topo_stop(Commit(3), "The group catches up",
                "Barrier 3 is WRITTEN in every table. The next notification after the restart commits the offsets of the checkpoint it completes: the outside marker jumps forward."),
            topo_stop(End, "Which marker is the truth",
                "The checkpoint is what recovery uses; the group offset is what the outside sees, one notification behind."),
        ],
        "notify-twice" => vec![
            topo_stop(JobFailed, "paimon_job fails",
                "After barrier 3 is PRECOMMIT, before WRITTEN: orders loses barrier 3, and paimon_job will restore checkpoint 2, whose commit happened when barrier 2 became COMMIT."),
            topo_stop(Renotified(false), "Notified again: skipped",
                "After the restore Flink notifies checkpoint 2 complete again. paimon_job's committer recognises it as committed and skips it, as Paimon skips a commit identifier it already committed."),
            topo_stop(Renotified(true), "Notified again: it throws",
                "custom_job's committer throws on the repeat (apache/seatunnel PR #12150): the job fails again, restores the same checkpoint, and is notified again."),
            topo_stop(GaveUp, "The restart strategy gives up",
                "Its restart attempts are spent: custom_job stays FAILED. orders_copy stops at barrier 2, and no later barrier becomes COMMIT anywhere."),
            topo_stop(End, "Counted as Flink counts",
                "The checkpoint panel shows custom_job's restores and its failed checkpoint beside paimon_job's single restore."),
        ],
        _ => return None,
    })
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
