//! The danger band: for the run on screen, what one more driver crash right after each event
//! would lead to (`batchscope_check::explore::map`), drawn as a band of windows along the run,
//! one colour per verdict, each window named by the protocol steps on either side; and, for a
//! bad run, the moments its outcome became inevitable and was last avoidable
//! (`batchscope_check::why`).

use batchscope_check::explore::map::{DangerMap, Window};
use batchscope_check::oracle::Verdict;

/// Runs longer than this get no band: a verdict per event is a run to the end per event, and
/// the page must have the band within a fraction of a second (`batchscope explore
/// --every-event --map` draws any run's map in the terminal).
pub const MAX_BAND_EVENTS: usize = 3_000;

/// The colour of a verdict: the verdict badge's.
pub fn verdict_color(v: Option<Verdict>) -> &'static str {
    match v {
        Some(Verdict::ExactlyOnce) => "#17804a",
        Some(Verdict::Duplicates) => "#b45309",
        Some(Verdict::DataLoss | Verdict::DuplicatesAndLoss) => "#e5484d",
        Some(Verdict::Stuck) => "#6b7280",
        Some(Verdict::Stopped) => "#2f6690",
        None => "#c9d0da",
    }
}

/// One window of the band: the crashes after events `from..to` give one verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct Stretch {
    /// The first event a crash goes after.
    pub from: usize,
    /// One past the last.
    pub to: usize,
    /// The verdict (`None`: the query is not running, no crash to place).
    pub verdict: Option<Verdict>,
    /// Where the window lies and what a crash there leads to, in words.
    pub title: String,
}

/// The band's windows, in event order.
pub fn stretches(map: &DangerMap) -> Vec<Stretch> {
    map.windows
        .iter()
        .map(|w: &Window| Stretch {
            from: w.after.event as usize,
            to: w.last.event as usize + 1,
            verdict: w.verdict,
            title: format!("A driver crash {}: {}", w.span(), w.outcome()),
        })
        .collect()
}

/// The verdicts a band holds, in the order of [`Verdict::ALL`] (its legend).
pub fn legend(stretches: &[Stretch]) -> Vec<Option<Verdict>> {
    let mut seen: Vec<Option<Verdict>> = Verdict::ALL
        .into_iter()
        .map(Some)
        .filter(|v| stretches.iter().any(|s| s.verdict == *v))
        .collect();
    if stretches.iter().any(|s| s.verdict.is_none()) {
        seen.push(None);
    }
    seen
}

/// A verdict's word in the legend.
pub fn legend_word(v: Option<Verdict>) -> &'static str {
    v.map_or("not running", Verdict::name)
}

/// The rows of the page's own sequence diagram (compare mode's two, in `.cmp-side`, are not
/// the band's run).
pub const PAGE_ROWS: &str = ":not(.cmp-side) > .seq-wrap > svg#sequence g.row";

/// Style rules that colour the strip beside each row of the page's sequence diagram (its
/// `rect.seq-dg`, left of the row's number) with the verdict of a driver crash right after
/// that event: one rule per verdict of the band, naming its events by the rows' `data-seq`.
/// Nothing for events where the query is not running (the strip stays empty).
pub fn row_rules(stretches: &[Stretch]) -> Vec<String> {
    legend(stretches)
        .into_iter()
        .flatten()
        .map(|v| {
            let rows: Vec<String> = stretches
                .iter()
                .filter(|s| s.verdict == Some(v))
                .flat_map(|s| s.from..s.to)
                .map(|seq| format!("[data-seq=\"{seq}\"]"))
                .collect();
            format!(
                "{PAGE_ROWS}:is({}) > rect.seq-dg {{ fill: {}; }}",
                rows.join(","),
                verdict_color(Some(v))
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use batchscope_check::explore::map::danger_map;
    use batchscope_engine::microbatch::scenario::preset;

    #[test]
    fn the_stretches_cover_the_run_and_name_their_windows() {
        let map = danger_map(&preset("kafka-append").expect("a preset"));
        let s = stretches(&map);
        assert_eq!(s[0].from, 0);
        assert_eq!(s.last().expect("one").to as u64, map.events);
        for pair in s.windows(2) {
            assert_eq!(pair[0].to, pair[1].from);
        }
        for (st, w) in s.iter().zip(&map.windows) {
            assert!(st.title.contains(&w.span()), "{}", st.title);
            assert!(st.title.ends_with(w.outcome()), "{}", st.title);
        }
        let words: Vec<&str> = legend(&s).into_iter().map(legend_word).collect();
        assert!(words.contains(&"duplicates") && words.contains(&"exactly-once"));
    }

    #[test]
    fn the_row_rules_name_every_event_once_in_its_verdicts_colour() {
        let map = danger_map(&preset("kafka-append").expect("a preset"));
        let s = stretches(&map);
        let rules = row_rules(&s);
        let with_verdict: Vec<&Stretch> = s.iter().filter(|st| st.verdict.is_some()).collect();
        assert_eq!(rules.len(), legend(&s).into_iter().flatten().count());
        let named = |seq: usize| format!("[data-seq=\"{seq}\"]");
        for st in &with_verdict {
            let colour = verdict_color(st.verdict);
            for seq in st.from..st.to {
                let holding: Vec<&String> = rules
                    .iter()
                    .filter(|r| {
                        r.contains(&format!("{},", named(seq)))
                            || r.contains(&format!("{})", named(seq)))
                    })
                    .collect();
                assert_eq!(holding.len(), 1, "event {seq} in one rule: {holding:?}");
                assert!(holding[0].ends_with(&format!("{{ fill: {colour}; }}")));
                assert!(holding[0].starts_with(PAGE_ROWS));
            }
        }
        assert!(row_rules(&[]).is_empty());
    }

    #[test]
    fn every_verdict_has_its_own_colour_but_both_losses() {
        let mut colours: Vec<&str> = Verdict::ALL
            .into_iter()
            .filter(|v| *v != Verdict::DuplicatesAndLoss)
            .map(|v| verdict_color(Some(v)))
            .chain([verdict_color(None)])
            .collect();
        colours.sort_unstable();
        colours.dedup();
        assert_eq!(colours.len(), Verdict::ALL.len());
    }
}
