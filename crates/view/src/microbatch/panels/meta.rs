//! The Meta-table panel: rows grouped by UUID, marked by their role for the batch in view.

use crate::microbatch::labels::shorten_uuids;
use crate::microbatch::panels::offsets::{batch_offsets, initial_offset, offset_line, uuid_of};
use batchscope_engine::microbatch::source::SourceOffset;
use batchscope_engine::microbatch::World;
use std::collections::BTreeMap;

/// The role of a Meta-table row for the batch in view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowRole {
    /// A row of the start UUID: where the batch's tasks begin.
    Start,
    /// A row of the end UUID: written by the batch's tasks.
    End,
    /// Any other row (an older batch's).
    Other,
}

/// One Meta-table row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetaRowView {
    /// The full UUID.
    pub uuid: String,
    /// The UUID cut to 8 characters.
    pub uuid_short: String,
    /// Channel id.
    pub channel: String,
    /// The token (`t:17`, `finished`).
    pub token: String,
    /// The `channelOffset` attribute as stored.
    pub channel_offset: String,
    /// Start, end or other.
    pub role: RowRole,
    /// Written (or overwritten) by the step on screen.
    pub written_now: bool,
    /// Which offset names this UUID (`sources/0/0`, `offsets/3`) or empty if none does.
    pub named_by: String,
}

/// The Meta table, grouped by UUID in the order the UUIDs were first written.
pub fn meta_rows(world: &World) -> Vec<MetaRowView> {
    // Every row comes from the Meta table: a source that writes none (Kafka, SeaTunnel) skips
    // the offset log's parse below, which grows with the run (it runs at every step).
    if world.meta_table.rows().next().is_none() {
        return vec![];
    }
    let offsets = batch_offsets(world);
    let start = uuid_of(&offsets.start).map(str::to_string);
    let end = uuid_of(&offsets.end).map(str::to_string);
    let last_seq = world.events().last().map(|e| e.seq);
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    if let Some(SourceOffset::Uuid(u)) = initial_offset(world) {
        names.insert(u, "sources/0/0".into());
    }
    for id in world.checkpoint.offset_log_ids() {
        if let Some(SourceOffset::Uuid(u)) = offset_line(world, id) {
            names.insert(u, format!("offsets/{id}"));
        }
    }
    let mut first_seen: BTreeMap<&str, u64> = BTreeMap::new();
    for r in world.meta_table.rows() {
        let e = first_seen
            .entry(r.uuid.as_str())
            .or_insert(r.written_at_seq);
        *e = (*e).min(r.written_at_seq);
    }
    let mut rows: Vec<MetaRowView> = world
        .meta_table
        .rows()
        .map(|r| MetaRowView {
            uuid: r.uuid.clone(),
            uuid_short: shorten_uuids(&r.uuid),
            channel: r.channel.clone(),
            token: r.token.to_string(),
            channel_offset: r.channel_offset_json(),
            role: if start.as_deref() == Some(r.uuid.as_str()) {
                RowRole::Start
            } else if end.as_deref() == Some(r.uuid.as_str()) {
                RowRole::End
            } else {
                RowRole::Other
            },
            written_now: Some(r.written_at_seq) == last_seq,
            named_by: names.get(&r.uuid).cloned().unwrap_or_default(),
        })
        .collect();
    rows.sort_by(|a, b| {
        (first_seen[a.uuid.as_str()], &a.uuid, &a.channel).cmp(&(
            first_seen[b.uuid.as_str()],
            &b.uuid,
            &b.channel,
        ))
    });
    rows
}
