//! A recorded run of either world, as the dashboard's player seeks in it: the events, the
//! final world, and a snapshot every few events. The snapshots are only a cache — a world is
//! deterministic, so the world after any number of events is rebuilt by stepping the nearest
//! snapshot before it (RaftScope stores every state; we derive them).

use batchscope_check::liveness::{run_observed, Ending, Limit, Liveness};
use batchscope_engine::sim::Sim;
use std::cell::RefCell;

/// Events between two snapshots, at first.
pub const SNAPSHOT_EVERY: usize = 32;
/// Most snapshots kept. The snapshots share the run's history, but each holds the world's
/// state (the sink's rows above all), so a long run spaces them wider: memory stays within
/// this many worlds and a seek replays fewer than n / this events.
pub const MAX_SNAPSHOTS: usize = 64;

/// Worlds kept between two snapshots around the last seek (see [`Near`]).
pub const NEAR_WORLDS: usize = 16;

/// A run recorded to its end, seekable to any cursor (the number of events shown).
#[derive(Clone, Debug)]
pub struct Timeline<S: Sim> {
    /// The world after `i * every` events (`snapshots[0]`: before the first event).
    snapshots: Vec<S>,
    /// The world after the last event.
    last: S,
    /// Events between two snapshots.
    every: usize,
    /// Denser worlds between the two snapshots around the last seek: a cache, so that
    /// stepping back again and again (a person re-reading the moments before a crash) replays
    /// a few dozen events, not up to `every`.
    near: RefCell<Near<S>>,
}

/// Worlds every `spacing` events from cursor `start` on, filled by a seek's replay.
#[derive(Clone, Debug)]
struct Near<S> {
    start: usize,
    spacing: usize,
    worlds: Vec<S>,
}

impl<S> Near<S> {
    fn empty() -> Near<S> {
        Near {
            start: 0,
            spacing: 1,
            worlds: Vec::new(),
        }
    }

    /// The index of the kept world nearest before `cursor`, if one is.
    fn before(&self, cursor: usize) -> Option<usize> {
        let i = cursor.checked_sub(self.start)? / self.spacing;
        (!self.worlds.is_empty()).then(|| i.min(self.worlds.len() - 1))
    }
}

impl<S: Liveness> Timeline<S> {
    /// Runs `first` (a world that has not stepped yet) to its end through the judges' one
    /// run loop ([`run_observed`]: settled, stuck, or `limit`), with a snapshot every
    /// [`SNAPSHOT_EVERY`] events; returns the timeline and how the run ended.
    pub fn record(first: S, limit: Limit) -> (Timeline<S>, Ending) {
        Timeline::record_every(first, SNAPSHOT_EVERY, limit)
    }

    /// [`Timeline::record`] with a snapshot every `every` events (at least 1), or wider when
    /// more than [`MAX_SNAPSHOTS`] would be kept.
    ///
    /// Two passes: the run itself, then a replay on its recorded history that keeps the
    /// snapshots. Every snapshot shares that one history ([`Sim::share_history`]), so a
    /// snapshot costs the world's state, not the events before it, and a world rebuilt from
    /// one copies no event either.
    pub fn record_every(first: S, every: usize, limit: Limit) -> (Timeline<S>, Ending) {
        assert!(
            first.events().is_empty(),
            "a timeline starts before the first event"
        );
        let mut run = first.clone();
        let ending = run_observed(&mut run, limit, |_| {});
        let n = run.events().len();
        let every = every.max(1).max(n.div_ceil(MAX_SNAPSHOTS));
        let mut world = first;
        world.share_history(&run);
        drop(run);
        let mut snapshots = vec![world.clone()];
        while world.events().len() < n {
            world
                .next_event()
                .expect("a recorded step replays: the world is deterministic");
            if world.events().len().is_multiple_of(every) {
                snapshots.push(world.clone());
            }
        }
        // A step that emits nothing may still move internal state (a drained topology pops
        // silent actions): the last world is the one right after the last event.
        let timeline = Timeline {
            snapshots,
            last: world,
            every,
            near: RefCell::new(Near::empty()),
        };
        (timeline, ending)
    }
}

impl<S: Sim> Timeline<S> {
    /// Every event of the run, in order.
    pub fn events(&self) -> &[S::Event] {
        self.last.events()
    }

    /// Number of events in the run.
    pub fn len(&self) -> usize {
        self.events().len()
    }

    /// Whether the run has no events.
    pub fn is_empty(&self) -> bool {
        self.events().is_empty()
    }

    /// The world before the first event.
    pub fn first(&self) -> &S {
        &self.snapshots[0]
    }

