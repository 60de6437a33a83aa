//! Tests of the sinks: what a row gives back, upserts at once and one by one, running sums,
//! a file sink's orphaned files, what each kind does by its contract, and the kinds' names.

use super::{SinkState, TaskOutput};
use crate::microbatch::event::SinkEffect;
use crate::microbatch::scenario::SinkValue;
use crate::microbatch::scenario::{preset, Scenario, SinkKind};
use crate::microbatch::sink::Sink as _;
use crate::microbatch::upstream::{Record, RowKey, Rows, Upstream};
use crate::microbatch::world::sink_contract;
use crate::microbatch::World;
use std::sync::Arc;

/// `kafka-idempotent` writing into a sink of `kind`, and its upstream.
fn kafka_into(kind: SinkKind) -> (Scenario, Arc<Upstream>) {
    let mut scenario = preset("kafka-idempotent").expect("preset");
    scenario.sink.kind = kind;
    let upstream = World::new(scenario.clone()).upstream;
    (scenario, upstream)
}

/// Task `partition` of batch `batch_id` hands `rows` to `sink`, as the driver calls it.
fn write(sink: &mut SinkState, batch_id: u64, partition: u32, rows: Rows, upstream: &Upstream) {
    let output = TaskOutput {
        batch_id,
        partition,
        rows,
        file_name: String::new(),
    };
    sink_contract(sink.kind()).task_output(sink, output, upstream);
}

/// The rows of `records`, by identity, as a task hands them over.
fn rows(records: &[Record]) -> Rows {
    records.iter().map(|r| (r.channel, r.seq)).collect()
}

#[test]
fn a_running_sum_adds_a_replayed_record_twice_and_a_record_upsert_does_not() {
    let (mut scenario, upstream) = kafka_into(SinkKind::Upsert);
    let batch: Vec<_> = upstream.records().take(3).collect();
    let mut plain = SinkState::new(&scenario.sink, sink_contract(scenario.sink.kind));
    scenario.sink.value = SinkValue::RunningSum;
    let mut sum = SinkState::new(&scenario.sink, sink_contract(scenario.sink.kind));
    for sink in [&mut plain, &mut sum] {
        for _ in 0..2 {
            write(sink, 0, 0, rows(&batch), &upstream);
        }
    }
    let one: u64 = batch.iter().map(|r| r.amount).sum();
    let user = |s: &SinkState| -> u64 {
        s.visible()
            .filter(|r| match s.row_key(r) {
                RowKey::User(id) => batch.iter().any(|b| b.user_id == id),
                key => batch.iter().any(|b| b.key() == key),
            })
            .map(|r| s.value_of(r, &upstream))
            .sum()
    };
    assert_eq!(user(&sum), 2 * one, "each record counted twice");
    assert_eq!(user(&plain), one, "a record overwrites itself");
    // Expected: every record once.
    let expected = sum.expected(&upstream);
    let total: u64 = upstream.records().map(|r| r.amount).sum();
    assert_eq!(expected.values().sum::<u64>(), total);
    assert!(expected.keys().all(|k| k.to_string().starts_with("user-")));
    assert_eq!(plain.expected(&upstream).len() as u64, upstream.total());
}

#[test]
fn a_row_gives_back_the_batch_key_and_value_of_what_was_written() {
    let (mut scenario, upstream) = kafka_into(SinkKind::Append);
    let records: Vec<_> = upstream.records().skip(5).take(40).collect();
    let mut append = SinkState::new(&scenario.sink, sink_contract(scenario.sink.kind));
    write(&mut append, 7, 0, rows(&records[..25]), &upstream);
    write(&mut append, 9, 1, rows(&records[25..]), &upstream);
    let held: Vec<_> = append
        .visible_keyed()
        .map(|(key, r)| (r.batch_id(), key, append.value_of(r, &upstream)))
        .collect();
    let want: Vec<_> = records
        .iter()
        .enumerate()
        .map(|(i, r)| (if i < 25 { 7 } else { 9 }, r.key(), r.amount))
        .collect();
    assert_eq!(held, want);
    // A running sum: the user's key, the sum of their amounts, the last batch that added.
    scenario.sink.kind = SinkKind::Upsert;
    scenario.sink.value = SinkValue::RunningSum;
    let mut sum = SinkState::new(&scenario.sink, sink_contract(scenario.sink.kind));
    write(&mut sum, 3, 0, rows(&records), &upstream);
    write(&mut sum, 4, 0, rows(&records[..1]), &upstream);
    let user = records[0].user_id;
    let want: u64 = records
        .iter()
        .filter(|r| r.user_id == user)
        .map(|r| r.amount)
        .sum::<u64>()
        + records[0].amount;
    let (batch, value) = sum
        .visible_keyed()
        .find(|(key, _)| *key == RowKey::User(user))
        .map(|(_, r)| (r.batch_id(), sum.value_of(r, &upstream)))
        .expect("the user's row");
    assert_eq!((batch, value), (4, want));
}

