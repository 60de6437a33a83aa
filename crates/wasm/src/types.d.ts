// ---- batchscope JSON shapes ----
// The JSON texts this API returns, typed. Parse them with JSON.parse:
//   const event: BatchscopeEvent = JSON.parse(sim.step());
// Field names are the engine's (snake_case). u64 values are JSON numbers; only seeds can
// exceed 2^53, so read `seed` from the text if a seed that large must stay exact.
// (Keep in step with the Rust types: a native test of batchscope-wasm compares each
// interface's fields with the JSON the engine emits.)

/** JSON text whose parsed value has type `T`. */
export type JsonText<T> = string & { readonly __jsonOf?: T };

/** A named protocol step at which the driver can be killed. */
export type CrashKindName =
    | "get-offset"
    | "offset-log"
    | "source-commit"
    | "get-batch"
    | "task"
    | "sink-commit"
    | "commit-log"
    | "state-prepared";

/** A crash point, `NAME@BATCH` (`sink-commit@3`). */
export type CrashPointName = `${CrashKindName}@${number}`;

/** The oracle's verdict on a finished run. */
export type Verdict = "exactly-once" | "stopped" | "duplicates" | "data-loss" | "duplicates-and-loss" | "stuck";

/** A channel position as the Tunnel server and Meta table hold it. */
export interface ChannelToken {
    /** Channel id (`ch0`). */
    channel: string;
    /** `t:17` (next record 17) or `finished`. */
    token: string;
}

/** What the driver does on restart. */
export type Recovery =
    | { action: "fresh" }
    | { action: "rerun"; batch_id: number }
    | { action: "next"; batch_id: number }
    | { action: "failed" };

/** One observable action of the simulation. */
export interface BatchscopeEvent {
    /** Position in the trace, from 0. */
    seq: number;
    /** Simulated time. */
    at_ms: number;
    /** Which run of the driver (1 for the first start, +1 per restart). */
    run: number;
    /** What happened. */
    kind: EventKind;
}

/** What happened; `type` tells which. */
export type EventKind =
    | QueryStarted
    | Recovered
    | RecoveryGetBatch
    | SourceInitialized
    | EpochAdvanced
    | TriggerFired
    | GetOffset
    | NoNewData
    | OffsetLogWritten
    | SourceCommit
    | ChannelState
    | GetBatch
    | AddBatch
    | TaskRead
    | ReaderPolled
    | StateFile
    | MetaRowWritten
    | TaskFinished
    | SinkWriteFailed
    | TaskFailed
    | CheckpointDeleted
    | OffsetLogTorn
    | MetadataLost
    | DriverStalled
    | DriverLostLogRace
    | SinkCommitted
    | CommitLogWritten
    | LogKeptInMemory
    | CheckpointWriteRejected
    | Idle
    | Crashed
    | QueryFailed;

