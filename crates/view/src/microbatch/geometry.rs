//! Sequence-diagram geometry: lane x positions, row y positions, arrows and a dot moving along them.
//!
//! Everything is in SVG user units. The dashboard lays the diagram out at the pixel size of its
//! pane ([`Layout::fitted`]) and draws it unscaled, so its text keeps its CSS size (never below
//! 11 px) on any screen; below [`MIN_WIDTH`] the pane scrolls sideways instead of shrinking it.
//! The animation keeps no state of its own: the dot is `Arrow::point_at(progress)`.

use batchscope_engine::microbatch::event::Actor;

/// Index of a lane, left to right (`Actor::ALL` order).
pub fn lane_index(actor: Actor) -> u32 {
    Actor::ALL
        .iter()
        .position(|a| *a == actor)
        .expect("every actor is in Actor::ALL") as u32
}

/// Sizes of the diagram.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layout {
    /// Width of the view box.
    pub width: f64,
    /// Empty space left and right of the outer lanes' columns.
    pub margin_x: f64,
    /// Height of the lane headers.
    pub header_h: f64,
    /// Height of one event row.
    pub row_h: f64,
    /// Number of event rows shown.
    pub rows: u32,
    /// The lanes drawn, left to right (the scenario's source's own: `Actor::lanes_for`).
    pub lanes: &'static [Actor],
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            width: 840.0,
            margin_x: 6.0,
            header_h: 46.0,
            row_h: 34.0,
            rows: 17,
            lanes: &Actor::ALL,
        }
    }
}

/// The narrowest layout: seven lanes of about 70 px. A narrower pane scrolls sideways.
pub const MIN_WIDTH: f64 = 500.0;
/// The fewest and the most event rows a fitted layout shows.
pub const ROWS: (u32, u32) = (6, 17);

impl Layout {
    /// The layout that fills a pane of `width` × `height` pixels at one user unit per pixel:
    /// as wide as the pane (at least [`MIN_WIDTH`]) and as many rows as fit (within [`ROWS`]).
    /// A pane not measured yet (0) gets the default width and the most rows.
    pub fn fitted(width: f64, height: f64) -> Layout {
        let base = Layout::default();
        let width = if width > 0.0 {
            width.max(MIN_WIDTH)
        } else {
            base.width
        };
        let rows = if height > 0.0 {
            let fit = ((height - base.header_h - 8.0) / base.row_h).floor();
            (fit.max(0.0) as u32).clamp(ROWS.0, ROWS.1)
        } else {
            ROWS.1
        };
        Layout {
            width,
            rows,
            ..base
        }
    }
}

/// Horizontal length of a self-arrow's loop.
pub const SELF_LOOP_W: f64 = 28.0;

impl Layout {
    /// The same layout drawing `lanes` (left to right).
    pub fn with_lanes(self, lanes: &'static [Actor]) -> Layout {
        Layout { lanes, ..self }
    }

    /// Width of one lane's column.
    pub fn lane_w(&self) -> f64 {
        (self.width - 2.0 * self.margin_x) / self.lanes.len() as f64
    }

    /// x of a lane's life line (the middle of its column); an actor the layout does not draw
    /// (no event of its scenario goes there) at the first lane's.
    pub fn lane_x(&self, actor: Actor) -> f64 {
        let i = self.lanes.iter().position(|a| *a == actor).unwrap_or(0);
        self.margin_x + (i as f64 + 0.5) * self.lane_w()
    }

    /// y of the arrow in row `row` (0 = top row).
    pub fn row_y(&self, row: u32) -> f64 {
        self.header_h + (f64::from(row) + 0.5) * self.row_h
    }

    /// y of the boundary above row `row` (where a batch separator goes).
    pub fn row_top(&self, row: u32) -> f64 {
        self.header_h + f64::from(row) * self.row_h
    }

    /// Total height of the view box.
    pub fn height(&self) -> f64 {
        self.header_h + f64::from(self.rows) * self.row_h + 8.0
    }

    /// The arrow of an event in row `row`.
    pub fn arrow(&self, from: Actor, to: Actor, row: u32) -> Arrow {
        let y = self.row_y(row);
        if from == to {
            let x = self.lane_x(from);
            let drop = self.row_h * 0.4;
            let top = y - drop / 2.0;
            Arrow {
                points: vec![
                    (x, top),
                    (x + SELF_LOOP_W, top),
                    (x + SELF_LOOP_W, top + drop),
                    (x, top + drop),
                ],
                self_loop: true,
            }
        } else {
            Arrow {
                points: vec![(self.lane_x(from), y), (self.lane_x(to), y)],
                self_loop: false,
            }
        }
    }
}

/// An arrow as a polyline (two points, or four for a self-arrow).
#[derive(Clone, Debug, PartialEq)]
pub struct Arrow {
    /// The corners, start first, head last.
    pub points: Vec<(f64, f64)>,
    /// Whether the event stays on one lane (driver-internal).
    pub self_loop: bool,
}

