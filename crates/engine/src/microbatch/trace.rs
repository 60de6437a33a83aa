//! A micro-batch event as one line of text, and the legend printed above a text trace.

use crate::microbatch::event::{Actor, Event, EventKind};
use crate::microbatch::scenario::SourceKind;

/// The legend printed above a text trace of a Tablestore source (see [`legend`]).
pub const LEGEND: &str = "time(ms)  #seq run  from → to  what   (lanes: driver = MicroBatchExecution, source, tasks = SourceRDD, tunnel = Tunnel server, meta = Meta table, ckpt = checkpoint folder, sink)";

/// The legend printed above a text trace of a scenario whose source is `source`: its own
/// lanes (a Kafka broker, SeaTunnel's CDC source, no Meta table where there is none).
pub fn legend(source: SourceKind) -> String {
    let lanes: Vec<String> = Actor::lanes_for(source)
        .iter()
        .map(|a| match a {
            Actor::Source => "source".to_string(),
            Actor::Tasks => "tasks = SourceRDD".to_string(),
            Actor::Sink => "sink".to_string(),
            Actor::Checkpoint => "ckpt = checkpoint folder".to_string(),
            a => format!("{} = {}", lane(*a, Some(source)), a.label_for(source)),
        })
        .collect();
    format!(
        "time(ms)  #seq run  from → to  what   (lanes: {})",
        lanes.join(", ")
    )
}

fn lane(a: Actor, source: Option<SourceKind>) -> &'static str {
    use Actor::*;
    match (a, source) {
        (Driver, _) => "driver",
        (Source, _) => "source",
        (Tasks, _) => "tasks",
        (Tunnel, Some(SourceKind::ReplayableLog)) => "broker",
        (Tunnel, Some(SourceKind::SeaTunnel)) => "cdc",
        (Tunnel, _) => "tunnel",
        (MetaTable, _) => "meta",
        (Checkpoint, _) => "ckpt",
        (Sink, _) => "sink",
    }
}

/// One line for an event (lanes named as Tablestore's sources name them: see [`line_for`]).
pub fn line(e: &Event) -> String {
    line_of(e, None)
}

/// One line for an event of a scenario whose source is `source`, in that source's lanes.
pub fn line_for(e: &Event, source: SourceKind) -> String {
    line_of(e, Some(source))
}

fn line_of(e: &Event, source: Option<SourceKind>) -> String {
    let (from, to) = match source {
        Some(s) => e.kind.lanes_for(s),
        None => e.kind.lanes(),
    };
    let detail = match &e.kind {
        EventKind::Crashed { lost, .. } if !lost.is_empty() => {
            format!("  (lost: {})", lost.join("; "))
        }
        EventKind::QueryFailed { reason } => format!("  ({reason})"),
        EventKind::DriverLostLogRace { error, .. } => format!("  ({error})"),
        EventKind::LogKeptInMemory { .. } => {
            "  (async progress tracking: not written to the checkpoint; a restart cannot see it)"
                .to_string()
        }
        EventKind::DriverStalled { .. } => {
            "  (not dead: a GC pause or a network partition; a job scheduler takes it for dead)"
                .to_string()
        }
        EventKind::SinkWriteFailed { reason, .. } => format!("  ({reason})"),
        EventKind::TaskRead {
            error: Some(error), ..
        } => format!("  ({error})"),
        EventKind::TaskRead { aged_out, .. } if *aged_out > 0 => format!(
            "  (failOnDataLoss=false: {aged_out} aged out, skipped)"
        ),
        EventKind::TaskFailed {
            rows,
            retried,
            sink_down,
            oom_records,
            ..
        } => {
            let then = if *retried {
                "Spark retries the task (spark.task.maxFailures)"
            } else {
                "spark.task.maxFailures reached: the job and the batch fail"
            };
            match sink_down {
                Some(reason) => format!("  ({reason}: nothing reached the store; {then})"),
                None if *oom_records > 0 => format!(
                    "  (OutOfMemoryError: {oom_records} records, over task_memory_records; {then})"
                ),
                None => format!(
                    "  ({} handed to the sink: appended rows stay, staged rows are dropped; {then})",
                    crate::microbatch::event::label::rows_text(*rows)
                ),
            }
        }
        EventKind::CheckpointDeleted { .. } => {
            "  (an operator deleted it while the query was down; the restart is a new query that starts from the source's initial offsets)".to_string()
        }
        EventKind::OffsetLogTorn { bytes, .. } => {
            format!("  ({bytes} bytes written in place, never synced before the power loss)")
        }
        EventKind::QueryStarted {
            max_offsets_per_trigger: Some(n),
            ..
        } => format!("  (restarted with maxOffsetsPerTrigger {n}: a batch already in offsets/ keeps its logged range; the limit applies from the next batch constructed)"),
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
        lane(from, source),
        lane(to, source),
        source.map_or_else(|| e.kind.label(), |s| e.kind.label_for(s)),
        detail
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_source_has_its_own_legend() {
        assert_eq!(legend(SourceKind::Tablestore), LEGEND);
        let kafka = legend(SourceKind::ReplayableLog);
        assert!(kafka.contains("broker = Kafka broker"), "{kafka}");
        assert!(
            !kafka.contains("Meta table") && !kafka.contains("Tunnel"),
            "{kafka}"
        );
        assert!(legend(SourceKind::SeaTunnel).contains("cdc = CDC source"));
    }
}
