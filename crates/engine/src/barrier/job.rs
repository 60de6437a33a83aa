//! A running ETL job: its inputs and what it consumed, the barriers it buffered (alignment),
//! PROCESSED and WRITTEN, its operator state, and the checkpoints it restores from.
//!
//! Invariants kept here: a job's barriers advance one at a time (`processed` by one on each
//! PROCESSED, `written` by one on each WRITTEN), and `written ≤ processed`.

use std::collections::BTreeMap;

use serde::Serialize;

use super::operator::{OperatorState, Pipeline, Record};
use super::spec::{is_cdc_source, JobSpec, TopologySpec};

/// What a job's inputs delivered for one barrier (own checkpoint without barriers) before the
/// operator computes it.
#[derive(Clone, Debug, Serialize)]
pub(super) struct Arrival {
    /// Per input: its records (stateful jobs only), `None` until the input's barrier arrived.
    pub(super) deltas: Vec<Option<Vec<Record>>>,
    /// Per input: CDC records reflected once the input's part is complete.
    pub(super) coverage: Vec<u64>,
    /// Per input: when its part became available.
    pub(super) available_at_ms: Vec<u64>,
    /// Without barriers: input positions and CDC records streamed when the checkpoint was cut.
    pub(super) consumed: Vec<u64>,
    /// Without barriers: CDC records streamed into the sink when the checkpoint was cut.
    pub(super) cdc_written: u64,
}

impl Arrival {
    /// Nothing arrived yet on any of `inputs` inputs.
    pub(super) fn empty(inputs: usize) -> Self {
        Arrival {
            deltas: vec![None; inputs],
            coverage: vec![0; inputs],
            available_at_ms: vec![0; inputs],
            consumed: Vec::new(),
            cdc_written: 0,
        }
    }

    /// Whether every input's part has arrived (the operator can align and compute).
    pub(super) fn complete(&self) -> bool {
        self.deltas.iter().all(Option::is_some)
    }
}

/// What a job restores on restart: state at a WRITTEN barrier and its input positions.
#[derive(Clone, Debug, Default, Serialize)]
pub struct JobCheckpoint {
    /// Stateful operator's state.
    pub state: OperatorState,
    /// Per input: last barrier consumed (without barriers: upstream checkpoint / CDC offset).
    pub consumed: Vec<u64>,
    /// CDC records already streamed into the sink.
    pub cdc_written: u64,
    /// When all inputs of the barrier were available.
    pub ready_at_ms: u64,
}

/// One input of a job.
#[derive(Clone, Debug, Serialize)]
pub struct JobInput {
    /// Table read, or `cdc`.
    pub source: String,
    /// Last barrier read (without barriers: upstream checkpoint, or CDC offset for `cdc`).
    pub consumed: u64,
    #[serde(skip)]
    pub(super) read_scheduled: bool,
}

/// A running ETL job.
#[derive(Clone, Debug, Serialize)]
pub struct Job {
    /// Its spec.
    pub spec: JobSpec,
    /// Running (false between a failure and the restart).
    pub up: bool,
    /// Inputs.
    pub inputs: Vec<JobInput>,
    /// Latest barrier its sink PROCESSED.
    pub processed: u64,
    /// Latest barrier WRITTEN (its checkpoint).
    pub written: u64,
    /// Snapshot held by a fault.
    pub held: Option<u64>,
    /// Barriers with input arrived but not processed (buffered by alignment).
    pub buffered: Vec<u64>,
    /// Stateful operator's state as of `processed`.
    pub state: OperatorState,
    /// Barriers per checkpoint (1 without timestamp barriers: each own checkpoint is one).
    pub per_checkpoint: u64,
    #[serde(skip)]
    pub(super) pipeline: Pipeline,
    #[serde(skip)]
    pub(super) arrived: BTreeMap<u64, Arrival>,
    #[serde(skip)]
    pub(super) staged: BTreeMap<u64, JobCheckpoint>,
    #[serde(skip)]
    pub(super) checkpoints: BTreeMap<u64, JobCheckpoint>,
    #[serde(skip)]
    pub(super) cdc_written: u64,
    #[serde(skip)]
    pub(super) process_scheduled: bool,
    #[serde(skip)]
    pub(super) snapshot_scheduled: bool,
    /// Failures so far (each spends a restart attempt).
    #[serde(skip)]
    pub(super) restarts: u64,
    /// The last barrier of the checkpoint the latest failure restored.
    #[serde(skip)]
    pub(super) restored_from: u64,
}

impl Job {
    /// A job of `spec` that has read nothing yet.
    pub(super) fn new(topology: &TopologySpec, spec: &JobSpec) -> Self {
        Job {
            pipeline: Pipeline::new(topology, spec),
            spec: spec.clone(),
            up: true,
            inputs: spec
                .sources
                .iter()
                .map(|s| JobInput {
                    source: s.clone(),
                    consumed: 0,
                    read_scheduled: false,
                })
                .collect(),
            processed: 0,
            written: 0,
            held: None,
            buffered: Vec::new(),
            state: OperatorState::default(),
            per_checkpoint: topology.per_checkpoint(),
            arrived: BTreeMap::new(),
            staged: BTreeMap::new(),
            checkpoints: BTreeMap::new(),
            cdc_written: 0,
            process_scheduled: false,
            snapshot_scheduled: false,
            restarts: 0,
            restored_from: 0,
        }
    }