impl Arrow {
    /// The SVG path `d` attribute.
    pub fn path_d(&self) -> String {
        let mut d = String::new();
        for (i, (x, y)) in self.points.iter().enumerate() {
            let cmd = if i == 0 { 'M' } else { 'L' };
            d.push_str(&format!("{cmd}{} {} ", fmt(*x), fmt(*y)));
        }
        d.trim_end().to_string()
    }

    /// Length along the polyline.
    pub fn length(&self) -> f64 {
        self.points
            .windows(2)
            .map(|w| dist(w[0], w[1]))
            .sum::<f64>()
    }

    /// The point a fraction `t` (clamped to 0..=1) of the way along the arrow, by arc length.
    pub fn point_at(&self, t: f64) -> (f64, f64) {
        let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
        let total = self.length();
        if total == 0.0 {
            return self.points[0];
        }
        let mut left = t * total;
        for w in self.points.windows(2) {
            let seg = dist(w[0], w[1]);
            if left <= seg && seg > 0.0 {
                let f = left / seg;
                return (
                    w[0].0 + (w[1].0 - w[0].0) * f,
                    w[0].1 + (w[1].1 - w[0].1) * f,
                );
            }
            left -= seg;
        }
        *self.points.last().expect("an arrow has points")
    }

    /// Where its label goes: above the middle of a straight arrow, right of a self-loop.
    /// Returns (x, y, text-anchor).
    pub fn label_anchor(&self) -> (f64, f64, &'static str) {
        if self.self_loop {
            let (x, y) = self.points[1];
            let (_, y2) = self.points[2];
            (x + 6.0, (y + y2) / 2.0 + 4.5, "start")
        } else {
            let (x1, y) = self.points[0];
            let (x2, _) = self.points[1];
            ((x1 + x2) / 2.0, y - 6.0, "middle")
        }
    }
}

/// Ease in and out (cubic), so a moving dot starts and stops gently. Clamped to 0..=1.
pub fn ease_in_out(t: f64) -> f64 {
    let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
    if t < 0.5 {
        4.0 * t * t * t
    } else {
        1.0 - (-2.0 * t + 2.0).powi(3) / 2.0
    }
}

/// Approximate width of a label in view-box units (system-ui at 12.5px, measured in Chromium:
/// about 7.1 units a character for the diagram's labels; rounded up).
pub fn text_width(text: &str) -> f64 {
    text.chars().count() as f64 * 7.2
}

/// Left of this, the row numbers (`#36`): labels start after it.
pub const GUTTER: f64 = 30.0;

/// Moves a label's anchor so the whole text stays inside `[GUTTER, width - 4]`.
pub fn clamp_label_x(x: f64, anchor: &str, text: &str, width: f64) -> f64 {
    let w = text_width(text);
    let pad = 4.0;
    let (left, right) = match anchor {
        "start" => (x, x + w),
        "end" => (x - w, x),
        _ => (x - w / 2.0, x + w / 2.0),
    };
    if right > width - pad {
        x - (right - (width - pad))
    } else if left < GUTTER {
        x + (GUTTER - left)
    } else {
        x
    }
}

fn dist(a: (f64, f64), b: (f64, f64)) -> f64 {
    ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt()
}

