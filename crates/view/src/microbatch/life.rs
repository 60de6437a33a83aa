//! A record's life across a run, for its lane: when it arrived upstream, every task read that
//! covered it (batch, driver run, attempt), the task's write of its rows to the sink (appended,
//! upserted or staged), the sink's commit of that batch and the batch's `commits/N`, the
//! crashes and failures between, and each copy of it the sink showed, as a bar from the event
//! that made it visible to the one that removed or overwrote it (or the run's end). A
//! duplicate is two bars at once.
//!
//! Made by stepping the run again (it is deterministic): the sink's visible rows are counted
//! for the key only after an event that may have changed them (`visible_version`).

use batchscope_engine::microbatch::event::{Event, EventKind, SinkEffect};
use batchscope_engine::microbatch::scenario::Scenario;
use batchscope_engine::microbatch::upstream::RowKey;
use batchscope_engine::microbatch::World;
use std::collections::BTreeMap;

/// A moment of the record's life (a tick on its lane).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tick {
    /// The event.
    pub at: usize,
    /// What happened, in words (`read by batch 3, run 2, task 0 (attempt 2)`).
    pub text: String,
    /// What kind of moment.
    pub kind: TickKind,
}

/// What kind of moment a tick is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TickKind {
    /// The record arrived upstream.
    Arrived,
    /// A task read it.
    Read,
    /// The task that read it wrote its rows to the sink (appended, upserted or staged).
    Written,
    /// The sink committed (or skipped) the batch that read it.
    SinkCommit,
    /// `commits/N` of the batch that read it was written.
    CommitLog,
    /// The driver crashed or the query failed.
    Failure,
}

impl TickKind {
    /// Every kind, in the order of the lane's legend.
    pub const ALL: [TickKind; 6] = [
        TickKind::Arrived,
        TickKind::Read,
        TickKind::Written,
        TickKind::SinkCommit,
        TickKind::CommitLog,
        TickKind::Failure,
    ];

    /// Its stable name (the lane's `data-kind`, its CSS class `lf-<name>`).
    pub fn name(self) -> &'static str {
        match self {
            TickKind::Arrived => "arrived",
            TickKind::Read => "read",
            TickKind::Written => "written",
            TickKind::SinkCommit => "sink-commit",
            TickKind::CommitLog => "commit-log",
            TickKind::Failure => "failure",
        }
    }

    /// Its mark on the lane and its word in the legend.
    pub fn glyph_and_word(self) -> (&'static str, &'static str) {
        match self {
            TickKind::Arrived => ("●", "arrived"),
            TickKind::Read => ("▲", "read"),
            TickKind::Written => ("■", "written"),
            TickKind::SinkCommit => ("◆", "sink commit"),
            TickKind::CommitLog => ("✓", "commits/N"),
            TickKind::Failure => ("✕", "failure"),
        }
    }

    /// Its row of ticks: 0 for the record's side (arrival, reads, failures), 1 for the sink's
    /// (the write and the commits that followed a read).
    pub fn row(self) -> usize {
        match self {
            TickKind::Written | TickKind::SinkCommit | TickKind::CommitLog => 1,
            _ => 0,
        }
    }

    /// The legend of every kind: `● arrived ▲ read …`.
    pub fn legend() -> String {
        let keys: Vec<String> = TickKind::ALL
            .iter()
            .map(|k| {
                let (glyph, word) = k.glyph_and_word();
                format!("{glyph} {word}")
            })
            .collect();
        keys.join(" ")
    }
}

/// One copy of the record in the sink: visible from event `from` up to (not including) `to`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bar {
    /// The event that made it visible.
    pub from: usize,
    /// The event that removed or overwrote it, or the number of events (still there at the end).
    pub to: usize,
    /// Its value (a running sum's, or 1 for a record's row).
    pub value: u64,
    /// What ended it: `None` (still there), `removed`, `overwritten`.
    pub ended: Option<&'static str>,
}

/// The life of one key over the first `steps` events of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Life {
    /// The key.
    pub key: RowKey,
    /// Events of the run.
    pub events: usize,
    /// Its ticks, in event order.
    pub ticks: Vec<Tick>,
    /// Its copies in the sink, in the order they appeared.
    pub bars: Vec<Bar>,
}

impl Life {
    /// Its ticks of one kind, in event order.
    pub fn ticks_of(&self, kind: TickKind) -> impl Iterator<Item = &Tick> {
        self.ticks.iter().filter(move |t| t.kind == kind)
    }

    /// The most copies visible at once.
    pub fn most_copies(&self) -> usize {
        (0..self.events)
            .map(|i| {
                self.bars
                    .iter()
                    .filter(|b| (b.from..b.to).contains(&i))
                    .count()
            })
            .max()
            .unwrap_or(0)
    }
}

