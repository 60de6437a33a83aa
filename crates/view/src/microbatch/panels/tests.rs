//! Tests of the live panels, each against a world stepped through a preset.

use super::*;
use batchscope_check::oracle::{run, run_observed, visible_counts, Limit, Verdict};
use batchscope_engine::microbatch::event::label::rows_text;
use batchscope_engine::microbatch::event::EventKind;
use batchscope_engine::microbatch::scenario::preset;
use batchscope_engine::microbatch::upstream::{ChannelId, RowKey};
use batchscope_engine::microbatch::World;
use std::collections::BTreeMap;

fn world_at(name: &str, crash: Option<&str>, until: impl Fn(&EventKind) -> bool) -> World {
    let mut s = preset(name).unwrap();
    if let Some(c) = crash {
        s.crashes.push(c.parse().unwrap());
    }
    let mut w = World::new(s);
    for _ in 0..2000 {
        let e = w.step();
        if until(&e.kind) {
            return w;
        }
    }
    panic!("event not reached");
}

fn expected_of(name: &str) -> BTreeMap<RowKey, u64> {
    let mut w = World::new(preset(name).unwrap());
    run(&mut w, Limit::JUDGE);
    visible_counts(&w)
}

#[test]
fn tablestore_rows_of_the_start_and_end_uuid_are_marked() {
    // Batch 1's second task has just written its end row.
    let w = world_at(
        "tablestore",
        None,
        |k| matches!(k, EventKind::MetaRowWritten { batch_id: 1, row, .. } if row.channel == ChannelId(1)),
    );
    let rows = meta_rows(&w);
    let offsets = batch_offsets(&w);
    assert_eq!(offsets.batch_id, Some(1));
    assert!(offsets.in_flight);
    let start: Vec<&MetaRowView> = rows.iter().filter(|r| r.role == RowRole::Start).collect();
    let end: Vec<&MetaRowView> = rows.iter().filter(|r| r.role == RowRole::End).collect();
    assert_eq!(start.len(), 2);
    assert_eq!(end.len(), 2);
    assert_eq!(start[0].named_by, "offsets/0");
    assert_eq!(end[0].named_by, "offsets/1");
    // Only the row just written is marked new.
    let now: Vec<&str> = rows
        .iter()
        .filter(|r| r.written_now)
        .map(|r| r.channel.as_str())
        .collect();
    assert_eq!(now, ["ch1"]);
    // UUID₀'s rows come first (written first).
    assert_eq!(rows[0].named_by, "sources/0/0");
    assert!(rows[0].channel_offset.starts_with("{\"logPoint\""));
    // The channels panel shows the same positions.
    let ch = channel_rows(&w);
    assert_eq!(ch.len(), 2);
    assert_eq!(ch[1].end, end[1].token);
    assert_eq!(ch[0].status.as_deref(), Some("OPEN"));
    assert!(ch[0].in_memory.starts_with("read "));
}

/// The offset a batch's `offsets/N` file holds (its last line), as the panels compact it.
fn logged_offset(w: &World, id: u64) -> String {
    w.events()
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::OffsetLogWritten { batch_id, contents } if *batch_id == id => contents
                .lines()
                .last()
                .map(crate::microbatch::labels::compact_offset),
            _ => None,
        })
        .expect("the batch's offset log entry")
}

