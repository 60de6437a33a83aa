//! Crashes after every event: the named crash points are a subset of its crash sites, state
//! de-duplication leaves every count as it is, the matrix is the named crashes' matrix,
//! coverage names the protocol's crash windows, and the same exploration gives the same
//! summary twice.

use batchscope_check::explore::{crash_sites, Explorer, Options, Summary};
use batchscope_check::oracle::{failure_free, Verdict};
use batchscope_engine::microbatch::scenario::{preset, CrashKind, Scenario};
use std::collections::{BTreeMap, BTreeSet};

const EVERY: Options = Options {
    every_event: true,
    prune: false,
    shard: None,
    every_bad_run: false,
};
const EVERY_PRUNED: Options = Options {
    every_event: true,
    prune: true,
    shard: None,
    every_bad_run: false,
};

fn small(name: &str, batches: u64) -> Scenario {
    let mut s = preset(name).unwrap();
    s.batches = batches;
    s
}

fn explore(scenario: Scenario, depth: u32, options: Options) -> Summary {
    Explorer::with_options(scenario, depth, options).run_to_completion()
}

/// The counts that must not depend on de-duplication.
fn counts(s: &Summary) -> (u64, BTreeMap<Verdict, u64>, BTreeMap<u32, u64>) {
    (s.runs, s.outcomes.clone(), s.runs_by_depth.clone())
}

#[test]
fn every_named_crash_is_a_crash_after_its_site_event_with_the_same_verdict() {
    for name in [
        "kafka-append",
        "tablestore-two-phase",
        "auto-commit",
        "reader-idle-timeout",
    ] {
        let scenario = small(name, 4);
        let named = explore(scenario.clone(), 1, Options::default());
        let every = explore(scenario.clone(), 1, EVERY);
        // Every-event crashes after every event of the base run: the named sites among them.
        let (clean, _) = failure_free(&scenario);
        let sites = crash_sites(&clean);
        assert!(every.crash_points >= sites.len() as u64, "{name}");
        // Crash runs only: PR #7476's readers (reader-idle-timeout) are bad without a crash too.
        let after: BTreeMap<u64, Verdict> = every
            .bad_runs
            .iter()
            .filter(|o| o.fault.is_none() && !o.crash_after_events.is_empty())
            .map(|o| (o.crash_after_events[0], o.verdict))
            .collect();
        let bad_named: Vec<_> = named
            .bad_runs
            .iter()
            .filter(|o| o.fault.is_none() && !o.site_seqs.is_empty())
            .collect();
        assert!(!bad_named.is_empty(), "{name} has bad single crashes");
        for o in bad_named {
            assert_eq!(
                after.get(&o.site_seqs[0]),
                Some(&o.verdict),
                "{name}: {:?}",
                o.crashes
            );
        }
        // So every bad verdict of the named points shows up, at least as often.
        for v in Verdict::ALL
            .into_iter()
            .filter(|v| *v != Verdict::ExactlyOnce)
        {
            assert!(every.outcomes[&v] >= named.outcomes[&v], "{name}: {v}");
        }
        assert_eq!(every.inexact_forks, 0, "{name}");
    }
}

#[test]
fn the_matrix_after_every_event_is_the_matrix_of_the_named_crashes() {
    // A cell `NAME@N` is the crash `NAME@N`, which fires at the first site of its point: where
    // a point has several sites in a batch (a SeaTunnel sink's commit per record) and in the
    // presets whose own faults re-run or renumber batches (sink-outage, torn-offset-log).
    for name in [
        "seatunnel-committed-only",
        "sink-outage",
        "torn-offset-log",
        "kafka-append",
    ] {
        let scenario = preset(name).unwrap();
        let named = explore(scenario.clone(), 1, Options::default());
        let every = explore(scenario, 1, EVERY_PRUNED);
        assert_eq!(every.matrix, named.matrix, "{name}");
    }
}

