//! The guided tour of each preset: the moments of a run where playback pauses, and what to look
//! at there. A tour arms its lesson's crash, plays, and stops at each [`Stop`] in turn.
//!
//! A stop names a [`Moment`] (an event of the trace), not a sequence number, so the same tour
//! works for any seed: each stop is the first matching event after the previous stop. A stop
//! that a run never reaches (another seed, another crash) is reported as `None`, never guessed.

use super::tab::Tab;
use crate::microbatch::lessons::lesson_head;
use crate::microbatch::tour_text::{tour_texts, tour_titles};
use crate::tour_runner::resolve_in_order;
use batchscope_engine::microbatch::event::tag::EventTag;
use batchscope_engine::microbatch::event::{Event, EventKind};
use batchscope_engine::microbatch::tunnel::{ChannelStatus, Token};

/// Where a stop pauses: the first event after the previous stop that matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moment {
    /// The next event of this kind (e.g. [`EventTag::Crashed`]).
    Next(EventTag),
    /// The next event of this kind that belongs to batch (or epoch) N; `source-commit` belongs
    /// to the batch being constructed, as in [`EventKind::batch_id`].
    Batch(EventTag, u64),
    /// The sink skips a batch it already holds (`add-batch` or `sink-committed`, skipped).
    SinkSkipped,
    /// A re-run overwrites an end row of the Meta table.
    MetaOverwritten,
    /// A task writes `finished` as a channel's end row in the Meta table: it read the channel to
    /// its end (not a task that throws there).
    ChannelFinished,
    /// The Tunnel server opens a channel.
    ChannelOpened,
    /// A task throws before it reads (a Tablestore start row already `finished`, a Kafka
    /// range retention deleted).
    TaskThrows,
    /// A task skips records retention deleted from the Kafka-like log (`failOnDataLoss` false).
    AgedOut,
    /// A reader polls an empty queue long after the data stopped, and does not close.
    ReaderWaits,
    /// A reader ends its micro-batch (`next()` returns false).
    ReaderCloses,
    /// A reader writes a `.prepared` state file.
    StatePrepared,
    /// The sink renames `.prepared` to `.committed`.
    StateCommitted,
    /// The end of the run (the verdict is final).
    End,
}

impl Moment {
    /// Whether this event is the moment (never true for [`Moment::End`]).
    pub fn matches(&self, event: &Event) -> bool {
        let kind = &event.kind;
        match *self {
            Moment::Next(tag) => kind.tag() == tag,
            Moment::Batch(tag, batch) => kind.tag() == tag && kind.batch_id() == Some(batch),
            Moment::SinkSkipped => matches!(
                kind,
                EventKind::AddBatch { skipped: true, .. }
                    | EventKind::SinkCommitted { skipped: true, .. }
            ),
            Moment::MetaOverwritten => matches!(
                kind,
                EventKind::MetaRowWritten {
                    overwritten: true,
                    ..
                }
            ),
            Moment::ChannelFinished => matches!(
                kind,
                EventKind::MetaRowWritten { row, .. } if row.token == Token::Finished
            ),
            Moment::ChannelOpened => {
                matches!(
                    kind,
                    EventKind::ChannelState {
                        state: ChannelStatus::Open,
                        ..
                    }
                )
            }
            Moment::TaskThrows => {
                matches!(kind, EventKind::TaskRead { error: Some(_), .. })
            }
            Moment::AgedOut => {
                matches!(kind, EventKind::TaskRead { aged_out, .. } if *aged_out > 0)
            }
            Moment::ReaderWaits => matches!(
                kind,
                EventKind::ReaderPolled { rows: 0, idle_ms, closes: false, .. } if *idle_ms >= 2000
            ),
            Moment::ReaderCloses => matches!(kind, EventKind::ReaderPolled { closes: true, .. }),
            Moment::StatePrepared => matches!(
                kind,
                EventKind::StateFile {
                    renamed_from: None,
                    ..
                }
            ),
            Moment::StateCommitted => matches!(
                kind,
                EventKind::StateFile {
                    renamed_from: Some(_),
                    ..
                }
            ),
            Moment::End => false,
        }
    }
}