/** The driver started (or restarted) the query and read `metadata`. */
export interface QueryStarted {
    type: "query-started";
    query_id: string;
    created: boolean;
    /** An `on_restart` change in force: `maxOffsetsPerTrigger` from this run on (0 = none). */
    max_offsets_per_trigger?: number;
}
/** The driver listed `offsets/` and `commits/` and chose what to do. */
export interface Recovered {
    type: "recovered";
    latest_offset: number | null;
    latest_commit: number | null;
    recovery: Recovery;
}
/** On restart after a committed batch, getBatch on the last batch without running it. */
export interface RecoveryGetBatch {
    type: "recovery-get-batch";
    batch_id: number;
}
/** The source initialised its private state. */
export interface SourceInitialized {
    type: "source-initialized";
    path: string;
    contents: string;
    meta_rows: ChannelToken[];
}
/** Continuous processing: the driver ended an epoch; every reader enqueues an epoch marker. */
export interface EpochAdvanced {
    type: "epoch-advanced";
    epoch: number;
}
/** A SeaTunnel reader polled its handover queue (`next()`). */
export interface ReaderPolled {
    type: "reader-polled";
    batch_id: number;
    partition: number;
    rows: number;
    idle_ms: number;
    /** Whether `next()` now returns false. */
    closes: boolean;
}
/** A SeaTunnel reader or sink wrote or renamed a state file under `sources/0/<batch>/<subtask>/`. */
export interface StateFile {
    type: "state-file";
    batch_id: number;
    path: string;
    renamed_from: string | null;
    contents: string;
}
/** The trigger fired for a new batch. */
export interface TriggerFired {
    type: "trigger-fired";
    batch_id: number;
}
/** getOffset returned the end offset of batch N. */
export interface GetOffset {
    type: "get-offset";
    batch_id: number;
    end: string;
    rows_read: number;
}
/** No new data: no batch this trigger. */
export interface NoNewData {
    type: "no-new-data";
    batch_id: number;
}
/** `offsets/N` was written. */
export interface OffsetLogWritten {
    type: "offset-log-written";
    batch_id: number;
    contents: string;
}
/** `source.commit(end_{N-1})` while constructing batch N. */
export interface SourceCommit {
    type: "source-commit";
    batch_id: number;
    end: string;
    checkpoints: ChannelToken[];
    deleted_rows: string[];
}
/** The Tunnel server changed a channel's state. */
export interface ChannelState {
    type: "channel-state";
    channel: string;
    state: string;
}
/** getBatch(start, end): the plan of the batch's tasks. */
export interface GetBatch {
    type: "get-batch";
    batch_id: number;
    start: string | null;
    end: string;
    partitions: ChannelToken[];
}
/** The sink was asked to add batch N. */
export interface AddBatch {
    type: "add-batch";
    batch_id: number;
    skipped: boolean;
}
/** A task read its channel. */
export interface TaskRead {
    type: "task-read";
    batch_id: number;
    partition: number;
    channel: string;
    from: string;
    to: string;
    rows: number;
    committed: boolean;
    /** Pull-ahead: the rows came from the cache getOffset filled (absent when false). */
    from_cache?: boolean;
    /** Kafka-like log: records at the start of the range retention deleted, skipped (absent when 0). */
    aged_out?: number;
}
/** A task wrote its channel's end checkpoint into the Meta table. */
export interface MetaRowWritten {
    type: "meta-row-written";
    batch_id: number;
    uuid: string;
    row: ChannelToken;
    overwritten: boolean;
}
/** A task finished and handed its rows to the sink. */
export interface TaskFinished {
    type: "task-finished";
    batch_id: number;
    partition: number;
    rows: number;
    /** `appended`, `upserted`, `staged`. */
    effect: string;
}
/** A sink write failed (the store is down). */
export interface SinkWriteFailed {
    type: "sink-write-failed";
    batch_id: number;
    reason: string;
}
/** The sink finished batch N. */
export interface SinkCommitted {
    type: "sink-committed";
    batch_id: number;
    rows: number;
    target: string;
    skipped: boolean;
}
/** `commits/N` was written: batch N is done. */
export interface CommitLogWritten {
    type: "commit-log-written";
    batch_id: number;
    contents: string;
}
/** A task attempt failed after handing its rows to the sink; retried unless it was the last. */
export interface TaskFailed {
    type: "task-failed";
    batch_id: number;
    partition: number;
    attempt: number;
    rows: number;
    retried: boolean;
    /** The down store's refusal (`sink store unavailable at …`); absent: the task threw. */
    sink_down?: string;
    /** The attempt ran out of memory holding this many records (over `task_memory_records`). */
    oom_records?: number;
}
/** While the query was down, its checkpoint folder was deleted: the next start is a new query. */
export interface CheckpointDeleted {
    type: "checkpoint-deleted";
    files: number;
}
/** After a `torn-offset-log` fault, `offsets/N` is found empty (never synced before the power loss). */
export interface OffsetLogTorn {
    type: "offset-log-torn";
    batch_id: number;
    bytes: number;
}
/** After a `metadata-lost` fault, the checkpoint's `metadata` file is gone. */
export interface MetadataLost {
    type: "metadata-lost";
}
/** After a `second-driver` fault, the driver stalls before `commits/N`; a second driver starts. */
export interface DriverStalled {
    type: "driver-stalled";
    batch_id: number;
}
/** The stalled first driver wakes, finds `commits/N` written by the second, and fails. */
export interface DriverLostLogRace {
    type: "driver-lost-log-race";
    batch_id: number;
    error: string;
}
/** Async progress tracking keeps `offsets/N` or `commits/N` in memory: not written to the checkpoint. */
export interface LogKeptInMemory {
    type: "log-kept-in-memory";
    batch_id: number;
    path: string;
}
/** A second write of an immutable checkpoint file was refused. */
export interface CheckpointWriteRejected {
    type: "checkpoint-write-rejected";
    path: string;
}
/** The query waits for the next trigger. */
export interface Idle {
    type: "idle";
    until_ms: number;
}
/** The driver was killed. */
export interface Crashed {
    type: "crashed";
    /** The crash point, or null for a crash-now. */
    point: CrashPointName | null;
    after_seq: number;
    lost: string[];
}
/** The query failed and stopped. */
export interface QueryFailed {
    type: "query-failed";
    reason: string;
}

