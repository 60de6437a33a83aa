//! The lesson index: every lesson of both modes, its question and the link that opens its tour.
//!
//! Apart from the tours so that neither mode's tour module imports the other's lessons.

use crate::microbatch::lessons::lesson_head;
use crate::topology::topology_heading;

/// One entry of the lesson index: a lesson's question and the link that opens its tour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LessonLink {
    /// Preset or topology name.
    pub name: &'static str,
    /// The question it answers.
    pub question: &'static str,
    /// The dashboard hash that opens it with its tour on (and the tour's crash or fault armed).
    pub href: String,
}

/// Every lesson of the project, micro-batch presets first, then the topologies: the index of
/// the questions the dashboard answers.
pub fn lesson_index() -> Vec<LessonLink> {
    let mut out: Vec<LessonLink> = batchscope_engine::microbatch::scenario::presets()
        .into_iter()
        .map(|p| {
            let l = lesson_head(p.name);
            let crash = l
                .try_crash
                .map(|c| format!("&crash={c}"))
                .unwrap_or_default();
            LessonLink {
                name: p.name,
                question: l.question,
                href: format!("#preset={}{crash}&tour=1&at=0", p.name),
            }
        })
        .collect();
    for name in batchscope_engine::barrier::PRESET_NAMES {
        let l = topology_heading(name);
        out.push(LessonLink {
            name,
            question: l.question,
            // The tour starts from the lesson's link (`topology_tour(name).hash`); read from
            // the lesson, the page that lists it does not carry the tours' text.
            href: l.try_hash.replace("&at=", "&tour=1&at="),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::microbatch::tour::tour;
    use batchscope_engine::microbatch::scenario::{presets, CrashPoint};

    #[test]
    fn every_index_link_opens_its_lesson_with_the_tour_on() {
        let index = lesson_index();
        assert_eq!(
            index.len(),
            presets().len() + batchscope_engine::barrier::presets().len()
        );
        let names: Vec<&str> = presets().iter().map(|p| p.name).collect();
        for link in &index {
            if link.href.contains("mode=topology") {
                let u = crate::topology::parse_topology(&link.href).expect("a topology link");
                assert!(u.tour && u.topology == link.name, "{}", link.href);
                // The tour's fault: in the link, or shipped with the topology itself.
                let own = batchscope_engine::barrier::preset(link.name).map(|s| s.faults);
                assert!(
                    !u.faults.is_empty() || own.is_some_and(|f| !f.is_empty()),
                    "{}: the tour's fault",
                    link.href
                );
            } else {
                let u =
                    crate::microbatch::url::parse(&link.href, &names).expect("a micro-batch link");
                assert!(u.tour && u.preset == link.name, "{}", link.href);
                let crash = tour(link.name)
                    .crash
                    .map(|c| c.parse::<CrashPoint>().unwrap());
                assert_eq!(u.crashes.first().copied(), crash, "{}", link.href);
            }
        }
    }
}
