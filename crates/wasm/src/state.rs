//! The summary of a world that `Simulation::state_json` returns: what a JavaScript view draws.
//!
//! Built at the boundary from the engine's durable and volatile state; the shapes are declared
//! for TypeScript in `types.d.ts` (interface `State` and the ones it names).

use batchscope_check::oracle::{is_stuck, liveness_bound_ms};
use batchscope_check::progress::{fired_crash_names, so_far};
use batchscope_check::Verdict;
use batchscope_engine::microbatch::upstream::RowKey;
use batchscope_engine::microbatch::Phase;
use batchscope_engine::microbatch::World;
use serde::Serialize;
use std::collections::BTreeMap;

/// Everything a view needs to draw one moment of the run.
#[derive(Clone, Debug, Serialize)]
pub struct State {
    /// Scenario name.
    pub scenario: String,
    /// Seed of the run.
    pub seed: u64,
    /// Simulated time now.
    pub now_ms: u64,
    /// Which run of the driver (1 = first start, 0 before it).
    pub run: u32,
    /// Where the driver is in its loop.
    pub phase: Phase,
    /// Events so far.
    pub steps: u64,
    /// Whether the run has settled (see `World::is_converged`).
    pub converged: bool,
    /// Simulated time by which the run must converge, or it is stuck.
    pub liveness_bound_ms: u64,
    /// `commits/` entries (the latest id + 1).
    pub batches_committed: u64,
    /// Files of the Spark checkpoint folder, by path.
    pub checkpoint_files: Vec<CheckpointFile>,
    /// Rows of the Meta table, by (uuid, channel).
    pub meta_rows: Vec<MetaRowState>,
    /// Channels of the Tunnel server.
    pub tunnel_channels: Vec<TunnelChannelState>,
    /// The sink's contents.
    pub sink: SinkState,
    /// Crashes armed and not reached yet (`NAME@N`).
    pub crashes_pending: Vec<String>,
    /// Crashes that fired (`NAME@N`, or `after-event@SEQ` for a crash-now).
    pub crashes_fired: Vec<String>,
    /// The oracle's view so far.
    pub oracle: OracleSoFar,
}

/// One file of the checkpoint folder.
#[derive(Clone, Debug, Serialize)]
pub struct CheckpointFile {
    /// Path inside the folder (`offsets/3`).
    pub path: String,
    /// Contents as UTF-8 text (invalid bytes replaced; `sources/0/0` keeps its leading NUL).
    pub text: String,
}

/// One row of the Meta table.
#[derive(Clone, Debug, Serialize)]
pub struct MetaRowState {
    /// Batch UUID.
    pub uuid: String,
    /// Channel id.
    pub channel: String,
    /// `t:17` or `finished`.
    pub token: String,
    /// Sequence number of the event that last wrote it.
    pub written_at_seq: u64,
}

/// One channel as the Tunnel server holds it.
#[derive(Clone, Debug, Serialize)]
pub struct TunnelChannelState {
    /// Channel id.
    pub id: String,
    /// `WAIT`, `OPEN`, `TERMINATED`…
    pub status: String,
    /// The checkpoint the client last committed: `t:17` or `finished`.
    pub checkpoint: String,
    /// Parent channel id, which must finish first.
    pub parent: Option<String>,
    /// Records arrived upstream on this channel by now.
    pub arrived: u64,
}

/// The sink's durable contents and the current attempt's staged rows.
#[derive(Clone, Debug, Serialize)]
pub struct SinkState {
    /// `file`, `upsert`, `append`, `foreach-batch`, `two-phase`.
    pub kind: String,
    /// Whether the store is down now (an outage window).
    pub down: bool,
    /// Visible rows per store.
    pub stores: Vec<StoreState>,
    /// Visible rows in all stores, with repeats.
    pub visible_rows: u64,
    /// Upsert: rows written again by a replay and absorbed by the key.
    pub rewrites: u64,
    /// File sink: data files, committed or orphaned.
    pub files: Vec<SinkFileState>,
    /// Two-phase: the last epoch committed.
    pub last_committed_epoch: Option<u64>,
    /// Rows staged by the current attempt, lost on a crash.
    pub staged_rows: u64,
}

/// One store of the sink.
#[derive(Clone, Debug, Serialize)]
pub struct StoreState {
    /// Store name (`table`, `store-0`…).
    pub name: String,
    /// Visible rows in write order.
    pub rows: Vec<SinkRow>,
}

/// A visible row and the batch that wrote it.
#[derive(Clone, Debug, Serialize)]
pub struct SinkRow {
    /// The batch whose attempt wrote it.
    pub batch_id: u64,
    /// The row's key (`ch0-17`; `user-3` in a running sum), serialised as its text.
    pub key: RowKey,
}

