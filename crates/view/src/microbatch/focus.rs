//! What the step on screen points at in each side panel: the file it wrote, the missing
//! `commits/N` a restart looks for, the Meta-table row a task wrote or threw on, the channel it
//! read, the sink batch it wrote. A tour stop scrolls this element into view and highlights it,
//! so the row the stop's text talks about is on screen, not below the fold.
//!
//! Each panel's rows carry a key (a file's path, `uuid/channel`, a channel id, `batch N`); the
//! focus is the key of the one row to point at, or `None` when the step touches none.

use crate::microbatch::panels::{ChannelRow, CheckpointFile, MetaRowView, RowRole, SinkView};
use batchscope_engine::microbatch::event::{Event, EventKind};

/// The key of the missing-commit placeholder of batch `n` in the checkpoint folder.
pub fn missing_commit_key(n: u64) -> String {
    format!("missing:commits/{n}")
}

/// The newest batch whose `offsets/N` is in the folder without its `commits/N`: the batch a
/// restart re-runs (Spark's `MicroBatchExecution` compares the two logs' latest ids).
pub fn missing_commit(files: &[CheckpointFile]) -> Option<u64> {
    let newest = |dir: &str| {
        files
            .iter()
            .filter(|f| f.dir == dir)
            .filter_map(|f| f.name.parse::<u64>().ok())
            .max()
    };
    let offsets = newest("offsets")?;
    (newest("commits") < Some(offsets)).then_some(offsets)
}

/// Whether the query stopped (the driver crashed, or the query failed) after `offsets/N` was
/// logged: then the missing `commits/N` is what the restart acts on. Before that, a batch whose
/// commit is not written yet is simply in flight.
pub fn stopped_after_offsets(events: &[Event], n: u64) -> bool {
    let logged = events.iter().rposition(
        |e| matches!(e.kind, EventKind::OffsetLogWritten { batch_id, .. } if batch_id == n),
    );
    logged.is_some_and(|i| {
        events[i..].iter().any(|e| {
            matches!(
                e.kind,
                EventKind::Crashed { .. } | EventKind::QueryFailed { .. }
            )
        })
    })
}

/// The checkpoint folder's focus: the file the step wrote, else the missing `commits/N`.
pub fn checkpoint_focus(files: &[CheckpointFile]) -> Option<String> {
    files
        .iter()
        .find(|f| f.new)
        .map(|f| f.path.clone())
        .or_else(|| missing_commit(files).map(missing_commit_key))
}

/// The key of a Meta-table row: `uuid/channel`.
pub fn meta_key(row: &MetaRowView) -> String {
    format!("{}/{}", row.uuid, row.channel)
}

/// The channel an event names, if it names one, as the panels' rows name it (`ch2`).
fn event_channel(kind: &EventKind) -> Option<String> {
    match kind {
        EventKind::TaskRead { channel, .. } | EventKind::ChannelState { channel, .. } => {
            Some(channel.to_string())
        }
        EventKind::MetaRowWritten { row, .. } => Some(row.channel.to_string()),
        _ => None,
    }
}

/// The Meta table's focus: the row the step wrote; else the start row of the channel the step
/// read (a task reads where the start UUID's row says); else the batch's first start row.
pub fn meta_focus(rows: &[MetaRowView], event: Option<&EventKind>) -> Option<String> {
    let channel = event.and_then(event_channel);
    rows.iter()
        .find(|r| r.written_now)
        .or_else(|| {
            rows.iter()
                .find(|r| r.role == RowRole::Start && Some(&r.channel) == channel.as_ref())
        })
        .or_else(|| rows.iter().find(|r| r.role == RowRole::Start))
        .map(meta_key)
}

/// The Channels panel's focus: the channel the step read or changed (a reader's partition by
/// its index).
pub fn channel_focus(rows: &[ChannelRow], event: Option<&EventKind>) -> Option<String> {
    let kind = event?;
    if let Some(channel) = event_channel(kind) {
        return rows.iter().find(|r| r.id == channel).map(|r| r.id.clone());
    }
    match kind {
        EventKind::ReaderPolled { partition, .. } => {
            rows.get(*partition as usize).map(|r| r.id.clone())
        }
        _ => None,
    }
}

/// The key of a batch's rows in the sink.
pub fn sink_key(batch_id: u64) -> String {
    format!("batch {batch_id}")
}

