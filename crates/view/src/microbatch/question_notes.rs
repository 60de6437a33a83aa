//! The step notes of the recovery questions' own events: a driver that stalls while a second
//! one starts on its checkpoint (and loses the race for `commits/N`), and a log entry that
//! asynchronous progress tracking keeps in memory, and a refused second write of a log entry.
//! Notes cite public sources only.

use batchscope_engine::microbatch::event::EventKind;
use batchscope_engine::microbatch::scenario::Scenario;

/// The note of a refused log write, or of a `driver-stalled`, `driver-lost-log-race` or
/// `log-kept-in-memory` event.
pub fn question_note(kind: &EventKind, scenario: &Scenario) -> String {
    match kind {
        EventKind::CheckpointWriteRejected { path } => format!(
            "{path} already exists: checkpoint files are immutable, a second write is a concurrent-update error."
        ),
        EventKind::LogKeptInMemory { path, .. } => kept_in_memory(scenario, path),
        _ => two_drivers_note(kind, scenario),
    }
}

/// The note of a driver that stalls while a second one starts, and of the first one's failure.
fn two_drivers_note(kind: &EventKind, scenario: &Scenario) -> String {
    match kind {
            EventKind::DriverStalled { batch_id } => format!(
                "The driver stalls here — not dead: a long garbage-collection pause or a network partition — after the sink wrote batch {batch_id} and before commits/{batch_id}. A job scheduler that takes it for dead starts a second driver on the same checkpoint folder. Spark takes no lock on the folder; the only guard is that a log entry is never overwritten (HDFSMetadataLog.add). The second driver starts {} ms later; this model lets the first sleep until the second has written commits/{batch_id}.",
                scenario.restart_delay()
            ),
            EventKind::DriverLostLogRace { batch_id, error } => format!(
                "The first driver wakes and finishes batch {batch_id}: its commitLog.add({batch_id}) finds commits/{batch_id}, which the second driver wrote, and returns false, so MicroBatchExecution throws and the first driver's query stops: {error} The second driver runs on. What both wrote to the sink stays: an append sink holds batch {batch_id} twice."
            ),
        _ => String::new(),
    }
}

/// The note of a log entry async progress tracking keeps in memory.
fn kept_in_memory(scenario: &Scenario, path: &str) -> String {
    let interval = scenario
        .async_progress
        .map_or(0, |a| a.checkpoint_interval_ms);
    if path.starts_with("offsets/") {
        format!(
            "Async progress tracking: the offset log is written off the batch's path, at most once every {interval} ms (AsyncOffsetSeqLog.addAsync), and the interval has not passed since the last write — {path} stays in the driver's memory and the batch runs at once. A crash from now on re-runs every batch since the last entry on disk."
        )
    } else {
        format!(
            "Async progress tracking writes commits/N only for a batch whose offsets/N it wrote, or the run's first batch (markMicroBatchEnd): {path} stays in memory. The sink has the batch; the checkpoint does not know it."
        )
    }
}
