//! Why a run went bad: its anomalies, each with the trace events that prove it, and the
//! moments the bad outcome became unavoidable.
//!
//! **Anomalies.** The verdict's parts are named in the vocabulary of Jepsen's queue checker
//! (`jepsen.checker/queue`, "total-queue": *duplicated* and *lost* elements) where it fits:
//! - `duplicate`: keys visible more than once (or a running sum too high). Its events are the
//!   sink writes that put each extra copy there (the first event after which the key was
//!   visible one more time than before, beyond the first copy), and the failure before each
//!   (a `Crashed`, `QueryFailed` or `TaskFailed`) that made the write a re-run.
//! - `lost`: expected keys missing at the end. Its events are, per key, the first event after
//!   which no failure-free continuation delivers the key any more (see below), and the failure
//!   at or before it.
//! - `wrong-value`: running-sum keys whose value is not the expected one (`wrong_values`); the
//!   writes that pushed the value too high and their failures, or, for a value short of the
//!   expected one, the event after which it could no longer be made up.
//! - `unread-after-stop`: the `unread` keys of a query stopped for good (`restart: none`); the
//!   failure that stopped it.
//! - `stuck`: a run that did not converge: the keys it never delivered, and its last progress
//!   event (the last one the liveness rule counts as progress).
//!
//! **Continuations.** The *failure-free continuation* after event `i` is the world right after
//! `i` with every failure still to come removed ([`World::without_failures`]: armed crashes,
//! including one whose site is event `i` itself and that would fire next, armed faults, sink
//! outages not yet begun), run to its end with the oracle's loop and judged against the same
//! expected set. For a bad run:
//! - `inevitable_at` is the first event after which *every* failure-free continuation is bad:
//!   from there on, nothing but more failures could happen, and none of them undoes the harm.
//!   For a crash it is usually the `Crashed` event itself: the event before it is the crash
//!   site, and a continuation from there simply does not crash. It is earlier only when the
//!   harm is done by a step the engine takes before the crash (a source that commits
//!   positions to the server before the sink holds the rows).
//! - `avoidable_until` is the last event whose failure-free continuation is good: up to there
//!   the run could still have ended exactly once, had no further failure come (the minimal
//!   sense of "one different choice"; moving the crash elsewhere is what `batchscope explore`
//!   tries).
//!
//! Good and bad continuations need not alternate once: a later failure can make a good
//! continuation bad and a re-run can make it good again, so the continuations are not
//! bisected: they are tried from the last event backwards until one is good (everything after
//! it is then known, and nothing before it is needed). Runs longer than
//! [`MAX_SCANNED_EVENTS`] are not scanned (in the worst case, no good continuation at all, the
//! cost is quadratic); their `lost` events fall back to the run's failures.

use crate::anomaly::{aged_out_proof, Anomaly, AnomalyName, Moment};
use crate::liveness::{run, Limit, Liveness};
use crate::oracle::{expected_counts, verdict_of, Report, Verdict};
use crate::progress::{so_far, Progress};
use batchscope_engine::microbatch::event::{Event, EventKind};
use batchscope_engine::microbatch::scenario::{Scenario, SinkValue};
use batchscope_engine::microbatch::upstream::RowKey;
use batchscope_engine::microbatch::World;
use std::collections::{BTreeMap, BTreeSet};

/// The longest run whose failure-free continuations are tried (one per event, at worst).
pub const MAX_SCANNED_EVENTS: u64 = 4_000;

/// Whether an event is a failure that makes the driver (or a task) run something again.
pub fn is_failure(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Crashed { .. } | EventKind::QueryFailed { .. } | EventKind::TaskFailed { .. }
    )
}

