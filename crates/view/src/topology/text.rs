//! What the topology graph says at a step: edge labels, what is active, event and step texts,
//! and the words for levels, consistencies and faults.

use super::history::after_event;
use batchscope_engine::barrier::{
    self, is_cdc_source, BarrierEvent, BarrierEventKind, CdcRecord, Consistency, FailPhase, Fault,
    ReadLevel, TableBarrierRef, TopologySpec, TopologyWorld,
};
use batchscope_engine::barrier::{ReplayRange, RevisionReplay, RowCorrection};

/// `strong` or `weak`.
pub fn consistency_short(c: Consistency) -> &'static str {
    match c {
        Consistency::Strong => "strong",
        Consistency::Weak => "weak",
    }
}

/// The level's name as FLIP-276 spells it.
pub fn level_title(l: ReadLevel) -> &'static str {
    match l {
        ReadLevel::ReadUncommitted => "Read Uncommitted",
        ReadLevel::ReadCommitted => "Read Committed",
        ReadLevel::RepeatableRead => "Repeatable Read",
    }
}

/// A fault in words, for the topology it strikes: a `--fail JOB@B` strikes after PRECOMMIT
/// only when no other job reads the job's table (else PRECOMMIT waits for that table's
/// snapshot and the job fails after PROCESSED, before PRECOMMIT); without barriers there is no
/// PRECOMMIT at all.
pub fn fault_text_in(f: &Fault, spec: &TopologySpec) -> String {
    match f {
        Fault::FailBeforeWritten { job, barrier } if spec.no_barriers => {
            format!("{job} fails before its own checkpoint {barrier} is WRITTEN")
        }
        Fault::FailBeforeWritten { job, barrier } => {
            let sink = spec
                .jobs
                .iter()
                .find(|j| &j.name == job)
                .map(|j| j.sink.as_str());
            let read = spec
                .jobs
                .iter()
                .any(|j| sink.is_some_and(|s| j.sources.iter().any(|x| x == s)));
            if read {
                format!("{job} fails after barrier {barrier} is PROCESSED in its table, before PRECOMMIT (other jobs read the table)")
            } else {
                fault_text(f)
            }
        }
        _ => fault_text(f),
    }
}

/// A fault in words (the list of recorded inputs), as it strikes a job whose table no other
/// job reads; [`fault_text_in`] says it for a given topology.
pub fn fault_text(f: &Fault) -> String {
    match f {
        Fault::FailBeforeWritten { job, barrier } => {
            format!("{job} fails after barrier {barrier} is PRECOMMIT, before WRITTEN")
        }
        // `step` counts the events before the fault: it strikes after the trace's #(step - 1).
        Fault::FailAtStep { job, step } => format!("{job} fails {}", after_event(*step)),
        Fault::FailAfterWritten { job, barrier } => {
            format!("{job} fails once its table has WRITTEN barrier {barrier}, before COMMIT")
        }
        Fault::ReviseAtStep {
            table,
            barrier,
            step,
        } => format!("{table} barrier {barrier} revised {}", after_event(*step)),
        Fault::ReviseAfterWritten {
            table,
            barrier,
            written,
        } => format!("{table} barrier {barrier} revised once barrier {written} is WRITTEN"),
    }
}

/// The barrier label of an edge at a step: source → job shows the last barrier the job read
/// from that input (its checkpoint id / CDC offset without barriers), job → table the last
/// barrier PROCESSED in the table.
pub fn edge_label(world: &TopologyWorld, from: &str, to: &str) -> String {
    let nb = world.spec().no_barriers;
    if let Some(job) = world.jobs().iter().find(|j| j.spec.name == to) {
        let consumed = job
            .inputs
            .iter()
            .find(|i| i.source == from)
            .map_or(0, |i| i.consumed);
        return match (nb, is_cdc_source(from)) {
            (false, _) => format!("b{consumed}"),
            (true, true) => format!("off {consumed}"),
            (true, false) => format!("ckpt {consumed}"),
        };
    }
    let processed = world.table(to).map_or(0, |t| t.processed());
    if nb {
        format!("ckpt {processed}")
    } else {
        format!("b{processed}")
    }
}

