//! The topology judge on the presets: levels, Strong vs Weak, failover, revision, report.
use super::*;
use batchscope_engine::barrier::preset;

fn run(name: &str, faults: Vec<Fault>, no_barriers: bool) -> TopologyRun {
    let mut spec = preset(name).expect("preset");
    spec.no_barriers = no_barriers;
    TopologyRun {
        barriers: spec.barriers,
        spec,
        seed: 7,
        faults,
    }
}

fn tallies(run: TopologyRun, c: Consistency) -> LevelTallies {
    tally_to_end(&mut TopologyWorld::from_run(run).expect("valid run"), c)
}

#[test]
fn with_barriers_strong_reads_never_mix_and_uncommitted_reads_do() {
    for name in ["shopping", "chain"] {
        let [ru, rc, rr] = tallies(run(name, vec![], false), Consistency::Strong);
        assert!(ru.inconsistent > 0, "{name}: RU mixes barriers");
        assert_eq!(rc.inconsistent, 0, "{name}: RC strong is consistent");
        assert_eq!(rr.inconsistent, 0, "{name}: RR strong is consistent");
        assert!(
            [ru, rc, rr].iter().all(|x| x.rolled_back == 0),
            "{name}: no fault, no roll-back"
        );
    }
}

#[test]
fn weak_never_mixes_transactions_in_one_query_at_rc_or_rr() {
    for name in ["shopping", "chain", "three-queries"] {
        let [ru, rc, rr] = tallies(run(name, vec![], false), Consistency::Weak);
        assert!(ru.inconsistent > 0, "{name}: RU reads uncommitted data");
        assert_eq!(rc.inconsistent, 0, "{name}: RC reads PRECOMMIT only");
        assert_eq!(rr.inconsistent, 0, "{name}: RR reads COMMIT only");
    }
}

#[test]
fn strong_queries_agree_and_weak_ones_are_fresher_but_disagree() {
    let strong = tallies(run("three-queries", vec![], false), Consistency::Strong);
    let weak = tallies(run("three-queries", vec![], false), Consistency::Weak);
    assert!(strong.iter().all(|t| t.disagreements == 0));
    assert!(weak.iter().any(|t| t.disagreements > 0));
    for (s, w) in strong.iter().zip(&weak) {
        for (q, lag) in &w.freshness {
            assert!(
                lag.total <= s.freshness[q].total,
                "{q}: Weak is at least as fresh"
            );
        }
    }
    let lag = |t: &LevelTallies| t[1].freshness["Query1"].total;
    assert!(
        lag(&weak) < lag(&strong),
        "Query1 alone is fresher under Weak"
    );
}

#[test]
fn failure_after_precommit_rolls_back_read_committed_but_not_repeatable_read() {
    let fail = vec![Fault::FailBeforeWritten {
        job: "price_job".into(),
        barrier: 2,
    }];
    let [_, rc, rr] = tallies(run("shopping", fail, false), Consistency::Strong);
    assert!(rc.rolled_back > 0);
    assert_eq!(rr.rolled_back, 0);
}

#[test]
fn without_barriers_every_level_sees_mixed_versions() {
    for name in ["shopping", "chain"] {
        let t = tallies(run(name, vec![], true), Consistency::Strong);
        for (x, l) in t.iter().zip(["ru", "rc", "rr"]) {
            assert!(x.inconsistent > 0, "{name}: {l} without barriers");
        }
    }
}

#[test]
fn a_revision_is_the_one_thing_that_moves_repeatable_read_back() {
    let revise = vec![Fault::ReviseAfterWritten {
        table: "table1".into(),
        // Strong RR reads barrier 2 by then (table2/table3 have WRITTEN 2): going back to 1
        // is visible.
        barrier: 1,
        written: 3,
    }];
    let [_, _, rr] = tallies(run("chain", revise, false), Consistency::Strong);
    assert!(rr.rolled_back > 0);
}

#[test]
fn the_report_counts_every_step_at_every_level() {
    let r = report(run("shopping", vec![], false), Consistency::Strong).expect("report");
    assert_eq!(r.trace.len() as u64, r.events);
    assert!(r.consistency.values().all(|t| t.queries == r.events));
    assert_eq!(r.job_to_optimise.as_deref(), Some("amount_job"));
}

#[test]
fn a_failure_rolls_back_every_strong_query_but_only_the_weak_ones_reading_the_lost_table() {
    let fail = || {
        vec![Fault::FailBeforeWritten {
            job: "amount_job".into(),
            barrier: 2,
        }]
    };
    let [_, weak, _] = tallies(run("three-queries", fail(), false), Consistency::Weak);
    let [_, strong, _] = tallies(run("three-queries", fail(), false), Consistency::Strong);
    assert_eq!(strong.disagreements, 0);
    assert!(weak.rolled_back > 0);
    assert!(
        weak.rolled_back < strong.rolled_back,
        "Query1 reads table1 only"
    );
}
