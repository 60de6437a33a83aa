//! The built-in topologies (JSON files in `presets/`) and where the model simplifies FLIP-276.

use super::TopologySpec;

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
downstream job still uses it (a job uses every snapshot after its last complete checkpoint: a \
restart reads them again), but the data stays, so a revision may roll back past it; a job that \
then reads an expired snapshot is shown reading it EXPIRED (in Paimon that read would fail).
- A barrier is a number issued every barrier_interval_ms; its <barrier, offset> range is stored \
by the MetaService rather than by each source.
- With several CDC sources, one barrier covers all of them, and offsets count the records of all \
sources together in arrival order. Under Strong, tables computed from a common CDC source are \
related (a table the queries depend on that is computed from two sources relates both), and \
each group of related tables is read at its \
own minimum version (our reading of the FLIP's \"minimum version of all the related tables \
according to the source tables and the dependencies between them\" and its Min(table3 version) \
example); a query is consistent when the related tables it reads stand at one barrier.
- A revision corrects one barrier of a root table with corrected rows shipped with the topology: \
each replaces the barrier's row with the same key (default userId and itemId), the other rows \
are kept (without corrected rows it replays the same data); the table and everything downstream \
roll back to the checkpoint before that barrier and recompute. Revision needs barriers.
- End-to-end delay is batchscope's definition, not the FLIP's (it asks how to define it and which \
ETL job to optimise): a table's delay = its snapshot's time - the CDC time of the newest record \
it covers; a job's = its snapshot's time - all its inputs of that barrier available; the job to \
optimise for a table = the job on its path from CDC with the largest mean job delay. The \
durations live in the simulation, not in a MetaService table.
- A `kafka` table stands for a topic behind Flink's exactly-once KafkaSink: a barrier's rows \
are one Kafka transaction, whose clock starts at the barrier's first write (Kafka starts it at the \
first record sent), pre-committed when the checkpoint holds the barrier (WRITTEN) and committed on \
COMMIT, or on the restore if the job was down then; the abort is seen when the commit is tried. \
No job or query reads the topic back.
- A checkpoint is notified complete when its barrier is COMMIT; after a restore the restored \
checkpoint is notified again (drawn for jobs whose `committer` the topology names).
- Without barriers, each job cuts its own checkpoints and reads every snapshot upstream has \
WRITTEN so far; checkpoint ids of different jobs are then not comparable.";

/// The built-in topologies' names, in the order the dashboard lists them (apart from their
/// descriptions, so a caller that needs only the names does not carry the words).
pub const PRESET_NAMES: [&str; 7] = [
    "shopping",
    "chain",
    "three-queries",
    "kafka-2pc-timeout",
    "paimon-expired-snapshot",
    "group-offset-lag",
    "notify-twice",
];

/// Each built-in topology's one-line description, in [`PRESET_NAMES`]'s order.
const DESCRIPTIONS: [&str; 7] = [
    "FLIP-276's avgPrice example: shopping -> user_item_amount / user_item_price",
    "this project's own chain (not a FLIP-276 figure): table1 -> table2 (a sum) -> table3 (a join)",
    "FLIP-276's Query1 / Query2 / Query3 over table1, table2 (CDC source cdc) and table3 (its own source cdc3): Strong vs Weak",
    "Flink's exactly-once Kafka sink: a job down longer than transaction.timeout.ms restores a checkpoint whose transaction the broker aborted — its rows are lost",
    "A Paimon streaming reader without consumer-id, restored onto a snapshot that expired while it was down: it fails on every restart",
    "A consumer group's committed offset lags the checkpoint: it moves only on a checkpoint's notification, and a restore uses the checkpoint, not the group",
    "A restored checkpoint is notified complete again: an idempotent committer skips it, one that throws fails on every restart until the restart strategy gives up",
];

/// Built-in topologies: name and one-line description.
pub fn presets() -> Vec<(&'static str, &'static str)> {
    PRESET_NAMES.into_iter().zip(DESCRIPTIONS).collect()
}

/// A built-in topology by name.
pub fn preset(name: &str) -> Option<TopologySpec> {
    let text = match name {
        "shopping" => include_str!("presets/shopping.json"),
        "chain" => include_str!("presets/chain.json"),
        "three-queries" => include_str!("presets/three_queries.json"),
        "kafka-2pc-timeout" => include_str!("presets/kafka_2pc_timeout.json"),
        "notify-twice" => include_str!("presets/notify_twice.json"),
        "group-offset-lag" => include_str!("presets/group_offset_lag.json"),
        "paimon-expired-snapshot" => include_str!("presets/paimon_expired_snapshot.json"),
        _ => return None,
    };
    Some(TopologySpec::from_json(text).expect("built-in presets are valid"))
}
