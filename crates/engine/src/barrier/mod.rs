//! FLIP-276 timestamp barriers across an ETL topology of jobs and tables (SEMANTICS §5.1, the
//! seed `seeds/003_4776cf6f17e5e041.txt`): MetaService, global barriers, PROCESSED / WRITTEN /
//! PRECOMMIT / COMMIT, queries at Read Uncommitted / Read Committed / Repeatable Read with
//! Strong or Weak consistency, end-to-end delay, failover, revision, and the contrast without
//! barriers.
//!
//! Start with [`TopologyWorld::new`] on a [`preset`] and call [`TopologyWorld::step`]; every
//! call performs one observable action and returns a [`BarrierEvent`]; [`trace::line`] prints
//! it. The files: `event` (what happens), `run` (recorded inputs and faults), `world` (state,
//! queue, public API), `cut` (what enters a barrier), `commit` (PROCESSED → WRITTEN →
//! PRECOMMIT → COMMIT), `faults` (failover, revision), `revise` (corrected rows merged into a
//! revised barrier), `job`, `delay`, `trace`, and the model
//! pieces `spec`, `meta`, `table`, `snapshot`, `operator`, `query`.

pub mod budget;
mod commit;
mod cut;
mod delay;
mod event;
mod expire;
mod fault;
mod faults;
mod job;
mod meta;
mod operator;
mod presets;
mod query;
mod revise;
mod run;
mod sinks;
mod snapshot;
mod spec;
mod stats;
mod table;
pub mod trace;
mod txn;
mod validate;
mod world;

pub use budget::TopologyWork;
pub use commit::{BarrierView, TableTxnState, TransactionState};
pub use delay::{DelayReport, DelaySample, DelaySeries, TableJobToOptimise};
pub use event::{
    BarrierEvent, BarrierEventKind, CdcRecord, FailPhase, ReplayRange, RevisionReplay,
    RowCorrection, TableBarrierRef,
};
pub use job::{Job, JobCheckpoint, JobInput};
pub use meta::{
    BarrierRecord, HeldSnapshot, JobProgress, JobRegistration, MetaService, SnapshotRef,
    TableRegistration,
};
pub use operator::{OperatorState, Record};
pub use presets::{preset, presets, PRESET_NAMES, SIMPLIFICATIONS};
pub use query::{
    lineage, related_groups, Consistency, Query, QueryResult, QueryRow, ReadLevel, TableRead,
};
pub use run::{Fault, TopologyRun};
pub use sinks::{
    Committer, SnapshotGuard, TableKind, Txn, TxnState, DEFAULT_TRANSACTION_TIMEOUT_MS,
};
pub use snapshot::{PaimonSnapshot, SNAPSHOT_VERSION};
pub use spec::is_cdc_source;
pub use spec::{
    CdcRecordSpec, CdcSpec, JobSpec, OperatorSpec, QuerySpec, RatioSpec, TableSpec, TopologyError,
    TopologySpec, CDC_COLUMNS, CDC_SOURCE,
};
pub use stats::{
    checkpoint_stats, progress_markers, CheckpointCounts, CheckpointRef, CheckpointStats,
    LatestCheckpoints, MarkerPoint,
};
pub use table::{Table, TableBarrier, TableRecord, TableSnapshot};
pub use world::TopologyWorld;
