//! Tests of the micro-batch mode's reducer: links, crashes, faults, tours, own scenarios.

use super::*;
use yew::Reducible;

fn reduce(p: MicroPlayer, a: impl Into<Action>) -> MicroPlayer {
    (*Rc::new(p).reduce(a.into())).clone()
}

#[test]
fn step_back_and_forward_are_exact() {
    let mut p = MicroPlayer::from_hash("#preset=kafka-append&seed=7");
    for _ in 0..10 {
        p = reduce(p, PlayerCmd::Step);
    }
    let at10 = p.world.events().to_vec();
    p = reduce(p, PlayerCmd::Step);
    p = reduce(p, PlayerCmd::Back);
    assert_eq!(p.cursor, 10);
    assert_eq!(p.world.events(), &at10[..]);
}

#[test]
fn crash_now_is_recorded_and_shown() {
    let mut p = MicroPlayer::from_hash("#preset=kafka-append&at=30");
    p = reduce(p, Action::CrashNow);
    assert_eq!(p.cursor, 31);
    assert_eq!(p.scenario().crash_after_events, vec![29]);
    assert!(matches!(
        p.world.events().last().unwrap().kind,
        batchscope_engine::microbatch::event::EventKind::Crashed { .. }
    ));
    // The URL reproduces the same moment.
    let again = MicroPlayer::from_link(p.url_state());
    assert_eq!(again.world.events(), p.world.events());
}

#[test]
fn arming_a_passed_point_is_refused_with_a_message() {
    let mut p = MicroPlayer::from_hash("#preset=kafka-append&at=60");
    p = reduce(p, Action::ArmCrash("sink-commit@1".parse().unwrap()));
    assert!(p.scenario().crashes.is_empty());
    assert!(p.notices[0].text.contains("behind the cursor"));
    p = reduce(p, Action::ArmCrash("sink-commit@4".parse().unwrap()));
    assert_eq!(p.scenario().crashes.len(), 1);
    assert_eq!(p.cursor, 60);
}

#[test]
fn disarming_a_fired_crash_moves_the_cursor_back_to_where_the_past_changes() {
    let mut p = MicroPlayer::from_hash("#preset=kafka-append&crash=sink-commit@3&at=70");
    let crash_seq = p.mode.run.last().fired_crashes()[0].seq as usize;
    p = reduce(p, Action::DisarmCrash(0));
    assert_eq!(p.cursor, crash_seq);
    assert!(p.scenario().crashes.is_empty());
}

#[test]
fn an_armed_fault_changes_the_run_and_travels_in_the_link() {
    let mut p = MicroPlayer::from_hash("#preset=tablestore-append");
    let calm = p.mode.run.events().len();
    p = reduce(p, Action::ArmFault("task-fail@3".parse().unwrap()));
    assert_eq!(p.scenario().faults.len(), 1);
    assert!(p.mode.run.events().iter().any(|e| matches!(
        e.kind,
        batchscope_engine::microbatch::event::EventKind::TaskFailed { .. }
    )));
    assert_ne!(p.mode.run.events().len(), calm);
    let link = url::format(&p.url_state().base);
    assert!(link.contains("fault=task-fail@3"), "{link}");
    let again = MicroPlayer::from_hash(&link);
    assert_eq!(again.scenario().faults, p.scenario().faults);
    // A fault the sink cannot have is refused with a message naming it.
    let p = reduce(again, Action::ArmFault("foreach-fail@2".parse().unwrap()));
    assert_eq!(p.scenario().faults.len(), 1);
    assert!(p.notices[0].text.contains("foreach-fail@2"));
    let p = reduce(p, Action::DisarmFault(0));
    assert!(p.scenario().faults.is_empty());
    // A preset's own fault is not repeated in its link.
    let own = MicroPlayer::from_hash("#preset=checkpoint-deleted-latest");
    assert_eq!(own.scenario().faults.len(), 1);
    assert!(!url::format(&own.url_state().base).contains("fault="));
}