    /// The world after the last event.
    pub fn last(&self) -> &S {
        &self.last
    }

    /// The world after the first `cursor` events (clamped to the run): the nearest snapshot
    /// before it, stepped on. A seek into the stretch between two snapshots keeps worlds
    /// every `every / NEAR_WORLDS` events of it on the way, so the next seek there (one more
    /// step back) replays at most that many.
    pub fn world_at(&self, cursor: usize) -> S {
        let cursor = cursor.min(self.len());
        if cursor == self.len() {
            return self.last.clone();
        }
        let snap = (cursor / self.every).min(self.snapshots.len() - 1);
        let base = snap * self.every;
        let spacing = self.every.div_ceil(NEAR_WORLDS);
        if spacing <= 1 {
            return replay(&self.snapshots[snap], cursor);
        }
        let mut near = self.near.borrow_mut();
        if near.start != base || near.spacing != spacing {
            *near = Near {
                start: base,
                spacing,
                worlds: vec![self.snapshots[snap].clone()],
            };
        }
        let i = near
            .before(cursor)
            .expect("the stretch starts at its snapshot");
        let mut world = near.worlds[i].clone();
        let mut k = i + 1;
        while world.events().len() < cursor {
            world
                .next_event()
                .expect("a recorded step replays: the world is deterministic");
            if world.events().len() == base + k * spacing {
                if k == near.worlds.len() && k <= NEAR_WORLDS {
                    near.worlds.push(world.clone());
                }
                k += 1;
            }
        }
        world
    }

    /// The first cursor where two runs' events differ (the shorter length if one is a prefix):
    /// the worlds of both runs are equal up to it.
    pub fn divergence(&self, other: &Timeline<S>) -> usize {
        self.events()
            .iter()
            .zip(other.events())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| self.len().min(other.len()))
    }

    /// `f` of the world after 0, 1, …, `len` events, in order (one pass, one world in memory).
    pub fn map_worlds<T>(&self, mut f: impl FnMut(&S) -> T) -> Vec<T> {
        let mut world = self.first().clone();
        let mut out = Vec::with_capacity(self.len() + 1);
        out.push(f(&world));
        for _ in 0..self.len() {
            world.next_event().expect("a recorded step replays");
            out.push(f(&world));
        }
        out
    }
}

/// `from` stepped until it has emitted `cursor` events.
fn replay<S: Sim>(from: &S, cursor: usize) -> S {
    let mut world = from.clone();
    while world.events().len() < cursor {
        world
            .next_event()
            .expect("a recorded step replays: the world is deterministic");
    }
    world
}

#[cfg(test)]
mod tests {
    use super::*;
    use batchscope_engine::barrier::{self, TopologyWorld};
    use batchscope_engine::microbatch::scenario::preset;
    use batchscope_engine::microbatch::World;

    fn micro_batch(crash: &str) -> (World, Timeline<World>) {
        let mut s = preset("tablestore").unwrap();
        s.crashes.push(crash.parse().unwrap());
        let first = World::new(s);
        let (t, ending) = Timeline::record(first.clone(), Limit::JUDGE);
        assert_eq!(ending, Ending::Converged);
        (first, t)
    }

    fn topology() -> (TopologyWorld, Timeline<TopologyWorld>) {
        let (name, _) = barrier::presets()[0];
        let first = TopologyWorld::new(barrier::preset(name).unwrap(), 1).unwrap();
        // Snapshots every 8 events: the run is a few dozen steps long.
        let (t, _) = Timeline::record_every(first.clone(), 8, Limit::events(5_000));
        (first, t)
    }

    /// The whole state of a world (neither world is `PartialEq`; both print every field).
    fn state<S: std::fmt::Debug>(w: &S) -> String {
        format!("{w:?}")
    }

    /// Seeking to any cursor gives the world that stepping from the start gives.
    fn seek_equals_stepping<S: Sim + std::fmt::Debug>(first: S, t: &Timeline<S>) {
        let n = t.len();
        let k = t.every;
        assert!(n > 3 * k, "long enough to use snapshots");
        let cursors = [0, 1, k - 1, k, k + 1, 2 * k, 3 * k - 1, n / 2, n - 1, n];
        let mut stepped = first;
        let mut clocks = vec![stepped.clock_ms()];
        for cursor in 0..=n {
            if cursors.contains(&cursor) {
                assert_eq!(
                    state(&t.world_at(cursor)),
                    state(&stepped),
                    "cursor {cursor}"
                );
            }
            if cursor < n {
                stepped.next_event().unwrap();
                clocks.push(stepped.clock_ms());
            }
        }
        assert_eq!(state(&t.world_at(usize::MAX)), state(&stepped));
        assert_eq!(state(t.last()), state(&stepped));
        assert_eq!(t.map_worlds(|w| w.clock_ms()), clocks);
        assert_eq!(
            t.map_worlds(|w| w.events().len()),
            (0..=n).collect::<Vec<_>>()
        );
    }