/// Fills the report's `anomalies`, `inevitable_at` and `avoidable_until` by replaying its run
/// (`report` must be the judgement of `scenario`, as [`crate::oracle::check_world`] makes
/// it). A run judged exactly-once is left as it is.
pub fn explain(scenario: &Scenario, report: &mut Report) {
    if report.verdict == Verdict::ExactlyOnce {
        return;
    }
    let expected = expected_counts(scenario);
    let scan = report.steps <= MAX_SCANNED_EVENTS;
    let mut tracked: Vec<RowKey> = report.lost_keys.clone();
    tracked.extend(wrong_value_keys(report));
    tracked.sort();
    tracked.dedup();
    let mut writes = Writes::new(scenario, report);
    let mut world = World::new(scenario.clone());
    let mut worlds = vec![];
    for _ in 0..report.steps {
        world.step();
        writes.observe(&world);
        if scan {
            worlds.push(world.clone());
        }
    }
    let found = scan.then(|| Scan::back(&worlds, &expected, &tracked));
    let events = world.events();
    report.anomalies = anomalies(report, events, &writes, found.as_ref(), &tracked);
    let Some(found) = found else {
        return;
    };
    let bad_from = found.last_good.map_or(0, |i| i + 1);
    report.inevitable_at = events.get(bad_from).map(Moment::of);
    report.avoidable_until = found.last_good.map(|i| Moment::of(&events[i]));
}

/// What the failure-free continuations of a run say, tried from its last event backwards
/// until one is good: every continuation after a good one is tried, and nothing before it is
/// needed (a good continuation leaves every key good as well).
struct Scan {
    /// The last event whose continuation is good.
    last_good: Option<usize>,
    /// Per tracked key: the last event whose continuation leaves it good.
    key_last_good: Vec<Option<usize>>,
}

impl Scan {
    /// `worlds[i]` is the run right after event `i`.
    fn back(worlds: &[World], expected: &BTreeMap<RowKey, u64>, tracked: &[RowKey]) -> Scan {
        let mut scan = Scan {
            last_good: None,
            key_last_good: vec![None; tracked.len()],
        };
        for (i, world) in worlds.iter().enumerate().rev() {
            let c = Continuation::after(world, expected, tracked);
            for (last, bad) in scan.key_last_good.iter_mut().zip(&c.bad_keys) {
                if last.is_none() && !bad {
                    *last = Some(i);
                }
            }
            if c.good {
                scan.last_good = Some(i);
                break;
            }
        }
        scan
    }
}

/// The running-sum keys of the report's `wrong_values` (`user-3: 57, expected 42`).
fn wrong_value_keys(report: &Report) -> Vec<RowKey> {
    let keys = report.wrong_values.iter();
    keys.filter_map(|w| w.split(':').next()?.parse().ok())
        .collect()
}

/// The failure-free continuation after one event, judged.
struct Continuation {
    /// It ends exactly once.
    good: bool,
    /// Per tracked key (lost or wrong-valued in the run): whether it ends bad here too.
    bad_keys: Vec<bool>,
}

impl Continuation {
    fn after(world: &World, expected: &BTreeMap<RowKey, u64>, tracked: &[RowKey]) -> Self {
        let mut next = world.without_failures();
        let converged = run(&mut next, Limit::JUDGE).converged();
        let p = so_far(&next, expected);
        Continuation {
            good: verdict_of(converged, &p) == Verdict::ExactlyOnce,
            bad_keys: tracked.iter().map(|k| ends_bad(&p, *k)).collect(),
        }
    }
}

fn ends_bad(p: &Progress, key: RowKey) -> bool {
    p.missing_keys.binary_search(&key).is_ok() || p.duplicate_keys.binary_search(&key).is_ok()
}

/// The sink writes that made a watched key (duplicated or wrong-valued in the run) visible once
/// more than before beyond its first copy, or, in a running sum, changed its value by a write
/// (a task of a batch, or a batch's commit) that had already changed it: the re-run of a batch
/// adds its records a second time.
struct Writes {
    /// Key → what the sink shows of it now.
    now: BTreeMap<RowKey, Seen>,
    /// A running-sum sink (values are compared, not copies).
    sums: bool,
    /// Key → the events that wrote too much.
    extra: BTreeMap<RowKey, Vec<u64>>,
    version: u64,
}

/// One watched key as the sink shows it.
#[derive(Clone, Debug, Default)]
struct Seen {
    copies: u64,
    value: u64,
    /// Running sums: the writes (batch, task; `u32::MAX` for the commit) that changed the value.
    writers: BTreeSet<(u64, u32)>,
}