#[test]
fn a_bad_link_names_the_problem_and_loads_the_default() {
    let p = MicroPlayer::from_hash("#preset=nope&seed=x");
    assert_eq!(p.mode.preset, "tablestore");
    assert_eq!(p.notices.len(), 1);
    assert!(p.notices[0].text.contains("unknown preset `nope`"));
    assert!(p.notices[0].text.contains("seed: `x` is not a seed"));
    let p = reduce(p, PlayerCmd::Dismiss(0));
    assert!(p.notices.is_empty());
}

#[test]
fn next_batch_stops_after_a_commit_log_and_play_stops_at_the_end() {
    let mut p = MicroPlayer::from_hash("#preset=kafka-append");
    p = reduce(p, Action::NextBatch);
    assert!(matches!(
        p.world.events().last().unwrap().kind,
        batchscope_engine::microbatch::event::EventKind::CommitLogWritten { batch_id: 0, .. }
    ));
    p = reduce(p, PlayerCmd::Seek(usize::MAX));
    assert!(p.at_end());
    p = reduce(p, PlayerCmd::TogglePlay);
    assert!(!p.playing);
}

/// Ticks the play timer until playback pauses (or a bound is hit).
fn play_until_paused(mut p: MicroPlayer) -> MicroPlayer {
    for _ in 0..10_000 {
        if !p.playing {
            break;
        }
        p = reduce(p, PlayerCmd::Tick);
    }
    p
}

#[test]
fn the_tour_arms_its_crash_and_pauses_at_every_stop_in_turn() {
    let mut p = MicroPlayer::from_hash("#preset=kafka-append&crash=task@4&at=40");
    p = reduce(p, PlayerCmd::TourStart);
    assert!(p.tour && p.playing);
    assert_eq!(p.cursor, 0);
    assert_eq!(p.scenario().crashes, vec!["sink-commit@3".parse().unwrap()]);
    let stops = tour::tour("kafka-append").stops;
    let cursors = p.tour_cursors();
    assert!(cursors.iter().all(Option::is_some));
    for (i, stop) in stops.iter().enumerate() {
        if i > 0 {
            p = reduce(p, PlayerCmd::TourNext);
            assert!(p.playing, "Continue plays on from stop {i}");
        }
        p = play_until_paused(p);
        assert_eq!(Some(p.cursor), cursors[i], "paused at stop {}", i + 1);
        if let Some(panel) = stop.panel {
            assert_eq!(p.mode.tab, panel, "stop {} shows its tab", i + 1);
        }
    }
    assert!(p.at_end());
    // Past the last stop, Continue does nothing.
    p = reduce(p, PlayerCmd::TourNext);
    assert!(!p.playing);
    // The tour is in the link, and a link with it reopens the tour at the same moment.
    let link = link::format_link(&p.url_state());
    assert!(link.contains("tour=1"), "{link}");
    let again = MicroPlayer::from_hash(&link);
    assert!(again.tour);
    assert_eq!(again.cursor, p.cursor);
}

#[test]
fn without_the_tour_play_runs_through_the_stops_and_a_stop_can_be_jumped_to() {
    let mut p = MicroPlayer::from_hash("#preset=kafka-append&crash=sink-commit@3");
    p = reduce(p, PlayerCmd::TogglePlay);
    p = play_until_paused(p);
    assert!(p.at_end(), "no tour: playback only stops at the end");
    p = reduce(p, PlayerCmd::TourGo(3));
    assert!(p.tour);
    assert!(matches!(
        p.world.events().last().unwrap().kind,
        batchscope_engine::microbatch::event::EventKind::Crashed { .. }
    ));
    assert_eq!(p.mode.tab, Tab::Checkpoint);
    p = reduce(p, PlayerCmd::TourExit);
    assert!(!p.tour);
    // The `t` key starts the tour, then plays on to the next stop.
    let mut q = MicroPlayer::from_hash("#preset=tablestore");
    q = reduce(q, PlayerCmd::TourKey);
    assert!(q.tour && q.playing && q.cursor == 0);
    q = play_until_paused(q);
    let first = q.cursor;
    q = reduce(q, PlayerCmd::TourKey);
    q = play_until_paused(q);
    assert_eq!(Some(q.cursor), q.tour_cursors()[1]);
    assert!(q.cursor > first);
    // Switching preset leaves the tour.
    p = reduce(p, PlayerCmd::TourGo(0));
    p = reduce(p, Action::SetPreset("tablestore".into()));
    assert!(!p.tour);
}

