//! The topology trace as text: one line per [`BarrierEvent`], with a [`LEGEND`] (the
//! micro-batch world's counterpart is [`crate::microbatch::trace::line`]). The trace hash is the same for
//! both worlds: [`crate::trace::hash`].

use super::event::{
    BarrierEvent, BarrierEventKind, CdcRecord, FailPhase, ReplayRange, TableBarrierRef,
};
use super::event::{RevisionReplay, RowCorrection};
use super::spec::is_cdc_source;

/// Legend printed before the events in text mode.
pub const LEGEND: &str = "\
legend: CDC record arrives (and is streamed to root tables) | ISSUE MetaService issues a barrier |
        EMIT source emits a barrier's records then the barrier (waiting = join buffers it) |
        CKPT own checkpoint (no barriers) | PROCESSED sink aligned and wrote the barrier |
        HELD fault holds a snapshot | WRITTEN snapshot created | PRECOMMIT processed in all tables |
        COMMIT written in all tables | FAIL / RECOVER job failover (restore a checkpoint, replay
        the barriers after it) | REPLAYED recomputed, identical to its snapshot | REVISE correct a
        barrier, roll back downstream | TXN / ABORTED a Kafka table's transaction committed or
        found aborted | NOTIFY a checkpoint notified complete again after a restore | EXPIRED a
        reader without a snapshot guard finds its snapshot expired";

/// One line for an event: time, step number, then what happened in the field's words.
pub fn line(e: &BarrierEvent) -> String {
    format!("{:>6} ms #{:<4} {}", e.at_ms, e.step, what(&e.kind))
}

/// The lines of recoveries, two-phase sinks, committers and expired reads; `None` for the
/// other events.
fn failure_what(kind: &BarrierEventKind) -> Option<String> {
    Some(match kind {
        BarrierEventKind::SnapshotWritten {
            table,
            barrier,
            precommitted_txn: true,
            delta_record_count,
            ..
        } => format!(
            "WRITTEN   {table} barrier {barrier}: its Kafka transaction ({delta_record_count} rows) pre-committed into the checkpoint"
        ),
        BarrierEventKind::TransactionCommitted {
            table,
            barrier,
            records,
            ..
        } => format!(
            "TXN       {table} barrier {barrier}: Kafka transaction committed ({records} rows visible to read_committed consumers)"
        ),
        BarrierEventKind::TransactionAborted {
            table,
            barrier,
            records,
            opened_at_ms,
            timeout_ms,
            ..
        } => format!(
            "ABORTED   {table} barrier {barrier}: the broker aborted its transaction (open since {opened_at_ms} ms, transaction.timeout.ms {timeout_ms}); the restored checkpoint is past its {records} rows: lost"
        ),
        BarrierEventKind::ExpiredSnapshotRead {
            job,
            table,
            barrier,
            snapshot_id,
        } => format!(
            "EXPIRED   {job} reads {table} barrier {barrier}: snapshot-{snapshot_id} has expired (OutOfRangeException), the job fails"
        ),
        BarrierEventKind::CommitRenotified {
            job,
            checkpoint,
            barrier,
            repeat,
            threw,
        } => {
            let what = match (repeat, threw) {
                (_, true) => "committed already: the committer throws, the job fails again",
                (true, false) => "committed already: the committer skips it",
                (false, false) => "its first commit",
            };
            format!("NOTIFY    {job} checkpoint {checkpoint} (barrier {barrier}) complete, again after the restore: {what}")
        }
        BarrierEventKind::JobFailed {
            job,
            table,
            phase,
            in_flight,
            restored_barrier,
            gave_up_after: Some(n),
            ..
        } => format!(
            "FAIL      {job} {}: {n} restart attempts spent, the restart strategy gives up: {job} stays FAILED and {table} stops at barrier {restored_barrier}",
            fail_phase(*phase, *in_flight, table)
        ),
        BarrierEventKind::Replayed {
            table,
            barrier,
            records,
            ..
        } => format!(
            "REPLAYED  {table} barrier {barrier}: {records} records, the same as its snapshot (commit skipped)"
        ),
        BarrierEventKind::JobRecovered {
            job,
            from_barrier,
            replay,
            revision,
        } => recovered(job, *from_barrier, replay, revision.as_ref()),
        _ => return None,
    })
}

/// [`line`] for a run with or without timestamp barriers: without them the numbers of
/// PROCESSED, WRITTEN, HELD and RECOVER are each job's own checkpoints, and the line says so.
pub fn line_for(e: &BarrierEvent, no_barriers: bool) -> String {
    let own = matches!(
        e.kind,
        BarrierEventKind::Processed { .. }
            | BarrierEventKind::SnapshotWritten { .. }
            | BarrierEventKind::SnapshotHeld { .. }
            | BarrierEventKind::JobRecovered { .. }
    );
    let text = line(e);
    if no_barriers && own {
        text.replace("barrier ", "own checkpoint ")
    } else {
        text
    }
}

/// The CDC ranges a recovering job replays, as `barrier=[start, end)` separated by spaces.
pub fn replay_ranges(replay: &[ReplayRange]) -> String {
    let r: Vec<String> = replay
        .iter()
        .map(|r| {
            format!(
                "{}=[{}, {})",
                r.barrier, r.cdc_offset_start, r.cdc_offset_end
            )
        })
        .collect();
    r.join(" ")
}