/// Formats a coordinate with at most one decimal (short, stable SVG attributes).
pub fn fmt(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_fitted_layout_fills_its_pane_within_bounds() {
        let d = Layout::default();
        assert_eq!(Layout::fitted(0.0, 0.0), Layout { rows: ROWS.1, ..d });
        let wide = Layout::fitted(1000.0, d.height());
        assert_eq!((wide.width, wide.rows), (1000.0, d.rows));
        assert!(wide.height() <= d.height());
        let narrow = Layout::fitted(300.0, 200.0);
        assert_eq!((narrow.width, narrow.rows), (MIN_WIDTH, ROWS.0));
        // The rows fit the height they were fitted to.
        for h in [300.0, 450.0, 600.0] {
            assert!(
                Layout::fitted(800.0, h).height() <= h.max(Layout::fitted(800.0, 1.0).height())
            );
        }
    }

    use super::*;

    #[test]
    fn lanes_are_evenly_spaced_left_to_right_inside_the_box() {
        let l = Layout::default();
        let xs: Vec<f64> = Actor::ALL.iter().map(|a| l.lane_x(*a)).collect();
        assert_eq!(xs.len(), 7);
        assert!(xs[0] > 0.0 && xs[6] < l.width);
        for w in xs.windows(2) {
            assert!((w[1] - w[0] - l.lane_w()).abs() < 1e-9);
        }
        assert!((l.lane_x(Actor::Driver) - (6.0 + 118.2857 / 2.0)).abs() < 0.01);
        assert_eq!(lane_index(Actor::Sink), 6);
    }

    #[test]
    fn a_source_without_a_meta_table_gets_six_wider_lanes() {
        use batchscope_engine::microbatch::scenario::SourceKind;
        let l = Layout::default().with_lanes(Actor::lanes_for(SourceKind::ReplayableLog));
        assert_eq!(l.lanes.len(), 6);
        assert!(!l.lanes.contains(&Actor::MetaTable));
        assert!((l.lane_w() - Layout::default().lane_w() * 7.0 / 6.0).abs() < 1e-9);
        // The checkpoint folder takes the Meta table's place, one column after the upstream.
        assert!((l.lane_x(Actor::Checkpoint) - l.lane_x(Actor::Tunnel) - l.lane_w()).abs() < 1e-9);
        let t = Layout::default().with_lanes(Actor::lanes_for(SourceKind::Tablestore));
        assert_eq!(t.lanes, &Actor::ALL[..]);
    }

    #[test]
    fn a_straight_arrow_goes_from_the_sender_lane_to_the_receiver_lane() {
        let l = Layout::default();
        let a = l.arrow(Actor::Driver, Actor::Checkpoint, 2);
        assert!(!a.self_loop);
        assert_eq!(a.points[0], (l.lane_x(Actor::Driver), l.row_y(2)));
        assert_eq!(a.points[1], (l.lane_x(Actor::Checkpoint), l.row_y(2)));
        // Right to left works too (a reply).
        let back = l.arrow(Actor::Checkpoint, Actor::Driver, 3);
        assert!(back.points[0].0 > back.points[1].0);
        assert!(back.path_d().starts_with('M'));
    }

    #[test]
    fn a_self_arrow_loops_right_and_comes_back_to_its_lane() {
        let l = Layout::default();
        let a = l.arrow(Actor::Driver, Actor::Driver, 0);
        assert!(a.self_loop);
        assert_eq!(a.points.len(), 4);
        assert_eq!(a.points[0].0, a.points[3].0);
        assert_eq!(a.points[1].0, a.points[0].0 + SELF_LOOP_W);
        assert!(a.points[3].1 > a.points[0].1);
        let (lx, _, anchor) = a.label_anchor();
        assert_eq!(anchor, "start");
        assert!(lx > a.points[1].0);
    }

    #[test]
    fn the_dot_moves_from_start_to_head_by_arc_length() {
        let l = Layout::default();
        let a = l.arrow(Actor::Driver, Actor::Sink, 0);
        assert_eq!(a.point_at(0.0), a.points[0]);
        assert_eq!(a.point_at(1.0), a.points[1]);
        let mid = a.point_at(0.5);
        assert!((mid.0 - (a.points[0].0 + a.points[1].0) / 2.0).abs() < 1e-9);
        // Out-of-range progress is clamped, NaN counts as the start.
        assert_eq!(a.point_at(7.0), a.points[1]);
        assert_eq!(a.point_at(-1.0), a.points[0]);
        assert_eq!(a.point_at(f64::NAN), a.points[0]);
        // On a self-loop, half way is the middle of the vertical segment (segments 28, 13.6, 28).
        let s = l.arrow(Actor::Tunnel, Actor::Tunnel, 1);
        let p = s.point_at(0.5);
        assert!((p.0 - s.points[1].0).abs() < 1e-9);
        assert!(p.1 > s.points[1].1 && p.1 < s.points[2].1);
    }

    #[test]
    fn easing_is_monotone_and_pinned_at_the_ends() {
        assert_eq!(ease_in_out(0.0), 0.0);
        assert_eq!(ease_in_out(1.0), 1.0);
        assert!((ease_in_out(0.5) - 0.5).abs() < 1e-9);
        let mut last = 0.0;
        for i in 0..=100 {
            let v = ease_in_out(f64::from(i) / 100.0);
            assert!(v >= last);
            last = v;
        }
        assert_eq!(ease_in_out(2.0), 1.0);
    }

    #[test]
    fn labels_are_kept_inside_the_box() {
        let w = 840.0;
        let text = "GetBatch({0:9,1:9}, {0:12,1:12})";
        let x = clamp_label_x(835.0, "middle", text, w);
        assert!(x + text_width(text) / 2.0 <= w - 4.0 + 1e-9);
        let x = clamp_label_x(3.0, "middle", text, w);
        assert!(x - text_width(text) / 2.0 >= 4.0 - 1e-9);
        assert_eq!(clamp_label_x(400.0, "middle", "short", w), 400.0);
        let x = clamp_label_x(800.0, "start", text, w);
        assert!(x + text_width(text) <= w - 4.0 + 1e-9);
    }

    #[test]
    fn coordinates_print_short() {
        assert_eq!(fmt(12.0), "12");
        assert_eq!(fmt(12.345), "12.3");
        assert_eq!(fmt(-0.04), "0");
    }
}