/// One pause of a tour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stop {
    /// Where playback pauses.
    pub at: Moment,
    /// The tab that shows what the text talks about.
    pub panel: Option<Tab>,
    /// A few words (the stop's heading).
    pub title: &'static str,
    /// What to look at, and why it matters.
    pub text: &'static str,
}

/// A preset's guided tour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tour {
    /// The crash the tour arms before it starts (the lesson's `try_crash`).
    pub crash: Option<&'static str>,
    /// The pauses, in the order they happen.
    pub stops: Vec<Stop>,
}

impl Tour {
    /// The crash the tour arms, parsed (`None`: the tour arms none).
    pub fn crash_point(&self) -> Option<batchscope_engine::microbatch::scenario::CrashPoint> {
        self.crash.and_then(|c| c.parse().ok())
    }
}

/// For each stop, the cursor (events shown) at which playback pauses: just after the matching
/// event, or the end of the run for [`Moment::End`]. A stop the run never reaches is `None` and
/// the next stop is searched from the last one reached.
pub fn stop_cursors(stops: &[Stop], events: &[Event]) -> Vec<Option<usize>> {
    resolve_in_order(
        stops.len(),
        events,
        |i| stops[i].at == Moment::End,
        |i, e| stops[i].at.matches(e),
    )
}

/// A stop without its title and text ([`tour_titles`], [`tour_texts`], joined by [`tour`]).
const fn stop(at: Moment, panel: Option<Tab>) -> Stop {
    Stop {
        at,
        panel,
        title: "",
        text: "",
    }
}

use EventTag as E;
use Moment::*;
use Tab::*;

/// The tour of a preset (an unknown name gets a general one).
pub fn tour(preset: &str) -> Tour {
    let mut t = tour_frame(preset);
    let words = tour_titles(preset).into_iter().zip(tour_texts(preset));
    for (stop, (title, text)) in t.stops.iter_mut().zip(words) {
        stop.title = title;
        stop.text = text;
    }
    t
}

