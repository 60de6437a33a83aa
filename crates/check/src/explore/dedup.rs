//! State de-duplication: the key of a world right after a crash, and the graph of distinct
//! states that counts every crash schedule once, whether it ran or was judged by an equal run.
//!
//! **Why a crash state decides the future.** A driver crash drops the driver's and the
//! source's volatile state; what is left is durable (the checkpoint folder, the sink, the Meta
//! table, the Tunnel server's checkpoints) plus the world's clock, PRNG position, phase and
//! armed faults ([`World::private_state`]). The upstream is generated in full when the world is
//! made, so it is the same for every run of a scenario. The engine is deterministic, so two
//! runs whose worlds agree on all of that right after their last crash step through the same
//! events from there on (only the sequence numbers are shifted) and end with the same sink.
//!
//! **What else a verdict reads.** The liveness rule reads the trace: the furthest position any
//! task read (a re-read is no progress), the last progress, the number of crashes (the stall
//! bound) and the trace's length (the step bound). The key holds the first three; the length
//! is checked when a run is judged by an equal one (see [`Graph::accepts`]): a run whose equal
//! did not converge, or that would pass its step bound, is run after all.
//!
//! **Children.** Two runs with one key also have the same children: every-event crashes go
//! after every later event of either; a named crash `q` goes at the occurrence of `q` that a
//! replay of the crash list fires at, which depends on how often `q` occurred and was crashed
//! before. So in crash-point mode a run that may still have children also keys, per point, how
//! many more occurrences a child waits for.
//!
//! **Counting.** Every run is a node or an edge into one: a run whose key is new becomes a node
//! (and runs); a later run with the same key adds an edge from its parent's node. A node stands
//! for as many runs as there are paths to it from a run without crashes, and its children's
//! nodes inherit that; so the counts per verdict equal those of an exploration without
//! de-duplication, which the tests check.
//!
//! **Hashing.** The state is written with `Debug` (ordered maps and vectors only, no hash-map
//! iteration) into two SipHash-1-3 hashers with fixed keys (`DefaultHasher::new()`, the same on
//! every platform within one build), one salted: a 128-bit fingerprint that never leaves the
//! process.

use crate::liveness::{last_progress_ms, Liveness};
use crate::oracle::{Limit, Verdict};
use batchscope_engine::microbatch::scenario::CrashPoint;
use batchscope_engine::microbatch::World;
use std::collections::hash_map::DefaultHasher;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::hash::Hasher;

/// What two runs must share to have the same future and the same children.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Key {
    variant: usize,
    crashes: u32,
    state: u128,
    /// Crash-point mode, for a run that may have children: per point, how many more
    /// occurrences its child crash waits for, where not one (zero: never).
    waits: Vec<(CrashPoint, u64)>,
}

impl Key {
    /// The key of a run's world right after its last crash: the run of scenario variant
    /// `variant` with `crashes` crashes; `named` lists its named crashes when it may still
    /// have children in crash-point mode.
    pub(crate) fn of(
        world: &World,
        variant: usize,
        crashes: u32,
        named: Option<&[CrashPoint]>,
    ) -> Key {
        Key {
            variant,
            crashes,
            state: fingerprint(world),
            waits: named.map_or_else(Vec::new, |c| named_waits(world, c)),
        }
    }

    /// A number spread evenly over keys, the same in every process of one build: which shard
    /// owns the runs with this key.
    pub(crate) fn spread(&self) -> u64 {
        (self.state as u64) ^ ((self.state >> 64) as u64)
    }
}

/// Per point occurring or crashed so far: the occurrences a child crash at it still waits for
/// (a replay fires the crash list's `k`-th `q` at the `k`-th site of `q`), where not one.
fn named_waits(world: &World, crashes: &[CrashPoint]) -> Vec<(CrashPoint, u64)> {
    let mut count: BTreeMap<CrashPoint, (u64, u64)> = BTreeMap::new();
    for (_, p) in world.crash_sites() {
        count.entry(*p).or_default().0 += 1;
    }
    for p in crashes {
        count.entry(*p).or_default().1 += 1;
    }
    count
        .into_iter()
        .map(|(p, (seen, crashed))| (p, (crashed + 1).saturating_sub(seen)))
        .filter(|&(_, wait)| wait != 1)
        .collect()
}

/// A fingerprint of everything a world carries into its future, and the parts of its history
/// that liveness reads (the read frontier, the last progress).
pub(crate) fn fingerprint(world: &World) -> u128 {
    let mut frontier = <World as Liveness>::Frontier::default();
    for e in world.events() {
        <World as Liveness>::progress_ms(&mut frontier, e);
    }
    // One buffer, hashed at once: many small writes into SipHash are slow.
    let mut text = String::with_capacity(16 * 1024);
    write!(
        text,
        "{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{}|",
        world.private_state(),
        world.tunnel,
        world.meta_table,
        world.sink,
        world.source,
        world.driver,
        world.first_start,
        frontier,
        last_progress_ms(world),
    )
    .expect("writing to a string cannot fail");
    let (mut a, mut b) = (DefaultHasher::new(), DefaultHasher::new());
    b.write_u8(0x5a);
    for h in [&mut a, &mut b] {
        h.write(text.as_bytes());
        // The checkpoint folder's bytes go in raw: `Debug` of a byte vector is slow.
        for (path, bytes) in world.checkpoint.files() {
            h.write(path.as_bytes());
            h.write_u64(bytes.len() as u64);
            h.write(bytes);
        }
    }
    (u128::from(a.finish()) << 64) | u128::from(b.finish())
}

