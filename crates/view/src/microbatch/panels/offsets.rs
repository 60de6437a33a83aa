//! The offsets the panels compare against: the batch in flight, or what the checkpoint
//! folder says the next run will use.

use crate::microbatch::labels::compact_offset;
use batchscope_engine::checkpoint::parse_initial_offset;
use batchscope_engine::microbatch::source::SourceOffset;
use batchscope_engine::microbatch::World;

/// The offsets the panels compare against: the batch in flight, or (between batches and
/// while the driver is down) what the checkpoint folder says the next run will use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchOffsets {
    /// The batch in flight, or the batch that will run next.
    pub batch_id: Option<u64>,
    /// Its start offset (the end of the previous batch; UUID₀ / the initial offsets for batch 0).
    pub start: Option<SourceOffset>,
    /// Its end offset, once `offsets/N` holds it.
    pub end: Option<SourceOffset>,
    /// Whether the driver has the batch in memory right now.
    pub in_flight: bool,
}

pub(crate) fn offset_line(world: &World, batch_id: u64) -> Option<SourceOffset> {
    let seq = world.checkpoint.offsets(batch_id).ok()??;
    let line = seq.offsets.first()?.clone()?;
    SourceOffset::parse(world.scenario().source.kind, &line, &world.upstream).ok()
}

/// The source's initial offset from `sources/0/0` (Tablestore: UUID₀).
pub fn initial_offset(world: &World) -> Option<SourceOffset> {
    let bytes = world.checkpoint.read("sources/0/0")?;
    let (_, body) = parse_initial_offset(bytes).ok()?;
    SourceOffset::parse(world.scenario().source.kind, &body, &world.upstream).ok()
}

/// See [`BatchOffsets`].
pub fn batch_offsets(world: &World) -> BatchOffsets {
    if let Some(b) = &world.driver.batch {
        return BatchOffsets {
            batch_id: Some(b.batch_id),
            start: b.start.clone().or_else(|| initial_offset(world)),
            end: Some(b.end.clone()),
            in_flight: true,
        };
    }
    let latest = world.checkpoint.latest_offset_id();
    let committed = world.checkpoint.latest_commit_id();
    match latest {
        None => BatchOffsets {
            batch_id: Some(0),
            start: initial_offset(world),
            end: None,
            in_flight: false,
        },
        Some(l) if committed == Some(l) => BatchOffsets {
            batch_id: Some(l + 1),
            start: offset_line(world, l),
            end: None,
            in_flight: false,
        },
        Some(l) => BatchOffsets {
            batch_id: Some(l),
            start: l
                .checked_sub(1)
                .and_then(|p| offset_line(world, p))
                .or_else(|| initial_offset(world)),
            end: offset_line(world, l),
            in_flight: false,
        },
    }
}

/// The UUID an offset names (Tablestore, auto-commit).
pub fn uuid_of(offset: &Option<SourceOffset>) -> Option<&str> {
    match offset {
        Some(SourceOffset::Uuid(u)) => Some(u.as_str()),
        _ => None,
    }
}

/// The compact form of an offset for a table cell.
pub fn offset_text(offset: &Option<SourceOffset>, world: &World) -> String {
    offset.as_ref().map_or("—".into(), |o| {
        compact_offset(&o.to_line(&world.upstream))
    })
}
