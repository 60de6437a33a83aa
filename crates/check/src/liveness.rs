//! Running a world to its end: the one loop every judge, player and adapter uses, with the
//! one liveness rule ([`stall_bound_ms`]) and one cap ([`Limit`]).
//!
//! A run ends in one of three ways ([`Ending`]): it settled, it went past its liveness bound
//! without progress (stuck), or its trace reached the cap first. The oracle, the explorer,
//! the CLI, the wasm API and the dashboard all stop a run here, so a stuck run ends at the
//! same event wherever it is shown.

use batchscope_engine::barrier::{BarrierEvent, TopologyWorld};
use batchscope_engine::microbatch::event::{Event, EventKind};
use batchscope_engine::microbatch::scenario::Scenario;
use batchscope_engine::microbatch::tunnel::Token;
use batchscope_engine::microbatch::upstream::ChannelId;
use batchscope_engine::microbatch::World;
use batchscope_engine::sim::Sim;
use std::collections::BTreeMap;

/// How [`run`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The world settled ([`Sim::settled`]): nothing more changes what the judges see.
    Converged,
    /// No progress within the liveness bound while data was available (a liveness failure).
    Stuck,
    /// The trace reached the [`Limit`] first: not a verdict, a cap on memory and time.
    Capped,
}

impl Ending {
    /// Whether the run converged (a judge counts `Stuck` and `Capped` alike as not converged).
    pub fn converged(self) -> bool {
        self == Ending::Converged
    }
}

/// The cap on a run's length, in events of the whole trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    /// The run stops once its trace holds this many events.
    pub max_events: u64,
}

impl Limit {
    /// For judging: far beyond any run the liveness rule lets go on (a safety net only; a
    /// micro-batch run also ends, judged stuck, at its scenario's step bound,
    /// [`Liveness::step_bound`]).
    pub const JUDGE: Limit = Limit {
        max_events: 10_000_000,
    };
    /// For what a person watches (dashboard, tours, lessons): the longest run kept in memory.
    pub const SCREEN: Limit = Limit { max_events: 20_000 };

    /// A cap of `max_events` events.
    pub const fn events(max_events: u64) -> Limit {
        Limit { max_events }
    }
}

/// A world's liveness rule: which events are progress, and how long it may go without.
pub trait Liveness: Sim {
    /// What the run has achieved so far (for the micro-batch world: the furthest position any
    /// task read per channel), carried from event to event: progress is what moves it.
    type Frontier: Default;

    /// When `event` counts as progress against `frontier` (which it updates), its simulated
    /// time.
    fn progress_ms(frontier: &mut Self::Frontier, event: &Self::Event) -> Option<u64>;

    /// When the stall clock starts: the last progress so far, or later.
    fn stall_from_ms(&self) -> u64;

    /// How long the run may go without progress before it is stuck; `None` for a world that
    /// ends by itself.
    fn stall_bound_ms(&self) -> Option<u64>;

    /// Whether the run is over before its next step: settled, unless the world's own steps
    /// say when it ends.
    fn over(&self) -> bool {
        self.settled()
    }

    /// The most events a run of this world may take, derived from its inputs: a run that has
    /// not settled by then is stuck. `None` for a world that ends by itself.
    fn step_bound(&self) -> Option<u64> {
        None
    }
}

/// Steps `world` until it settles, is stuck (no progress within its liveness bound, or its
/// step bound reached), or reaches `limit`.
pub fn run<S: Liveness>(world: &mut S, limit: Limit) -> Ending {
    run_observed(world, limit, |_| {})
}

/// [`run`], calling `on_step` with the world after every event (to keep snapshots or frames).
pub fn run_observed<S: Liveness>(
    world: &mut S,
    limit: Limit,
    mut on_step: impl FnMut(&S),
) -> Ending {
    let stall = world.stall_bound_ms();
    let steps = world.step_bound();
    let mut since_ms = world.stall_from_ms();
    let mut frontier = S::Frontier::default();
    for event in world.events() {
        S::progress_ms(&mut frontier, event);
    }
    loop {
        if world.over() {
            return Ending::Converged;
        }
        let taken = world.events().len() as u64;
        if taken >= limit.max_events {
            return Ending::Capped;
        }
        if steps.is_some_and(|b| taken >= b) {
            return Ending::Stuck;
        }
        if !world.advance_event() {
            // Nothing left to do: the world drained.
            return Ending::Converged;
        }
        on_step(world);
        let event = world.events().last().expect("the event just taken");
        match S::progress_ms(&mut frontier, event) {
            Some(at_ms) => since_ms = since_ms.max(at_ms),
            None => {
                if stall.is_some_and(|b| world.clock_ms().saturating_sub(since_ms) > b) {
                    return Ending::Stuck;
                }
            }
        }
    }
}

