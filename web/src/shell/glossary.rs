//! Glossary links in the page's own texts (a lesson, a step note, a tour stop): the first use of
//! each term a link to its line in `glossary.html` (`batchscope_view::glossary_links`).

use batchscope_view::glossary_links::link_terms;
use yew::prelude::*;

/// `text` with the first use of each term whose id is not in `linked` a link to its line in the
/// glossary, opened in a tab of its own; the address is relative, so it works under any path.
pub fn glossary_linked(text: &str, linked: &mut Vec<&'static str>) -> Html {
    link_terms(text, linked)
        .into_iter()
        .map(|(part, id)| match id {
            Some(id) => html! {
                <a class="term" href={format!("glossary.html#{id}")} target="_blank" rel="noopener">{ part }</a>
            },
            None => part.into(),
        })
        .collect()
}
