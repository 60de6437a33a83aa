//! The swarm's fixed-seed slice: random scenarios and fault schedules, every invariant held,
//! and the slice reaching every source kind, every sink kind, restarts and the idempotent case
//! (so a slice that checks nothing fails).

use batchscope_check::swarm::{check, draw, swarm};

#[test]
fn a_fixed_slice_of_the_swarm_holds_every_invariant() {
    let (tally, bad) = swarm(1, 0, 10_000);
    assert_eq!(tally.runs, 10_000);
    assert_eq!(tally.violations, vec![], "{bad:#?}");
    for kind in [
        "source:ReplayableLog",
        "source:Tablestore",
        "source:PullAhead",
        "source:AutoCommit",
        "source:SeaTunnel",
        "sink:file",
        "sink:upsert",
        "sink:append",
        "sink:foreach-batch",
        "sink:two-phase",
        "sink:batch-id-in-memory",
    ] {
        assert!(
            tally.kinds.get(kind).is_some_and(|&n| n > 0),
            "{kind}: {:?}",
            tally.kinds
        );
    }
    assert!(tally.verdicts.len() >= 5, "{:?}", tally.verdicts);
    assert!(
        tally.restarts_inspected > 1000,
        "{}",
        tally.restarts_inspected
    );
    assert!(tally.idempotent_runs > 5, "{}", tally.idempotent_runs);
}

#[test]
fn a_run_is_drawn_from_its_seed_and_index_alone() {
    let bases = draw::bases();
    let a = draw::draw(&bases, 9, 123);
    assert_eq!(a, draw::draw(&bases, 9, 123));
    assert_ne!(a, draw::draw(&bases, 9, 124));
    assert_ne!(a, draw::draw(&bases, 10, 123));
    a.validate().unwrap();
    assert_eq!(check(&a), check(&a));
}
