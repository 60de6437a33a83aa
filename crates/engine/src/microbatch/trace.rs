//! A micro-batch event as one line of text, and the legend printed above a text trace.

use crate::microbatch::event::{Event, EventKind};

/// The legend printed above a text trace.
pub const LEGEND: &str = "time(ms)  #seq run  from → to  what   (lanes: driver = MicroBatchExecution, source, tasks = SourceRDD, tunnel = Tunnel server, meta = Meta table, ckpt = checkpoint folder, sink)";

fn lane(a: crate::microbatch::event::Actor) -> &'static str {
    use crate::microbatch::event::Actor::*;
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
        EventKind::QueryFailed { reason } => format!("  ({reason})"),
        EventKind::SinkWriteFailed { reason, .. } => format!("  ({reason})"),
        EventKind::TaskRead {
            error: Some(error), ..
        } => format!("  ({error})"),
        EventKind::TaskFailed {
            rows,
            retried,
            sink_down,
            ..
        } => {
            let then = if *retried {
                "Spark retries the task (spark.task.maxFailures)"
            } else {
                "spark.task.maxFailures reached: the job and the batch fail"
            };
            match sink_down {
                Some(reason) => format!("  ({reason}: nothing reached the store; {then})"),
                None => format!(
                    "  ({} handed to the sink: appended rows stay, staged rows are dropped; {then})",
                    crate::microbatch::event::label::rows_text(*rows)
                ),
            }
        }
        EventKind::CheckpointDeleted { .. } => {
            "  (an operator deleted it while the query was down; the restart is a new query that starts from the source's initial offsets)".to_string()
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
