//! The source contract as the driver relies on it: every preset settles with each channel
//! behind the position its source reports, a crash drops the source's volatile state and names
//! what it lost, and the typed sink effects keep the event JSON the trace hashes are over.

use batchscope_engine::microbatch::event::EventKind;
use batchscope_engine::microbatch::event::SinkEffect;
use batchscope_engine::microbatch::scenario::{preset, presets, CrashPoint, SourceKind};
use batchscope_engine::microbatch::source::SourceOffset;
use batchscope_engine::microbatch::tunnel::Token;
use batchscope_engine::microbatch::World;
use std::collections::BTreeMap;

/// Steps until the world settles; `false` if it has not after `max_steps`.
fn settle(world: &mut World, max_steps: u32) -> bool {
    for _ in 0..max_steps {
        if world.is_converged() {
            return true;
        }
        world.step();
    }
    false
}

/// The presets stuck by design: a reader that never closes (nothing commits), and the dev
/// reader whose `latestOffset` never moves past batch 0, the Kafka-like log whose re-run
/// range retention deleted: with `failOnDataLoss` true every restart fails on it, and the
/// logged backlog batch over a task's memory budget, re-run as logged after every restart, and
/// the torn offsets/2 every restart fails to read.
const STUCK: [&str; 5] = [
    "reader-never-closes",
    "seatunnel-dev-timer",
    "kafka-retention-fail",
    "backlog-crash-loop",
    "torn-offset-log",
];

#[test]
fn every_settled_preset_has_each_channel_behind_its_sources_position() {
    for p in presets() {
        let mut world = World::new(p.scenario);
        let settled = settle(&mut world, 20_000);
        assert_eq!(
            settled,
            !STUCK.contains(&p.name),
            "{}: settled = {settled}",
            p.name
        );
        if !settled {
            continue;
        }
        let positions = world.position_after(world.driver.committed.as_ref());
        let Some(positions) = positions else {
            assert_eq!(
                world.upstream.total(),
                0,
                "{}: no position, yet data",
                p.name
            );
            continue;
        };
        for ch in &world.upstream.channels {
            let finished_on_server = world
                .tunnel
                .get(ch.index)
                .is_some_and(|t| t.checkpoint == Token::Finished);
            let behind = match positions.get(&ch.index) {
                Some(Token::At(at)) => *at >= ch.len(),
                Some(Token::Finished) => true,
                None => ch.is_empty(),
            };
            assert!(
                behind || finished_on_server,
                "{}: channel {} ({} records) not behind {:?}",
                p.name,
                ch.id,
                ch.len(),
                positions.get(&ch.index)
            );
        }
    }
}

#[test]
fn a_crash_drops_the_pull_ahead_cache_and_names_it() {
    let mut scenario = preset("pull-ahead").expect("preset exists");
    scenario.crashes = vec!["get-batch@2".parse::<CrashPoint>().expect("crash point")];
    assert_eq!(scenario.source.kind, SourceKind::PullAhead);
    let mut world = World::new(scenario);
    let lost = loop {
        let event = world.step();
        if let EventKind::Crashed { lost, .. } = event.kind {
            break lost;
        }
        assert!(event.seq < 10_000, "the crash never fired");
    };
    assert!(
        lost.iter()
            .any(|l| l.ends_with("rows cached by pull-ahead")),
        "lost: {lost:?}"
    );
    assert!(world.source.cache.is_empty());
    assert_eq!(world.counters.rows_cached, 0);
    assert!(
        !world.source.initialized,
        "a restart initialises the source again"
    );
}

#[test]
fn sink_effects_serialize_to_the_names_the_trace_uses() {
    for (effect, name) in [
        (SinkEffect::Appended, "appended"),
        (SinkEffect::Upserted, "upserted"),
        (SinkEffect::Staged, "staged"),
    ] {
        assert_eq!(
            serde_json::to_string(&effect).expect("serializes"),
            format!("\"{name}\"")
        );
        assert_eq!(effect.as_str(), name);
        assert_eq!(effect.to_string(), name);
    }
    let finished = EventKind::TaskFinished {
        batch_id: 3,
        partition: 1,
        rows: 2,
        effect: SinkEffect::Upserted,
    };
    let json = serde_json::to_string(&finished).expect("serializes");
    assert!(json.contains("\"effect\":\"upserted\""), "{json}");
    assert_eq!(
        serde_json::from_str::<EventKind>(&json).expect("parses"),
        finished
    );
}

#[test]
fn a_start_position_comes_from_log_or_channel_offsets_and_defaults_to_the_beginning() {
    let log = SourceOffset::Log(BTreeMap::from([(0, 7), (1, 2)]));
    assert_eq!(SourceOffset::position(Some(&log), 0), Token::At(7));
    assert_eq!(SourceOffset::position(Some(&log), 5), Token::At(0));
    let positions = SourceOffset::Positions(BTreeMap::from([(1, Token::Finished)]));
    assert_eq!(SourceOffset::position(Some(&positions), 1), Token::Finished);
    let uuid = SourceOffset::Uuid("7f3a1c2e-0000-4000-8000-000000000000".into());
    assert_eq!(SourceOffset::position(Some(&uuid), 0), Token::At(0));
    assert_eq!(SourceOffset::position(None, 0), Token::At(0));
    assert!(log.is_new_since(None));
    assert!(!log.is_new_since(Some(&log)));
    assert!(!SourceOffset::Log(BTreeMap::from([(0, 0)])).is_new_since(None));
}

#[test]
fn the_former_world_paths_still_name_the_micro_batch_world() {
    let world: batchscope_engine::microbatch::World = World::new(preset("kafka-append").unwrap());
    let phase: &batchscope_engine::microbatch::Phase = world.phase();
    assert_eq!(*phase, batchscope_engine::microbatch::Phase::Start);
}
