//! The lesson and tour texts the dashboard's page reads apart from their heads: the preset a
//! bare link opens has its texts on the page ([`opening_texts`]); the second module hands the
//! page any other preset's as one string ([`lesson_text_wire`], read by
//! [`parse_lesson_text_wire`]).

/// Between two texts of [`lesson_text_wire`] (ASCII record separator).
const TEXT_SEP: char = '\u{1e}';
/// Between the paragraphs and the stop texts of [`lesson_text_wire`] (ASCII group separator).
const PART_SEP: char = '\u{1d}';

/// A preset's lesson paragraphs and tour stop texts as one string, as the dashboard's second
/// module hands them to the page (whose first load carries none of them):
/// [`parse_lesson_text_wire`] reads it back.
pub fn lesson_text_wire(preset: &str) -> String {
    let paragraphs = super::lessons::lesson_paragraphs(preset).join(&TEXT_SEP.to_string());
    let stops = super::tour_text::tour_texts(preset).join(&TEXT_SEP.to_string());
    format!("{paragraphs}{PART_SEP}{stops}")
}

/// The paragraphs and the stop texts of a [`lesson_text_wire`] string.
pub fn parse_lesson_text_wire(wire: &str) -> (Vec<String>, Vec<String>) {
    let (paragraphs, stops) = wire.split_once(PART_SEP).unwrap_or((wire, ""));
    let list = |s: &str| -> Vec<String> {
        if s.is_empty() {
            vec![]
        } else {
            s.split(TEXT_SEP).map(str::to_string).collect()
        }
    };
    (list(paragraphs), list(stops))
}

/// The texts the page's first load carries (the paragraphs and stop texts of the preset a bare
/// link opens, `url::DEFAULT_PRESET`); `None` for any other preset, whose texts the page
/// asks its second module for.
pub fn opening_texts(preset: &str) -> Option<(Vec<&'static str>, Vec<&'static str>)> {
    (preset == crate::microbatch::url::DEFAULT_PRESET).then(|| {
        (
            super::lessons::tablestore_paragraphs(),
            super::tour_text::tablestore_stop_texts(),
        )
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
        assert_eq!(
            paragraphs,
            crate::microbatch::lessons::lesson_paragraphs(default)
        );
        assert_eq!(stops, crate::microbatch::tour_text::tour_texts(default));
        assert_eq!(opening_texts("kafka-append"), None);
    }

    #[test]
    fn the_texts_the_page_loads_later_come_back_whole_and_fit_their_frames() {
        for p in batchscope_engine::microbatch::scenario::presets() {
            let (paragraphs, stops) = parse_lesson_text_wire(&lesson_text_wire(p.name));
            assert_eq!(paragraphs, lesson(p.name).paragraphs, "{}", p.name);
            let tour = crate::microbatch::tour::tour(p.name);
            let texts: Vec<&str> = tour.stops.iter().map(|s| s.text).collect();
            assert_eq!(stops, texts, "{}", p.name);
            assert!(stops.iter().all(|t| !t.is_empty()), "{}", p.name);
            let frame = crate::microbatch::tour::tour_frame(p.name);
            assert_eq!(frame.stops.len(), stops.len(), "{}", p.name);
            assert!(frame.stops.iter().all(|s| s.text.is_empty()));
            assert!(lesson_head(p.name).paragraphs.is_empty());
            assert!(!paragraphs.is_empty(), "{}", p.name);
        }
    }
}
