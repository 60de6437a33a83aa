//! One explored run: its start world (forked from a parent run and crashed there, or fresh),
//! its run to the end and its judgement, and the crash sites its children may add.

use crate::explore::dedup::Key;
use crate::explore::fault::{run_scenario, Fault, Outcome};
use crate::oracle::{judge, Limit, Verdict};
use batchscope_engine::microbatch::event::{Event, EventKind};
use batchscope_engine::microbatch::scenario::{CrashPoint, Scenario};
use batchscope_engine::microbatch::upstream::RowKey;
use batchscope_engine::microbatch::Phase;
use batchscope_engine::microbatch::World;
use std::collections::BTreeMap;

/// Every crash site of a world's trace in order: (sequence number of the site event, point).
/// The engine records them as it steps ([`World::crash_sites`]), so there is one mapping.
pub fn crash_sites(world: &World) -> Vec<(u64, CrashPoint)> {
    world.crash_sites().to_vec()
}

/// The first site of each named crash point in the run of `scenario` without crashes (its own
/// faults kept, as every explored run keeps them), by its event: where `NAME@N` fires. Only
/// crashes after every event need them (none otherwise).
pub(crate) fn first_sites(scenario: &Scenario, every_event: bool) -> BTreeMap<u64, CrashPoint> {
    if !every_event {
        return BTreeMap::new();
    }
    let mut world = World::new(scenario.clone());
    crate::oracle::run(&mut world, Limit::JUDGE);
    let mut first = BTreeMap::new();
    let mut seen = std::collections::BTreeSet::new();
    for &(seq, point) in world.crash_sites() {
        if seen.insert(point) {
            first.insert(seq, point);
        }
    }
    first
}

/// Steps a fork past its crash: at most this many events (a crash fires at the next step, after
/// any follow-up the event before it queued).
const STEPS_TO_CRASH: u32 = 64;
/// The window name of a crash after the last event of a run.
pub(crate) const END: &str = "end";

/// One scenario variant: the base, or the base plus one non-crash fault.
#[derive(Clone, Debug)]
pub(crate) struct Variant {
    pub(crate) fault: Option<Fault>,
    pub(crate) scenario: Scenario,
    pub(crate) expected: usize,
}

/// A run to do: a variant with crashes, forked from a parent world (or replayed from zero).
#[derive(Clone, Debug)]
pub(crate) struct Job {
    pub(crate) variant: usize,
    pub(crate) parent: Option<usize>,
    /// Named crashes (crash-point mode).
    pub(crate) crashes: Vec<CrashPoint>,
    /// The events the crashes fire after: the named sites, or (every-event mode) the
    /// scenario's `crash_after_events`.
    pub(crate) site_seqs: Vec<u64>,
    /// Every-event mode: the crashes are `crash_after_events`, not named points.
    pub(crate) every_event: bool,
    /// The de-duplication node of the run this one forks from (none for a run without crashes).
    pub(crate) parent_node: Option<usize>,
    /// A shard's: a run of the last level this shard owns (kept when it is queued again).
    pub(crate) owned: bool,
}

impl Job {
    /// Crashes in the run.
    pub(crate) fn crash_count(&self) -> u32 {
        self.site_seqs.len() as u32
    }

    /// The events its unnamed crashes fire after: the sites in every-event mode, else none.
    pub(crate) fn crash_after_events(&self) -> &[u64] {
        if self.every_event {
            &self.site_seqs
        } else {
            &[]
        }
    }

    /// The scenario that replays this run from zero (its variant already has its fault).
    pub(crate) fn replay(&self, variant: &Variant) -> Scenario {
        run_scenario(
            &variant.scenario,
            &self.crashes,
            self.crash_after_events(),
            None,
        )
    }

    /// This run's outcome, judged `verdict` with `duplicates` and `lost` records.
    pub(crate) fn outcome(
        &self,
        fault: Option<Fault>,
        verdict: Verdict,
        duplicates: u64,
        lost: u64,
    ) -> Outcome {
        Outcome {
            crashes: self.crashes.clone(),
            crash_after_events: self.crash_after_events().to_vec(),
            fault,
            verdict,
            duplicates,
            lost,
            site_seqs: self.site_seqs.clone(),
        }
    }
}

/// A crash the run's children may add: after event `seq` (at the named `point`, in crash-point
/// mode), in the window between the kinds of that event and the next.
#[derive(Clone, Debug)]
pub(crate) struct Child {
    pub(crate) seq: u64,
    pub(crate) point: Option<CrashPoint>,
    pub(crate) window: (&'static str, &'static str),
}