/// The life of `key` over the first `steps` events of `scenario`'s run (its crashes included).
pub fn life_of(scenario: &Scenario, steps: usize, key: RowKey) -> Life {
    let mut world = World::new(scenario.clone());
    let mut ticks = vec![];
    let mut bars: Vec<Bar> = vec![];
    let mut reads = Reads::default();
    let mut version = world.sink.visible_version();
    let mut arrived = false;
    let arrival = match key {
        RowKey::Record { channel, seq } => world
            .upstream
            .channels
            .get(channel as usize)
            .filter(|c| seq < c.len())
            .map(|c| c.record(seq).arrived_at_ms),
        RowKey::User(_) => None,
    };
    for at in 0..steps {
        world.step();
        let Some(e) = world.events().last() else {
            break;
        };
        if !arrived && arrival.is_some_and(|ms| e.at_ms >= ms) {
            arrived = true;
            let ms = arrival.unwrap_or_default();
            ticks.push(tick(
                at,
                format!("arrived upstream at {ms} ms"),
                TickKind::Arrived,
            ));
        }
        ticks.extend(reads.tick(key, at, e));
        if world.sink.visible_version() != version {
            version = world.sink.visible_version();
            let values: Vec<u64> = world
                .sink
                .visible_keyed()
                .filter(|(k, _)| *k == key)
                .map(|(_, row)| world.sink.value_of(row, &world.upstream))
                .collect();
            follow(&mut bars, &values, at);
        }
    }
    let events = world.events().len();
    for b in bars.iter_mut().filter(|b| b.to == usize::MAX) {
        b.to = events;
    }
    Life {
        key,
        events,
        ticks,
        bars,
    }
}

/// What the run's events did to one key, as its ticks: its reads (attempts counted per driver
/// run, batch and task: a re-run after a restart is a new job, whose tasks count their
/// attempts from 1 again) and what followed each (the task's write, the sink's commit of the
/// batch, `commits/N`), and the failures.
#[derive(Default)]
struct Reads {
    /// Attempts per (driver run, batch, task).
    attempts: BTreeMap<(u32, u64, u32), u32>,
    /// The (driver run, batch) reads of the key, with the tasks that read it.
    read_by: BTreeMap<(u32, u64), Vec<u32>>,
}

impl Reads {
    /// The tick event `at` (`e`) makes on `key`'s lane, if any.
    fn tick(&mut self, key: RowKey, at: usize, e: &Event) -> Option<Tick> {
        match &e.kind {
            EventKind::TaskRead {
                batch_id,
                partition,
                channel,
                from,
                rows,
                aged_out,
                ..
            } => {
                let n = self
                    .attempts
                    .entry((e.run, *batch_id, *partition))
                    .or_default();
                *n += 1;
                let start = from.offset_or_zero() + aged_out;
                if matches!(key, RowKey::Record { channel: c, seq } if c == channel.0 && (start..start + rows).contains(&seq))
                {
                    let text = format!(
                        "read by batch {batch_id}, run {}, task {partition} (attempt {n})",
                        e.run
                    );
                    self.read_by
                        .entry((e.run, *batch_id))
                        .or_default()
                        .push(*partition);
                    return Some(tick(at, text, TickKind::Read));
                }
                None
            }
            EventKind::TaskFinished {
                batch_id,
                partition,
                effect,
                ..
            } if self
                .read_by
                .get(&(e.run, *batch_id))
                .is_some_and(|p| p.contains(partition)) =>
            {
                let text = format!(
                    "written by batch {batch_id}'s task {partition}: {}",
                    effect_words(*effect)
                );
                Some(tick(at, text, TickKind::Written))
            }
            EventKind::SinkCommitted {
                batch_id, skipped, ..
            } if self.read_by.contains_key(&(e.run, *batch_id)) => {
                let text = if *skipped {
                    format!("the sink skips batch {batch_id}: committed before")
                } else {
                    format!("the sink commits batch {batch_id}")
                };
                Some(tick(at, text, TickKind::SinkCommit))
            }
            EventKind::CommitLogWritten { batch_id, .. }
                if self.read_by.contains_key(&(e.run, *batch_id)) =>
            {
                let text = format!("commits/{batch_id} written: batch {batch_id} is done");
                Some(tick(at, text, TickKind::CommitLog))
            }
            EventKind::Crashed { .. } | EventKind::QueryFailed { .. } => {
                Some(tick(at, e.kind.label(), TickKind::Failure))
            }
            _ => None,
        }
    }
}

/// What a task's write did to its rows, in words.
fn effect_words(effect: SinkEffect) -> &'static str {
    match effect {
        SinkEffect::Appended => "appended, visible now",
        SinkEffect::Upserted => "upserted by key, visible now",
        SinkEffect::Staged => "staged, visible once the batch commits",
    }
}

fn tick(at: usize, text: String, kind: TickKind) -> Tick {
    Tick { at, text, kind }
}

