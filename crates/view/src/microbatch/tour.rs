//! The guided tour of each preset: the moments of a run where playback pauses, and what to look
//! at there. A tour arms its lesson's crash, plays, and stops at each [`Stop`] in turn.
//!
//! A stop names a [`Moment`] (an event of the trace), not a sequence number, so the same tour
//! works for any seed: each stop is the first matching event after the previous stop. A stop
//! that a run never reaches (another seed, another crash) is reported as `None`, never guessed.

use super::tab::Tab;
use crate::microbatch::lessons::lesson_head;
use crate::microbatch::tour_text::tour_texts;
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
    /// A task reads a channel to its end (`finished`); not a task that throws there.
    ChannelFinished,
    /// The Tunnel server opens a channel.
    ChannelOpened,
    /// A task throws before it reads (a Tablestore start row already `finished`).
    TaskThrows,
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
            Moment::ChannelFinished => {
                matches!(
                    kind,
                    EventKind::TaskRead {
                        to: Token::Finished,
                        error: None,
                        ..
                    }
                )
            }
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

/// A stop without its text (the texts are [`tour_texts`], joined by [`tour`]).
const fn stop(at: Moment, panel: Option<Tab>, title: &'static str) -> Stop {
    Stop {
        at,
        panel,
        title,
        text: "",
    }
}

use EventTag as E;
use Moment::*;
use Tab::*;

/// The tour of a preset (an unknown name gets a general one).
pub fn tour(preset: &str) -> Tour {
    let mut t = tour_frame(preset);
    for (stop, text) in t.stops.iter_mut().zip(tour_texts(preset)) {
        stop.text = text;
    }
    t
}