/// How long a run may go without progress (data read or delivered, see [`Liveness`] for the
/// micro-batch `World`), counted
/// from the end of the data at the earliest, before it is stuck: 30 trigger intervals, plus a restart for every crash and failure,
/// plus the outages.
pub fn stall_bound_ms(s: &Scenario) -> u64 {
    let restarts = (s.crashes.len() + s.crash_after_events.len() + s.faults.len() + 2) as u64
        * (s.restart_delay() + s.trigger_interval_ms);
    let outages: u64 = s
        .sink
        .outages
        .iter()
        .map(|w| w.to_ms - w.from_ms + s.restart_delay())
        .sum();
    30 * s.trigger_interval_ms + restarts + outages
}

/// The furthest position any task has read, per channel: the data frontier of a run. A read
/// that only re-reads rows behind it (a re-run, a crash loop) does not move it; nor does the
/// write of what such a read found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadFrontier {
    reached: BTreeMap<ChannelId, u64>,
    /// Whether the latest read of each (batch, partition) moved the frontier.
    moved: BTreeMap<(u64, u32), bool>,
}

/// A position as a number to compare (`finished` = the end of the channel).
fn position(token: Token) -> u64 {
    match token {
        Token::At(p) => p,
        Token::Finished => u64::MAX,
    }
}

/// Whether an event counts as progress for liveness: progress of data, not of batches. A task
/// read that moved the data frontier (read past every earlier read of its channel), rows handed
/// to the sink or made visible by its commit, a SeaTunnel poll that found rows. A committed
/// batch is not progress by itself: a source that commits empty batches forever (a Tablestore
/// ReadRecords page larger than `max_offsets_per_channel`, never consumed) is stuck; nor is a
/// re-read of rows already read, nor its write: a re-run that throws every time (a `finished`
/// Tablestore start row) or runs out of memory every time (`task_memory_records`) is stuck even
/// when its other tasks read and write rows again.
fn is_progress(frontier: &mut ReadFrontier, kind: &EventKind) -> bool {
    match kind {
        EventKind::TaskRead {
            batch_id,
            partition,
            channel,
            from,
            to,
            ..
        } => {
            let (from, to) = (position(*from), position(*to));
            let reached = frontier.reached.entry(*channel).or_insert(from);
            let moved = to > *reached;
            *reached = (*reached).max(to);
            frontier.moved.insert((*batch_id, *partition), moved);
            moved
        }
        EventKind::TaskFinished {
            batch_id,
            partition,
            rows,
            ..
        } => *rows > 0 && frontier.moved.get(&(*batch_id, *partition)) != Some(&false),
        EventKind::ReaderPolled { rows, .. } => *rows > 0,
        EventKind::SinkCommitted { rows, skipped, .. } => *rows > 0 && !skipped,
        _ => false,
    }
}

/// When the run last made progress (0 if never), read from its trace.
pub fn last_progress_ms(world: &World) -> u64 {
    let mut frontier = ReadFrontier::default();
    world
        .events()
        .iter()
        .filter(|e| is_progress(&mut frontier, &e.kind))
        .last()
        .map_or(0, |e| e.at_ms)
}

/// The simulated time by which the run must make progress again, or it is stuck. Before the
/// data has ended, a quiet query may simply be waiting for records, so the clock starts then.
pub fn liveness_bound_ms(world: &World) -> u64 {
    world.stall_from_ms() + stall_bound_ms(world.scenario())
}

/// Whether a stepping run is stuck: not converged and past its liveness bound.
pub fn is_stuck(world: &World) -> bool {
    !world.is_converged() && world.now_ms() > liveness_bound_ms(world)
}

impl Liveness for World {
    type Frontier = ReadFrontier;

    fn progress_ms(frontier: &mut ReadFrontier, event: &Event) -> Option<u64> {
        is_progress(frontier, &event.kind).then_some(event.at_ms)
    }

    fn stall_from_ms(&self) -> u64 {
        last_progress_ms(self).max(self.scenario().data_end_ms())
    }

    fn stall_bound_ms(&self) -> Option<u64> {
        Some(stall_bound_ms(self.scenario()))
    }

    /// The scenario's work budget: an upper estimate of the events of any run that converges,
    /// computed at validation ([`Scenario::work`]).
    fn step_bound(&self) -> Option<u64> {
        Some(self.scenario().work().events)
    }
}

/// A topology run drains by itself: its scheduled actions are finite.
impl Liveness for TopologyWorld {
    type Frontier = ();

    fn progress_ms(_: &mut (), _: &BarrierEvent) -> Option<u64> {
        None
    }

    fn stall_from_ms(&self) -> u64 {
        0
    }

    fn stall_bound_ms(&self) -> Option<u64> {
        None
    }

    /// The step decides: a fault placed at the next step still fires on a drained queue.
    fn over(&self) -> bool {
        false
    }
}
