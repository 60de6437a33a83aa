//! The live panels as plain data computed from a `World`: channels, Meta-table rows, the
//! checkpoint folder, the sink, and the verdict badge. The dashboard only renders these.
//!
//! One file per panel ([`channels`], [`meta`], [`files`], [`sink`], [`badge`](mod@badge)) and the
//! [`offsets`] they share; everything is re-exported here.

pub mod badge;
pub mod channels;
pub mod files;
pub mod meta;
pub mod offsets;
pub mod sink;

pub use badge::{badge, progress_badge, Badge};
pub use channels::{channel_rows, ChannelRow};
pub use files::{checkpoint_files, files_written_by, CheckpointFile};
pub use meta::{meta_rows, MetaRowView, RowRole};
pub use offsets::{batch_offsets, initial_offset, offset_text, uuid_of, BatchOffsets};
pub use sink::{
    committed_positions, lost_keys, lost_keys_behind, sink_kind_text, sink_view, sink_view_of,
    sink_view_with, Committed, EarlierFiles, KeyChip, KeyList, Lost, RowGroup, SinkDetail,
    SinkFileView, SinkView, StoreView, LISTED_KEYS, MAX_FILES, MAX_GROUPS,
};

#[cfg(test)]
mod tests;