/// Edges and nodes the event on screen involves (drawn highlighted).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Active {
    /// (from, to) edges.
    pub edges: Vec<(String, String)>,
    /// Node names.
    pub nodes: Vec<String>,
    /// Whether the event is a failure or a revision (drawn red).
    pub alarm: bool,
}

/// What the event touches, for highlighting.
pub fn active(world: &TopologyWorld, event: Option<&BarrierEvent>) -> Active {
    let Some(e) = event else {
        return Active::default();
    };
    let writer = |t: &str| world.meta().writer_of(t).unwrap_or("").to_string();
    let mut a = Active::default();
    match &e.kind {
        BarrierEventKind::CdcRecord { record, written } => {
            a.nodes.push(record.source.clone());
            for w in written {
                let j = writer(&w.table);
                a.edges.push((record.source.clone(), j.clone()));
                a.edges.push((j, w.table.clone()));
            }
        }
        BarrierEventKind::BarrierIssued { .. } => {
            a.nodes = world.spec().cdc.iter().map(|c| c.name.clone()).collect();
        }
        BarrierEventKind::SourceEmit { job, input, .. } => {
            a.edges.push((input.clone(), job.clone()));
            a.nodes.push(job.clone());
        }
        BarrierEventKind::CheckpointTriggered { job, .. } => a.nodes.push(job.clone()),
        BarrierEventKind::Processed { job, table, .. } => {
            a.edges.push((job.clone(), table.clone()));
            a.nodes.push(table.clone());
        }
        BarrierEventKind::SnapshotHeld { job, .. } => a.nodes.push(job.clone()),
        BarrierEventKind::SnapshotWritten { table, .. } => a.nodes.push(table.clone()),
        BarrierEventKind::Precommit { .. } | BarrierEventKind::Commit { .. } => {
            a.nodes = world.tables().iter().map(|t| t.name.clone()).collect();
        }
        BarrierEventKind::JobFailed { job, table, .. } => {
            a.nodes.push(job.clone());
            a.nodes.push(table.clone());
            a.alarm = true;
        }
        BarrierEventKind::JobRecovered { job, .. } => a.nodes.push(job.clone()),
        BarrierEventKind::TransactionCommitted { job, table, .. } => {
            a.edges.push((job.clone(), table.clone()));
            a.nodes.push(table.clone());
        }
        BarrierEventKind::TransactionAborted { job, table, .. } => {
            a.edges.push((job.clone(), table.clone()));
            a.nodes.push(table.clone());
            a.alarm = true;
        }
        BarrierEventKind::ExpiredSnapshotRead { job, table, .. } => {
            a.edges.push((table.clone(), job.clone()));
            a.nodes.push(job.clone());
            a.alarm = true;
        }
        BarrierEventKind::CommitRenotified { job, threw, .. } => {
            a.nodes.push(job.clone());
            a.alarm = *threw;
        }
        BarrierEventKind::Replayed { job, table, .. } => {
            a.edges.push((job.clone(), table.clone()));
            a.nodes.push(table.clone());
        }
        BarrierEventKind::Revised { tables, jobs, .. } => {
            a.nodes.extend(tables.iter().cloned());
            a.nodes.extend(jobs.iter().cloned());
            a.alarm = true;
        }
    }
    a
}

/// A CDC record streaming into root tables, in words (its source named unless it is `cdc`).
fn cdc_text(record: &CdcRecord, written: &[TableBarrierRef]) -> String {
    let [u, i, a, p] = record.row;
    let to: Vec<String> = written
        .iter()
        .map(|w| format!("{} (open barrier {})", w.table, w.barrier))
        .collect();
    let source = record
        .named_source()
        .map_or(String::new(), |s| format!(" of {s}"));
    format!(
        "CDC record #{}{source} (userId {u}, itemId {i}, amount {a}, price {p}) streams into {}.",
        record.offset,
        if to.is_empty() {
            "the ingest job".into()
        } else {
            to.join(", ")
        }
    )
}

