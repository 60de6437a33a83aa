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
//! PRECOMMIT → COMMIT), `faults` (failover, revision), `job`, `delay`, `trace`, and the model
//! pieces `spec`, `meta`, `table`, `snapshot`, `operator`, `query`.

pub mod budget;
mod commit;
mod cut;
mod delay;
mod event;
mod expire;
mod faults;
mod job;
mod meta;
mod operator;
mod query;
mod run;
mod snapshot;
mod spec;
mod table;
pub mod trace;
mod validate;
mod world;

pub use budget::TopologyWork;
pub use commit::{BarrierView, TableTxnState, TransactionState};
pub use delay::{DelayReport, DelaySample, DelaySeries};
pub use event::{
    BarrierEvent, BarrierEventKind, CdcRecord, FailPhase, ReplayRange, TableBarrierRef,
};
pub use job::{Job, JobCheckpoint, JobInput};
pub use meta::{
    BarrierRecord, HeldSnapshot, JobProgress, JobRegistration, MetaService, SnapshotRef,
    TableRegistration,
};
pub use operator::{OperatorState, Record};
pub use query::{lineage, Consistency, Query, QueryResult, QueryRow, ReadLevel, TableRead};
pub use run::{Fault, TopologyRun};
pub use snapshot::{PaimonSnapshot, SNAPSHOT_VERSION};
pub use spec::{
    CdcRecordSpec, CdcSpec, JobSpec, OperatorSpec, QuerySpec, RatioSpec, TableSpec, TopologyError,
    TopologySpec, CDC_COLUMNS, CDC_SOURCE,
};
pub use table::{Table, TableBarrier, TableRecord, TableSnapshot};
pub use world::TopologyWorld;

/// Where the model simplifies FLIP-276 (a design proposal under discussion, never released),
/// for the dashboard's lesson panel.
pub const SIMPLIFICATIONS: &str = "\
FLIP-276 is a design proposal, not a release; batchscope models its intent, simplified:
- One subtask per operator; alignment is shown between the two inputs of a join (and between a \
source's records and its barrier), not between parallel channels.
- At most one stateful operator per job (group-by sum or a join whose right side has one row per \
join key); stateless filter/project/forward run before or after it.
- A job reads barrier N of an upstream table only once that table has WRITTEN N (FLIP-276: \
downstream sources \"produce data after the upstream sink committed\").
- Every barrier gives every table a snapshot, even an empty one, so barrier <-> snapshot is dense.
- PRECOMMIT/COMMIT are announced over all tables of the topology. A query at Read Committed \
reads the newest transaction PROCESSED in every table it depends on (its tables and the tables \
they are computed from), at Repeatable Read the newest WRITTEN in every one; under Strong the \
\"tables it depends on\" are those of all the topology's queries together, so the queries agree \
(inferred from the FLIP's Min(table1 version, table2 version) example).
- Read Uncommitted reads the latest written data whatever the consistency: uncommitted data is \
not addressable by barrier, so neither Strong nor Weak pins it.
- A checkpoint holds barriers_per_checkpoint consecutive barriers, the same for every job. A failed \
job restores its last complete checkpoint and replays the barriers after it; barriers its table \
had already WRITTEN are recomputed, checked equal, and not committed again (as Paimon skips a \
commit whose identifier its commit user already committed); a failure never removes a snapshot.
- Snapshot expiration is bookkeeping: the MetaService marks a snapshot older than \
snapshot_retention expired unless a Repeatable Read reader of the topology's queries or a \
downstream job still uses it, but the data stays, so a revision may roll back past it.
- A barrier is a number issued every barrier_interval_ms; its <barrier, offset> range is stored \
by the MetaService rather than by each source.
- A revision replaces one barrier of a root table by corrected rows shipped with the topology \
(without them it replays the same data); the table and everything downstream roll back to the \
checkpoint before that barrier and recompute. Revision needs barriers.
- Without barriers, each job cuts its own checkpoints and reads every snapshot upstream has \
WRITTEN so far; checkpoint ids of different jobs are then not comparable.";

/// Built-in topologies: name and one-line description.
pub fn presets() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "shopping",
            "FLIP-276's avgPrice example: shopping -> user_item_amount / user_item_price",
        ),
        (
            "chain",
            "this project's own chain (not a FLIP-276 figure): table1 -> table2 (a sum) -> table3 (a join)",
        ),
        (
            "three-queries",
            "FLIP-276's Query1 / Query2 / Query3 over table1, table2, table3: Strong vs Weak",
        ),
    ]
}

/// A built-in topology by name.
pub fn preset(name: &str) -> Option<TopologySpec> {
    let text = match name {
        "shopping" => include_str!("presets/shopping.json"),
        "chain" => include_str!("presets/chain.json"),
        "three-queries" => include_str!("presets/three_queries.json"),
        _ => return None,
    };
    Some(TopologySpec::from_json(text).expect("built-in presets are valid"))
}