#[test]
fn after_a_crash_the_panels_show_what_the_restart_will_use() {
    let w = world_at("kafka-append", Some("sink-commit@3"), |k| {
        matches!(k, EventKind::Crashed { .. })
    });
    assert!(w.driver.batch.is_none());
    let o = batch_offsets(&w);
    assert_eq!(o.batch_id, Some(3));
    assert!(!o.in_flight);
    // Batch 3 runs again from where batch 2 ended to where its own log entry ends.
    let (start, end) = (logged_offset(&w, 2), logged_offset(&w, 3));
    assert_ne!(start, end, "batch 3 read records");
    assert_eq!(offset_text(&o.start, &w), start);
    assert_eq!(offset_text(&o.end, &w), end);
    let ch = channel_rows(&w);
    assert_eq!(
        ch[0].status, None,
        "Kafka-like partitions have no Tunnel status"
    );
    let positions = |rows: &[ChannelRow], of: fn(&ChannelRow) -> &str| {
        let parts: Vec<String> = rows
            .iter()
            .enumerate()
            .map(|(i, r)| format!("{i}:{}", of(r)))
            .collect();
        format!("{{{}}}", parts.join(","))
    };
    assert_eq!(positions(&ch, |r| &r.start), start);
    assert_eq!(positions(&ch, |r| &r.end), end);
    assert_eq!(ch[0].in_memory, "—");
    // While the re-run reads, the in-memory position is a plain offset: from batch 3's end
    // to batch 4's, with the rows between.
    let w = world_at("kafka-append", Some("sink-commit@3"), |k| {
        matches!(
            k,
            EventKind::TaskRead {
                batch_id: 4,
                partition: 0,
                ..
            }
        )
    });
    let (from, to): (u64, u64) = (
        ch[0].end.parse().unwrap(),
        channel_rows(&w)[0].end.parse().unwrap(),
    );
    assert!(to > from, "batch 4 reads records of partition 0");
    assert_eq!(
        channel_rows(&w)[0].in_memory,
        format!("read {from} → {to} · {}", rows_text(to - from))
    );
}

#[test]
fn the_checkpoint_folder_lists_files_in_order_and_marks_the_new_one() {
    let w = world_at("kafka-append", None, |k| {
        matches!(k, EventKind::OffsetLogWritten { batch_id: 2, .. })
    });
    let files = checkpoint_files(&w);
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "metadata",
            "offsets/0",
            "offsets/1",
            "offsets/2",
            "commits/0",
            "commits/1",
            "sources/0/0"
        ]
    );
    let new: Vec<&str> = files
        .iter()
        .filter(|f| f.new)
        .map(|f| f.path.as_str())
        .collect();
    assert_eq!(new, ["offsets/2"]);
    let src = files.iter().find(|f| f.path == "sources/0/0").unwrap();
    assert!(src.text.starts_with("\\0v1\n"));
    assert_eq!(src.dir, "sources/0");
    let commit = files.iter().find(|f| f.path == "commits/1").unwrap();
    assert_eq!(commit.text, "v1\n{\"nextBatchWatermarkMs\":0}");
}

#[test]
fn the_missing_keys_are_counted_whole_and_listed_from_the_first() {
    let mut s = preset("kafka-idempotent").unwrap();
    s.upstream.channels = 8;
    let expected = batchscope_check::oracle::expected_counts(&s);
    let mut w = World::new(s);
    let mut seen_long = false;
    for _ in 0..400 {
        let v = sink_view(&w, &expected);
        let visible = visible_counts(&w);
        let missing: Vec<RowKey> = expected
            .keys()
            .filter(|k| !visible.contains_key(k))
            .copied()
            .collect();
        assert_eq!(v.missing_keys.total, missing.len() as u64);
        let listed = missing.len().min(LISTED_KEYS);
        assert_eq!(v.missing_keys.first, missing[..listed]);
        seen_long |= missing.len() > LISTED_KEYS;
        w.step();
    }
    assert!(
        seen_long,
        "the run starts with more keys missing than are listed"
    );
    assert!(
        sink_view(&w, &expected).missing_keys.is_empty(),
        "all delivered"
    );
}

/// The preset `name` at its start with `crash` armed, and the keys it should deliver.
fn start_with_crash(name: &str, crash: Option<&str>) -> (World, BTreeMap<RowKey, u64>) {
    let mut s = preset(name).unwrap();
    s.crashes.extend(crash.map(|c| {
        c.parse::<batchscope_engine::microbatch::scenario::CrashPoint>()
            .unwrap()
    }));
    let expected = batchscope_check::oracle::expected_counts(&s);
    (World::new(s), expected)
}