/// Opens and closes bars so the open ones match `values`, the key's visible rows after event
/// `at`: more rows open bars, fewer close the newest, a changed value closes one bar as
/// overwritten and opens the next.
fn follow(bars: &mut Vec<Bar>, values: &[u64], at: usize) {
    let open: Vec<usize> = (0..bars.len())
        .filter(|&i| bars[i].to == usize::MAX)
        .collect();
    let mut new = vec![];
    for (i, &v) in values.iter().enumerate() {
        match open.get(i) {
            Some(&b) if bars[b].value == v => {}
            Some(&b) => {
                bars[b].to = at;
                bars[b].ended = Some("overwritten");
                new.push(v);
            }
            None => new.push(v),
        }
    }
    for &b in open.iter().skip(values.len()) {
        bars[b].to = at;
        bars[b].ended = Some("removed");
    }
    bars.extend(new.into_iter().map(|value| Bar {
        from: at,
        to: usize::MAX,
        value,
        ended: None,
    }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use batchscope_check::oracle::check_world;
    use batchscope_engine::microbatch::scenario::preset;

    #[test]
    fn a_duplicated_key_has_two_bars_at_once_and_a_read_per_run() {
        let mut s = preset("kafka-append").expect("a preset");
        s.crashes = vec!["sink-commit@3".parse().expect("a crash point")];
        let (report, world) = check_world(&s, false);
        let key = *report.duplicate_keys.first().expect("a duplicate");
        let life = life_of(&s, world.events().len(), key);
        assert_eq!(life.events, world.events().len());
        assert_eq!(life.most_copies(), 2, "{life:?}");
        assert_eq!(life.bars.len(), 2);
        let reads: Vec<&Tick> = life.ticks_of(TickKind::Read).collect();
        assert_eq!(reads.len(), 2, "{life:?}");
        assert!(reads[0].text.contains("run 1") && reads[1].text.contains("run 2"));
        // The re-run is a new job: its task's first attempt, not the key's second read.
        assert!(reads[1].text.ends_with("(attempt 1)"), "{:?}", reads[1]);
        assert!(life.ticks_of(TickKind::Failure).next().is_some());
        assert!(life.ticks[0].kind == TickKind::Arrived);
        // Each read is followed by its task's write and the sink's commit of the batch; only
        // the re-run's batch reaches commits/3 (the crash came between the sink's commit and
        // it), and its write is a second copy.
        let kinds: Vec<TickKind> = life.ticks.iter().map(|t| t.kind).collect();
        let after = |from: usize, kind: TickKind| kinds[from..].iter().position(|k| *k == kind);
        let first = kinds
            .iter()
            .position(|k| *k == TickKind::Read)
            .expect("a read");
        assert!(
            after(first, TickKind::Written).is_some()
                && after(first, TickKind::SinkCommit).is_some()
        );
        let logs: Vec<&Tick> = life.ticks_of(TickKind::CommitLog).collect();
        assert_eq!(logs.len(), 1, "{life:?}");
        assert!(
            logs[0].text.starts_with("commits/3 written"),
            "{:?}",
            logs[0]
        );
        assert!(logs[0].at > reads[1].at);
        let writes: Vec<&Tick> = life.ticks_of(TickKind::Written).collect();
        assert_eq!(writes.len(), 2, "{life:?}");
        assert!(writes[0].text.contains("appended"), "{:?}", writes[0]);
        assert_eq!(
            writes[1].at, life.bars[1].from,
            "the re-run's write is the second copy"
        );
    }

    #[test]
    fn every_tick_kind_has_its_own_name_and_mark_in_the_legend() {
        let mut names: Vec<&str> = TickKind::ALL.iter().map(|k| k.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TickKind::ALL.len());
        let legend = TickKind::legend();
        for k in TickKind::ALL {
            let (glyph, word) = k.glyph_and_word();
            assert!(legend.contains(&format!("{glyph} {word}")), "{legend}");
        }
    }

    #[test]
    fn a_staged_write_is_visible_at_the_sinks_commit() {
        let s = preset("kafka-idempotent").expect("a preset");
        let (_, world) = check_world(&s, false);
        let key = RowKey::Record { channel: 0, seq: 0 };
        let life = life_of(&s, world.events().len(), key);
        let staged = life.ticks_of(TickKind::Written).next().expect("a write");
        assert!(staged.text.contains("staged"), "{staged:?}");
        let commit = life
            .ticks_of(TickKind::SinkCommit)
            .next()
            .expect("the sink's commit");
        assert_eq!(commit.at, life.bars[0].from, "visible at the sink's commit");
    }

    #[test]
    fn a_key_delivered_once_has_one_bar_to_the_end() {
        let s = preset("kafka-idempotent").expect("a preset");
        let (_, world) = check_world(&s, false);
        let key = RowKey::Record { channel: 0, seq: 0 };
        let life = life_of(&s, world.events().len(), key);
        assert_eq!(life.bars.len(), 1, "{life:?}");
        assert_eq!(life.bars[0].to, life.events);
        assert_eq!(life.bars[0].ended, None);
    }
}