#[test]
fn notices_do_not_pile_up() {
    let mut p = MicroPlayer::from_hash("#preset=kafka-append&seed=7");
    for i in 0..5 {
        p = reduce(p, PlayerCmd::Notify(format!("message {i}")));
        p = reduce(p, PlayerCmd::Notify(format!("message {i}")));
    }
    let texts: Vec<&str> = p.notices.iter().map(|n| n.text.as_str()).collect();
    assert_eq!(texts.len(), crate::shell::MAX_NOTICES);
    assert_eq!(texts.last(), Some(&"message 4"));
    assert!(!texts.contains(&"message 0"));
}

/// A notice about a link or a field stays while the run it was about is on screen (steps,
/// another tab) and leaves with it (a valid seed, another preset); a new run's own notes stay.
#[test]
fn notices_leave_with_the_run_they_were_about() {
    let mut p = MicroPlayer::from_hash("#preset=kafka-append&seed=7x");
    assert_eq!(p.notices.len(), 1, "the bad seed is named");
    p = reduce(
        p,
        PlayerCmd::Notify("seed: `abc` is not a whole number".into()),
    );
    p = reduce(p, PlayerCmd::Step);
    p = reduce(p, Action::SetTab(Tab::Sink));
    assert_eq!(p.notices.len(), 2, "the same run: both stay");
    p = reduce(p, PlayerCmd::SetSeed(8));
    assert!(p.notices.is_empty(), "{:?}", p.notices);
    let url = p.url_state();
    p = reduce(p, PlayerCmd::Notify("x".into()));
    p = reduce(p, Action::SetPreset("tablestore".into()));
    assert!(p.notices.is_empty());
    assert_ne!(p.url_state(), url);
}

#[test]
fn a_tour_link_without_its_crash_arms_it_and_one_with_another_says_so() {
    let crash: CrashPoint = tour::tour("tablestore").crash.unwrap().parse().unwrap();
    let p = MicroPlayer::from_hash("#preset=tablestore&seed=7&tour=1");
    assert_eq!(p.mode.run.scenario.crashes, vec![crash]);
    let p = MicroPlayer::from_hash("#preset=tablestore&seed=7&tour=1&crash=task@4");
    assert!(
        p.notices
            .iter()
            .any(|n| n.text.contains(&format!("This tour arms {crash}"))),
        "{:?}",
        p.notices
    );
    let p = MicroPlayer::from_hash("#preset=tablestore&seed=7");
    assert!(p.mode.run.scenario.crashes.is_empty(), "no tour, no crash");
}

/// Every leg of every micro-batch tour (start → stop 1, each stop → the next) plays in at most
/// `TOUR_LEG_MS` at the default speed, however many steps it has: the play timer's interval
/// (`step_ms`) summed over the ticks of the leg.
#[test]
fn no_leg_of_any_tour_plays_longer_than_the_limit() {
    use crate::shell::{BASE_STEP_MS, TOUR_LEG_MS};
    let mut longest = (0.0, String::new());
    for name in preset_names() {
        if tour::tour(name).stops.is_empty() {
            continue;
        }
        let mut p = MicroPlayer::from_hash(&format!("#preset={name}"));
        p = reduce(p, PlayerCmd::TourStart);
        let stops = p.tour_cursors().iter().flatten().count();
        let mut slow_steps = 0;
        for leg in 0..stops {
            if leg > 0 {
                p = reduce(p, PlayerCmd::TourNext);
            }
            let mut played = 0.0;
            while p.playing {
                let ms = p.step_ms();
                slow_steps += usize::from(ms >= BASE_STEP_MS / 2.0);
                played += ms;
                p = reduce(p, PlayerCmd::Tick);
            }
            assert!(
                played <= TOUR_LEG_MS + 1e-6,
                "{name}: leg {leg} plays {played:.0} ms"
            );
            if played > longest.0 {
                longest = (played, format!("{name} leg {leg}"));
            }
        }
        assert!(slow_steps > 0, "{name}: a short leg keeps the chosen speed");
    }
    assert!(
        longest.0 > TOUR_LEG_MS / 2.0,
        "the longest leg: {longest:?}"
    );
}
