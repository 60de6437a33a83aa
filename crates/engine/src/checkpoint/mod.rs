//! Spark checkpoint folder: an in-memory file tree in Spark's exact on-disk format.
//!
//! Pure (no I/O): the simulation writes `metadata`, `offsets/N`, `commits/N` and
//! `sources/<i>/0` here byte for byte as Spark does, and `batchscope inspect` loads a
//! real folder into the same type to read it back (SEMANTICS.md §1.2, §1.4, §1.5).

mod commits;
mod folder;
mod format;
mod metadata;
mod offsets;
mod restart;

pub use commits::{CommitMetadata, COMMIT_LOG_MAX_VERSION};
pub use folder::{
    commits_path, offsets_path, CheckpointError, CheckpointFolder, COMMIT_LOG_DIR, METADATA_FILE,
    OFFSET_LOG_DIR,
};
pub use format::FormatError;
pub use metadata::{
    initial_offset_bytes, parse_initial_offset, QueryMetadata, INITIAL_OFFSET_MARKER,
};
pub use offsets::{OffsetSeq, OffsetSeqMetadata, OFFSET_LOG_MAX_VERSION, SERIALIZED_VOID_OFFSET};
pub use restart::{restart_plan, RestartAction, RestartPlan};
