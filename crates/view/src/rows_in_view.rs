//! Which rows of a long list to draw: those in a scroll box's view (plus a margin), and any
//! row that must be drawn wherever it is (the one a tour stop points at). A panel of 64
//! channels draws about twenty; the browser lays out only those at each step, and spacers of
//! the skipped rows' height keep the scrollbar and every row's place as if all were drawn.

use std::ops::Range;

/// A single run.
fn one(run: Range<usize>) -> Vec<Range<usize>> {
    vec![run]
}

/// A list's rows as drawn in a scroll box: each row `row_px` high, below at most `head_px` of
/// other content (a caption, a table header).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RowWindow {
    /// Height of one row, in CSS pixels.
    pub row_px: f64,
    /// At most this much of the scroll box's content comes above the first row.
    pub head_px: f64,
    /// Rows drawn beyond each edge of the view, so a short scroll shows drawn rows.
    pub margin: usize,
}

impl RowWindow {
    /// The runs of rows to draw, in order and disjoint, for `len` rows in a box scrolled to
    /// `scroll_top` showing `view_px`: the rows in view (with the margin) and `pinned`. All
    /// rows while the box is unmeasured (`view_px` 0).
    pub fn runs(
        &self,
        len: usize,
        scroll_top: f64,
        view_px: f64,
        pinned: Option<usize>,
    ) -> Vec<Range<usize>> {
        if len == 0 {
            return Vec::new();
        }
        if view_px <= 0.0 || self.row_px <= 0.0 {
            return one(0..len);
        }
        // Row i's top is between i × row_px and head_px + i × row_px.
        let first = ((scroll_top - self.head_px) / self.row_px).floor().max(0.0) as usize;
        let last = ((scroll_top + view_px) / self.row_px).ceil().max(0.0) as usize;
        let start = first.saturating_sub(self.margin).min(len);
        let end = last.saturating_add(self.margin + 1).min(len);
        let runs = match pinned.filter(|p| *p < len && !(start..end).contains(p)) {
            // Next to the rows in view: one run.
            Some(p) if p + 1 == start => one(p..end),
            Some(p) if p == end => one(start..p + 1),
            Some(p) if p < start => Vec::from([p..p + 1, start..end]),
            Some(p) => Vec::from([start..end, p..p + 1]),
            None => one(start..end),
        };
        runs.into_iter().filter(|r| !r.is_empty()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: RowWindow = RowWindow {
        row_px: 20.0,
        head_px: 50.0,
        margin: 2,
    };

    /// Rows whose box [head + i·row, head + (i+1)·row) meets the view, for any head in
    /// 0..=head_px: what must be drawn.
    fn must_draw(w: &RowWindow, len: usize, top: f64, view: f64, head: f64) -> Vec<usize> {
        (0..len)
            .filter(|i| {
                let y = head + *i as f64 * w.row_px;
                y + w.row_px > top && y < top + view
            })
            .collect()
    }

    fn drawn(runs: &[Range<usize>]) -> Vec<usize> {
        runs.iter().flat_map(|r| r.clone()).collect()
    }

    #[test]
    fn every_row_in_view_is_drawn_wherever_the_box_is_scrolled() {
        for len in [0, 1, 5, 64, 300] {
            for top in (0..=len * 20 + 100).step_by(7) {
                for view in [15.0, 100.0, 333.0] {
                    let runs = W.runs(len, top as f64, view, None);
                    let d = drawn(&runs);
                    for head in [0.0, 17.0, 50.0] {
                        for i in must_draw(&W, len, top as f64, view, head) {
                            assert!(
                                d.contains(&i),
                                "row {i} of {len} at top {top}, view {view}, head {head}: {runs:?}"
                            );
                        }
                    }
                    assert!(
                        d.windows(2).all(|p| p[0] < p[1]),
                        "in order, once each: {runs:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_long_list_draws_about_a_view_of_rows() {
        let runs = W.runs(1000, 5000.0, 300.0, None);
        let n = drawn(&runs).len();
        // 300 / 20 = 15 rows in view; the head's uncertainty and the margins add a few.
        assert!((15..=15 + 3 + 2 * 2 + 2).contains(&n), "{n} rows: {runs:?}");
    }

    #[test]
    fn the_pinned_row_is_drawn_where_it_is() {
        let runs = W.runs(64, 0.0, 100.0, Some(60));
        assert_eq!(runs.len(), 2, "{runs:?}");
        assert_eq!(runs[1], 60..61);
        let runs = W.runs(64, 1000.0, 100.0, Some(3));
        assert_eq!(runs[0], 3..4, "{runs:?}");
        // In view or next to it: one run.
        let near = W.runs(64, 0.0, 100.0, None)[0].end;
        assert_eq!(W.runs(64, 0.0, 100.0, Some(near)).len(), 1);
        assert_eq!(
            W.runs(64, 0.0, 100.0, Some(2)),
            W.runs(64, 0.0, 100.0, None)
        );
        assert_eq!(
            W.runs(64, 0.0, 100.0, Some(64)),
            W.runs(64, 0.0, 100.0, None)
        );
    }

    #[test]
    fn an_unmeasured_box_draws_every_row() {
        assert_eq!(W.runs(64, 0.0, 0.0, None), vec![0..64]);
        assert!(W.runs(0, 0.0, 100.0, Some(0)).is_empty());
    }
}