#[test]
fn a_summary_is_the_panel_without_its_rows_and_files() {
    // A file sink (files, orphans after the crash), foreachBatch (several stores) and a
    // two-phase sink that loses keys behind a commit.
    for (name, crash) in [
        ("kafka-idempotent", Some("task@2")),
        ("foreach-batch-multi", None),
        ("tablestore-two-phase", Some("sink-commit@2")),
    ] {
        let (mut w, expected) = start_with_crash(name, crash);
        let mut saw_rows = false;
        for _ in 0..400 {
            let progress = batchscope_check::progress::so_far(&w, &expected);
            let lost = lost_keys(&w, &expected);
            let panel = sink_view_with(&w, &expected, &progress, &lost, SinkDetail::Panel);
            let summary = sink_view_with(&w, &expected, &progress, &lost, SinkDetail::Summary);
            assert!(summary.files.is_empty(), "{name}");
            assert_eq!(summary.earlier_files, EarlierFiles::default(), "{name}");
            for (p, s) in panel.stores.iter().zip(&summary.stores) {
                assert_eq!((&s.name, s.rows), (&p.name, p.rows), "{name}");
                assert!(s.groups.is_empty(), "{name}");
                assert_eq!(s.earlier_rows, s.rows, "{name}");
                saw_rows |= !p.groups.is_empty();
            }
            // Everything else as the panel has it.
            let without = |v: &SinkView| SinkView {
                stores: vec![],
                files: vec![],
                earlier_files: EarlierFiles::default(),
                ..v.clone()
            };
            assert_eq!(panel.stores.len(), summary.stores.len(), "{name}");
            assert_eq!(without(&summary), without(&panel), "{name}");
            w.step();
        }
        assert!(saw_rows, "{name}: the panel showed rows");
    }
}

#[test]
fn a_count_that_lists_few_missing_keys_gives_the_same_sink_view() {
    use batchscope_check::progress::so_far_listing;
    // The second loses keys behind a commit while others are still pending.
    for (name, crash) in [
        ("kafka-idempotent", None),
        ("tablestore-two-phase", Some("sink-commit@2")),
    ] {
        let (mut w, expected) = start_with_crash(name, crash);
        let mut saw_lost = false;
        for _ in 0..300 {
            let whole = sink_view(&w, &expected);
            for limit in [0, 3] {
                let few = so_far_listing(&w, &expected, limit);
                assert!(few.missing_keys.len() <= limit);
                assert_eq!(sink_view_of(&w, &expected, &few), whole, "{name}");
            }
            // The view skips the search when nothing is missing: the same keys as a search.
            let (behind, lost) = lost_keys(&w, &expected);
            assert_eq!(
                (whole.lost_behind, &whole.lost_keys),
                (behind, &lost),
                "{name}"
            );
            saw_lost |= !whole.lost_keys.is_empty() && !whole.missing_keys.is_empty();
            w.step();
        }
        assert_eq!(saw_lost, crash.is_some(), "{name}");
    }
}