/** Where the driver is in its loop; `phase` tells which. */
export type Phase =
    | { phase: "down"; until_ms: number }
    | { phase: "start" }
    | { phase: "recover" }
    | { phase: "recovery-get-batch"; batch_id: number }
    | { phase: "wait"; batch_id: number }
    | { phase: "trigger"; batch_id: number }
    | { phase: "get-offset"; batch_id: number }
    | { phase: "no-new-data"; batch_id: number }
    | { phase: "write-offsets"; batch_id: number }
    | { phase: "source-commit"; batch_id: number }
    | { phase: "get-batch"; batch_id: number }
    | { phase: "add-batch"; batch_id: number }
    | { phase: "task-read"; batch_id: number; task: number }
    | { phase: "task-finish"; batch_id: number; task: number }
    | { phase: "task-meta"; batch_id: number; task: number }
    | { phase: "sink-commit"; batch_id: number }
    | { phase: "commit-log"; batch_id: number }
    | { phase: "epoch-wait"; epoch: number }
    | { phase: "epoch-advance"; epoch: number }
    | { phase: "epoch-read"; epoch: number; task: number }
    | { phase: "epoch-offsets"; epoch: number }
    | { phase: "epoch-writer-commit"; epoch: number; task: number }
    | { phase: "epoch-sink-commit"; epoch: number }
    | { phase: "epoch-commit-log"; epoch: number }
    | { phase: "epoch-source-commit"; epoch: number }
    | { phase: "reader"; batch_id: number; task: number }
    | { phase: "stopped" }
    | { phase: "failing"; reason: string };

/** One moment of the run (`stateJson`). */
export interface State {
    scenario: string;
    seed: number;
    now_ms: number;
    run: number;
    phase: Phase;
    steps: number;
    converged: boolean;
    liveness_bound_ms: number;
    batches_committed: number;
    checkpoint_files: CheckpointFile[];
    meta_rows: MetaRowState[];
    tunnel_channels: TunnelChannelState[];
    sink: SinkState;
    crashes_pending: string[];
    crashes_fired: string[];
    oracle: OracleSoFar;
}

/** A file of the Spark checkpoint folder. */
export interface CheckpointFile {
    /** `offsets/3`, `commits/3`, `metadata`, `sources/0/0`. */
    path: string;
    text: string;
}

/** A row of the Meta table. */
export interface MetaRowState {
    uuid: string;
    channel: string;
    token: string;
    written_at_seq: number;
}

/** A channel of the Tunnel server. */
export interface TunnelChannelState {
    id: string;
    /** `WAIT`, `OPEN`, `TERMINATED`… */
    status: string;
    checkpoint: string;
    parent: string | null;
    arrived: number;
}

/** The sink's contents. */
export interface SinkState {
    kind: "file" | "upsert" | "append" | "foreach-batch" | "two-phase" | "batch-id-in-memory" | "txn-app-id";
    down: boolean;
    stores: StoreState[];
    visible_rows: number;
    rewrites: number;
    files: SinkFileState[];
    last_committed_epoch: number | null;
    staged_rows: number;
}

/** One store of the sink. */
export interface StoreState {
    name: string;
    rows: SinkRow[];
}

/** A visible row and the batch that wrote it. */
export interface SinkRow {
    batch_id: number;
    key: string;
}

/** A data file of the file sink. */
export interface SinkFileState {
    name: string;
    batch_id: number;
    rows: number;
    committed: boolean;
}

/** The oracle's view of the sink so far. */
export interface OracleSoFar {
    expected: number;
    delivered_keys: number;
    duplicates: number;
    duplicate_keys: string[];
    missing: number;
    /** A query stopped for good (`restart: none`): records its next start would deliver. */
    unread: number;
    /** Null while the run is neither converged nor past its liveness bound. */
    verdict: Verdict | null;
}

/** The oracle's report on a finished run (`reportJson`). */
export interface Report {
    preset: string;
    seed: number;
    batches_committed: number;
    expected: number;
    delivered: number;
    duplicates: number;
    lost: number;
    duplicate_keys: string[];
    lost_keys: string[];
    /** A query stopped for good: records still upstream for its next start (not lost). */
    unread: number;
    unread_keys?: string[];
    /** Lost records retention deleted before a task read them (failOnDataLoss false): aged out. */
    aged_out?: number;
    aged_out_keys?: string[];
    wrong_values: string[];
    verdict: Verdict;
    crashes: string[];
    crashes_fired: string[];
    crashes_unreached: string[];
    rewrites: number;
    orphan_files: number;
    source: SourceCounters;
    runs: number;
    end_ms: number;
    steps: number;
    events?: BatchscopeEvent[];
    /** The verdict's parts with the events that prove them (CLI `run`; absent when none). */
    anomalies?: Anomaly[];
    /** A bad run: the first event after which every failure-free continuation is bad. */
    inevitable_at?: Moment | null;
    /** A bad run: the last event whose failure-free continuation is exactly-once. */
    avoidable_until?: Moment | null;
}