impl Writes {
    fn new(scenario: &Scenario, report: &Report) -> Writes {
        let mut watched: BTreeSet<RowKey> = report.duplicate_keys.iter().copied().collect();
        watched.extend(wrong_value_keys(report));
        let world = World::new(scenario.clone());
        Writes {
            now: watched.into_iter().map(|k| (k, Seen::default())).collect(),
            sums: scenario.sink.value == SinkValue::RunningSum,
            extra: BTreeMap::new(),
            version: world.sink.visible_version(),
        }
    }

    /// Recounts the watched keys after the last event, if it may have changed the visible rows.
    fn observe(&mut self, world: &World) {
        if world.sink.visible_version() == self.version || self.now.is_empty() {
            return;
        }
        self.version = world.sink.visible_version();
        let mut counted: BTreeMap<RowKey, (u64, u64)> = BTreeMap::new();
        for (key, row) in world.sink.visible_keyed() {
            if self.now.contains_key(&key) {
                let c = counted.entry(key).or_insert((0, 0));
                c.0 += 1;
                c.1 = world.sink.value_of(row, &world.upstream);
            }
        }
        let Some(last) = world.events().last() else {
            return;
        };
        let (seq, writer) = (last.seq, writer(&last.kind));
        for (key, seen) in self.now.iter_mut() {
            let (copies, value) = counted.get(key).copied().unwrap_or((0, 0));
            let extra = if self.sums {
                value != seen.value && !seen.writers.insert(writer)
            } else {
                copies > seen.copies && copies > 1
            };
            if extra {
                self.extra.entry(*key).or_default().push(seq);
            }
            (seen.copies, seen.value) = (copies, value);
        }
    }

    /// The events that wrote too much into `keys`, with the failure before each.
    fn proof(&self, keys: &[RowKey], events: &[Event]) -> BTreeSet<u64> {
        let mut out = BTreeSet::new();
        for seq in keys.iter().filter_map(|k| self.extra.get(k)).flatten() {
            out.insert(*seq);
            out.extend(failure_at_or_before(events, *seq));
        }
        out
    }
}

/// Who wrote into the sink at an event: a task of a batch, or a batch's commit.
fn writer(kind: &EventKind) -> (u64, u32) {
    match kind {
        EventKind::TaskFinished {
            batch_id,
            partition,
            ..
        } => (*batch_id, *partition),
        other => (other.batch_id().unwrap_or(u64::MAX), u32::MAX),
    }
}

/// The last failure event at or before `seq`.
fn failure_at_or_before(events: &[Event], seq: u64) -> Option<u64> {
    let upto = &events[..=(seq as usize).min(events.len().saturating_sub(1))];
    upto.iter()
        .rev()
        .find(|e| is_failure(&e.kind))
        .map(|e| e.seq)
}

/// Per tracked key, the first event after which every continuation leaves it bad, with the
/// failure at or before it; the run's failures when the run was not scanned.
fn point_of_no_return(key_index: usize, scan: Option<&Scan>, events: &[Event]) -> BTreeSet<u64> {
    let Some(scan) = scan else {
        return failures(events);
    };
    let last_good = scan.key_last_good[key_index];
    let at = last_good.map_or(0, |i| i + 1).min(events.len() - 1) as u64;
    let mut out = BTreeSet::from([at]);
    out.extend(failure_at_or_before(events, at));
    out
}

fn failures(events: &[Event]) -> BTreeSet<u64> {
    let all = events.iter().filter(|e| is_failure(&e.kind));
    all.map(|e| e.seq).collect()
}