/// Recoveries, two-phase sinks, committers and expired reads in words; `None` for the other
/// events.
fn failure_text(kind: &BarrierEventKind) -> Option<String> {
    use BarrierEventKind as K;
    Some(match kind {
        K::TransactionCommitted {
            job,
            table,
            barrier,
            records,
        } => format!(
            "{job} commits the Kafka transaction of barrier {barrier}: its {records} rows in {table} become visible to read_committed consumers (KafkaSink's committer, on notifyCheckpointComplete or on restore)."
        ),
        K::TransactionAborted {
            job,
            table,
            barrier,
            records,
            opened_at_ms,
            timeout_ms,
        } => format!(
            "{job} tries to commit the Kafka transaction of barrier {barrier}, but the broker aborted it: it was open since {opened_at_ms} ms, longer than its transaction.timeout.ms of {timeout_ms} ms. The checkpoint {job} restored is past those rows, so nothing writes them again: {records} rows of {table} are lost (Flink's Kafka connector docs: a job down longer than the transaction timeout loses data; FLINK-23839)."
        ),
        K::ExpiredSnapshotRead {
            job,
            table,
            barrier,
            snapshot_id,
        } => format!(
            "{job} reads barrier {barrier} of {table}, but snapshot {snapshot_id} has expired: nothing kept it (no consumer-id) while the job was down, and its checkpoint points at it. Paimon's scan throws OutOfRangeException: \"The snapshot with id {snapshot_id} has expired. You can: 1. increase the snapshot or changelog expiration time. 2. use consumer-id to ensure that unconsumed snapshots will not be expired.\" The job fails; the restart restores the same checkpoint (apache/paimon #9533)."
        ),
        K::CommitRenotified {
            job,
            checkpoint,
            barrier,
            repeat,
            threw,
        } => {
            let what = match (repeat, threw) {
                (_, true) => format!("it committed barrier {barrier} already, and this committer throws on a repeat (apache/seatunnel PR #12150: IllegalStateException on every restart): {job} fails again"),
                (true, false) => format!("it committed barrier {barrier} already; the committer recognises the checkpoint and does nothing (as Paimon skips a commit identifier it committed)"),
                (false, false) => format!("barrier {barrier} was not committed yet, so this is its first commit"),
            };
            format!("After the restore, Flink notifies checkpoint {checkpoint} complete again (CheckpointListener.notifyCheckpointComplete is at least once): {what}.")
        }
        K::JobFailed {
            job,
            table,
            restored_barrier,
            gave_up_after: Some(n),
            ..
        } => format!(
            "{job} FAILED again, and its {n} restart attempts are spent: the restart strategy gives up (Flink's restart-strategy.fixed-delay.attempts), the job stays FAILED and {table} stays at barrier {restored_barrier}. Every barrier after it waits for {table}: COMMIT stops for the whole topology."
        ),
        K::Replayed {
            job,
            table,
            barrier,
            records,
        } => format!(
            "{job} recomputes barrier {barrier} after its restart: the same {records} records as the snapshot {table} already holds, so the commit is skipped as a duplicate."
        ),
        K::JobRecovered {
            job,
            from_barrier,
            replay,
            revision,
        } => recovered_text(job, *from_barrier, replay, revision.as_ref()),
        _ => return None,
    })
}