#[test]
fn an_upsert_holds_the_same_rows_whether_a_task_writes_them_at_once_or_one_by_one() {
    let (scenario, upstream) = kafka_into(SinkKind::Upsert);
    let r: Vec<_> = upstream.records().take(4).collect();
    // A key twice within one task's rows, and keys written again by a later batch.
    let writes = [
        (1, vec![r[0], r[1], r[0], r[2]]),
        (2, vec![r[1], r[3], r[3]]),
    ];
    let mut at_once = SinkState::new(&scenario.sink, sink_contract(scenario.sink.kind));
    let mut one_by_one = SinkState::new(&scenario.sink, sink_contract(scenario.sink.kind));
    for (batch, written) in &writes {
        write(&mut at_once, *batch, 0, rows(written), &upstream);
        for row in written {
            write(&mut one_by_one, *batch, 0, rows(&[*row]), &upstream);
        }
    }
    let held = |s: &SinkState| -> Vec<_> {
        s.visible_keyed()
            .map(|(key, row)| (key, row.batch_id()))
            .collect()
    };
    assert_eq!(held(&at_once), held(&one_by_one));
    assert_eq!(
        held(&at_once),
        vec![
            (r[0].key(), 1),
            (r[1].key(), 2),
            (r[2].key(), 1),
            (r[3].key(), 2)
        ]
    );
    assert_eq!(at_once.rewrites(), 3);
    assert_eq!(one_by_one.rewrites(), 3);
}

#[test]
fn a_rerun_lists_only_its_own_files_and_the_killed_attempts_stay_orphans() {
    let mut scenario = preset("kafka-idempotent").expect("preset");
    scenario
        .crashes
        .push("task@3".parse().expect("crash point"));
    let mut world = World::new(scenario);
    while !world.is_converged() && world.events().len() < 10_000 {
        world.step();
    }
    let files: Vec<_> = world
        .sink
        .files
        .iter()
        .filter(|f| f.batch_id == 3)
        .collect();
    // The killed attempt wrote one file (task 0), the re-run two.
    assert_eq!(files.len(), 3, "{files:?}");
    let listed = &world.sink.manifest[&3];
    assert_eq!(listed.len(), 2, "{listed:?}");
    assert!(
        !files[0].committed,
        "the killed attempt's file is an orphan"
    );
    assert!(!listed.contains(&files[0].name));
    assert!(files[1..]
        .iter()
        .all(|f| f.committed && listed.contains(&f.name)));
}

#[test]
fn each_kind_writes_commits_skips_and_forgets_as_its_contract_says() {
    for kind in SinkKind::ALL {
        let (scenario, upstream) = kafka_into(kind);
        let contract = sink_contract(kind);
        let mut sink = SinkState::new(&scenario.sink, contract);
        let batch: Vec<_> = upstream.records().take(5).collect();
        let hand_over = |sink: &mut SinkState| {
            let output = TaskOutput {
                batch_id: 0,
                partition: 0,
                rows: rows(&batch),
                file_name: "part-00000-a.json".into(),
            };
            contract.task_output(sink, output, &upstream)
        };
        let effect = hand_over(&mut sink);
        let at_once = matches!(kind, SinkKind::Append | SinkKind::Upsert);
        assert_eq!(effect == SinkEffect::Staged, !at_once, "{kind}");
        assert_eq!(sink.visible_len(), if at_once { 5 } else { 0 }, "{kind}");
        assert!(!contract.skips_batch(&sink, 0), "{kind}");
        let done = contract.commit(&mut sink, 0);
        assert_eq!(
            (done.rows, done.skipped),
            (if at_once { 0 } else { 5 }, false)
        );
        assert_eq!(sink.visible_len(), 5, "{kind}");
        // Batch 0 again, as a re-run hands it over.
        let skips = matches!(kind, SinkKind::File | SinkKind::BatchIdInMemory);
        assert_eq!(contract.skips_batch(&sink, 0), skips, "{kind}");
        hand_over(&mut sink);
        let again = contract.commit(&mut sink, 0);
        let skips_commit = matches!(kind, SinkKind::TwoPhase | SinkKind::TxnAppId);
        assert_eq!(again.skipped, skips_commit, "{kind}");
        // A new driver forgets only a driver-side field.
        contract.new_driver(&mut sink);
        assert_eq!(
            contract.skips_batch(&sink, 0),
            kind == SinkKind::File,
            "{kind}"
        );
    }
}

#[test]
fn sink_kinds_are_named_as_scenario_files_name_them() {
    for kind in SinkKind::ALL {
        assert_eq!(serde_json::to_value(kind).unwrap(), kind.name());
        assert_eq!(SinkKind::parse(kind.name()), Some(kind));
        assert_eq!(kind.to_string(), kind.name());
    }
    assert_eq!(SinkKind::parse("kafka"), None);
}