    /// Whether one of its inputs is a CDC source.
    pub(super) fn reads_cdc(&self) -> bool {
        self.cdc_source().is_some()
    }

    /// The CDC source it reads, if any (such a job reads nothing else).
    pub(super) fn cdc_source(&self) -> Option<&str> {
        self.spec
            .sources
            .iter()
            .find(|s| is_cdc_source(s))
            .map(String::as_str)
    }

    /// The barrier (own checkpoint) after the newest one that arrived or was processed.
    pub(super) fn next_cut(&self) -> u64 {
        self.arrived
            .keys()
            .last()
            .copied()
            .unwrap_or(self.processed)
            + 1
    }

    /// Whether the next barrier to process has arrived on every input.
    pub(super) fn ready_to_process(&self) -> bool {
        self.arrived
            .get(&(self.processed + 1))
            .is_some_and(Arrival::complete)
    }

    /// Lists the barriers that arrived and wait for processing (alignment buffers them).
    pub(super) fn refresh_buffered(&mut self) {
        self.buffered = self.arrived.keys().copied().collect();
    }

    /// Computes barrier `n` from the state of `n - 1` plus `n`'s aligned inputs: PROCESSED.
    /// Returns the records for the sink.
    pub(super) fn process(&mut self, n: u64, deltas: &[Vec<Record>]) -> Vec<Record> {
        assert_eq!(
            n,
            self.processed + 1,
            "{}: barriers process in order",
            self.spec.name
        );
        let out = if self.pipeline.is_stateful() {
            self.pipeline.compute(&mut self.state, deltas)
        } else {
            Vec::new()
        };
        self.processed = n;
        self.refresh_buffered();
        out
    }

    /// Whether the job is down for good: its restart strategy spent its attempts.
    pub fn gave_up(&self) -> bool {
        !self.up
            && self
                .spec
                .restart_attempts
                .is_some_and(|max| self.restarts > max)
    }

    /// The last barrier of the newest complete checkpoint (a checkpoint holds
    /// `per_checkpoint` barriers; 0 before the first).
    pub fn checkpoint_barrier(&self) -> u64 {
        self.written / self.per_checkpoint * self.per_checkpoint
    }

    /// Where input `i` restarts after a failure: its position in the newest complete
    /// checkpoint (with barriers, the checkpoint's last barrier; without, the upstream
    /// checkpoint it had read). The input's snapshots after it are what a restart replays.
    pub fn restore_position(&self, i: usize) -> u64 {
        self.checkpoints
            .get(&self.checkpoint_barrier())
            .and_then(|c| c.consumed.get(i).copied())
            .unwrap_or(0)
    }

    /// The snapshot of `n` was written: `n` is WRITTEN; when `n` closes a checkpoint its staged
    /// state becomes the one a restart restores. Returns when all inputs of `n` were available.
    pub(super) fn mark_written(&mut self, n: u64) -> u64 {
        assert_eq!(
            n,
            self.written + 1,
            "{}: barriers are WRITTEN in order",
            self.spec.name
        );
        assert!(
            n <= self.processed,
            "{}: WRITTEN only after PROCESSED",
            self.spec.name
        );
        let checkpoint = self.staged.remove(&n).unwrap_or_default();
        let ready = checkpoint.ready_at_ms;
        if n.is_multiple_of(self.per_checkpoint) {
            self.checkpoints.insert(n, checkpoint);
        }
        self.written = n;
        ready
    }

    /// Drops everything beyond the checkpoint ending with WRITTEN barrier `b` (state, input
    /// positions, buffered input) and stops the job until it recovers.
    pub(super) fn restore(&mut self, b: u64) {
        assert!(
            b <= self.written && b.is_multiple_of(self.per_checkpoint),
            "{}: restores a complete checkpoint",
            self.spec.name
        );
        let cp = self
            .checkpoints
            .get(&b)
            .cloned()
            .unwrap_or_else(|| JobCheckpoint {
                consumed: vec![0; self.inputs.len()],
                ..JobCheckpoint::default()
            });
        self.checkpoints.retain(|k, _| *k <= b);
        self.state = cp.state;
        for (inp, c) in self.inputs.iter_mut().zip(&cp.consumed) {
            inp.consumed = *c;
            inp.read_scheduled = false;
        }
        self.cdc_written = cp.cdc_written;
        self.processed = b;
        self.written = b;
        self.held = None;
        self.buffered.clear();
        self.arrived.clear();
        self.staged.clear();
        self.process_scheduled = false;
        self.snapshot_scheduled = false;
        self.up = false;
    }
}