/** One part of a bad verdict, named as Jepsen's queue checker names them where one fits. */
export interface Anomaly {
    name: "duplicate" | "lost" | "aged-out" | "wrong-value" | "unread-after-stop" | "stuck";
    /** Keys as text (`ch0-17`, `user-3`). */
    keys: string[];
    /** The `seq` of every event that proves it (`#N` in the text trace), ascending. */
    events: number[];
}

/** One event of the trace: its `seq` and its text line. */
export interface Moment {
    event: number;
    line: string;
}

/** Source costs. */
export interface SourceCounters {
    rows_read_by_tasks: number;
    rows_read_ahead: number;
    rows_cached: number;
    rows_cached_peak: number;
    read_records_calls: number;
}

/** A built-in preset (`presetsJson`). */
export interface Preset {
    name: string;
    description: string;
    scenario: Scenario;
}

/** A time window `[from_ms, to_ms)`. */
export interface Window {
    from_ms: number;
    to_ms: number;
}

/** Everything that defines a run (`fromScenarioJson`); optional fields have defaults. */
export interface Scenario {
    name?: string;
    description?: string;
    seed?: number;
    batches: number;
    upstream: UpstreamSpec;
    source: SourceSpec;
    sink: SinkSpec;
    trigger_interval_ms?: number;
    restart_delay_ms?: number;
    crashes?: CrashPointName[];
    crash_after_events?: number[];
    /** Micro-batch (default) or continuous processing. */
    execution?: "micro-batch" | "continuous";
    /** Failures inside a batch: `task-fail@N`, `foreach-fail@N`, `checkpoint-deleted@N`, `torn-offset-log@N`, `metadata-lost@N`. */
    faults?: FaultName[];
    /** `spark.task.maxFailures` (default 4). */
    task_max_failures?: number;
    /** Who restarts a failed query: nobody, or a job scheduler after `after_ms`. */
    restart?: "none" | { after_ms: number };
    /** The Spark release the query runs on ("3.5", "4.3"); absent: 4.3. */
    spark_version?: string;
    /** The most records one task can hold; an attempt holding more runs out of memory. */
    task_memory_records?: number;
    /** A change made before the `from`-th restart (default 1): a new maxOffsetsPerTrigger, or the count of sources. */
    on_restart?: { from?: number; max_offsets_per_trigger?: number; sources?: number; async_progress?: boolean };
    /** Asynchronous progress tracking (`asyncProgressTrackingCheckpointIntervalMs`); absent: off. */
    async_progress?: { checkpoint_interval_ms?: number };
}

/** A fault as `KIND@BATCH`. */
export type FaultName = string;

/** The simulated CDC table. */
export interface UpstreamSpec {
    channels: number;
    records_per_batch: number;
    idle?: Window[];
    bursts?: { channel: number; at_ms: number; records: number }[];
    splits?: { channel: number; at_ms: number }[];
}

/** The source and its options. */
export interface SourceSpec {
    kind: "replayable-log" | "tablestore" | "pull-ahead" | "auto-commit" | "seatunnel";
    max_offsets_per_channel?: number;
    page_size?: number;
    max_offsets_per_trigger?: number;
    /** SeaTunnel: when a micro-batch reader's next() returns false. */
    reader?: "never" | "idle-timeout" | "checkpoint-records" | "virtual-checkpoint";
    idle_timeout_ms?: number;
    checkpoint_interval_ms?: number;
    /** SeaTunnel: PR #7476 as its code does it, or the committed-only variant. */
    design?: "pr-7476" | "committed-only";
    /** Kafka-like log: where a new query starts (default latest). */
    starting_offsets?: "latest" | "earliest";
    /** Spark source API; absent: the kind's own. Only the Kafka-like log takes "v1" (the V1 KafkaSource). */
    api?: "v1" | "v2";
    /** Kafka-like log: a record is deleted from the log retention_ms after it arrived. */
    retention_ms?: number;
    /** Kafka-like log: Spark's failOnDataLoss (default true). */
    fail_on_data_loss?: boolean;
}

/** The sink and its faults. */
export interface SinkSpec {
    kind: "file" | "upsert" | "append" | "foreach-batch" | "two-phase" | "batch-id-in-memory" | "txn-app-id";
    stores?: number;
    outages?: Window[];
}
// ---- end of batchscope JSON shapes ----
