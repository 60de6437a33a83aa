//! Sharded exploration: the N shard reports of an exploration merge into exactly the summary
//! one process gives (runs, pruned, outcomes, coverage, counterexamples, matrix, bad runs),
//! whatever N; reports that are not the N shards of one exploration are refused.

use batchscope_check::explore::shard::{merge, ordered};
use batchscope_check::explore::{Explorer, Options, Origin, Shard, ShardReport, Summary};
use batchscope_engine::microbatch::scenario::{preset, Scenario};

fn small(name: &str, batches: u64) -> Scenario {
    let mut s = preset(name).unwrap();
    s.batches = batches;
    s
}

fn origin(name: &str) -> Origin {
    Origin::Preset(name.to_string())
}

fn single(scenario: &Scenario, depth: u32, options: Options) -> Summary {
    let name = scenario.name.clone();
    ordered(Explorer::with_options(scenario.clone(), depth, options).run_to_completion())
        .with_commands(&origin(&name))
}

fn shards(scenario: &Scenario, depth: u32, options: Options, count: u32) -> Vec<ShardReport> {
    (1..=count)
        .map(|index| {
            let shard = Some(Shard { index, count });
            let mut e =
                Explorer::with_options(scenario.clone(), depth, Options { shard, ..options });
            e.run_to_completion();
            e.shard_report(&origin(&scenario.name))
                .expect("a shard reports")
        })
        .collect()
}

/// Explorations with and without de-duplication, after every event and at the named points.
fn cases() -> Vec<(Scenario, u32, Options)> {
    let every = |prune| Options {
        every_event: true,
        prune,
        shard: None,
        every_bad_run: true,
    };
    vec![
        (small("tablestore", 3), 2, every(true)),
        (small("kafka-append", 3), 2, every(false)),
        (small("tablestore-split", 3), 1, every(true)),
        (
            preset("seatunnel-checkpoint-records").unwrap(),
            2,
            Options {
                every_bad_run: true,
                ..Options::default()
            },
        ),
    ]
}

#[test]
fn merged_shards_equal_the_single_process_summary() {
    for (scenario, depth, options) in cases() {
        let whole = single(&scenario, depth, options);
        assert!(whole.runs > 100, "{}: a real exploration", scenario.name);
        for count in [2, 3] {
            let reports = shards(&scenario, depth, options, count);
            // Each shard ran a real share: none ran every last-level run.
            for r in &reports {
                assert!(r.summary.runs < whole.runs, "{} {}", scenario.name, r.shard);
            }
            let mut reversed = reports.clone();
            reversed.reverse();
            let (merged, from) = merge(&reversed).expect("the shards merge");
            assert_eq!(merged, whole, "{} in {count} shards", scenario.name);
            assert_eq!(from, origin(&scenario.name));
        }
    }
}

#[test]
fn reports_that_are_not_one_exploration_are_refused() {
    let (scenario, depth, options) = cases().remove(0);
    let reports = shards(&scenario, depth, options, 2);
    let missing = merge(&reports[..1]).unwrap_err();
    assert_eq!(missing, "missing shards: 2/2");
    let twice = merge(&[reports[0].clone(), reports[0].clone()]).unwrap_err();
    assert_eq!(twice, "shard 1/2 is given twice");
    let other = shards(&small("tablestore", 2), depth, options, 2);
    let mixed = merge(&[reports[0].clone(), other[1].clone()]).unwrap_err();
    assert!(mixed.contains("not one exploration"), "{mixed}");
    assert_eq!(merge(&[]).unwrap_err(), "no shard reports to merge");
}

#[test]
fn shards_parse_as_k_of_n() {
    assert_eq!(Shard::parse("2/3"), Ok(Shard { index: 2, count: 3 }));
    for bad in ["0/2", "3/2", "2", "a/b", "1/0"] {
        let e = Shard::parse(bad).unwrap_err();
        assert!(e.contains(bad), "{e}");
    }
}