/// A preset's tour without the stops' texts (empty): where each stop pauses, its tab and
/// title — what the page needs before the texts come ([`tour_texts`]; the dashboard's first
/// load carries no stop text).
#[rustfmt::skip]
pub fn tour_frame(preset: &str) -> Tour {
    let crash = lesson_head(preset).try_crash;
    if let Some(stops) = seatunnel_stops(preset) {
        return Tour { crash, stops };
    }
    let stops = match preset {
        "kafka-idempotent" => vec![
            stop(Batch(E::OffsetLogWritten, 0), Some(Checkpoint), "The write-ahead log"),
            stop(Batch(E::CommitLogWritten, 0), Some(Checkpoint), "Done for good"),
            stop(Batch(E::SinkCommitted, 3), Some(Sink), "Batch 3 is in the sink"),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed before commits/3"),
            stop(Next(E::Recovered), Some(Checkpoint), "The restart reads the logs"),
            stop(SinkSkipped, Some(Sink), "The sink skips what it has"),
            stop(End, Some(Sink), "Exactly-once"),
        ],
        "kafka-append" => vec![
            stop(Batch(E::OffsetLogWritten, 0), Some(Checkpoint), "The write-ahead log"),
            stop(Batch(E::TaskFinished, 0), Some(Sink), "Rows are visible early"),
            stop(Batch(E::SinkCommitted, 3), Some(Sink), "Batch 3 is in the sink"),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed before commits/3"),
            stop(Next(E::Recovered), Some(Checkpoint), "Re-run batch 3"),
            stop(Batch(E::TaskFinished, 3), Some(Sink), "Appended again"),
            stop(End, Some(Sink), "Duplicates"),
        ],
        "tablestore" => vec![
            stop(Next(E::SourceInitialized), Some(Meta), "The Meta table"),
            stop(Batch(E::OffsetLogWritten, 0), Some(Checkpoint), "A UUID as the offset"),
            stop(Batch(E::MetaRowWritten, 1), Some(Meta), "Tasks write the end"),
            stop(Batch(E::SourceCommit, 2), Some(Channels), "Checkpoints one batch late"),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed before commits/2"),
            stop(MetaOverwritten, Some(Meta), "The re-run reads more"),
            stop(End, Some(Sink), "Exactly-once with upserts"),
        ],
        "tablestore-append" => vec![
            stop(Batch(E::TaskFinished, 2), Some(Sink), "Batch 2 appends"),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed before commits/2"),
            stop(Next(E::Recovered), Some(Checkpoint), "Re-run batch 2"),
            stop(Batch(E::TaskFinished, 2), Some(Sink), "Appended again, and more"),
            stop(MetaOverwritten, Some(Meta), "The end moved"),
            stop(End, Some(Sink), "Duplicates"),
        ],
        "tablestore-split" => vec![
            stop(ChannelFinished, Some(Meta), "The parent ends"),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed before the commit"),
            stop(Next(E::Recovered), Some(Checkpoint), "Re-run batch 4"),
            stop(TaskThrows, Some(Meta), "A finished start row"),
            stop(Next(E::Recovered), Some(Checkpoint), "Again"),
            stop(End, Some(Channels), "Stuck"),
        ],
        "tablestore-two-phase" => vec![
            stop(Batch(E::SinkCommitted, 2), Some(Sink), "Batch 2 committed"),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed before commits/2"),
            stop(MetaOverwritten, Some(Meta), "The re-run reads more"),
            stop(SinkSkipped, Some(Sink), "…and the sink skips it"),
            stop(Batch(E::GetBatch, 3), Some(Meta), "Batch 3 starts after them"),
            stop(End, Some(Sink), "Data loss"),
        ],
        "pull-ahead" => vec![
            stop(Batch(E::GetOffset, 1), Some(Channels), "Reading ahead"),
            stop(Batch(E::OffsetLogWritten, 1), Some(Checkpoint), "Real positions"),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed before commits/2"),
            stop(Batch(E::TaskRead, 2), Some(Channels), "Read again"),
            stop(End, Some(Channels), "Exactly-once, at a price"),
        ],
        "auto-commit" => vec![
            stop(Batch(E::TaskRead, 2), Some(Channels), "Commit on read"),
            stop(Batch(E::TaskFinished, 2), Some(Sink), "One task done"),
            stop(Next(E::Crashed), Some(Channels), "Killed mid-batch"),
            stop(Batch(E::TaskRead, 2), Some(Channels), "The re-run starts past them"),
            stop(End, Some(Sink), "Data loss"),
        ],
        "foreach-batch-multi" => vec![
            stop(Batch(E::SinkCommitted, 2), Some(Sink), "One store of three"),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed before commits/2"),
            stop(Batch(E::SinkCommitted, 2), Some(Sink), "Written again"),
            stop(End, Some(Sink), "Duplicates"),
        ],
        "sink-outage" => sink_outage_stops(),
        "continuous-epochs" => vec![
            stop(Batch(E::EpochAdvanced, 1), None, "An epoch ends"),
            stop(Batch(E::CommitLogWritten, 1), Some(Checkpoint), "Writers first, then commits/1"),
            stop(Batch(E::SinkCommitted, 3), Some(Sink), "Epoch 3 is in the sink"),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed before commits/3"),
            stop(Next(E::Recovered), Some(Checkpoint), "Restart from commits/2"),
            stop(Batch(E::TaskFinished, 3), Some(Sink), "Written again"),
            stop(End, Some(Sink), "Duplicates, never loss"),
        ],
        "checkpoint-deleted-latest" => vec![
            stop(Batch(E::CommitLogWritten, 2), Some(Checkpoint), "Batch 2 is done"),
            stop(Next(E::Crashed), Some(Checkpoint), "The query stops"),
            stop(Next(E::CheckpointDeleted), Some(Checkpoint), "The folder is deleted"),
            stop(Next(E::SourceInitialized), Some(Checkpoint), "startingOffsets=latest"),
            stop(End, Some(Sink), "Data loss"),
        ],
        "checkpoint-deleted-earliest" => vec![
            stop(Batch(E::CommitLogWritten, 2), Some(Checkpoint), "Batch 2 is done"),
            stop(Next(E::CheckpointDeleted), Some(Checkpoint), "The folder is deleted"),
            stop(Next(E::SourceInitialized), Some(Checkpoint), "startingOffsets=earliest"),
            stop(Batch(E::TaskFinished, 0), Some(Sink), "Appended again"),
            stop(End, Some(Sink), "Duplicates"),
        ],
        "batch-id-in-memory" => vec![
            stop(Batch(E::SinkCommitted, 3), Some(Sink), "latestBatchId = 3"),
            stop(Next(E::Crashed), Some(Checkpoint), "The field dies with the driver"),
            stop(Next(E::Recovered), Some(Checkpoint), "Re-run batch 3"),
            stop(Batch(E::AddBatch, 3), Some(Sink), "A new sink object"),
            stop(End, Some(Sink), "Duplicates"),
        ],
        "kafka-v1-source" => vec![
            stop(Batch(E::CommitLogWritten, 3), Some(Checkpoint), "Batch 3 is done"),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed after commits/3"),
            stop(Next(E::Recovered), Some(Checkpoint), "Batch 4 is next"),
            stop(Next(E::RecoveryGetBatch), None, "getBatch(3), not run"),
            stop(End, Some(Sink), "Nothing changes in the sink"),
        ],
        _ => vec![
            stop(Batch(E::OffsetLogWritten, 0), Some(Checkpoint), "The write-ahead log"),
            stop(Batch(E::CommitLogWritten, 0), Some(Checkpoint), "Batch 0 done"),
            stop(End, Some(Sink), "The verdict"),
        ],
    };
    Tour { crash, stops }
}