/// The sink's focus: the rows of the step's batch, if the sink holds any.
pub fn sink_focus(view: &SinkView, event: Option<&EventKind>) -> Option<String> {
    let batch = event?.batch_id()?;
    let held = view
        .stores
        .iter()
        .any(|s| s.groups.iter().any(|g| g.batch_id == batch))
        || view.files.iter().any(|f| f.batch_id == batch);
    held.then(|| sink_key(batch))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::microbatch::panels::{channel_rows, checkpoint_files, meta_rows, sink_view};
    use crate::microbatch::tab::Tab;
    use crate::microbatch::tour::{stop_cursors, tour};
    use batchscope_engine::microbatch::scenario::preset;
    use batchscope_engine::microbatch::World;

    /// The world of `name` with its tour's crash, stepped to `cursor` events.
    fn world_at(name: &str, cursor: usize) -> World {
        let mut s = preset(name).unwrap();
        if let Some(c) = tour(name).crash {
            s.crashes.push(c.parse().unwrap());
        }
        let mut w = World::new(s);
        for _ in 0..cursor {
            w.step();
        }
        w
    }

    /// kafka-append with its tour's crash (sink-commit@3): batch 0's missing commit is a batch
    /// in flight until the crash, batch 3's is what the restart acts on once it has crashed.
    #[test]
    fn a_missing_commit_is_alarming_only_after_the_query_stopped() {
        let mut w = world_at("kafka-append", 0);
        let mut seen_in_flight = false;
        while !w.is_converged() && w.events().len() < 5000 {
            w.step();
            let files = checkpoint_files(&w);
            let Some(n) = missing_commit(&files) else {
                continue;
            };
            let crashed = w
                .events()
                .iter()
                .any(|e| matches!(e.kind, EventKind::Crashed { .. }));
            let stopped = stopped_after_offsets(w.events(), n);
            if !crashed {
                assert!(!stopped, "batch {n} in flight before any crash");
                seen_in_flight = true;
            } else if n == 3 {
                assert!(stopped, "batch 3 after the crash at sink-commit@3");
                return;
            }
        }
        panic!("the run never showed batch 3's missing commit after the crash (in flight seen: {seen_in_flight})");
    }

    /// Every stop of every tour that shows the Checkpoint or Meta panel points at a row there,
    /// and the row exists in the panel's data.
    #[test]
    fn checkpoint_and_meta_stops_point_at_a_row() {
        let (mut checked, mut killed) = (0, 0);
        for p in batchscope_engine::microbatch::scenario::presets() {
            let t = tour(p.name);
            let probe = world_at(p.name, 0);
            let mut full = probe.clone();
            while !full.is_converged() && full.events().len() < 5000 {
                full.step();
            }
            for (stop, cursor) in t.stops.iter().zip(stop_cursors(&t.stops, full.events())) {
                let Some(cursor) = cursor else { continue };
                let w = world_at(p.name, cursor);
                let event = w.events().last().map(|e| &e.kind);
                match stop.panel {
                    Some(Tab::Checkpoint) => {
                        let files = checkpoint_files(&w);
                        let Some(key) = checkpoint_focus(&files) else {
                            continue;
                        };
                        let missing = missing_commit(&files).map(missing_commit_key);
                        assert!(
                            files.iter().any(|f| f.path == key) || missing == Some(key.clone()),
                            "{} · {}: {key}",
                            p.name,
                            stop.title
                        );
                        // "Killed before commits/3" points at the missing commits/3.
                        if let Some(n) = stop.title.strip_prefix("Killed before commits/") {
                            assert_eq!(key, format!("missing:commits/{n}"), "{}", p.name);
                            killed += 1;
                        }
                        checked += 1;
                    }
                    Some(Tab::Meta) if !w.meta_table.is_empty() => {
                        let rows = meta_rows(&w);
                        let key = meta_focus(&rows, event)
                            .unwrap_or_else(|| panic!("{} · {}: no focus", p.name, stop.title));
                        assert!(rows.iter().any(|r| meta_key(r) == key));
                        checked += 1;
                    }
                    _ => {}
                }
            }
        }
        assert!(checked > 20, "only {checked} stops checked");
        assert!(killed >= 5, "only {killed} crash stops checked");
    }

    /// A crash before `commits/N` points at the missing commit of exactly the batch the
    /// restart re-runs.
    #[test]
    fn a_crash_before_the_commit_points_at_the_missing_commit() {
        let mut s = preset("kafka-append").unwrap();
        s.crashes.push("sink-commit@2".parse().unwrap());
        let mut w = World::new(s);
        while !matches!(
            w.events().last().map(|e| &e.kind),
            Some(EventKind::Crashed { .. })
        ) {
            w.step();
        }
        let files = checkpoint_files(&w);
        assert_eq!(missing_commit(&files), Some(2));
        assert_eq!(checkpoint_focus(&files), Some(missing_commit_key(2)));
    }

    /// A task read points at its channel; a sink write at its batch's rows.
    #[test]
    fn reads_point_at_channels_and_writes_at_batches() {
        let mut w = World::new(preset("tablestore").unwrap());
        let mut channels = 0;
        let mut batches = 0;
        for _ in 0..400 {
            let kind = w.step().kind;
            if let EventKind::TaskRead { channel, .. } = &kind {
                let rows = channel_rows(&w);
                assert_eq!(
                    channel_focus(&rows, Some(&kind)).as_deref(),
                    Some(channel.to_string().as_str())
                );
                channels += 1;
            }
            if let EventKind::TaskFinished { batch_id, rows, .. } = &kind {
                if *rows > 0 {
                    let view = sink_view(&w, &Default::default());
                    assert_eq!(sink_focus(&view, Some(&kind)), Some(sink_key(*batch_id)));
                    batches += 1;
                }
            }
        }
        assert!(channels > 0 && batches > 0);
    }
}