    /// A long run keeps at most [`MAX_SNAPSHOTS`] snapshots (spaced wider), and seeking still
    /// gives the world of stepping.
    #[test]
    fn a_long_run_spaces_its_snapshots_and_still_seeks_exactly() {
        let mut s = preset("tablestore").unwrap();
        s.crashes.push("sink-commit@2".parse().unwrap());
        s.batches = 20;
        let first = World::new(s);
        let (t, _) = Timeline::record_every(first.clone(), 1, Limit::JUDGE);
        assert!(t.len() > 2 * MAX_SNAPSHOTS, "long enough to space out");
        assert!(
            t.snapshots.len() <= MAX_SNAPSHOTS + 1,
            "{}",
            t.snapshots.len()
        );
        assert!(t.every > 1, "the spacing widened");
        seek_equals_stepping(first, &t);
    }

    /// Stepping back one event at a time from the end, and jumping around, gives the world of
    /// stepping every time; after the first seek into a stretch, the next ones start from a
    /// kept world at most `every / NEAR_WORLDS` events before them.
    #[test]
    fn repeated_seeks_use_the_kept_worlds_and_stay_exact() {
        let mut s = preset("kafka-append").unwrap();
        s.crashes.push("sink-commit@2".parse().unwrap());
        s.upstream.channels = 8;
        s.batches = 60;
        let first = World::new(s);
        let (t, _) = Timeline::record(first.clone(), Limit::JUDGE);
        let n = t.len();
        assert!(
            t.every >= 2 * NEAR_WORLDS,
            "a stretch long enough to keep worlds in: {}",
            t.every
        );
        let back: Vec<usize> = (n - 2 * t.every..n).rev().collect();
        let jumps = [n / 2, 3, n / 2 + 1, n / 3, n - 1, 0];
        let mut stepped = std::collections::BTreeMap::new();
        let mut w = first;
        for cursor in 0..n {
            if back.contains(&cursor) || jumps.contains(&cursor) {
                stepped.insert(cursor, state(&w));
            }
            w.next_event().unwrap();
        }
        let spacing = t.every.div_ceil(NEAR_WORLDS);
        for &cursor in &back {
            assert_eq!(
                state(&t.world_at(cursor)),
                stepped[&cursor],
                "cursor {cursor}"
            );
            let near = t.near.borrow();
            assert_eq!(near.start, cursor / t.every * t.every, "cursor {cursor}");
            let from = near.start + near.before(cursor).unwrap() * spacing;
            assert!(
                cursor - from < spacing,
                "cursor {cursor} replayed from {from}"
            );
            assert!(near.worlds.len() <= NEAR_WORLDS + 1);
        }
        for cursor in jumps {
            assert_eq!(
                state(&t.world_at(cursor)),
                stepped[&cursor],
                "cursor {cursor}"
            );
        }
    }

    #[test]
    fn seeking_a_micro_batch_run_gives_the_world_of_stepping() {
        let (first, t) = micro_batch("sink-commit@2");
        assert!(t.last().is_converged());
        seek_equals_stepping(first, &t);
    }

    #[test]
    fn seeking_a_topology_run_gives_the_world_of_stepping() {
        let (first, t) = topology();
        assert!(t.last().is_drained(), "the run drains before the bound");
        seek_equals_stepping(first, &t);
    }

    #[test]
    fn divergence_is_where_the_recorded_inputs_change_the_events() {
        let (_, a) = micro_batch("sink-commit@2");
        let (_, b) = micro_batch("sink-commit@3");
        let d = a.divergence(&b);
        assert!(d > 0 && d < a.len().min(b.len()));
        assert_eq!(a.events()[..d], b.events()[..d]);
        assert_ne!(a.events()[d], b.events()[d]);
        assert_eq!(a.divergence(&a), a.len());
        let (_, t) = topology();
        assert_eq!(t.divergence(&t.clone()), t.len());
    }

    #[test]
    fn the_limit_bounds_the_run() {
        let (first, _) = topology();
        let (t, ending) = Timeline::record_every(first, 7, Limit::events(50));
        assert_eq!(ending, Ending::Capped);
        assert_eq!(t.len(), 50);
        assert_eq!(t.world_at(49).events(), &t.events()[..49]);
    }
}