#[test]
fn pruning_leaves_every_count_as_an_unpruned_exploration_has_it() {
    let mut pruned_any = 0;
    for (name, batches) in [
        ("kafka-append", 2),
        ("tablestore-two-phase", 2),
        ("auto-commit", 2),
    ] {
        let scenario = small(name, batches);
        let off = explore(scenario.clone(), 2, EVERY);
        let on = explore(scenario.clone(), 2, EVERY_PRUNED);
        assert_eq!(counts(&on), counts(&off), "{name}");
        assert_eq!(off.pruned, 0, "{name}");
        let bad =
            |s: &Summary| -> BTreeSet<Verdict> { s.bad_runs.iter().map(|o| o.verdict).collect() };
        assert_eq!(bad(&on), bad(&off), "{name}");
        assert_eq!(on.inexact_forks, 0, "{name}");
        pruned_any += on.pruned;
        // Named points, keyed with how many more occurrences their children wait for.
        let named_off = explore(scenario.clone(), 2, Options::default());
        let named_on = explore(
            scenario,
            2,
            Options {
                every_event: false,
                prune: true,
                shard: None,
                every_bad_run: false,
            },
        );
        assert_eq!(counts(&named_on), counts(&named_off), "{name}");
    }
    assert!(pruned_any > 0, "some state is reached twice");
}

#[test]
fn coverage_names_every_window_and_the_named_points_never_reached() {
    for name in ["tablestore", "seatunnel-committed-only"] {
        let scenario = small(name, 3);
        let s = explore(scenario.clone(), 1, EVERY);
        let (clean, _) = failure_free(&scenario);
        let events = clean.events();
        // Every gap of the failure-free run is a window a crash went into.
        let crashed: BTreeSet<(String, String)> = s
            .coverage
            .windows
            .iter()
            .map(|w| (w.before.clone(), w.after.clone()))
            .collect();
        for pair in events.windows(2) {
            let gap = (
                pair[0].kind.name().to_string(),
                pair[1].kind.name().to_string(),
            );
            assert!(crashed.contains(&gap), "{name}: {gap:?}");
        }
        // The named points the failure-free run reaches are reached; the others are named.
        let reached: BTreeSet<&str> = crash_sites(&clean)
            .iter()
            .map(|(_, p)| p.kind.name())
            .collect();
        let unreached: BTreeSet<&str> = CrashKind::ALL
            .iter()
            .map(|k| k.name())
            .filter(|k| !reached.contains(k))
            .collect();
        assert!(!reached.is_empty(), "{name}");
        let named: BTreeSet<&str> = s.coverage.unreached.iter().map(String::as_str).collect();
        assert_eq!(named, unreached, "{name}");
        for p in &s.coverage.points {
            assert_eq!(
                p.reached,
                reached.contains(p.point.as_str()),
                "{name}: {}",
                p.point
            );
        }
        // A named point's window holds its name.
        let commit_log = s
            .coverage
            .windows
            .iter()
            .find(|w| w.before == "commit-log-written")
            .expect("a crash after commits/N");
        assert!(
            commit_log.points.contains(&"commit-log".to_string()),
            "{name}"
        );
    }
}

#[test]
fn the_same_exploration_gives_the_same_summary_twice_in_parallel_or_not() {
    let scenario = small("tablestore-two-phase", 2);
    let first = explore(scenario.clone(), 2, EVERY_PRUNED);
    let second = explore(scenario.clone(), 2, EVERY_PRUNED);
    assert_eq!(first, second);
    let mut serial = Explorer::with_options(scenario.clone(), 2, EVERY_PRUNED);
    serial.set_parallel(false);
    assert_eq!(serial.run_to_completion(), first);
    // Forked crashes after an event equal the same crash lists replayed from zero.
    let forked = explore(scenario.clone(), 2, EVERY);
    let mut replayed = Explorer::with_options(scenario, 2, EVERY);
    replayed.set_forking(false);
    let replayed = replayed.run_to_completion();
    assert_eq!(forked, replayed);
    assert_eq!(counts(&forked), counts(&first));
}

#[test]
fn a_counterexample_after_an_event_replays_to_its_verdict() {
    let s = explore(small("kafka-append", 3), 1, EVERY_PRUNED);
    let c = s
        .counterexamples
        .iter()
        .find(|c| !c.outcome.crash_after_events.is_empty())
        .expect("a crash after an event duplicates");
    let report = batchscope_check::oracle::check(&c.scenario);
    assert_eq!(report.verdict, c.outcome.verdict);
    assert_eq!(
        (report.duplicates, report.lost),
        (c.outcome.duplicates, c.outcome.lost)
    );
}
