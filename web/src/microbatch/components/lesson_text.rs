//! Where a preset's lesson paragraphs and tour stop texts come from. The page's first load
//! carries each lesson's title, question and crash, and each tour's stops (where they pause,
//! their tabs and titles), but only the texts of the preset a bare link opens: for any other
//! preset the page asks its second module ([`texts_from_module`], fetched when such a preset is
//! first shown, as Topology fetches it), so the first load stays small.
//! Component tests take them in place ([`texts_in_place`]). Texts are kept once per preset for
//! the page's life (a few KB each), as `&'static str` like the ones written in the code.

use crate::shell::{lesson_text_in_module, load_module, module_loaded};
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