/// The report's anomalies, in [`AnomalyName`] order.
fn anomalies(
    report: &Report,
    events: &[Event],
    writes: &Writes,
    scan: Option<&Scan>,
    tracked: &[RowKey],
) -> Vec<Anomaly> {
    let mut out = vec![];
    let mut push = |name, keys: Vec<RowKey>, events: BTreeSet<u64>| {
        if !keys.is_empty() || name == AnomalyName::Stuck {
            let events = events.into_iter().collect();
            out.push(Anomaly { name, keys, events });
        }
    };
    let no_return = |keys: &[RowKey]| -> BTreeSet<u64> {
        let mut out = BTreeSet::new();
        for k in keys {
            if let Ok(i) = tracked.binary_search(k) {
                out.extend(point_of_no_return(i, scan, events));
            }
        }
        out
    };
    push(
        AnomalyName::Duplicate,
        report.duplicate_keys.clone(),
        writes.proof(&report.duplicate_keys, events),
    );
    let stuck = report.verdict == Verdict::Stuck;
    if !stuck {
        let (aged, lost): (Vec<RowKey>, Vec<RowKey>) =
            (report.lost_keys.iter()).partition(|k| report.aged_out_keys.binary_search(k).is_ok());
        push(AnomalyName::Lost, lost.clone(), no_return(&lost));
        push(AnomalyName::AgedOut, aged, aged_out_proof(events));
    }
    let wrong = wrong_value_keys(report);
    let mut proof = writes.proof(&wrong, events);
    let short: Vec<RowKey> = wrong
        .iter()
        .filter(|k| !writes.extra.contains_key(k))
        .copied()
        .collect();
    proof.extend(no_return(&short));
    push(AnomalyName::WrongValue, wrong, proof);
    let stop = events.iter().rev().find(|e| is_failure(&e.kind));
    push(
        AnomalyName::UnreadAfterStop,
        report.unread_keys.clone(),
        stop.map(|e| e.seq).into_iter().collect(),
    );
    if stuck {
        push(
            AnomalyName::Stuck,
            report.lost_keys.clone(),
            last_progress(events).into_iter().collect(),
        );
    }
    out
}

/// The last event the liveness rule counts as progress.
fn last_progress(events: &[Event]) -> Option<u64> {
    let mut frontier = Default::default();
    let progress = events
        .iter()
        .filter(|e| World::progress_ms(&mut frontier, e).is_some());
    progress.last().map(|e| e.seq)
}