/// A data file of the file sink.
#[derive(Clone, Debug, Serialize)]
pub struct SinkFileState {
    /// File name.
    pub name: String,
    /// The batch whose attempt wrote it.
    pub batch_id: u64,
    /// Rows in it.
    pub rows: u64,
    /// Whether `_spark_metadata` lists it (an unlisted file is an invisible orphan).
    pub committed: bool,
}

/// The oracle's judgement of the sink as it is now, against a failure-free run.
#[derive(Clone, Debug, Serialize)]
pub struct OracleSoFar {
    /// Records a failure-free run delivers.
    pub expected: u64,
    /// Expected records visible now (each counted once).
    pub delivered_keys: u64,
    /// Extra copies beyond the first, so far (a duplicate never goes away).
    pub duplicates: u64,
    /// Keys visible more than once, as text.
    pub duplicate_keys: Vec<RowKey>,
    /// Expected records not visible yet (lost only if still missing at convergence).
    pub missing: u64,
    /// Of a query stopped for good (`restart: none`): records it never delivered that its next
    /// start would (not lost; not in `missing`).
    pub unread: u64,
    /// The final verdict: set once the run converged (or passed its liveness bound: `stuck`).
    pub verdict: Option<Verdict>,
}

/// Whether the run is over: converged, or past the oracle's liveness bound (stuck).
pub fn finished(world: &World) -> bool {
    world.is_converged() || is_stuck(world)
}

/// The summary of `world`, judged against `expected` (key → 1 for every key that should arrive:
/// every record the upstream produced).
pub fn summarize(
    world: &World,
    expected: &BTreeMap<RowKey, u64>,
    verdict: Option<Verdict>,
) -> State {
    let s = world.scenario();
    let progress = so_far(world, expected);
    let channel_id = |i: u32| world.upstream.channel(i).id.clone();
    State {
        scenario: s.name.clone(),
        seed: s.seed,
        now_ms: world.now_ms(),
        run: world.run(),
        phase: world.phase().clone(),
        steps: world.events().len() as u64,
        converged: world.is_converged(),
        liveness_bound_ms: liveness_bound_ms(world),
        batches_committed: world.batches_committed(),
        checkpoint_files: world
            .checkpoint
            .files()
            .map(|(path, bytes)| CheckpointFile {
                path: path.to_string(),
                text: String::from_utf8_lossy(bytes).into_owned(),
            })
            .collect(),
        meta_rows: world
            .meta_table
            .rows()
            .map(|r| MetaRowState {
                uuid: r.uuid.clone(),
                channel: r.channel.clone(),
                token: r.token.to_string(),
                written_at_seq: r.written_at_seq,
            })
            .collect(),
        tunnel_channels: world
            .tunnel
            .channels
            .iter()
            .map(|c| TunnelChannelState {
                id: c.id.clone(),
                status: c.status.name().to_string(),
                checkpoint: c.checkpoint.to_string(),
                parent: c.parent.map(channel_id),
                arrived: world.upstream.channel(c.index).arrived(world.now_ms()),
            })
            .collect(),
        sink: sink_state(world),
        crashes_pending: world
            .pending_crashes()
            .iter()
            .map(|c| c.to_string())
            .collect(),
        crashes_fired: fired_crash_names(world),
        oracle: OracleSoFar {
            expected: progress.expected,
            delivered_keys: progress.delivered,
            duplicates: progress.duplicates,
            missing: progress.missing,
            unread: progress.unread,
            duplicate_keys: progress.duplicate_keys,
            verdict,
        },
    }
}

fn sink_state(world: &World) -> SinkState {
    let sink = &world.sink;
    let kind = serde_json::to_value(sink.kind())
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    SinkState {
        kind,
        down: sink.is_down(world.now_ms()),
        stores: sink
            .stores
            .iter()
            .map(|st| StoreState {
                name: st.name.clone(),
                rows: st
                    .rows
                    .iter()
                    .map(|r| SinkRow {
                        batch_id: r.batch_id(),
                        key: sink.row_key(r),
                    })
                    .collect(),
            })
            .collect(),
        visible_rows: sink.visible_len(),
        rewrites: sink.rewrites(),
        files: sink
            .files
            .iter()
            .map(|f| SinkFileState {
                name: f.name.clone(),
                batch_id: f.batch_id,
                rows: f.rows,
                committed: f.committed,
            })
            .collect(),
        last_committed_epoch: sink.last_committed_epoch,
        staged_rows: sink.staged_len(),
    }
}
