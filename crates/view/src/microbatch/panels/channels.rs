//! The Channels panel: each channel's position at the batch's start and end, and what is held
//! in memory.

use crate::microbatch::panels::offsets::batch_offsets;
use batchscope_engine::microbatch::event::label::rows_text;
use batchscope_engine::microbatch::scenario::SourceKind;
use batchscope_engine::microbatch::source::SourceOffset;
use batchscope_engine::microbatch::World;

/// One channel (partition) in the Channels panel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChannelRow {
    /// Channel id (`ch0`).
    pub id: String,
    /// Parent channel id of a split child.
    pub parent: Option<String>,
    /// Tunnel status (`OPEN`, `WAIT`, `TERMINATED`); `None` for a Kafka-like partition.
    pub status: Option<String>,
    /// The checkpoint committed to the Tunnel server; `None` for a Kafka-like partition
    /// (Spark never commits to Kafka, SEMANTICS §6).
    pub server_checkpoint: Option<String>,
    /// Position in the batch's start offset (Tablestore: the start UUID's Meta row).
    pub start: String,
    /// Position in the batch's end offset (Tablestore: the end UUID's Meta row, written by its task).
    pub end: String,
    /// What the driver and tasks hold in memory (read positions, pull-ahead cache).
    pub in_memory: String,
    /// Records arrived upstream so far.
    pub arrived: u64,
    /// Records the channel will ever hold.
    pub total: u64,
}

fn position_in(world: &World, offset: &Option<SourceOffset>, index: u32, id: &str) -> String {
    match offset {
        None => "—".into(),
        Some(SourceOffset::Log(map)) => map.get(&index).map_or("—".into(), u64::to_string),
        Some(SourceOffset::Positions(map)) => {
            map.get(&index).map_or("—".into(), |t| t.to_string())
        }
        Some(SourceOffset::Checkpoint(batch)) => {
            format!("state t:{}", world.seatunnel_restore(*batch, index))
        }
        Some(SourceOffset::Uuid(u)) => world
            .meta_table
            .rows_of(u)
            .into_iter()
            .find(|r| r.channel == id)
            .map_or("no row".into(), |r| r.token.to_string()),
    }
}

fn in_memory(world: &World, index: u32) -> String {
    // Kafka-like positions are plain offsets; tokens print as `t:9`.
    let kafka = world.scenario().source.kind == SourceKind::ReplayableLog;
    let pos = |t: batchscope_engine::microbatch::tunnel::Token| {
        let s = t.to_string();
        if kafka {
            s.trim_start_matches("t:").to_string()
        } else {
            s
        }
    };
    let mut parts = vec![];
    if let Some(b) = &world.driver.batch {
        if let Some(i) = b.plan.iter().position(|p| p.channel == index) {
            let start = pos(b.plan[i].start);
            match b.reads.get(i) {
                Some(r) => parts.push(format!(
                    "read {start} → {} · {}",
                    pos(r.end),
                    rows_text(r.rows.len())
                )),
                None => parts.push(format!("planned from {start}")),
            }
        }
    }
    for ((ch, start), (end, rows)) in &world.source.cache {
        if *ch == index {
            parts.push(format!(
                "cached {start} → {end} · {}",
                rows_text(rows.len())
            ));
        }
    }
    if parts.is_empty() {
        "—".into()
    } else {
        parts.join("; ")
    }
}

/// The Channels panel.
pub fn channel_rows(world: &World) -> Vec<ChannelRow> {
    let offsets = batch_offsets(world);
    let kafka = world.scenario().source.kind == SourceKind::ReplayableLog;
    let now = world.now_ms();
    world
        .tunnel
        .channels
        .iter()
        .map(|c| {
            let up = world.upstream.channel(c.index);
            ChannelRow {
                id: c.id.clone(),
                parent: c.parent.map(|p| world.upstream.channel(p).id.clone()),
                status: (!kafka).then(|| c.status.name().to_string()),
                server_checkpoint: (!kafka).then(|| c.checkpoint.to_string()),
                start: position_in(world, &offsets.start, c.index, &c.id),
                end: position_in(world, &offsets.end, c.index, &c.id),
                in_memory: in_memory(world, c.index),
                arrived: up.arrived(now),
                total: up.len(),
            }
        })
        .collect()
}
