//! The sink's version along a run: it moves whenever the sink changes, so two moments of one
//! run with the same version hold the same sink (what lets the dashboard recount the sink only
//! when its version moves).

use batchscope_engine::microbatch::scenario::{preset, presets};
use batchscope_engine::microbatch::World;

#[test]
fn equal_versions_of_one_run_hold_equal_sinks() {
    let crashed = [
        ("kafka-append", Some("sink-commit@3")),
        ("tablestore-two-phase", Some("sink-commit@2")),
        ("foreach-batch-multi", Some("sink-commit@2")),
    ];
    let every = presets().into_iter().map(|p| (p.name, None));
    for (name, crash) in crashed.into_iter().chain(every) {
        let mut s = preset(name).unwrap();
        if let Some(c) = crash {
            s.crashes.push(c.parse().unwrap());
        }
        let mut w = World::new(s);
        let mut before = (w.sink.version(), w.sink.clone());
        let mut changes = 0;
        for _ in 0..600 {
            w.step();
            let now = (w.sink.version(), w.sink.clone());
            if now.1 != before.1 {
                assert_ne!(
                    now.0, before.0,
                    "{name}: the sink changed, its version did not"
                );
                changes += 1;
            }
            if now.0 == before.0 {
                assert_eq!(now.1, before.1, "{name}");
            }
            before = now;
            if w.is_converged() {
                break;
            }
        }
        if name != "reader-never-closes" {
            assert!(changes > 0, "{name}: the sink changed along the run");
        }
    }
}