/// A job's start world: forked and crashed (with its state's key), or fresh.
pub(crate) struct Start {
    pub(crate) world: World,
    /// The de-duplication key of the state right after the crash (none when not forked).
    pub(crate) key: Option<Key>,
}

/// A world from which child runs fork: a run's start, before its last crash's site.
#[derive(Debug)]
pub(crate) struct Parent {
    pub(crate) world: Option<World>,
    pub(crate) remaining: u64,
}

/// The result of one run, before it is merged into the explorer.
pub(crate) struct Done {
    pub(crate) outcome: Outcome,
    pub(crate) children: Vec<Child>,
    pub(crate) start: Option<World>,
    pub(crate) inexact: bool,
    /// Whether the run converged.
    pub(crate) converged: bool,
    /// Events in the trace when the run started (after its crash) and at its end.
    pub(crate) start_len: u64,
    pub(crate) end_len: u64,
    /// Every gap between two consecutive events the run passed after its start.
    pub(crate) gaps: Vec<(&'static str, &'static str)>,
    /// The named crash windows of the run's trace: (point kind name, window).
    pub(crate) named: Vec<(&'static str, (&'static str, &'static str))>,
}

/// Read-only context of the runs, shared by the worker threads.
pub(crate) struct Context<'a> {
    pub(crate) variants: &'a [Variant],
    pub(crate) expected: &'a [BTreeMap<RowKey, u64>],
    pub(crate) depth: u32,
    pub(crate) forking: bool,
}

/// Maps the work items, in parallel when asked and compiled in; keeps the order.
pub(crate) fn run_all<T, R, F>(parallel: bool, items: Vec<T>, f: F) -> Vec<R>
where
    T: Send,
    R: Send,
    F: Fn(T) -> R + Sync + Send,
{
    #[cfg(feature = "parallel")]
    if parallel {
        use rayon::prelude::*;
        return items.into_par_iter().map(f).collect();
    }
    let _ = parallel;
    items.into_iter().map(f).collect()
}

/// The start worlds of a group of jobs (one parent, or a single job without one). A forked
/// job's world is stepped past its crash, and keyed for de-duplication when `keyed` (the
/// exploration's depth) is set.
pub(crate) fn fork_group(
    variants: &[Variant],
    parents: &[Parent],
    forking: bool,
    keyed: Option<u32>,
    group: &[Job],
) -> Vec<Start> {
    let mut cursor: Option<World> = None;
    let mut starts = Vec::with_capacity(group.len());
    for job in group {
        let Some(p) = job.parent.filter(|_| forking) else {
            let world = World::new(job.replay(&variants[job.variant]));
            starts.push(Start { world, key: None });
            continue;
        };
        let at = *job.site_seqs.last().expect("a forked job has a crash");
        let w = cursor.get_or_insert_with(|| parents[p].world.clone().expect("parent kept"));
        // Named: the site event is the next; every-event: the crash follows event `at`.
        let until = at + u64::from(job.every_event);
        while (w.events().len() as u64) < until {
            w.step();
        }
        let mut fork = w.clone();
        if job.every_event {
            fork.crash_now();
        } else {
            fork.arm_crash(*job.crashes.last().expect("a forked job has a crash"));
        }
        let crashed = step_to_crash(&mut fork);
        let faults = u32::from(variants[job.variant].fault.is_some());
        let key = keyed.filter(|_| crashed).map(|depth| {
            let with_children = job.crash_count() + faults < depth;
            let named = (with_children && !job.every_event).then_some(&job.crashes[..]);
            Key::of(&fork, job.variant, job.crash_count(), named)
        });
        starts.push(Start { world: fork, key });
    }
    starts
}

/// Steps a fork until its crash fired; whether it did.
fn step_to_crash(world: &mut World) -> bool {
    let fired = world.fired_crashes().len();
    for _ in 0..STEPS_TO_CRASH {
        if world.fired_crashes().len() > fired {
            return true;
        }
        world.step();
    }
    world.fired_crashes().len() > fired
}