/// Corrected rows and what each replaced, in the root table's columns:
/// `cdc offset 0 [1, 1, 100, 1000] -> [1, 1, 100, 800]`, or `added [..]` for a row that
/// matched none.
pub fn corrections(replaced: &[RowCorrection]) -> String {
    let r: Vec<String> = replaced
        .iter()
        .map(|c| match (c.cdc_offset, &c.before) {
            (Some(o), Some(b)) => format!("cdc offset {o} {b:?} -> {:?}", c.after),
            _ => format!("added {:?}", c.after),
        })
        .collect();
    r.join(", ")
}

/// `1 other row` / `N other rows` of a revised barrier.
pub fn other_rows(n: u32) -> String {
    if n == 1 {
        "1 other row".into()
    } else {
        format!("{n} other rows")
    }
}

/// What a source emitted: its records, or only the barrier when a stateless job streamed the
/// records as they arrived; and the inputs the join still waits for.
fn emitted(input: &str, records: u32, waiting_for: &[String]) -> String {
    let wait = if waiting_for.is_empty() {
        String::new()
    } else {
        format!(" (waiting for {})", waiting_for.join(", "))
    };
    if records == 0 && is_cdc_source(input) {
        format!("the barrier (records already streamed){wait}")
    } else {
        format!("{records} records{wait}")
    }
}

/// When a job failed, in words: where the barrier in flight stood.
pub fn fail_phase(phase: FailPhase, in_flight: u64, table: &str) -> String {
    match phase {
        FailPhase::BeforeProcessed => {
            format!("before barrier {in_flight} was PROCESSED in {table}")
        }
        FailPhase::BeforePrecommit => {
            format!("after barrier {in_flight} was PROCESSED in {table}, before PRECOMMIT")
        }
        FailPhase::AfterPrecommit => {
            format!("after barrier {in_flight} was PRECOMMIT, before WRITTEN in {table}")
        }
        FailPhase::OwnCheckpoint => {
            format!("before its own checkpoint {in_flight} was WRITTEN in {table}")
        }
    }
}

/// A CDC record and the root tables it streamed into; the source is named unless it is the
/// default `cdc`.
fn cdc_line(record: &CdcRecord, written: &[TableBarrierRef]) -> String {
    let to: Vec<String> = written
        .iter()
        .map(|w| format!("{}@{}", w.table, w.barrier))
        .collect();
    let source = record
        .named_source()
        .map_or(String::new(), |s| format!("{s} "));
    format!(
        "CDC       {source}offset {} row {:?} -> {}",
        record.offset,
        record.row,
        if to.is_empty() {
            "-".to_string()
        } else {
            to.join(", ")
        }
    )
}

fn what(kind: &BarrierEventKind) -> String {
    if let Some(text) = failure_what(kind) {
        return text;
    }
    match kind {
        BarrierEventKind::CdcRecord { record, written } => cdc_line(record, written),
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
            expired_snapshot,
        } => format!(
            "EMIT      {job} <- {input} barrier {barrier}: {}{}",
            emitted(input, *records, waiting_for),
            expired_snapshot.map_or(String::new(), |id| format!(
                " from EXPIRED snapshot-{id} (Paimon would have deleted it: the read fails there)"
            ))
        ),
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
            phase,
            in_flight,
            restored_checkpoint,
            restored_barrier,
            replayed_barriers,
            lost_barriers,
            ..
        } => {
            let when = fail_phase(*phase, *in_flight, table);
            if *phase == FailPhase::OwnCheckpoint {
                format!(
                    "FAIL      {job} {when}: {table} loses checkpoints {lost_barriers:?}, restores its checkpoint {restored_checkpoint}"
                )
            } else {
                format!(
                    "FAIL      {job} {when}: {table} loses barriers {lost_barriers:?}, restores checkpoint {restored_checkpoint} (barriers up to {restored_barrier}), replays barriers {replayed_barriers:?}"
                )
            }
        }
        BarrierEventKind::Revised {
            table,
            barrier,
            rolled_back_to,
            corrected_rows,
            replaced,
            kept_rows,
            tables,
            jobs,
        } => format!(
            "REVISE    {table} barrier {barrier} ({}): tables {} roll back to barrier {rolled_back_to}, jobs {} recompute",
            match kept_rows {
                Some(kept) if *corrected_rows > 0 => format!(
                    "{}; {} kept",
                    corrections(replaced),
                    other_rows(*kept)
                ),
                _ => "same data".to_string(),
            },
            tables.join(", "),
            jobs.join(", ")
        ),
        // Said by `failure_what`.
        _ => String::new(),
    }
}

/// The RECOVER line: where the job restarts, the CDC it replays, and after a revision what
/// that revision replaced.
fn recovered(
    job: &str,
    from_barrier: u64,
    replay: &[ReplayRange],
    revision: Option<&RevisionReplay>,
) -> String {
    let mut s = format!("RECOVER   {job} from barrier {from_barrier}");
    if let Some(r) = revision {
        s.push_str(&format!(
            " after the revision of {} barrier {}",
            r.table, r.barrier
        ));
    }
    if !replay.is_empty() {
        s.push_str(&format!(", replays cdc {}", replay_ranges(replay)));
    }
    match revision {
        Some(r) if !r.replaced.is_empty() => s.push_str(&format!(
            " with barrier {} corrected: {}",
            r.barrier,
            corrections(&r.replaced)
        )),
        Some(r) if replay.is_empty() => {
            s.push_str(&format!(": recomputes from the revised {}", r.table))
        }
        _ => {}
    }
    s
}