/// A preset's tour without the stops' titles and texts (empty): where each stop pauses and
/// its tab — what the page needs before the words come ([`tour_titles`], [`tour_texts`]; the
/// dashboard's first load carries only the opening preset's).
#[rustfmt::skip]
pub fn tour_frame(preset: &str) -> Tour {
    let crash = lesson_head(preset).try_crash;
    if let Some(stops) = seatunnel_stops(preset) {
        return Tour { crash, stops };
    }
    let stops = match preset {
        "kafka-idempotent" => vec![
            stop(Batch(E::OffsetLogWritten, 0), Some(Checkpoint)),
            stop(Batch(E::CommitLogWritten, 0), Some(Checkpoint)),
            stop(Batch(E::SinkCommitted, 3), Some(Sink)),
            stop(Next(E::Crashed), Some(Checkpoint)),
            stop(Next(E::Recovered), Some(Checkpoint)),
            stop(SinkSkipped, Some(Sink)),
            stop(End, Some(Sink)),
        ],
        "kafka-append" => vec![
            stop(Batch(E::OffsetLogWritten, 0), Some(Checkpoint)),
            stop(Batch(E::TaskFinished, 0), Some(Sink)),
            stop(Batch(E::SinkCommitted, 3), Some(Sink)),
            stop(Next(E::Crashed), Some(Checkpoint)),
            stop(Next(E::Recovered), Some(Checkpoint)),
            stop(Batch(E::TaskFinished, 3), Some(Sink)),
            stop(End, Some(Sink)),
        ],
        "tablestore" => vec![
            stop(Next(E::SourceInitialized), Some(Meta)),
            stop(Batch(E::OffsetLogWritten, 0), Some(Checkpoint)),
            stop(Batch(E::MetaRowWritten, 1), Some(Meta)),
            stop(Batch(E::SourceCommit, 2), Some(Channels)),
            stop(Next(E::Crashed), Some(Checkpoint)),
            stop(MetaOverwritten, Some(Meta)),
            stop(End, Some(Sink)),
        ],
        "tablestore-append" => vec![
            stop(Batch(E::TaskFinished, 2), Some(Sink)),
            stop(Next(E::Crashed), Some(Checkpoint)),
            stop(Next(E::Recovered), Some(Checkpoint)),
            stop(Batch(E::TaskFinished, 2), Some(Sink)),
            stop(MetaOverwritten, Some(Meta)),
            stop(End, Some(Sink)),
        ],
        "tablestore-split" => vec![
            stop(ChannelFinished, Some(Meta)),
            stop(Next(E::Crashed), Some(Checkpoint)),
            stop(Next(E::Recovered), Some(Checkpoint)),
            stop(TaskThrows, Some(Meta)),
            stop(Next(E::Recovered), Some(Checkpoint)),
            stop(End, Some(Channels)),
        ],
        "tablestore-two-phase" => vec![
            stop(Batch(E::SinkCommitted, 2), Some(Sink)),
            stop(Next(E::Crashed), Some(Checkpoint)),
            stop(MetaOverwritten, Some(Meta)),
            stop(SinkSkipped, Some(Sink)),
            stop(Batch(E::GetBatch, 3), Some(Meta)),
            stop(End, Some(Sink)),
        ],
        "pull-ahead" => vec![
            stop(Batch(E::GetOffset, 1), Some(Channels)),
            stop(Batch(E::OffsetLogWritten, 1), Some(Checkpoint)),
            stop(Next(E::Crashed), Some(Checkpoint)),
            stop(Batch(E::TaskRead, 2), Some(Channels)),
            stop(End, Some(Channels)),
        ],
        "auto-commit" => vec![
            stop(Batch(E::TaskRead, 2), Some(Channels)),
            stop(Batch(E::TaskFinished, 2), Some(Sink)),
            stop(Next(E::Crashed), Some(Channels)),
            stop(Batch(E::TaskRead, 2), Some(Channels)),
            stop(End, Some(Sink)),
        ],
        "foreach-batch-multi" => vec![
            stop(Batch(E::SinkCommitted, 2), Some(Sink)),
            stop(Next(E::Crashed), Some(Checkpoint)),
            stop(Batch(E::SinkCommitted, 2), Some(Sink)),
            stop(End, Some(Sink)),
        ],
        "sink-outage" => sink_outage_stops(),
        "continuous-epochs" => vec![
            stop(Batch(E::EpochAdvanced, 1), None),
            stop(Batch(E::CommitLogWritten, 1), Some(Checkpoint)),
            stop(Batch(E::SinkCommitted, 3), Some(Sink)),
            stop(Next(E::Crashed), Some(Checkpoint)),
            stop(Next(E::Recovered), Some(Checkpoint)),
            stop(Batch(E::TaskFinished, 3), Some(Sink)),
            stop(End, Some(Sink)),
        ],
        "checkpoint-deleted-latest" => vec![
            stop(Batch(E::CommitLogWritten, 2), Some(Checkpoint)),
            stop(Next(E::Crashed), Some(Checkpoint)),
            stop(Next(E::CheckpointDeleted), Some(Checkpoint)),
            stop(Next(E::SourceInitialized), Some(Checkpoint)),
            stop(End, Some(Sink)),
        ],
        "checkpoint-deleted-earliest" => vec![
            stop(Batch(E::CommitLogWritten, 2), Some(Checkpoint)),
            stop(Next(E::CheckpointDeleted), Some(Checkpoint)),
            stop(Next(E::SourceInitialized), Some(Checkpoint)),
            stop(Batch(E::TaskFinished, 0), Some(Sink)),
            stop(End, Some(Sink)),
        ],
        "batch-id-in-memory" => vec![
            stop(Batch(E::SinkCommitted, 3), Some(Sink)),
            stop(Next(E::Crashed), Some(Checkpoint)),
            stop(Next(E::Recovered), Some(Checkpoint)),
            stop(Batch(E::AddBatch, 3), Some(Sink)),
            stop(End, Some(Sink)),
        ],
        "kafka-v1-source" => vec![
            stop(Batch(E::CommitLogWritten, 3), Some(Checkpoint)),
            stop(Next(E::Crashed), Some(Checkpoint)),
            stop(Next(E::Recovered), Some(Checkpoint)),
            stop(Next(E::RecoveryGetBatch), None),
            stop(End, Some(Sink)),
        ],
        _ => vec![
            stop(Batch(E::OffsetLogWritten, 0), Some(Checkpoint)),
            stop(Batch(E::CommitLogWritten, 0), Some(Checkpoint)),
            stop(End, Some(Sink)),
        ],
    };
    Tour { crash, stops }
}