/// One step in words, for the step note.
pub fn event_text(kind: &BarrierEventKind) -> String {
    if let Some(text) = failure_text(kind) {
        return text;
    }
    use BarrierEventKind as K;
    match kind {
        K::CdcRecord { record, written } => cdc_text(record, written),
        K::BarrierIssued {
            barrier,
            cdc_offset_start,
            cdc_offset_end,
        } => format!(
            "MetaService issues timestamp barrier {barrier}: it closes CDC offsets {cdc_offset_start}..{cdc_offset_end}, one bounded transaction."
        ),
        K::SourceEmit {
            job,
            input,
            barrier,
            records,
            waiting_for,
            expired_snapshot,
        } => {
            let mut s = format!(
                "{job} reads barrier {barrier} of {input} ({records} records) and passes the barrier on."
            );
            if let Some(id) = expired_snapshot {
                s.push_str(&format!(
                    " But snapshot {id} of {input} had EXPIRED: Paimon would have deleted its files and this read would fail; the model kept the data (expiry is bookkeeping here), so what follows is not what a real job could replay."
                ));
            }
            if !waiting_for.is_empty() {
                s.push_str(&format!(
                    " Its stateful operator aligns: it buffers this input until barrier {barrier} of {} arrives.",
                    waiting_for.join(", ")
                ));
            }
            s
        }
        K::CheckpointTriggered {
            job,
            checkpoint,
            records,
        } => format!(
            "No barriers: {job} cuts its own checkpoint {checkpoint} and reads whatever upstream has written so far ({records} records)."
        ),
        K::Processed {
            job,
            table,
            barrier,
            records,
        } => format!(
            "{job} finished barrier {barrier}: PROCESSED in {table} ({records} records), in no snapshot yet. Read Uncommitted sees it now; Read Committed reads barrier {barrier} once it is PROCESSED in every related table the query depends on (fed by a common CDC source)."
        ),
        K::SnapshotHeld { job, barrier } => format!(
            "{job} holds its snapshot of barrier {barrier} until the barrier is PRECOMMIT (the armed failure waits for that point)."
        ),
        K::SnapshotWritten {
            table,
            barrier,
            snapshot_id,
            total_record_count,
            ..
        } => format!(
            "{table} commits snapshot {snapshot_id} for barrier {barrier} ({total_record_count} rows): WRITTEN. Repeatable Read reads barrier {barrier} once it is WRITTEN in every related table the query depends on (fed by a common CDC source); a job failure never takes the snapshot away (only a revision rolls it back)."
        ),
        K::Precommit { barrier } => format!(
            "Barrier {barrier} is PRECOMMIT: PROCESSED in every table of the topology. Read Committed reads a barrier once it is PROCESSED in every related table the query depends on (fed by a common CDC source): a query over all the tables reads barrier {barrier} by now, one over fewer tables may have read it earlier."
        ),
        K::Commit { barrier } => format!(
            "Barrier {barrier} is COMMIT: WRITTEN in every table of the topology, a globally consistent set of snapshots. Repeatable Read reads a barrier once it is WRITTEN in every related table the query depends on (fed by a common CDC source): a query over all the tables reads barrier {barrier} by now, one over fewer tables may have read it earlier."
        ),
        K::JobFailed {
            job,
            table,
            phase,
            in_flight,
            restored_checkpoint,
            restored_barrier,
            replayed_barriers,
            lost_barriers,
            ..
        } => {
            let lost: Vec<String> = lost_barriers.iter().map(u64::to_string).collect();
            let when = barrier::trace::fail_phase(*phase, *in_flight, table);
            let replay: Vec<String> = replayed_barriers.iter().map(u64::to_string).collect();
            if *phase == FailPhase::OwnCheckpoint {
                return format!(
                    "{job} FAILED {when}. {table} loses what it had not WRITTEN{}; the job restarts from its own checkpoint {restored_checkpoint}.",
                    if lost.is_empty() { String::new() } else { format!(" (checkpoints {} roll back)", lost.join(", ")) }
                );
            }
            let readers = readers_after_failure(&lost, table);
            format!(
                "{job} FAILED {when}. {table} loses what it had not WRITTEN{}; the job restores checkpoint {restored_checkpoint} (its barriers end with {restored_barrier}) and replays barriers {} from the stored <barrier, offset> ranges. {readers}",
                if lost.is_empty() { String::new() } else { format!(" (barriers {} roll back)", lost.join(", ")) },
                if replay.is_empty() { "none".to_string() } else { replay.join(", ") }
            )
        }
        K::Revised {
            table,
            barrier,
            rolled_back_to,
            corrected_rows,
            replaced,
            kept_rows,
            tables,
            jobs,
        } => format!(
            "{table} barrier {barrier} is revised{}: {} roll back to barrier {rolled_back_to} (the checkpoint before it, snapshots included — Repeatable Read sees this roll-back) and {} recompute from there.",
            corrected_text(*corrected_rows, replaced, *kept_rows),
            tables.join(", "),
            jobs.join(", ")
        ),
        // Said by `failure_text`.
        _ => String::new(),
    }
}

