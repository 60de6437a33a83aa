//! The event log as text (one line per event, with a legend) and its hash (determinism tests).

use crate::event::{Event, EventKind};

/// The legend printed above a text trace.
pub const LEGEND: &str = "time(ms)  #seq run  from → to  what   (lanes: driver = MicroBatchExecution, source, tasks = SourceRDD, tunnel = Tunnel server, meta = Meta table, ckpt = checkpoint folder, sink)";

fn lane(a: crate::event::Actor) -> &'static str {
    use crate::event::Actor::*;
    match a {
        Driver => "driver",
        Source => "source",
        Tasks => "tasks",
        Tunnel => "tunnel",
        MetaTable => "meta",
        Checkpoint => "ckpt",
        Sink => "sink",
    }
}

/// One line for an event.
pub fn line(e: &Event) -> String {
    let (from, to) = e.kind.lanes();
    let detail = match &e.kind {
        EventKind::Crashed { lost, .. } if !lost.is_empty() => {
            format!("  (lost: {})", lost.join("; "))
        }
        EventKind::QueryFailed { reason } | EventKind::SinkWriteFailed { reason, .. } => {
            format!("  ({reason})")
        }
        EventKind::TaskRead {
            error: Some(error), ..
        } => format!("  ({error})"),
        EventKind::TaskFailed { rows, retried, .. } => {
            let then = if *retried {
                "Spark retries the task (spark.task.maxFailures)"
            } else {
                "spark.task.maxFailures reached: the job and the batch fail"
            };
            format!("  ({rows} rows already handed to the sink stay where the sink put them; {then})")
        }
        EventKind::CheckpointDeleted { .. } => {
            "  (an operator deleted it while the query was down; the restart is a new query that reads from startingOffsets)".to_string()
        }
        EventKind::QueryStarted { .. } if e.run > 1 => {
            "  (restarted by an operator or a job scheduler; Spark does not restart a stopped or failed query)".to_string()
        }
        EventKind::GetOffset { rows_read, .. } if *rows_read > 0 => {
            format!("  (read ahead {rows_read} rows)")
        }
        _ => String::new(),
    };
    format!(
        "{:>8}  #{:<4} r{}  {:>6} → {:<6}  {}{}",
        e.at_ms,
        e.seq,
        e.run,
        lane(from),
        lane(to),
        e.kind.label(),
        detail
    )
}

/// FNV-1a 64 over the canonical JSON of the events: a platform-independent fingerprint of a
/// trace, the same function for both worlds.
pub fn hash<E: serde::Serialize>(events: &[E]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for e in events {
        let json = serde_json::to_vec(e).expect("events serialize");
        for b in json {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}