#[test]
fn duplicates_are_marked_in_the_sink_and_the_badge() {
    let expected = expected_of("kafka-append");
    let w = world_at("kafka-append", Some("sink-commit@3"), |k| {
        matches!(k, EventKind::CommitLogWritten { batch_id: 3, .. })
    });
    let v = sink_view(&w, &expected);
    let groups: Vec<u64> = v.stores[0].groups.iter().map(|g| g.batch_id).collect();
    assert_eq!(groups, [0, 1, 2, 3, 3], "the re-run appends batch 3 again");
    // Every key of batch 3 is there twice: the duplicates are its keys, in natural order
    // (`ch0-9` before `ch0-10`).
    let mut rerun: Vec<RowKey> = v.stores[0].groups[3].keys.iter().map(|k| k.key).collect();
    rerun.sort();
    assert!(!rerun.is_empty());
    assert_eq!(v.duplicate_keys, rerun);
    let texts: Vec<String> = v.duplicate_keys.iter().map(RowKey::to_string).collect();
    let mut by_text = texts.clone();
    by_text.sort_by_key(|t| {
        let (ch, seq) = t.trim_start_matches("ch").split_once('-').unwrap();
        (ch.parse::<u32>().unwrap(), seq.parse::<u64>().unwrap())
    });
    assert_eq!(texts, by_text, "in natural order");
    assert!(v.stores[0].groups[4].keys.iter().all(|k| k.duplicate));
    assert!(!v.stores[0].groups[0].keys[0].duplicate);
    assert!(
        !v.missing_keys.is_empty(),
        "batch 4 and 5 are not delivered yet"
    );
    assert_eq!(v.delivered + v.missing_keys.total, v.expected);
    let dups = v.duplicate_keys.len() as u64;
    let running = badge(None, v.expected, v.delivered, dups, 0, 0);
    assert_eq!(running.class, "running");
    assert_eq!(
        running.detail,
        format!(
            "so far {}/{} delivered · {dups} duplicates",
            v.delivered, v.expected
        )
    );
    let done = badge(Some(Verdict::Duplicates), 36, 36, 6, 0, 0);
    assert_eq!(done.title, "duplicates");
    assert_eq!(done.detail, "6 duplicates · nothing lost");
    assert_eq!(
        badge(Some(Verdict::DataLoss), 36, 30, 0, 6, 0).detail,
        "6 of 36 lost · no duplicates"
    );
}

#[test]
fn keys_skipped_by_a_rerun_are_lost_as_soon_as_the_rerun_commits() {
    let expected = expected_of("tablestore-two-phase");
    // Just before the re-run writes commits/2: nothing is lost yet.
    let before = world_at("tablestore-two-phase", Some("sink-commit@2"), |k| {
        matches!(
            k,
            EventKind::SinkCommitted {
                batch_id: 2,
                skipped: true,
                ..
            }
        )
    });
    assert!(lost_keys(&before, &expected).1.is_empty());
    // commits/2 is written: the rows the re-run read beyond the first attempt are behind it.
    let after = world_at("tablestore-two-phase", Some("sink-commit@2"), |k| {
        matches!(k, EventKind::CommitLogWritten { batch_id: 2, .. })
    });
    let (behind, lost) = lost_keys(&after, &expected);
    assert_eq!(behind, Some(2));
    assert_eq!(
        lost.first().map(RowKey::to_string).as_deref(),
        Some("ch0-6")
    );
    let v = sink_view(&after, &expected);
    assert_eq!(v.lost_keys, lost);
    assert!(v.missing_keys.first.iter().all(|k| !lost.contains(k)));
    assert_eq!(
        badge(None, 36, v.delivered, 0, lost.len() as u64, 0).class,
        "running-loss"
    );
    // A run without loss never reports lost keys on the way.
    let mut w = World::new(preset("kafka-append").unwrap());
    for _ in 0..80 {
        w.step();
        assert!(lost_keys(&w, &expected_of("kafka-append")).1.is_empty());
    }
}

#[test]
fn a_key_called_lost_during_a_run_is_really_missing_at_the_end() {
    use batchscope_engine::microbatch::scenario::{presets, CrashKind, CrashPoint};
    for p in presets() {
        if !batchscope_check::oracle::failure_free(&p.scenario).1 {
            continue; // a run that never converges (reader-never-closes) calls nothing lost
        }
        let expected = expected_of(p.name);
        for kind in CrashKind::ALL {
            for batch_id in 1..=3 {
                let mut s = p.scenario.clone();
                s.crashes.push(CrashPoint { kind, batch_id });
                let mut w = World::new(s);
                let mut called = std::collections::BTreeSet::new();
                run_observed(&mut w, Limit::events(3000), |w| {
                    called.extend(lost_keys(w, &expected).1)
                });
                let visible: Vec<RowKey> = w.sink.visible_keyed().map(|(k, _)| k).collect();
                for k in &called {
                    assert!(
                        !visible.contains(k),
                        "{} with {kind:?}@{batch_id}: {k} was called lost but is delivered",
                        p.name
                    );
                }
            }
        }
    }
}

