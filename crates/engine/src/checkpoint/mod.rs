//! Spark checkpoint folder: an in-memory file tree in Spark's exact on-disk format.
//!
//! Pure (no I/O): the simulation writes `metadata`, `offsets/N`, `commits/N` and
//! `sources/<i>/0` here byte for byte as Spark does, and `batchscope inspect` loads a
//! real folder into the same type to read it back (SEMANTICS.md §1.2, §1.4, §1.5).
//! [`inspect`] reads every format Spark 2.1 to 4.3 writes and predicts the restart
//! (dry-run and linter) for `batchscope inspect`.

mod commits;
mod confs;
mod dryrun;
mod folder;
mod format;
mod input;
mod intake;
mod lint;
mod metadata;
mod offsets;
mod report;
mod restart;
mod sink_log;
mod sources;
mod state;

pub use commits::{parse_commit_sinks, CommitMetadata, SinkMetadataInfo, COMMIT_LOG_MAX_VERSION};
pub use confs::{
    restored_confs, session_key, RestoredConf, SHUFFLE_PARTITIONS, STATE_PARTITIONS_INTERNAL,
};
pub use dryrun::{dry_run, DryRunInput, ReRunEffect, RestartReport};
pub use folder::{
    commits_path, offsets_path, CheckpointError, CheckpointFolder, COMMIT_LOG_DIR, METADATA_FILE,
    OFFSET_LOG_DIR,
};
pub use format::FormatError;
pub use input::{local_path, rerun_input, InputFile, RerunInput, MISSING_INPUT_WARNING};
pub use intake::{
    byte_limit, find_root, is_ignored_name, Admit, Intake, MAX_DEPTH, MAX_ENTRIES, MAX_FILE_BYTES,
    MAX_LOG_FILE_BYTES, MAX_NOTES, MAX_TOTAL_BYTES, SOURCES_DIR,
};
pub use lint::{lint, LintInput, Problem, Severity};
pub use metadata::{
    initial_offset_bytes, parse_initial_offset, QueryMetadata, INITIAL_OFFSET_MARKER,
};
pub use offsets::{
    LoggedSourceOffset, OffsetLogEntry, OffsetSeq, OffsetSeqMetadata, SourceId,
    OFFSET_LOG_MAX_VERSION, SERIALIZED_VOID_OFFSET,
};
pub use report::{inspect, BatchSummary, InspectOptions, Inspection, LogFormat, StateReport};
pub use restart::{
    restart_plan, restart_plan_with, spark_read_error, RestartAction, RestartOptions, RestartPlan,
    RestartRule, SparkVersion, EMPTY_LOG_FILE_ERROR,
};
pub use sink_log::{file_sink_log, FileSinkLog, SINK_LOG_DIR};
pub use sources::{kind_of_offset, source_reports, FileSourceLog, SourceReport};
pub use state::{state_operators, StateOperator, STATE_DIR};