/// The sink-outage tour: a long outage that outlasts the task retries, then a short one they
/// ride out.
#[rustfmt::skip]
fn sink_outage_stops() -> Vec<Stop> {
    vec![
        stop(Next(E::TaskFailed), Some(Sink)),
        stop(Next(E::QueryFailed), Some(Checkpoint)),
        stop(Next(E::Recovered), Some(Checkpoint)),
        stop(Next(E::QueryFailed), Some(Sink)),
        stop(Next(E::CommitLogWritten), Some(Checkpoint)),
        stop(Next(E::TaskFailed), Some(Sink)),
        stop(Next(E::TaskFinished), Some(Sink)),
        stop(End, Some(Sink)),
    ]
}

/// The stops of the SeaTunnel presets' tours.
#[rustfmt::skip]
fn seatunnel_stops(preset: &str) -> Option<Vec<Stop>> {
    Some(match preset {
        "reader-never-closes" => vec![
            stop(Batch(E::AddBatch, 0), Some(Sink)),
            stop(Next(E::ReaderPolled), Some(Channels)),
            stop(ReaderWaits, Some(Channels)),
            stop(End, Some(Sink)),
        ],
        "reader-idle-timeout" => vec![
            stop(StatePrepared, Some(Checkpoint)),
            stop(StateCommitted, Some(Checkpoint)),
            stop(ReaderCloses, Some(Channels)),
            stop(Batch(E::CommitLogWritten, 0), Some(Checkpoint)),
            stop(Batch(E::ReaderPolled, 1), Some(Sink)),
            stop(End, Some(Sink)),
        ],
        "seatunnel-checkpoint-records" => vec![
            stop(StatePrepared, Some(Checkpoint)),
            stop(Next(E::Crashed), Some(Checkpoint)),
            stop(Next(E::Recovered), Some(Checkpoint)),
            stop(Next(E::GetBatch), Some(Channels)),
            stop(End, Some(Sink)),
        ],
        "seatunnel-committed-only" => vec![
            stop(StatePrepared, Some(Checkpoint)),
            stop(Batch(E::SinkCommitted, 0), Some(Sink)),
            stop(Next(E::Crashed), Some(Checkpoint)),
            stop(Next(E::Recovered), Some(Checkpoint)),
            stop(StateCommitted, Some(Sink)),
            stop(End, Some(Sink)),
        ],
        "seatunnel-idempotent-sink" => vec![
            stop(Batch(E::SinkCommitted, 0), Some(Sink)),
            stop(Next(E::Crashed), Some(Checkpoint)),
            stop(Next(E::Recovered), Some(Checkpoint)),
            stop(StateCommitted, Some(Sink)),
            stop(End, Some(Sink)),
        ],
        "seatunnel-dev-timer" => vec![
            stop(ReaderCloses, Some(Channels)),
            stop(StatePrepared, Some(Checkpoint)),
            stop(Batch(E::CommitLogWritten, 0), Some(Checkpoint)),
            stop(Batch(E::NoNewData, 1), None),
            stop(End, Some(Sink)),
        ],
        _ => return retention_stops(preset),
    })
}

