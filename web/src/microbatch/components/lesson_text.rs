//! Where a preset's lesson paragraphs and tour stop texts come from. The page's first load
//! carries each lesson's title, question and crash, and each tour's stops (where they pause,
//! their tabs and titles), but only the texts of the preset a bare link opens: for any other
//! preset the page asks its second module ([`texts_from_module`], fetched when such a preset is
//! first shown, as Topology fetches it), so the first load stays small.
//! Component tests take them in place ([`texts_in_place`]). Texts are kept once per preset for
//! the page's life (a few KB each), as `&'static str` like the ones written in the code.
//!
//! The step notes (`batchscope_view::microbatch::explain`) come the same way: the page asks the
//! second module for the note of step N of the run its link makes ([`use_step_note`]); the
//! first screen, before the first step, needs none.

use crate::shell::{lesson_text_in_module, load_module, module_loaded, step_note_in_module};
use batchscope_engine::microbatch::event::Event;
use batchscope_engine::microbatch::scenario::Scenario;
use batchscope_view::microbatch::lesson_text::parse_lesson_text_wire;
use std::cell::RefCell;
use std::collections::BTreeMap;
use yew::prelude::*;

/// A preset's lesson paragraphs, and its tour stops' titles and texts, in order.
pub type Texts = batchscope_view::microbatch::lesson_text::LessonWords<&'static str>;

/// Where the texts come from: `None` while they cannot be had yet (the module is loading).
#[derive(Clone, Copy)]
pub struct TextSource {
    get: fn(&str) -> Option<Texts>,
    /// The note of a step: (the link its run is made from, the step, the scenario).
    note: fn(&str, &Event, &Scenario) -> Option<String>,
    /// Whether a `None` means "load the second module, then ask again".
    from_module: bool,
}

impl PartialEq for TextSource {
    /// A dashboard keeps one source for its life: two sources are the same prop.
    fn eq(&self, other: &Self) -> bool {
        self.from_module == other.from_module
    }
}

/// The page's source: the second module, loaded the first time it is needed.
pub fn texts_from_module() -> TextSource {
    TextSource {
        get: from_module,
        note: |link, event, _| {
            module_loaded()
                .then(|| step_note_in_module(link, event.seq).ok())
                .flatten()
        },
        from_module: true,
    }
}

/// The texts in place (component tests: the view's own functions; the built page never links
/// them).
pub fn texts_in_place() -> TextSource {
    TextSource {
        get: |preset| {
            use batchscope_view::microbatch::lessons::lesson_paragraphs;
            use batchscope_view::microbatch::tour_text::{tour_texts, tour_titles};
            let stops = tour_titles(preset).into_iter().zip(tour_texts(preset));
            Some((lesson_paragraphs(preset), stops.collect()))
        },
        note: |_, event, scenario| {
            Some(batchscope_view::microbatch::explain::explain(
                event, scenario,
            ))
        },
        from_module: false,
    }
}

thread_local! {
    /// Texts already read from the module, by preset.
    static KEPT: RefCell<BTreeMap<String, Texts>> = const { RefCell::new(BTreeMap::new()) };
}

fn from_module(preset: &str) -> Option<Texts> {
    if let Some(t) = batchscope_view::microbatch::lesson_text::opening_texts(preset) {
        return Some(t);
    }
    if let Some(t) = KEPT.with(|k| k.borrow().get(preset).cloned()) {
        return Some(t);
    }
    if !module_loaded() {
        return None;
    }
    let wire = lesson_text_in_module(preset).ok()?;
    let (paragraphs, stops) = parse_lesson_text_wire(&wire);
    let keep = |v: Vec<String>| -> Vec<&'static str> {
        v.into_iter()
            .map(|s| &*Box::leak(s.into_boxed_str()))
            .collect()
    };
    let (titles, texts): (Vec<String>, Vec<String>) = stops.into_iter().unzip();
    let texts = (
        keep(paragraphs),
        keep(titles).into_iter().zip(keep(texts)).collect(),
    );
    KEPT.with(|k| k.borrow_mut().insert(preset.to_string(), texts.clone()));
    Some(texts)
}

/// What a lesson card shows while its paragraphs load.
pub const LOADING: &str = "Loading the lesson…";
/// … and if they could not be loaded.
pub const FAILED: &str =
    "The lesson's text could not be loaded (the page's second module did not load): reload the page to try again.";

/// The texts of `preset` from `source` (`None`: no source, titles only): while the module
/// loads, the paragraphs say so; once it is in, the component draws again with them.
#[hook]
pub fn use_lesson_texts(preset: &str, source: Option<TextSource>) -> Texts {
    let loaded = use_state(|| 0u32);
    let failed = use_state(|| false);
    // Asked once per draw: the answer both decides the effect and is what the card shows.
    let got = source.and_then(|s| (s.get)(preset));
    {
        let (loaded, failed) = (loaded.clone(), failed.clone());
        let wanted = source.is_some_and(|s| s.from_module) && got.is_none();
        use_effect_with((preset.to_string(), wanted), move |(_, wanted)| {
            if *wanted {
                wasm_bindgen_futures::spawn_local(async move {
                    match load_module(false).await {
                        Ok(()) => loaded.set(*loaded + 1),
                        Err(_) => failed.set(true),
                    }
                });
            }
        });
    }
    match got {
        Some(texts) => texts,
        None if source.is_none() => (vec![], vec![]),
        None if *failed => (vec![FAILED], vec![]),
        None => (vec![LOADING], vec![]),
    }
}

/// What a step's note says while the second module loads, and if it could not be loaded.
pub const NOTE_LOADING: &str = "…";
/// … and if it could not be loaded.
pub const NOTE_FAILED: &str =
    "The step's note could not be loaded (the page's second module did not load): reload the page to try again.";

/// The note of step `event` of the run `link` makes (`None` before the first step): while the
/// module loads, [`NOTE_LOADING`]; once it is in, the component draws again with the note.
#[hook]
pub fn use_step_note(
    source: Option<TextSource>,
    link: &str,
    event: Option<&Event>,
    scenario: &Scenario,
) -> Option<String> {
    let loaded = use_state(|| 0u32);
    let failed = use_state(|| false);
    let got = event.map(|e| source.and_then(|s| (s.note)(link, e, scenario)));
    {
        let (loaded, failed) = (loaded.clone(), failed.clone());
        let wanted =
            source.is_some_and(|s| s.from_module) && got.as_ref().is_some_and(Option::is_none);
        use_effect_with(wanted, move |wanted| {
            if *wanted {
                wasm_bindgen_futures::spawn_local(async move {
                    match load_module(true).await {
                        Ok(()) => loaded.set(*loaded + 1),
                        Err(_) => failed.set(true),
                    }
                });
            }
        });
    }
    got.map(|note| match note {
        Some(note) => note,
        None if *failed => NOTE_FAILED.to_string(),
        None => NOTE_LOADING.to_string(),
    })
}

/// The tour of `preset` as the lesson card shows it: what starting it arms (`arms
/// sink-commit@2`), and each stop's title with its text (empty until the words come).
pub fn tour_stops(
    preset: &str,
    words: Vec<(&'static str, &'static str)>,
) -> (Option<String>, Vec<(&'static str, &'static str)>) {
    let frame = batchscope_view::microbatch::tour::tour_frame(preset);
    let words = words.into_iter().chain(std::iter::repeat(("", "")));
    let stops = frame.stops.iter().zip(words).map(|(_, w)| w);
    (frame.crash.map(|c| format!("arms {c}")), stops.collect())
}
