//! One explored run: its start world (forked from a parent run or fresh), its run to the end
//! and its judgement, and the crash points its children may add.

use crate::explore::fault::{Fault, Outcome};
use crate::oracle::{judge, run, Limit};
use batchscope_engine::{CrashPoint, EventKind, Scenario, World};
use std::collections::BTreeMap;

/// Every crash site of a world's trace in order: (sequence number of the site event, point).
/// The engine records them as it steps ([`World::crash_sites`]), so there is one mapping.
pub fn crash_sites(world: &World) -> Vec<(u64, CrashPoint)> {
    world.crash_sites().to_vec()
}

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
    pub(crate) crashes: Vec<CrashPoint>,
    pub(crate) site_seqs: Vec<u64>,
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
    pub(crate) children: Vec<(u64, CrashPoint)>,
    pub(crate) start: Option<World>,
    pub(crate) inexact: bool,
}

/// Read-only context of the runs, shared by the worker threads.
pub(crate) struct Context<'a> {
    pub(crate) variants: &'a [Variant],
    pub(crate) expected: &'a [BTreeMap<String, u64>],
    pub(crate) depth: u32,
    pub(crate) forking: bool,
}
/// Adds crashes to a scenario (private helper trait to keep call sites short).
pub(crate) trait WithCrashes {
    fn with_crashes(self, crashes: &[CrashPoint]) -> Scenario;
}

impl WithCrashes for Scenario {
    fn with_crashes(mut self, crashes: &[CrashPoint]) -> Scenario {
        self.crashes = crashes.to_vec();
        self
    }
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

/// The start worlds of a group of jobs (one parent, or a single job without one).
pub(crate) fn fork_group(
    variants: &[Variant],
    parents: &[Parent],
    forking: bool,
    group: &[Job],
) -> Vec<World> {
    let mut cursor: Option<World> = None;
    let mut starts = Vec::with_capacity(group.len());
    for job in group {
        let Some(p) = job.parent.filter(|_| forking) else {
            let s = variants[job.variant]
                .scenario
                .clone()
                .with_crashes(&job.crashes);
            starts.push(World::new(s));
            continue;
        };
        let at = *job.site_seqs.last().expect("a forked job has a crash");
        let w = cursor.get_or_insert_with(|| parents[p].world.clone().expect("parent kept"));
        while (w.events().len() as u64) < at {
            w.step();
        }
        let mut fork = w.clone();
        fork.arm_crash(*job.crashes.last().expect("a forked job has a crash"));
        starts.push(fork);
    }
    starts
}

/// Runs one job from its start world to the end and judges it.
pub(crate) fn run_job(ctx: &Context<'_>, job: &Job, start: World) -> Done {
    let variant = &ctx.variants[job.variant];
    let wants_children =
        (job.crashes.len() as u32 + u32::from(variant.fault.is_some())) < ctx.depth;
    let kept = (ctx.forking && wants_children && job.parent.is_some()).then(|| start.clone());
    let mut world = start;
    let mut converged = run(&mut world, Limit::JUDGE).converged();
    let mut inexact = false;
    if let (Some(&point), Some(&at)) = (job.crashes.last(), job.site_seqs.last()) {
        if !fired_after(&world, point, at) {
            // Not where the enumeration expected it: fall back to an exact replay.
            inexact = true;
            world = World::new(variant.scenario.clone().with_crashes(&job.crashes));
            converged = run(&mut world, Limit::JUDGE).converged();
        }
    }
    let report = judge(&world, converged, &ctx.expected[variant.expected], false);
    let children = if wants_children {
        child_sites(&world, &job.crashes, job.site_seqs.last().copied())
    } else {
        vec![]
    };
    // A run without a crash of its own starts from zero: its children fork from a fresh world.
    let start = if children.is_empty() || !ctx.forking {
        None
    } else {
        kept.or_else(|| Some(World::new(variant.scenario.clone())))
    };
    Done {
        outcome: Outcome {
            crashes: job.crashes.clone(),
            fault: variant.fault,
            verdict: report.verdict,
            duplicates: report.duplicates,
            lost: report.lost,
            site_seqs: job.site_seqs.clone(),
        },
        children,
        start,
        inexact,
    }
}

/// Whether `point` fired right after the event `at` and every armed crash fired.
fn fired_after(world: &World, point: CrashPoint, at: u64) -> bool {
    world.pending_crashes().is_empty()
        && world.events().iter().any(|e| {
            matches!(&e.kind, EventKind::Crashed { point: Some(p), after_seq, .. }
                if *p == point && *after_seq == at)
        })
}

/// The crash points that can be added to a finished run with `crashes` so that the new crash
/// fires after the last one (each list is enumerated once, in firing order): the occurrence a
/// replay of `crashes + [q]` fires `q` at is its (count of q in crashes + 1)-th site.
fn child_sites(
    world: &World,
    crashes: &[CrashPoint],
    after: Option<u64>,
) -> Vec<(u64, CrashPoint)> {
    let mut seen: BTreeMap<CrashPoint, usize> = BTreeMap::new();
    let mut children = vec![];
    for (seq, point) in crash_sites(world) {
        let k = seen.entry(point).or_insert(0);
        *k += 1;
        let fires_at = crashes.iter().filter(|c| **c == point).count() + 1;
        if *k == fires_at && after.is_none_or(|a| seq > a) {
            children.push((seq, point));
        }
    }
    children
}