#[test]
fn a_stuck_run_that_delivered_nothing_shows_every_arrived_record_as_expected() {
    use batchscope_check::oracle::{expected_counts, judge};
    let s = preset("reader-never-closes").unwrap();
    let mut w = World::new(s.clone());
    let converged = run(&mut w, Limit::SCREEN).converged();
    let r = judge(&w, converged, &expected_counts(&s), false);
    // As the dashboard's header computes it.
    let b = badge(
        Some(r.verdict),
        r.expected,
        r.expected - r.lost,
        r.duplicates,
        0,
        r.unread,
    );
    let produced = w.upstream.total();
    assert!(produced > 0);
    assert_eq!((r.expected, r.lost), (produced, produced));
    assert_eq!(b.class, "stuck");
    assert_eq!(
        b.detail,
        format!("no convergence: 0 of {produced} delivered")
    );
}

#[test]
fn a_file_sink_keeps_orphans_of_a_killed_attempt_invisible() {
    let w = world_at("kafka-idempotent", Some("task@2"), |k| {
        matches!(k, EventKind::CommitLogWritten { batch_id: 2, .. })
    });
    let v = sink_view(&w, &expected_of("kafka-idempotent"));
    // The killed attempt's file and the re-run's two files are all on disk; the killed
    // one is an orphan, not staged (its attempt is gone).
    assert_eq!(v.files.iter().filter(|f| f.batch_id == 2).count(), 3);
    let unlisted: Vec<_> = v.files.iter().filter(|f| !f.committed).collect();
    assert_eq!(unlisted.len(), 1, "{unlisted:?}");
    assert!(!unlisted[0].staged);
    assert!(v.duplicate_keys.is_empty());
    assert_eq!(
        v.stores[0]
            .groups
            .iter()
            .filter(|g| g.batch_id == 2)
            .count(),
        1
    );
    assert_eq!(v.manifest, [0, 1, 2]);
}

/// The groups drawn from the newest rows only are the newest of the groups of a scan of
/// every row (the way the panel read the store before), re-runs that append again included.
#[test]
fn the_newest_groups_read_from_the_end_equal_a_scan_of_every_row() {
    for (name, crashes) in [
        ("kafka-append", vec!["sink-commit@3", "sink-commit@50"]),
        ("tablestore-append", vec!["task@4", "sink-commit@45"]),
        ("kafka-append", vec![]),
    ] {
        let mut s = preset(name).unwrap();
        s.batches = 2 * MAX_GROUPS as u64;
        for c in &crashes {
            s.crashes.push(c.parse().unwrap());
        }
        let expected = batchscope_check::oracle::expected_counts(&s);
        let mut w = World::new(s);
        run(&mut w, Limit::JUDGE);
        let progress = batchscope_check::progress::so_far(&w, &expected);
        let store = &w.sink.stores[0];
        // Every row, grouped from the first.
        let mut all: Vec<(u64, Vec<RowKey>)> = vec![];
        let mut in_group = std::collections::BTreeSet::new();
        for r in store.rows.iter() {
            let batch_id = r.batch_id();
            let key = w.sink.row_key(r);
            let repeats = progress.counts.copies(key) > 1;
            match all.last_mut() {
                Some((b, keys)) if *b == batch_id && !(repeats && in_group.contains(&key)) => {
                    keys.push(key)
                }
                _ => {
                    in_group.clear();
                    all.push((batch_id, vec![key]));
                }
            }
            if repeats {
                in_group.insert(key);
            }
        }
        let newest = &all[all.len().saturating_sub(MAX_GROUPS)..];
        let v = sink_view_of(&w, &expected, &progress);
        let drawn: Vec<(u64, Vec<RowKey>)> = v.stores[0]
            .groups
            .iter()
            .map(|g| (g.batch_id, g.keys.iter().map(|k| k.key).collect()))
            .collect();
        assert_eq!(drawn, newest, "{name} {crashes:?}");
        let before: u64 = all[..all.len() - newest.len()]
            .iter()
            .map(|(_, keys)| keys.len() as u64)
            .sum();
        assert_eq!(v.stores[0].earlier_rows, before, "{name} {crashes:?}");
        assert!(
            all.len() > MAX_GROUPS,
            "{name}: long enough to leave groups out"
        );
    }
}

