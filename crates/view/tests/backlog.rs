//! The backlog presets as the dashboard shows them: the step notes of an attempt that runs out
//! of memory, of a restart with a new `maxOffsetsPerTrigger` and of the re-run that ignores it,
//! and the tours' stops, each reached by its run.

use batchscope_check::oracle::check_world;
use batchscope_engine::microbatch::event::{Event, EventKind, Recovery};
use batchscope_engine::microbatch::scenario::preset;
use batchscope_view::microbatch::explain::explain;
use batchscope_view::microbatch::tour::{stop_cursors, tour};

fn first(events: &[Event], what: impl Fn(&Event) -> bool) -> &Event {
    events.iter().find(|e| what(e)).expect("the event")
}

#[test]
fn the_notes_say_the_logged_batch_keeps_its_range_whatever_the_limit() {
    let scenario = preset("backlog-crash-loop").expect("preset");
    let (_, world) = check_world(&scenario, false);
    let events = world.events();
    let oom = first(
        events,
        |e| matches!(e.kind, EventKind::TaskFailed { oom_records, .. } if oom_records > 0),
    );
    let note = explain(oom, &scenario);
    assert!(note.contains("runs out of memory"), "{note}");
    assert!(note.contains("holds 16 records, over the 8"), "{note}");
    let restart = first(events, |e| {
        matches!(
            e.kind,
            EventKind::QueryStarted {
                max_offsets_per_trigger: Some(6),
                ..
            }
        )
    });
    let note = explain(restart, &scenario);
    assert!(note.contains("maxOffsetsPerTrigger 6"), "{note}");
    assert!(note.contains("populateStartOffsets"), "{note}");
    let rerun = first(events, |e| {
        e.seq > restart.seq && matches!(e.kind, EventKind::Recovered { .. })
    });
    assert!(matches!(
        rerun.kind,
        EventKind::Recovered {
            recovery: Recovery::Rerun { batch_id: 2 },
            ..
        }
    ));
    let note = explain(rerun, &scenario);
    assert!(
        note.contains("offsets/2 is final: the limit applies from batch 3 on"),
        "{note}"
    );
    // Before the change, a re-run's note says nothing of a limit.
    let early = first(events, |e| {
        matches!(e.kind, EventKind::Recovered { .. }) && e.run == 2
    });
    assert!(!explain(early, &scenario).contains("maxOffsetsPerTrigger"));
}

#[test]
fn every_stop_of_both_tours_is_reached() {
    for name in ["backlog-crash-loop", "backlog-limited"] {
        let scenario = preset(name).expect("preset");
        let (_, world) = check_world(&scenario, false);
        let t = tour(name);
        assert!(t
            .stops
            .iter()
            .all(|s| !s.title.is_empty() && !s.text.is_empty()));
        let cursors = stop_cursors(&t.stops, world.events());
        assert!(cursors.iter().all(Option::is_some), "{name}: {cursors:?}");
    }
}