/// Runs one job from its start world to the end and judges it.
pub(crate) fn run_job(ctx: &Context<'_>, job: &Job, start: World) -> Done {
    let variant = &ctx.variants[job.variant];
    let wants_children = job.crash_count() + u32::from(variant.fault.is_some()) < ctx.depth;
    let mut kept = (ctx.forking && wants_children && job.parent.is_some()).then(|| start.clone());
    let mut world = start;
    let (mut converged, mut crashable) = run_recording(&mut world);
    let mut inexact = false;
    if let Some(&at) = job.site_seqs.last() {
        let point = (!job.every_event).then(|| *job.crashes.last().expect("named crash"));
        if !fired_after(&world, point, at) {
            // Not where the enumeration expected it: fall back to an exact replay.
            inexact = true;
            kept = None;
            world = World::new(job.replay(variant));
            (converged, crashable) = run_recording(&mut world);
        }
    }
    let report = judge(&world, converged, &ctx.expected[variant.expected], false);
    let start_len = (world.events().len() - crashable.len()) as u64;
    let after = world.fired_crashes().last().map(|c| c.seq);
    let children = match (wants_children, job.every_event) {
        (false, _) => vec![],
        (true, true) => every_event_sites(&world, start_len, &crashable, after),
        (true, false) => child_sites(&world, &job.crashes, job.site_seqs.last().copied()),
    };
    let events = world.events();
    // Coverage counts from the last crash on (a forked run starts there; a replay does not).
    let from = after.map_or(0, |a| a + 1);
    let first = from.saturating_sub(1) as usize;
    // Distinct here, on the worker thread: the merge that tallies them is serial.
    let mut gaps: Vec<_> = events[first..]
        .windows(2)
        .map(|w| (w[0].kind.name(), w[1].kind.name()))
        .collect();
    gaps.sort_unstable();
    gaps.dedup();
    let mut named: Vec<_> = world
        .crash_sites()
        .iter()
        .filter(|(seq, _)| *seq >= from)
        .map(|(seq, p)| (p.kind.name(), window(events, *seq)))
        .collect();
    named.sort_unstable();
    named.dedup();
    // A run without a crash of its own starts from zero: its children fork from a fresh world.
    let start = if children.is_empty() || !ctx.forking {
        None
    } else {
        kept.or_else(|| Some(World::new(job.replay(variant))))
    };
    Done {
        outcome: job.outcome(
            variant.fault,
            report.verdict,
            report.duplicates,
            report.lost,
        ),
        children,
        start,
        inexact,
        converged,
        start_len,
        end_len: events.len() as u64,
        gaps,
        named,
    }
}

/// Runs a world to its end; whether it converged, and for each event it stepped whether a
/// driver crash could follow it (the query is running: not down, not stopped).
fn run_recording(world: &mut World) -> (bool, Vec<bool>) {
    let mut crashable = vec![];
    let ending = crate::oracle::run_observed(world, Limit::JUDGE, |w: &World| {
        crashable.push(!matches!(w.phase(), Phase::Down { .. } | Phase::Stopped));
    });
    (ending.converged(), crashable)
}

/// The window of a crash after event `seq`: its kind and the next event's (or [`END`]).
pub(crate) fn window(events: &[Event], seq: u64) -> (&'static str, &'static str) {
    let i = seq as usize;
    let next = events.get(i + 1).map_or(END, |e| e.kind.name());
    (events[i].kind.name(), next)
}

/// Every-event mode: every event the run stepped after its last crash that a crash can follow.
fn every_event_sites(
    world: &World,
    start_len: u64,
    crashable: &[bool],
    after: Option<u64>,
) -> Vec<Child> {
    let events = world.events();
    crashable
        .iter()
        .enumerate()
        .map(|(i, &ok)| (start_len + i as u64, ok))
        .filter(|&(seq, ok)| ok && after.is_none_or(|a| seq > a))
        .map(|(seq, _)| Child {
            seq,
            point: None,
            window: window(events, seq),
        })
        .collect()
}

/// Whether the crash (`point`, or an unnamed one) fired right after the event `at` and every
/// armed crash fired.
fn fired_after(world: &World, point: Option<CrashPoint>, at: u64) -> bool {
    world.pending_crashes().is_empty()
        && world.events().iter().any(|e| {
            matches!(&e.kind, EventKind::Crashed { point: p, after_seq, .. }
                if *p == point && *after_seq == at)
        })
}

/// The crash points that can be added to a finished run with `crashes` so that the new crash
/// fires after the last one (each list is enumerated once, in firing order): the occurrence a
/// replay of `crashes + [q]` fires `q` at is its (count of q in crashes + 1)-th site.
fn child_sites(world: &World, crashes: &[CrashPoint], after: Option<u64>) -> Vec<Child> {
    let mut seen: BTreeMap<CrashPoint, usize> = BTreeMap::new();
    let mut children = vec![];
    for (seq, point) in crash_sites(world) {
        let k = seen.entry(point).or_insert(0);
        *k += 1;
        let fires_at = crashes.iter().filter(|c| **c == point).count() + 1;
        if *k == fires_at && after.is_none_or(|a| seq > a) {
            children.push(Child {
                seq,
                point: Some(point),
                window: window(world.events(), seq),
            });
        }
    }
    children
}