/// The stops of the retention presets' tours (`failOnDataLoss` true, then false).
#[rustfmt::skip]
fn retention_stops(preset: &str) -> Option<Vec<Stop>> {
    Some(match preset {
        "kafka-retention-fail" => vec![
            stop(Next(E::QueryFailed), Some(Checkpoint)),
            stop(TaskThrows, None),
            stop(Next(E::QueryFailed), None),
            stop(Next(E::Recovered), Some(Checkpoint)),
            stop(End, Some(Sink)),
        ],
        "kafka-retention-skip" => vec![
            stop(Next(E::QueryFailed), Some(Checkpoint)),
            stop(Next(E::Recovered), Some(Checkpoint)),
            stop(AgedOut, None),
            stop(Batch(E::CommitLogWritten, 1), Some(Checkpoint)),
            stop(End, Some(Sink)),
        ],
        "torn-offset-log" => vec![
            stop(Batch(E::SinkCommitted, 2), Some(Sink)),
            stop(Next(E::Crashed), Some(Checkpoint)),
            stop(Next(E::OffsetLogTorn), Some(Checkpoint)),
            stop(Next(E::QueryFailed), Some(Checkpoint)),
            stop(End, Some(Sink)),
        ],
        "evolution-source-added" => vec![
            stop(Batch(E::CommitLogWritten, 2), Some(Checkpoint)),
            stop(Next(E::Crashed), Some(Checkpoint)),
            stop(Next(E::Recovered), Some(Checkpoint)),
            stop(Next(E::QueryFailed), Some(Checkpoint)),
            stop(End, Some(Sink)),
        ],
        "async-progress" => vec![
            stop(Batch(E::OffsetLogWritten, 0), Some(Checkpoint)),
            stop(Next(E::LogKeptInMemory), Some(Checkpoint)),
            stop(Next(E::Crashed), Some(Checkpoint)),
            stop(Next(E::Recovered), Some(Checkpoint)),
            stop(Batch(E::SinkCommitted, 1), Some(Sink)),
            stop(End, Some(Sink)),
        ],
        "async-progress-off" => vec![
            stop(Batch(E::OffsetLogWritten, 3), Some(Checkpoint)),
            stop(Next(E::Crashed), Some(Checkpoint)),
            stop(Next(E::Recovered), Some(Checkpoint)),
            stop(Next(E::QueryFailed), Some(Checkpoint)),
            stop(End, Some(Sink)),
        ],
        "two-drivers" => vec![
            stop(Batch(E::SinkCommitted, 2), Some(Sink)),
            stop(Next(E::DriverStalled), Some(Checkpoint)),
            stop(Next(E::Recovered), Some(Checkpoint)),
            stop(Batch(E::SinkCommitted, 2), Some(Sink)),
            stop(Next(E::DriverLostLogRace), Some(Checkpoint)),
            stop(End, Some(Sink)),
        ],
        "metadata-lost-txn-sink" => vec![
            stop(Batch(E::SinkCommitted, 2), Some(Sink)),
            stop(Next(E::Crashed), Some(Checkpoint)),
            stop(Next(E::MetadataLost), Some(Checkpoint)),
            stop(Next(E::QueryStarted), Some(Checkpoint)),
            stop(Batch(E::SinkCommitted, 2), Some(Sink)),
            stop(End, Some(Sink)),
        ],
        _ => return backlog_stops(preset),
    })
}