/// The text of an anomaly's proof: its failures, then the re-run's writes and the points of
/// no return (`#48 crash → #63, #64 re-run writes`).
pub fn proof_text(anomaly: &Anomaly, events: &[Event]) -> String {
    let (mut causes, mut writes, mut others) = (vec![], vec![], vec![]);
    for &seq in &anomaly.events {
        match events.get(seq as usize).map(|e| &e.kind) {
            Some(EventKind::Crashed { .. }) => causes.push(format!("#{seq} crash")),
            Some(EventKind::QueryFailed { .. }) => causes.push(format!("#{seq} query failed")),
            Some(EventKind::TaskFailed { .. }) => causes.push(format!("#{seq} task failed")),
            Some(EventKind::TaskFinished { .. } | EventKind::SinkCommitted { .. })
                if matches!(
                    anomaly.name,
                    AnomalyName::Duplicate | AnomalyName::WrongValue
                ) =>
            {
                writes.push(format!("#{seq}"));
            }
            _ => others.push(format!("#{seq}")),
        }
    }
    let mut then = vec![];
    if !writes.is_empty() {
        then.push(format!("{} re-run writes", writes.join(", ")));
    }
    if !others.is_empty() {
        let others = others.join(", ");
        then.push(match anomaly.name {
            AnomalyName::UnreadAfterStop => format!("{others} stopped the query"),
            AnomalyName::Stuck => format!("last progress {others}"),
            AnomalyName::AgedOut => format!("{others} skipped what retention deleted"),
            _ => format!("no failure-free way back after {others}"),
        });
    }
    let causes = causes.join(", ");
    match (causes.is_empty(), then.is_empty()) {
        (true, true) => "no event".to_string(),
        (false, true) => causes,
        (true, false) => then.join("; "),
        (false, false) => format!("{causes} → {}", then.join("; ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::{check_world, judge};
    use crate::progress::visible_counts;
    use batchscope_engine::microbatch::scenario::{preset, Fault, Restart};
    use batchscope_engine::microbatch::trace;

    fn with_crash(name: &str, crash: &str) -> Scenario {
        let mut s = preset(name).expect("a preset");
        s.crashes.push(crash.parse().expect("a crash point"));
        s
    }

    fn explained(s: &Scenario) -> (Report, World) {
        let (mut report, world) = check_world(s, false);
        explain(s, &mut report);
        (report, world)
    }

    fn anomaly(r: &Report, name: AnomalyName) -> &Anomaly {
        let found = r.anomalies.iter().find(|a| a.name == name);
        found.unwrap_or_else(|| panic!("no {name:?} in {:?}", r.anomalies))
    }

    /// The verdict of the failure-free continuation after event `seq`, replayed on its own.
    fn continuation(s: &Scenario, seq: u64) -> Report {
        let mut w = World::new(s.clone());
        for _ in 0..=seq {
            w.step();
        }
        let mut next = w.without_failures();
        let converged = run(&mut next, Limit::JUDGE).converged();
        judge(&next, converged, &expected_counts(s), false)
    }

    #[test]
    fn the_duplicate_anomaly_names_the_duplicated_keys_the_crash_and_the_writes_of_each_extra_copy()
    {
        let s = with_crash("kafka-append", "sink-commit@3");
        let (r, world) = explained(&s);
        assert_eq!(r.verdict, Verdict::Duplicates);
        let dup = anomaly(&r, AnomalyName::Duplicate);
        assert_eq!(dup.keys, r.duplicate_keys);
        // Replayed apart: the events after which a duplicated key had one more copy than
        // before, beyond its first.
        let mut w = World::new(s.clone());
        let mut before = visible_counts(&w);
        let mut want = BTreeSet::new();
        for _ in 0..r.steps {
            let e = w.step();
            let after = visible_counts(&w);
            let copies = |m: &BTreeMap<RowKey, u64>, k| m.get(k).copied().unwrap_or(0);
            if (r.duplicate_keys.iter()).any(|k| copies(&after, k) > copies(&before, k).max(1)) {
                want.insert(e.seq);
            }
            before = after;
        }
        assert!(!want.is_empty());
        let crash = world.fired_crashes()[0].seq;
        assert!(
            want.iter().all(|&w| w > crash),
            "the writes are the re-run's"
        );
        want.insert(crash);
        assert_eq!(dup.events, want.into_iter().collect::<Vec<_>>());
        assert_eq!(r.anomalies.len(), 1, "{:?}", r.anomalies);
    }

    #[test]
    fn a_running_sum_re_run_is_proved_by_the_writes_of_the_re_run_batch() {
        let text = include_str!("../../../scenarios/kafka-running-sum.json");
        let mut s = Scenario::from_json(text).expect("the example scenario");
        s.crashes
            .push("sink-commit@3".parse().expect("a crash point"));
        let (r, world) = explained(&s);
        let wrong = anomaly(&r, AnomalyName::WrongValue);
        assert_eq!(wrong.keys, wrong_value_keys(&r));
        assert!(!wrong.keys.is_empty());
        let crash = &world.events()[world.fired_crashes()[0].seq as usize];
        let rerun = |e: &Event| match e.kind {
            EventKind::TaskFinished { batch_id, .. } => Some(batch_id) == crash.kind.batch_id(),
            _ => false,
        };
        let proof: Vec<&Event> = wrong
            .events
            .iter()
            .map(|&i| &world.events()[i as usize])
            .collect();
        assert_eq!(proof[0].seq, crash.seq);
        assert!(proof.len() > 1);
        assert!(
            proof[1..].iter().all(|e| rerun(e) && e.run > crash.run),
            "{proof:?}"
        );
        // Each task of the crashed batch re-ran once after the crash: all of them are here.
        let reruns = world
            .events()
            .iter()
            .filter(|e| e.seq > crash.seq && rerun(e));
        assert_eq!(reruns.count(), proof.len() - 1);
    }

    #[test]
    fn inevitable_at_and_avoidable_until_match_their_definitions() {
        for (name, crash) in [
            ("kafka-append", "sink-commit@3"),
            ("kafka-append", "task@2"),
            ("tablestore-two-phase", "sink-commit@2"),
            ("auto-commit", "task@2"),
        ] {
            let s = with_crash(name, crash);
            let (r, world) = explained(&s);
            assert_ne!(r.verdict, Verdict::ExactlyOnce, "{name} {crash}");
            let at = r.inevitable_at.as_ref().expect("inevitable somewhere");
            let until = r.avoidable_until.as_ref().expect("avoidable before");
            assert_eq!(at.line, trace::line(&world.events()[at.event as usize]));
            assert_eq!(
                until.line,
                trace::line(&world.events()[until.event as usize])
            );
            assert_eq!(until.event + 1, at.event, "{name} {crash}");
            let good = continuation(&s, until.event).verdict;
            assert_eq!(good, Verdict::ExactlyOnce, "{name} {crash}");
            for j in at.event..r.steps {
                let bad = continuation(&s, j).verdict;
                assert_ne!(bad, Verdict::ExactlyOnce, "{name} {crash} after #{j}");
            }
        }
        // A crash after the sink's append and before `commits/3`: the harm is the crash itself.
        let s = with_crash("kafka-append", "sink-commit@3");
        let (r, world) = explained(&s);
        let crash = world.fired_crashes()[0].seq;
        assert_eq!(r.inevitable_at.map(|m| m.event), Some(crash));
    }

    #[test]
    fn the_lost_anomaly_names_the_lost_keys_and_the_crash_after_which_they_cannot_arrive() {
        let s = with_crash("tablestore-two-phase", "sink-commit@2");
        let (r, world) = explained(&s);
        assert_eq!(r.verdict, Verdict::DataLoss);
        let lost = anomaly(&r, AnomalyName::Lost);
        assert_eq!(lost.keys, r.lost_keys);
        let crash = world.fired_crashes()[0].seq;
        assert!(lost.events.contains(&crash), "{lost:?}");
        // Just before the first of its events, a failure-free continuation still delivers them.
        let first = lost.events[0];
        let before = continuation(&s, first - 1);
        assert!(lost.keys.iter().all(|k| !before.lost_keys.contains(k)));
        let after = continuation(&s, *lost.events.last().expect("an event"));
        assert!(lost.keys.iter().all(|k| after.lost_keys.contains(k)));
    }

    #[test]
    fn a_query_stopped_for_good_shows_its_unread_keys_and_the_failure_that_stopped_it() {
        let mut s = preset("foreach-batch-multi").expect("a preset");
        s.faults
            .push("foreach-fail@3".parse::<Fault>().expect("a fault"));
        s.restart = Some(Restart::None);
        let (r, world) = explained(&s);
        assert_eq!(r.verdict, Verdict::Stopped);
        let unread = anomaly(&r, AnomalyName::UnreadAfterStop);
        assert_eq!(unread.keys, r.unread_keys);
        let failed = world.events().iter().rev().find(|e| is_failure(&e.kind));
        assert_eq!(unread.events, vec![failed.expect("a failure").seq]);
    }

    #[test]
    fn a_stuck_run_names_the_keys_it_never_delivered_and_its_last_progress() {
        let s = preset("reader-never-closes").expect("a preset");
        let (r, world) = explained(&s);
        assert_eq!(r.verdict, Verdict::Stuck);
        let stuck = anomaly(&r, AnomalyName::Stuck);
        assert_eq!(stuck.keys, r.lost_keys);
        assert!(r.anomalies.iter().all(|a| a.name != AnomalyName::Lost));
        let [last] = stuck.events[..] else {
            panic!("one event: {stuck:?}");
        };
        let at_ms = world.events()[last as usize].at_ms;
        assert_eq!(at_ms, crate::liveness::last_progress_ms(&world));
    }

    #[test]
    fn an_exactly_once_run_has_nothing_to_explain() {
        let s = with_crash("kafka-idempotent", "sink-commit@3");
        let (r, _) = explained(&s);
        assert_eq!(r.verdict, Verdict::ExactlyOnce);
        assert!(r.anomalies.is_empty());
        assert_eq!((r.inevitable_at, r.avoidable_until), (None, None));
    }

    #[test]
    fn without_failures_drops_a_crash_armed_at_the_last_event() {
        let s = with_crash("kafka-append", "sink-commit@3");
        let (_, crashed) = check_world(&s, false);
        let crash = crashed.fired_crashes()[0].seq;
        let mut w = World::new(s);
        for _ in 0..crash {
            w.step();
        }
        let mut calm = w.without_failures();
        assert!(matches!(w.step().kind, EventKind::Crashed { .. }));
        assert!(!matches!(calm.step().kind, EventKind::Crashed { .. }));
    }
}
