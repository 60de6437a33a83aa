//! Every number a micro-batch lesson or tour states with a unit is one its run shows: a count
//! of rows or records is the tour run's (its duplicates, its lost records, a batch's or a
//! task's rows, its scenario's task memory budget), a time is the scenario's (an outage, a split, an idle window, a timeout, an
//! interval) or a constant of the public source the sentence names. A lesson written by hand
//! that says "the same 6 rows" of a batch that has 7 fails here.

use batchscope_check::oracle::check_world;
use batchscope_engine::microbatch::event::EventKind;
use batchscope_engine::microbatch::scenario::{presets, CrashPoint, Scenario};
use batchscope_engine::microbatch::source::CHANNEL_CACHE_MS;
use batchscope_view::microbatch::lessons::lesson;
use batchscope_view::microbatch::tour::tour;
use std::collections::{BTreeMap, BTreeSet};

/// A number the text states, its unit, and the sentence it is in.
#[derive(Debug)]
struct Claim {
    value: f64,
    unit: &'static str,
    sentence: String,
}

/// Times quoted from a public source's code, not from the scenario: (phrase, ms).
const SOURCE_CONSTANTS: &[(&str, u64)] = &[
    // apache/seatunnel PR #7476: next() waits 20 polls of 1 s.
    ("20 polls of 1 s", 1000),
];

/// The numbers followed by a unit in `text` (`7 rows`, `2.135 s`, `800 ms`).
fn claims(text: &str) -> Vec<Claim> {
    const UNITS: [&str; 6] = ["rows", "row", "records", "record", "ms", "s"];
    let mut out = vec![];
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let starts = bytes[i].is_ascii_digit()
            && (i == 0
                || !(bytes[i - 1].is_ascii_alphanumeric() || b"/#._-\x93".contains(&bytes[i - 1])));
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < bytes.len() && (bytes[j].is_ascii_digit() || bytes[j] == b'.') {
            j += 1;
        }
        let number = text[i..j].trim_end_matches('.');
        let rest = &text[j..];
        let unit = rest.strip_prefix(' ').and_then(|r| {
            UNITS.into_iter().find(|u| {
                r.starts_with(u)
                    && !r[u.len()..]
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_alphanumeric())
            })
        });
        if let (Some(unit), Ok(value)) = (unit, number.parse::<f64>()) {
            let from = text[..i].rfind(". ").map_or(0, |k| k + 2);
            let to = text[j..].find(". ").map_or(text.len(), |k| j + k);
            out.push(Claim {
                value,
                unit,
                sentence: text[from..to].to_string(),
            });
        }
        i = j;
    }
    out
}

/// What the tour's run counts: duplicates, lost, and each batch attempt's and task's rows.
struct Counts {
    duplicates: u64,
    lost: u64,
    rows: BTreeSet<u64>,
}

fn counts_of(scenario: &Scenario) -> Counts {
    let (report, world) = check_world(scenario, false);
    let mut per_attempt: BTreeMap<(u32, u64), u64> = BTreeMap::new();
    let mut rows = BTreeSet::from([
        report.expected,
        report.delivered,
        report.duplicates,
        report.lost,
    ]);
    // A task's memory budget, in records (the backlog presets).
    rows.extend(scenario.task_memory_records);
    for e in world.events() {
        let (batch, n) = match &e.kind {
            EventKind::TaskFinished { batch_id, rows, .. } => (*batch_id, *rows),
            EventKind::SinkCommitted { rows: n, .. } => {
                rows_seen(&mut rows, *n);
                continue;
            }
            EventKind::TaskRead { rows: n, .. } | EventKind::ReaderPolled { rows: n, .. } => {
                rows_seen(&mut rows, *n);
                continue;
            }
            _ => continue,
        };
        rows.insert(n);
        *per_attempt.entry((e.run, batch)).or_default() += n;
    }
    rows.extend(per_attempt.into_values());
    Counts {
        duplicates: report.duplicates,
        lost: report.lost,
        rows,
    }
}

fn rows_seen(rows: &mut BTreeSet<u64>, n: impl TryInto<u64>) {
    if let Ok(n) = n.try_into() {
        rows.insert(n);
    }
}

/// Every time the scenario sets, in ms.
fn times_of(s: &Scenario) -> BTreeSet<u64> {
    let mut t = BTreeSet::from([
        s.trigger_interval_ms,
        s.restart_delay(),
        s.source.idle_timeout_ms,
        s.source.checkpoint_interval_ms,
        CHANNEL_CACHE_MS,
    ]);
    for w in s.sink.outages.iter().chain(&s.upstream.idle) {
        t.extend([w.from_ms, w.to_ms, w.to_ms - w.from_ms]);
    }
    t.extend(s.upstream.splits.iter().map(|x| x.at_ms));
    t.extend(s.upstream.bursts.iter().map(|x| x.at_ms));
    t.extend(s.source.retention_ms);
    t.extend(s.async_progress.map(|a| a.checkpoint_interval_ms));
    t
}

