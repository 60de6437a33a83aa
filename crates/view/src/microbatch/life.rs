//! A record's life across a run, for its lane: when it arrived upstream, every task read that
//! covered it (batch, driver run, attempt), the crashes and failures between, and each copy of
//! it the sink showed, as a bar from the event that made it visible to the one that removed or
//! overwrote it (or the run's end). A duplicate is two bars at once.
//!
//! Made by stepping the run again (it is deterministic): the sink's visible rows are counted
//! for the key only after an event that may have changed them (`visible_version`).

use batchscope_engine::microbatch::event::EventKind;
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
    /// What kind of moment: `arrived`, `read`, `failure`.
    pub kind: &'static str,
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
    // Attempts per driver run, batch and task: a re-run after a restart is a new job, whose
    // tasks count their attempts from 1 again.
    let mut attempts: BTreeMap<(u32, u64, u32), u32> = BTreeMap::new();
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
            ticks.push(tick(at, format!("arrived upstream at {ms} ms"), "arrived"));
        }
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
                let n = attempts.entry((e.run, *batch_id, *partition)).or_default();
                *n += 1;
                let start = from.offset_or_zero() + aged_out;
                if matches!(key, RowKey::Record { channel: c, seq } if c == channel.0 && (start..start + rows).contains(&seq))
                {
                    let text = format!(
                        "read by batch {batch_id}, run {}, task {partition} (attempt {n})",
                        e.run
                    );
                    ticks.push(tick(at, text, "read"));
                }
            }
            EventKind::Crashed { .. } | EventKind::QueryFailed { .. } => {
                ticks.push(tick(at, e.kind.label(), "failure"));
            }
            _ => {}
        }
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

fn tick(at: usize, text: String, kind: &'static str) -> Tick {
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
        let reads: Vec<&Tick> = life.ticks.iter().filter(|t| t.kind == "read").collect();
        assert_eq!(reads.len(), 2, "{life:?}");
        assert!(reads[0].text.contains("run 1") && reads[1].text.contains("run 2"));
        // The re-run is a new job: its task's first attempt, not the key's second read.
        assert!(reads[1].text.ends_with("(attempt 1)"), "{:?}", reads[1]);
        assert!(life.ticks.iter().any(|t| t.kind == "failure"));
        assert!(life.ticks[0].kind == "arrived");
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