/// The stops of the backlog tours (the limit set after the batch was logged, then before).
#[rustfmt::skip]
fn backlog_stops(preset: &str) -> Option<Vec<Stop>> {
    Some(match preset {
        "backlog-crash-loop" => vec![
            stop(Next(E::QueryFailed), Some(Checkpoint)),
            stop(Batch(E::OffsetLogWritten, 2), Some(Checkpoint)),
            stop(Batch(E::TaskFailed, 2), None),
            stop(Next(E::QueryFailed), None),
            stop(Next(E::QueryStarted), None),
            stop(Next(E::Recovered), Some(Checkpoint)),
            stop(Next(E::TaskFailed), None),
            stop(End, Some(Checkpoint)),
        ],
        "backlog-limited" => vec![
            stop(Next(E::QueryFailed), Some(Checkpoint)),
            stop(Next(E::QueryStarted), None),
            stop(Batch(E::OffsetLogWritten, 2), Some(Checkpoint)),
            stop(Batch(E::CommitLogWritten, 2), Some(Checkpoint)),
            stop(End, Some(Sink)),
        ],
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tour_runner::{current_stop, next_stop};
    use batchscope_check::oracle::{self, Limit};
    use batchscope_engine::microbatch::scenario::{presets, CrashPoint};
    use batchscope_engine::microbatch::World;

    fn run(preset: &str, seed: u64, crash: Option<&str>) -> Vec<Event> {
        let mut scenario = batchscope_engine::microbatch::scenario::preset(preset).expect("preset");
        scenario.seed = seed;
        if let Some(c) = crash {
            scenario
                .crashes
                .push(c.parse::<CrashPoint>().expect("crash point"));
        }
        let mut world = World::new(scenario);
        oracle::run(&mut world, Limit::SCREEN);
        world.events().to_vec()
    }

    #[test]
    fn every_stop_of_every_tour_is_reached_in_order() {
        let mut problems = vec![];
        for p in presets() {
            let t = tour(p.name);
            assert!((3..=8).contains(&t.stops.len()), "{}: 3–8 stops", p.name);
            assert_eq!(
                t.stops.last().map(|s| s.at),
                Some(End),
                "{} ends at the verdict",
                p.name
            );
            for seed in [p.scenario.seed, 1, 2, 3] {
                let events = run(p.name, seed, t.crash);
                let cursors = stop_cursors(&t.stops, &events);
                for (stop, c) in t.stops.iter().zip(&cursors) {
                    if c.is_none() {
                        problems.push(format!(
                            "{} seed {seed}: stop `{}` is never reached",
                            p.name, stop.title
                        ));
                    }
                }
                let reached: Vec<usize> = cursors.iter().flatten().copied().collect();
                if !reached.windows(2).all(|w| w[0] < w[1]) {
                    problems.push(format!(
                        "{} seed {seed}: stops out of order {reached:?}",
                        p.name
                    ));
                }
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn a_stop_is_just_after_its_event_and_missing_stops_are_none() {
        let events = run("kafka-append", 7, Some("sink-commit@3"));
        let t = tour("kafka-append");
        let cursors = stop_cursors(&t.stops, &events);
        let crash = cursors[3].expect("the crash stop");
        assert!(matches!(events[crash - 1].kind, EventKind::Crashed { .. }));
        // The re-run's task, not batch 3's first attempt.
        let rerun = cursors[5].expect("the re-run stop");
        assert!(events[rerun - 1].run > 1);
        assert_eq!(cursors[6], Some(events.len()));
        // Without the crash, the crash and the re-run never happen; the end still does.
        let calm = stop_cursors(&t.stops, &run("kafka-append", 7, None));
        assert_eq!(calm[3], None);
        assert_eq!(calm[4], None);
        assert!(calm[6].is_some());
        assert_eq!(current_stop(&cursors, 0), None);
        assert_eq!(current_stop(&cursors, crash), Some(3));
        assert_eq!(next_stop(&cursors, crash), Some(4));
        assert_eq!(next_stop(&cursors, events.len()), None);
    }
}
