//! The retention presets as the dashboard shows them: the Sink panel marks the records
//! retention deleted as aged out (the oracle's keys), and the step notes of a fetch that
//! throws or skips say why, in Kafka's terms.

use batchscope_check::oracle::{check_world, expected_counts};
use batchscope_engine::microbatch::event::EventKind;
use batchscope_engine::microbatch::scenario::preset;
use batchscope_view::microbatch::explain::explain;
use batchscope_view::microbatch::panels::sink::sink_view;

#[test]
fn the_sink_panel_marks_the_oracles_aged_out_keys() {
    let scenario = preset("kafka-retention-skip").expect("preset");
    let (report, world) = check_world(&scenario, false);
    let view = sink_view(&world, &expected_counts(&scenario));
    assert!(!view.aged_out_keys.is_empty());
    assert_eq!(view.aged_out_keys, report.aged_out_keys);
    let (_, plain) = check_world(&preset("sink-outage").expect("preset"), false);
    let plain_view = sink_view(&plain, &expected_counts(plain.scenario()));
    assert!(plain_view.aged_out_keys.is_empty());
}

#[test]
fn a_fetch_that_throws_or_skips_says_so_in_kafkas_terms() {
    for (name, words) in [
        ("kafka-retention-fail", "failOnDataLoss is true"),
        ("kafka-retention-skip", "failOnDataLoss=false"),
    ] {
        let scenario = preset(name).expect("preset");
        let (_, world) = check_world(&scenario, false);
        let e = world
            .events()
            .iter()
            .find(|e| {
                matches!(e.kind, EventKind::TaskRead { error: Some(_), .. })
                    || matches!(e.kind, EventKind::TaskRead { aged_out, .. } if aged_out > 0)
            })
            .expect("a fetch of a deleted range");
        let note = explain(e, &scenario);
        assert!(note.contains(words), "{name}: {note}");
        assert!(note.to_lowercase().contains("retention"), "{name}: {note}");
        assert!(!note.contains("Meta row"), "{name}: {note}");
    }
}