/// The sentences of a lesson and its tour that state a number the run does not show.
fn wrong_numbers(name: &str, scenario: &Scenario) -> Vec<String> {
    let l = lesson(name);
    let t = tour(name);
    let mut s = scenario.clone();
    if let Some(c) = t.crash {
        s.crashes
            .push(c.parse::<CrashPoint>().expect("a tour's crash parses"));
    } else if let Some(c) = l.try_crash {
        s.crashes
            .push(c.parse::<CrashPoint>().expect("a lesson's crash parses"));
    }
    let counts = counts_of(&s);
    let times = times_of(&s);
    let texts = l
        .paragraphs
        .iter()
        .copied()
        .chain([l.try_outcome])
        .chain(t.stops.iter().flat_map(|st| [st.title, st.text]));
    let mut wrong = vec![];
    for text in texts {
        for c in claims(text) {
            let lower = c.sentence.to_lowercase();
            let ok = match c.unit {
                "ms" | "s" => {
                    let ms = if c.unit == "s" {
                        c.value * 1000.0
                    } else {
                        c.value
                    };
                    let quoted = SOURCE_CONSTANTS
                        .iter()
                        .any(|(phrase, v)| c.sentence.contains(phrase) && *v as f64 == ms);
                    quoted || times.iter().any(|&t| t as f64 == ms)
                }
                _ => {
                    let n = c.value as u64;
                    if ["again", "second time", "twice", "duplicate"]
                        .iter()
                        .any(|w| lower.contains(w))
                    {
                        n == counts.duplicates
                    } else if lower.contains("lost") || lower.contains("missing") {
                        n == counts.lost
                    } else {
                        counts.rows.contains(&n)
                    }
                }
            };
            if !ok {
                wrong.push(format!(
                    "{name}: {} {} in {:?}",
                    c.value, c.unit, c.sentence
                ));
            }
        }
    }
    wrong
}

/// A preset's scenario by name.
fn preset_named(name: &str) -> Scenario {
    presets()
        .into_iter()
        .find(|p| p.name == name)
        .map(|p| p.scenario)
        .unwrap_or_else(|| panic!("no preset {name}"))
}

#[test]
fn the_reader_finds_numbers_with_units_and_skips_names() {
    let found = claims(
        "offsets/3 and ch0 hold 7 rows. The store is down at 2.135 s for 50 ms; PR #7476 too.",
    );
    let got: Vec<(f64, &str)> = found.iter().map(|c| (c.value, c.unit)).collect();
    assert_eq!(got, vec![(7.0, "rows"), (2.135, "s"), (50.0, "ms")]);
    assert_eq!(found[0].sentence, "offsets/3 and ch0 hold 7 rows");
}

#[test]
fn a_wrong_count_is_caught() {
    let mut s = preset_named("kafka-append");
    s.crashes.push("sink-commit@3".parse().unwrap());
    let dup = counts_of(&s).duplicates;
    assert!(dup > 0);
    let text = format!(
        "the append sink writes the same {} rows a second time",
        dup + 1
    );
    let claim = &claims(&text)[0];
    assert_eq!(claim.value as u64, dup + 1);
    assert_ne!(claim.value as u64, counts_of(&s).duplicates);
}

#[test]
fn every_number_a_lesson_or_tour_states_comes_from_its_run() {
    let mut wrong = vec![];
    let mut checked = 0;
    for p in presets() {
        let l = lesson(p.name);
        checked += l.paragraphs.iter().map(|t| claims(t).len()).sum::<usize>();
        wrong.extend(wrong_numbers(p.name, &p.scenario));
    }
    assert!(checked > 5, "the lessons state numbers: {checked}");
    assert!(
        wrong.is_empty(),
        "numbers the run does not show:\n{}",
        wrong.join("\n")
    );
}

/// The sink-outage lesson counts in words: the attempts Spark makes (`spark.task.maxFailures`)
/// and the attempts the short outage fails before a retry writes.
#[test]
fn the_sink_outage_lesson_counts_the_attempts_of_its_run() {
    let scenario = preset_named("sink-outage");
    let text = lesson("sink-outage").paragraphs.join(" ");
    let (report, world) = check_world(&scenario, false);
    let max = scenario.task_max_failures;
    assert!(text.contains(&format!("({max} by default)")), "{text}");
    assert!(text.contains("after the fourth") && max == 4, "{text}");
    let short = scenario.sink.outages.last().expect("a short outage");
    let failed_in_short: Vec<u32> = world
        .events()
        .iter()
        .filter(|e| e.at_ms >= short.from_ms && e.at_ms <= short.to_ms + 100)
        .filter_map(|e| match e.kind {
            EventKind::TaskFailed {
                attempt, retried, ..
            } => Some(attempt).filter(|_| retried),
            _ => None,
        })
        .collect();
    assert_eq!(
        failed_in_short,
        vec![1, 2],
        "two attempts fail, the third writes"
    );
    assert!(
        text.contains("two attempts fail, the third writes"),
        "{text}"
    );
    let query_failures = world
        .events()
        .iter()
        .filter(|e| matches!(e.kind, EventKind::QueryFailed { .. }))
        .count() as u32;
    assert_eq!(
        query_failures + 1,
        report.runs,
        "the short outage adds no restart"
    );
}