/// A distinct state after a crash: the run that reached it first, and how it ended.
#[derive(Clone, Debug)]
pub(crate) struct Node {
    /// Crashes in the run.
    level: u32,
    /// A run of the last level (no children): a shard runs only its own share of these.
    last: bool,
    /// The nodes of the runs that reached this state by one more crash (with repeats).
    parents: Vec<usize>,
    /// The judgement: verdict, duplicates, lost, faults (none while the run is pending).
    judged: Option<(Verdict, u64, u64, u32)>,
    converged: bool,
    start_len: u64,
    end_len: u64,
}

/// Every distinct state reached so far (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct Graph {
    nodes: Vec<Node>,
    memo: BTreeMap<Key, usize>,
}

/// Where a job goes: a new node (it runs) or an existing one (judged by that run).
pub(crate) enum Place {
    /// A new state: the job runs.
    New(usize),
    /// A state an earlier run reached.
    Seen(usize),
}

impl Graph {
    /// Places a job with `key` (none: it always runs) whose parent run is `parent`; `last`: a
    /// run without children.
    pub(crate) fn place(
        &mut self,
        key: Option<Key>,
        level: u32,
        last: bool,
        parent: Option<usize>,
    ) -> Place {
        if let Some(&n) = key.as_ref().and_then(|k| self.memo.get(k)) {
            return Place::Seen(n);
        }
        let id = self.nodes.len();
        self.nodes.push(Node {
            level,
            last,
            parents: parent.into_iter().collect(),
            judged: None,
            converged: false,
            start_len: 0,
            end_len: 0,
        });
        if let Some(k) = key {
            self.memo.insert(k, id);
        }
        Place::New(id)
    }

    /// Records how a node's run ended.
    pub(crate) fn finish(&mut self, node: usize, judged: (Verdict, u64, u64, u32), ends: Ends) {
        let n = &mut self.nodes[node];
        n.judged = Some(judged);
        n.converged = ends.converged;
        n.start_len = ends.start_len;
        n.end_len = ends.end_len;
    }

    /// The judgement of a finished node.
    pub(crate) fn judged(&self, node: usize) -> Option<(Verdict, u64, u64, u32)> {
        self.nodes[node].judged
    }

    /// Whether a run that reached `node`'s state with a trace of `start_len` events ends as
    /// that node's run did: it converged, and the shifted trace stays within the step bound.
    pub(crate) fn accepts(&self, node: usize, start_len: u64, step_bound: u64) -> bool {
        let n = &self.nodes[node];
        let total = n.end_len - n.start_len + start_len;
        n.judged.is_some() && n.converged && total <= step_bound && total < Limit::JUDGE.max_events
    }

    /// Adds a run from `parent` that reached `node`'s state.
    pub(crate) fn link(&mut self, node: usize, parent: Option<usize>) {
        self.nodes[node].parents.extend(parent);
    }

    /// Runs each judged node stands for: paths to it from a run without crashes.
    fn multiplicities(&self) -> Vec<u64> {
        let mut order: Vec<usize> = (0..self.nodes.len()).collect();
        order.sort_by_key(|&i| (self.nodes[i].level, i));
        let mut mult = vec![0u64; self.nodes.len()];
        for i in order {
            let n = &self.nodes[i];
            mult[i] = if n.parents.is_empty() {
                1
            } else {
                n.parents.iter().map(|&p| mult[p]).sum()
            };
        }
        mult
    }

    /// Counts over every run, de-duplicated or not: per verdict, per depth, in all, and how
    /// many of them were judged by an equal run instead of running.
    pub(crate) fn counts(&self) -> Counts {
        self.counts_where(false)
    }

    /// [`Graph::counts`], over the runs with children only when `shared` (what every shard
    /// of an exploration runs alike).
    pub(crate) fn counts_where(&self, shared: bool) -> Counts {
        let mult = self.multiplicities();
        let mut c = Counts {
            outcomes: Verdict::ALL.iter().map(|&v| (v, 0)).collect(),
            ..Counts::default()
        };
        for (n, m) in self.nodes.iter().zip(mult) {
            let Some((verdict, _, _, depth)) = n.judged.filter(|_| !(shared && n.last)) else {
                continue;
            };
            *c.outcomes.entry(verdict).or_insert(0) += m;
            *c.runs_by_depth.entry(depth).or_insert(0) += m;
            c.runs += m;
            c.executed += 1;
        }
        c
    }
}

/// How a run ended, for judging equal runs by it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ends {
    pub(crate) converged: bool,
    pub(crate) start_len: u64,
    pub(crate) end_len: u64,
}

/// Counts over every run (see [`Graph::counts`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Counts {
    /// Runs per verdict.
    pub outcomes: BTreeMap<Verdict, u64>,
    /// Runs per number of faults.
    pub runs_by_depth: BTreeMap<u32, u64>,
    /// Runs judged.
    pub runs: u64,
    /// Runs that ran (the rest were judged by an equal run).
    pub executed: u64,
}