/// The step note: [`event_text`], speaking of the jobs' own checkpoints where the run has no
/// timestamp barriers (the engine then numbers snapshots by checkpoint).
pub fn step_text(kind: &BarrierEventKind, no_barriers: bool) -> String {
    let text = event_text(kind);
    let per_checkpoint = matches!(
        kind,
        BarrierEventKind::Processed { .. }
            | BarrierEventKind::SnapshotWritten { .. }
            | BarrierEventKind::JobFailed { .. }
            | BarrierEventKind::JobRecovered { .. }
            | BarrierEventKind::Replayed { .. }
    );
    if no_barriers && per_checkpoint {
        text.replace("barriers ", "checkpoints ")
            .replace("barrier ", "checkpoint ")
    } else {
        text
    }
}

/// What readers keep after a job failure that lost `lost` barriers of `table`.
fn readers_after_failure(lost: &[String], table: &str) -> String {
    if lost.is_empty() {
        "No reader at Read Committed or Repeatable Read loses what it read.".to_string()
    } else {
        format!(
            "Read Committed goes back to an earlier barrier in every query that had read barrier {} of {table} (it was PROCESSED in every related table the query depends on (fed by a common CDC source), PRECOMMIT or not); Repeatable Read does not — snapshots stay.",
            lost.join(", ")
        )
    }
}

/// The note of a recovery: the same data again, or after a revision what it replaced.
fn recovered_text(
    job: &str,
    from_barrier: u64,
    replay: &[ReplayRange],
    revision: Option<&RevisionReplay>,
) -> String {
    let r: Vec<String> = replay
        .iter()
        .map(|r| {
            format!(
                "b{} = CDC {}..{}",
                r.barrier, r.cdc_offset_start, r.cdc_offset_end
            )
        })
        .collect();
    let replays = if r.is_empty() {
        String::new()
    } else {
        format!(" and replays {}", r.join(", "))
    };
    match revision {
                None => format!(
                    "{job} restarted after barrier {from_barrier}{replays}: the same barriers, the same data, nothing lost or repeated."
                ),
                Some(rev) if !rev.replaced.is_empty() => format!(
                    "{job} restarted after barrier {from_barrier} for the revision of {} barrier {}{replays}: in barrier {} the corrected rows replace {}; every other row is replayed as it was.",
                    rev.table, rev.barrier, rev.barrier, barrier::trace::corrections(&rev.replaced)
                ),
                Some(rev) => format!(
                    "{job} restarted after barrier {from_barrier} for the revision of {} barrier {}{replays}: it recomputes from the revised {}, so its results may differ from those it wrote before.",
                    rev.table, rev.barrier, rev.table
                ),
            }
}

/// What a revision corrects: each corrected row with the row it replaces and the rows kept,
/// or that it replays the same data.
fn corrected_text(corrected_rows: u32, replaced: &[RowCorrection], kept: Option<u32>) -> String {
    match kept {
        Some(kept) if corrected_rows > 0 => format!(
            " with corrected rows ({}; the barrier's {} kept as they were)",
            barrier::trace::corrections(replaced),
            barrier::trace::other_rows(kept)
        ),
        _ => " (same data replayed)".to_string(),
    }
}
