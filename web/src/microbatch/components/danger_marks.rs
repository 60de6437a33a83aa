//! The danger band's marks on parts of the page its first module draws, made by the second
//! module, which has the map: the strip beside the sequence diagram's rows, each row coloured
//! by the verdict a driver crash right after its event leads to (style rules added to the
//! page's stylesheet, `view::microbatch::danger::row_rules`); the lesson card's line saying
//! when a bad run's outcome was sealed (drawn through a portal into the card's empty line); and the
//! Sink panel's key chips, each of which opens its record's lane. The first module's share is
//! an empty rect per row, an empty line and a chip that is a button: its first load stays
//! small.

use batchscope_check::oracle::Report;
use batchscope_engine::microbatch::event::Event;
use batchscope_engine::microbatch::upstream::RowKey;
use batchscope_view::microbatch::danger::{row_rules, Stretch};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{CssStyleSheet, Element};
use yew::prelude::*;

/// The page's stylesheet: the first one whose rules can be read and changed.
fn page_sheet() -> Option<CssStyleSheet> {
    let sheets = gloo::utils::document().style_sheets();
    (0..sheets.length())
        .filter_map(|i| sheets.item(i)?.dyn_into::<CssStyleSheet>().ok())
        .find(|sheet| sheet.css_rules().is_ok())
}

/// Puts `rules` in the page's stylesheet in place of the rows' rules there before.
fn paint_rows(rules: &[String]) {
    let Some(sheet) = page_sheet() else {
        return;
    };
    let Ok(list) = sheet.css_rules() else {
        return;
    };
    // The browser writes a rule back in its own words: known by the diagram's id and rows
    // (the end of `danger::PAGE_ROWS`, which every rule of `row_rules` starts with).
    let mark = "svg#sequence g.row:is(";
    for i in (0..list.length()).rev() {
        if list.item(i).is_some_and(|r| r.css_text().contains(mark)) {
            let _ = sheet.delete_rule(i);
        }
    }
    for rule in rules {
        let end = sheet.css_rules().map_or(0, |l| l.length());
        let _ = sheet.insert_rule_with_index(rule, end);
    }
}

/// Colours the strip beside the diagram's rows with `stretches` (the band made so far) while
/// the band is on the page; none once it is gone.
#[hook]
pub fn use_row_marks(stretches: Rc<Vec<Stretch>>) {
    use_effect_with(stretches, |stretches| {
        paint_rows(&row_rules(stretches));
        || paint_rows(&[])
    });
}

/// Has every click on a key chip of the page (`.key-chip`: the Sink panel's rows, its
/// duplicated, lost and aged-out keys) follow that key in its lane.
#[hook]
pub fn use_key_chips(on_follow: Callback<RowKey>) {
    use_effect_with((), move |()| {
        let listener =
            gloo::events::EventListener::new(&gloo::utils::document(), "click", move |event| {
                let chip = event
                    .target()
                    .and_then(|t| t.dyn_into::<Element>().ok())
                    .and_then(|t| t.closest(".key-chip").ok().flatten());
                let key = chip
                    .and_then(|c| c.text_content())
                    .and_then(|text| text.trim().parse::<RowKey>().ok());
                if let Some(key) = key {
                    on_follow.emit(key);
                }
            });
        move || drop(listener)
    });
}

/// The sentence of the lesson card about a bad run: the event from which its outcome was
/// sealed and the last one at which it was still avoidable; `None` before the sealing event is
/// on screen (the card says it as the run reaches that moment).
pub fn sealed_sentence(report: &Report, events: &[Event], cursor: usize) -> Option<String> {
    let at = report.inevitable_at.as_ref()?;
    if cursor <= at.event as usize {
        return None;
    }
    let label = |event: u64| {
        let kind = events.get(event as usize).map(|e| e.kind.label());
        format!("#{event} ({})", kind.unwrap_or_default())
    };
    let verdict = report.verdict.name();
    let mut text = format!(
        "⚑ This run's outcome ({verdict}) was sealed at {}: from there on, no run without a \
         further failure ends exactly-once.",
        label(at.event)
    );
    if let Some(until) = &report.avoidable_until {
        text.push_str(&format!(
            " At {} it was still avoidable.",
            label(until.event)
        ));
    }
    Some(text)
}

/// Props of [`SealedLine`].
#[derive(Properties, PartialEq)]
pub struct SealedLineProps {
    /// The sentence, if the card should say one now.
    pub text: Option<String>,
}

/// The lesson card's line about a bad run, drawn into the card's empty line
/// (`[data-testid=lesson-when]`) wherever the card is.
#[component]
pub fn SealedLine(props: &SealedLineProps) -> Html {
    let host = gloo::utils::document()
        .query_selector("[data-testid=lesson-when]")
        .ok()
        .flatten();
    match (host, &props.text) {
        (Some(host), Some(text)) => create_portal(html! { <>{ text.clone() }</> }, host),
        _ => html! {},
    }
}
