//! The dashboard's glossary (`web/glossary.html`, opened from the "?" button) against the
//! dashboard: every term a newcomer meets in the lessons and panels has a line, each line says
//! where the term shows on screen and links a public source, and the simplifications it
//! carries for the lesson card are the engine's, word for word; every term the lessons and
//! notes link (`batchscope_view::glossary_links::TERMS`) has its line.

use batchscope_view::microbatch::lessons::{internal_reference, SIMPLIFICATIONS};

fn glossary() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/web/glossary.html");
    std::fs::read_to_string(path).expect("web/glossary.html")
}

/// The glossary's entries: each `<div id=…><dt>…</dt><dd>…</dd></div>`, as (id, term, text).
fn entries(page: &str) -> Vec<(String, String, String)> {
    page.split("<div id=\"")
        .skip(1)
        .filter_map(|chunk| {
            let (id, rest) = chunk.split_once('"')?;
            let term = rest.split_once("<dt>")?.1.split_once("</dt>")?.0;
            let text = rest.split_once("<dd>")?.1.split_once("</dd>")?.0;
            Some((id.to_string(), term.to_string(), text.to_string()))
        })
        .collect()
}

#[test]
fn every_term_a_newcomer_meets_has_a_line() {
    let page = glossary();
    let terms: Vec<String> = entries(&page).into_iter().map(|(_, t, _)| t).collect();
    let missing: Vec<&str> = [
        "channel",
        "Tunnel server",
        "<code>t:4</code>",
        "upsert sink",
        "append sink",
        "V1 source",
        "PROCESSED / WRITTEN",
        "PRECOMMIT / COMMIT",
        "the oracle",
        "<code>offsets/N</code>",
        "<code>commits/N</code>",
        "Meta table",
        ".prepared",
        "timestamp barrier",
        "crash point",
        "micro-batch",
    ]
    .into_iter()
    .filter(|w| !terms.iter().any(|t| t.contains(w)))
    .collect();
    assert!(missing.is_empty(), "no glossary line for {missing:?}");
}

#[test]
fn each_line_says_where_it_shows_and_links_a_public_source() {
    let page = glossary();
    let all = entries(&page);
    assert!(all.len() >= 25, "only {} entries", all.len());
    for (id, term, text) in &all {
        assert!(text.contains("class=\"where\""), "{id}: where on screen?");
        assert!(text.contains("<a href=\"https://"), "{id}: a public link");
        assert!(!text.contains("href=\"http://"), "{id}: https only");
        assert_eq!(internal_reference(text), None, "{id} ({term})");
    }
    let ids: Vec<&String> = all.iter().map(|(id, _, _)| id).collect();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "ids are anchors: one each");
}

#[test]
fn the_simplifications_are_the_engines() {
    let page = glossary();
    let shown = page
        .split_once("data-testid=\"simplifications\">")
        .and_then(|(_, rest)| rest.split_once("</p>"))
        .map(|(text, _)| text)
        .expect("the simplifications paragraph");
    assert_eq!(shown, SIMPLIFICATIONS);
}

#[test]
fn every_linked_term_has_its_line() {
    let page = glossary();
    let ids: Vec<String> = entries(&page).into_iter().map(|(id, _, _)| id).collect();
    let missing: Vec<(&str, &str)> = batchscope_view::glossary_links::TERMS
        .iter()
        .filter(|(_, id)| !ids.iter().any(|i| i == id))
        .copied()
        .collect();
    assert!(
        missing.is_empty(),
        "terms linked to no glossary line: {missing:?}"
    );
}
