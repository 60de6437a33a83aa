//! The lesson and tour words the dashboard's page reads apart from their heads: the preset a
//! bare link opens has its words on the page ([`opening_texts`]); the second module hands the
//! page any other preset's as one string ([`lesson_text_wire`], read by
//! [`parse_lesson_text_wire`]).

use super::lessons::{lesson_paragraphs, tablestore_paragraphs};
use super::tour_text::{tablestore_stop_texts, tablestore_stop_titles, tour_texts, tour_titles};

/// Between two entries of [`lesson_text_wire`] (ASCII record separator).
const TEXT_SEP: char = '\u{1e}';
/// Between the paragraphs and the stops of [`lesson_text_wire`] (ASCII group separator).
const PART_SEP: char = '\u{1d}';
/// Between a stop's title and its text (ASCII unit separator).
const UNIT_SEP: char = '\u{1f}';

/// A preset's lesson paragraphs, and its tour stops' titles and texts, in order.
pub type LessonWords<S> = (Vec<S>, Vec<(S, S)>);

/// A preset's lesson paragraphs and tour stops (title and text) as one string, as the
/// dashboard's second module hands them to the page: [`parse_lesson_text_wire`] reads it back.
pub fn lesson_text_wire(preset: &str) -> String {
    let paragraphs = lesson_paragraphs(preset).join(&TEXT_SEP.to_string());
    let stops: Vec<String> = tour_titles(preset)
        .into_iter()
        .zip(tour_texts(preset))
        .map(|(title, text)| format!("{title}{UNIT_SEP}{text}"))
        .collect();
    format!(
        "{paragraphs}{PART_SEP}{}",
        stops.join(&TEXT_SEP.to_string())
    )
}

/// The paragraphs and the stops of a [`lesson_text_wire`] string.
pub fn parse_lesson_text_wire(wire: &str) -> LessonWords<String> {
    let (paragraphs, stops) = wire.split_once(PART_SEP).unwrap_or((wire, ""));
    let list = |s: &str| -> Vec<String> {
        if s.is_empty() {
            vec![]
        } else {
            s.split(TEXT_SEP).map(str::to_string).collect()
        }
    };
    let stops = list(stops)
        .into_iter()
        .map(|s| match s.split_once(UNIT_SEP) {
            Some((title, text)) => (title.to_string(), text.to_string()),
            None => (s, String::new()),
        })
        .collect();
    (list(paragraphs), stops)
}

/// The words the page's first load carries (those of the preset a bare link opens,
/// `url::DEFAULT_PRESET`); `None` for any other preset, whose words the page asks its second
/// module for.
pub fn opening_texts(preset: &str) -> Option<LessonWords<&'static str>> {
    (preset == crate::microbatch::url::DEFAULT_PRESET).then(|| {
        let stops = tablestore_stop_titles()
            .into_iter()
            .zip(tablestore_stop_texts());
        (tablestore_paragraphs(), stops.collect())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::microbatch::lessons::{lesson, lesson_head};

    #[test]
    fn the_opening_texts_are_the_default_presets_own() {
        let default = crate::microbatch::url::DEFAULT_PRESET;
        let (paragraphs, stops) = opening_texts(default).expect("the default preset's texts");
        assert_eq!(paragraphs, lesson_paragraphs(default));
        let tour = crate::microbatch::tour::tour(default);
        let words: Vec<(&str, &str)> = tour.stops.iter().map(|s| (s.title, s.text)).collect();
        assert_eq!(stops, words);
        assert_eq!(opening_texts("kafka-append"), None);
    }

    #[test]
    fn the_texts_the_page_loads_later_come_back_whole_and_fit_their_frames() {
        for p in batchscope_engine::microbatch::scenario::presets() {
            let (paragraphs, stops) = parse_lesson_text_wire(&lesson_text_wire(p.name));
            assert_eq!(paragraphs, lesson(p.name).paragraphs, "{}", p.name);
            let tour = crate::microbatch::tour::tour(p.name);
            let words: Vec<(String, String)> = tour
                .stops
                .iter()
                .map(|s| (s.title.to_string(), s.text.to_string()))
                .collect();
            assert_eq!(stops, words, "{}", p.name);
            assert!(
                stops.iter().all(|(a, b)| !a.is_empty() && !b.is_empty()),
                "{}",
                p.name
            );
            let frame = crate::microbatch::tour::tour_frame(p.name);
            assert_eq!(frame.stops.len(), stops.len(), "{}", p.name);
            assert!(frame
                .stops
                .iter()
                .all(|s| s.text.is_empty() && s.title.is_empty()));
            assert!(lesson_head(p.name).paragraphs.is_empty());
            assert!(!paragraphs.is_empty(), "{}", p.name);
        }
    }
}