/// Mid-attempt, the files the tasks wrote are staged (the commit lists them), not orphans;
/// a crash before the commit turns them into orphans.
#[test]
fn a_file_of_the_attempt_in_flight_is_staged_until_a_crash_leaves_it_an_orphan() {
    let w = world_at("kafka-idempotent", None, |k| {
        matches!(k, EventKind::TaskFinished { batch_id: 2, .. })
    });
    let v = sink_view(&w, &expected_of("kafka-idempotent"));
    let of_2: Vec<_> = v.files.iter().filter(|f| f.batch_id == 2).collect();
    assert!(!of_2.is_empty());
    assert!(of_2.iter().all(|f| f.staged && !f.committed), "{of_2:?}");
    assert!(v
        .files
        .iter()
        .filter(|f| f.batch_id < 2)
        .all(|f| f.committed && !f.staged));

    let w = world_at("kafka-idempotent", Some("task@2"), |k| {
        matches!(k, EventKind::Crashed { .. })
    });
    let v = sink_view(&w, &expected_of("kafka-idempotent"));
    let of_2: Vec<_> = v.files.iter().filter(|f| f.batch_id == 2).collect();
    assert!(!of_2.is_empty());
    assert!(of_2.iter().all(|f| !f.staged && !f.committed), "{of_2:?}");
}

#[test]
fn a_long_run_keeps_the_newest_batch_groups_and_counts_the_rest() {
    let mut s = preset("kafka-append").unwrap();
    s.batches = 2 * MAX_GROUPS as u64;
    let expected = batchscope_check::oracle::expected_counts(&s);
    let mut w = World::new(s);
    run(&mut w, Limit::JUDGE);
    let v = sink_view(&w, &expected);
    let store = &v.stores[0];
    assert_eq!(store.groups.len(), MAX_GROUPS);
    assert!(store.earlier_rows > 0);
    let drawn: u64 = store.groups.iter().map(|g| g.keys.len() as u64).sum();
    assert_eq!(store.earlier_rows + drawn, store.rows);
    // The newest group is the last batch the sink saw.
    let last = w.sink.stores[0].rows.last().unwrap().batch_id();
    assert_eq!(store.groups.last().unwrap().batch_id, last);
}

#[test]
fn a_long_file_sink_run_lists_the_newest_files_and_counts_earlier_orphans() {
    let mut s = preset("kafka-idempotent").unwrap();
    s.batches = MAX_FILES as u64;
    s.crashes.push("task@2".parse().unwrap());
    let expected = batchscope_check::oracle::expected_counts(&s);
    let mut w = World::new(s);
    run(&mut w, Limit::JUDGE);
    let v = sink_view(&w, &expected);
    let files: Vec<_> = w.sink.files.iter().collect();
    assert!(files.len() > MAX_FILES, "{} files", files.len());
    assert_eq!(v.files.len(), MAX_FILES);
    let (earlier, newest) = files.split_at(files.len() - MAX_FILES);
    assert_eq!(v.earlier_files.files, earlier.len() as u64);
    let orphans = earlier.iter().filter(|f| !f.committed).count() as u64;
    assert!(
        orphans > 0,
        "the killed attempt's file is among the earlier ones"
    );
    assert_eq!(v.earlier_files.orphans, orphans);
    let names: Vec<&str> = v.files.iter().map(|f| f.name.as_str()).collect();
    let want: Vec<&str> = newest.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, want);
    assert_eq!(
        crate::microbatch::labels::id_ranges(&v.manifest),
        format!("0–{}", w.sink.manifest.len() - 1)
    );
}