/// The sink-outage tour: a long outage that outlasts the task retries, then a short one they
/// ride out.
#[rustfmt::skip]
fn sink_outage_stops() -> Vec<Stop> {
    vec![
        stop(Next(E::TaskFailed), Some(Sink), "The store is down"),
        stop(Next(E::QueryFailed), Some(Checkpoint), "Out of attempts: the query fails"),
        stop(Next(E::Recovered), Some(Checkpoint), "A scheduler restarts it"),
        stop(Next(E::QueryFailed), Some(Sink), "Still down"),
        stop(Next(E::CommitLogWritten), Some(Checkpoint), "The store is back"),
        stop(Next(E::TaskFailed), Some(Sink), "A short outage"),
        stop(Next(E::TaskFinished), Some(Sink), "Ridden out"),
        stop(End, Some(Sink), "Nothing lost"),
    ]
}

/// The stops of the SeaTunnel presets' tours.
#[rustfmt::skip]
fn seatunnel_stops(preset: &str) -> Option<Vec<Stop>> {
    Some(match preset {
        "reader-never-closes" => vec![
            stop(Batch(E::AddBatch, 0), Some(Sink), "Batch 0 starts"),
            stop(Next(E::ReaderPolled), Some(Channels), "The reader polls"),
            stop(ReaderWaits, Some(Channels), "The data has stopped"),
            stop(End, Some(Sink), "Stuck"),
        ],
        "reader-idle-timeout" => vec![
            stop(StatePrepared, Some(Checkpoint), "One snapshot, mid-batch"),
            stop(StateCommitted, Some(Checkpoint), "Renamed .committed"),
            stop(ReaderCloses, Some(Channels), "The idle timeout"),
            stop(Batch(E::CommitLogWritten, 0), Some(Checkpoint), "Batch 0 commits"),
            stop(Batch(E::ReaderPolled, 1), Some(Sink), "Read again"),
            stop(End, Some(Sink), "Duplicates without a failure"),
        ],
        "seatunnel-checkpoint-records" => vec![
            stop(StatePrepared, Some(Checkpoint), "A checkpoint record is due"),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed before the sink saw the record"),
            stop(Next(E::Recovered), Some(Checkpoint), "Re-run the batch"),
            stop(Next(E::GetBatch), Some(Channels), "Restore from .prepared"),
            stop(End, Some(Sink), "Loss, and duplicates"),
        ],
        "seatunnel-committed-only" => vec![
            stop(StatePrepared, Some(Checkpoint), "A checkpoint record"),
            stop(Batch(E::SinkCommitted, 0), Some(Sink), "Visible before the rename"),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed before the rename"),
            stop(Next(E::Recovered), Some(Checkpoint), "Resume from .committed"),
            stop(StateCommitted, Some(Sink), "Written twice"),
            stop(End, Some(Sink), "At-least-once"),
        ],
        "seatunnel-idempotent-sink" => vec![
            stop(Batch(E::SinkCommitted, 0), Some(Sink), "Rows before the record"),
            stop(Next(E::Crashed), Some(Checkpoint), "Killed before the rename"),
            stop(Next(E::Recovered), Some(Checkpoint), "Resume from .committed"),
            stop(StateCommitted, Some(Sink), "Overwritten, not duplicated"),
            stop(End, Some(Sink), "Exactly-once"),
        ],
        "seatunnel-dev-timer" => vec![
            stop(ReaderCloses, Some(Channels), "A timer, not the data"),
            stop(StatePrepared, Some(Checkpoint), "sources/0/<subtask>/1"),
            stop(Batch(E::CommitLogWritten, 0), Some(Checkpoint), "Batch 0 commits"),
            stop(Batch(E::NoNewData, 1), None, "latestOffset did not move"),
            stop(End, Some(Sink), "Stuck"),
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
