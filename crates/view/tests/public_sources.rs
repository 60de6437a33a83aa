//! Student-facing text of the micro-batch mode cites public sources (a Spark class, a connector,
//! a PR, a public thread), never the project's internal documents: lessons, tours, the lesson
//! index, step notes of whole runs, sink descriptions and preset descriptions.

use batchscope_check::oracle::{run, Limit};
use batchscope_engine::microbatch::scenario::{presets, CrashKind, CrashPoint};
use batchscope_engine::microbatch::World;
use batchscope_view::lesson_index::lesson_index;
use batchscope_view::microbatch::explain::explain;
use batchscope_view::microbatch::lessons::{internal_reference, lesson, SIMPLIFICATIONS};
use batchscope_view::microbatch::panels::sink_kind_text;
use batchscope_view::microbatch::tour::tour;

/// Collects `(where, text)` pairs whose text names an internal document.
fn offenders(texts: impl IntoIterator<Item = (String, String)>) -> Vec<String> {
    texts
        .into_iter()
        .filter_map(|(at, t)| internal_reference(&t).map(|bad| format!("{at}: `{bad}` in {t:?}")))
        .collect()
}

#[test]
fn the_check_finds_what_it_bans() {
    for bad in [
        "as SEMANTICS §8 says",
        "Seed 000: a question",
        "(seed 002)",
        "seeds 002, 004",
    ] {
        assert!(internal_reference(bad).is_some(), "{bad}");
    }
    for fine in [
        "Fault Tolerance Semantics",
        "seed 7",
        "apache/seatunnel PR #7476",
    ] {
        assert_eq!(internal_reference(fine), None, "{fine}");
    }
}

#[test]
fn lessons_tours_and_descriptions_cite_public_sources_only() {
    let mut texts = vec![("simplifications".to_string(), SIMPLIFICATIONS.to_string())];
    for p in presets() {
        texts.push((format!("{} description", p.name), p.description.to_string()));
        let l = lesson(p.name);
        texts.push((format!("{} lesson", p.name), l.title.to_string()));
        texts.push((format!("{} lesson", p.name), l.question.to_string()));
        texts.push((format!("{} lesson", p.name), l.try_outcome.to_string()));
        for para in l.paragraphs {
            texts.push((format!("{} lesson", p.name), para.to_string()));
        }
        for s in tour(p.name).stops {
            texts.push((format!("{} tour", p.name), s.title.to_string()));
            texts.push((format!("{} tour", p.name), s.text.to_string()));
        }
        texts.push((
            format!("{} sink", p.name),
            sink_kind_text(p.scenario.sink.kind).to_string(),
        ));
    }
    for link in lesson_index()
        .into_iter()
        .filter(|l| presets().iter().any(|p| p.name == l.name))
    {
        texts.push((format!("{} index", link.name), link.question.to_string()));
    }
    let bad = offenders(texts);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn step_notes_of_every_preset_cite_public_sources_only() {
    let mut bad = vec![];
    for p in presets() {
        let mut crashes: Vec<Option<CrashPoint>> = vec![None];
        crashes.extend(CrashKind::ALL.map(|kind| Some(CrashPoint { kind, batch_id: 3 })));
        if let Some(c) = lesson(p.name).try_crash {
            crashes.push(Some(c.parse().expect("a lesson's crash parses")));
        }
        for crash in crashes {
            let mut s = p.scenario.clone();
            s.crashes.extend(crash);
            let mut world = World::new(s.clone());
            run(&mut world, Limit::SCREEN);
            bad.extend(offenders(world.events().iter().map(|e| {
                (format!("{} {crash:?} #{}", p.name, e.seq), explain(e, &s))
            })));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
