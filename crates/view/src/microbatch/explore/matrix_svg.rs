//! The verdict matrix (crash point × batch) drawn as an SVG of its own, for slides and papers:
//! the same colours and cell labels as the dialog, a title naming preset and seed, and a legend.

use super::matrix::{verdict_color, verdict_title, MatrixView};
use crate::microbatch::export::standalone_svg;
use batchscope_check::oracle::Verdict;
use std::fmt::Write;

/// Cell size and gap, in SVG units (as in the dialog).
const CELL_W: f64 = 46.0;
const CELL_H: f64 = 26.0;
const GAP: f64 = 4.0;
/// Margin around the drawing.
const PAD: f64 = 16.0;
/// Width of the crash point names.
const LABEL_W: f64 = 116.0;
/// Title block and column header heights.
const TITLE_H: f64 = 44.0;
const HEAD_H: f64 = 20.0;
/// The narrowest drawing (the legend's second line fits).
const MIN_W: f64 = 660.0;
/// Legend height.
const LEGEND_H: f64 = 48.0;

/// Fonts and colours of the file (it is read outside the page, on a white background).
const CSS: &str = "text { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; font-size: 12px; fill: #1f2933; } \
.mono { font-family: ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace; } \
.muted { fill: #5f6b7a; } .title { font-size: 15px; font-weight: 650; } \
.cell { fill: #fff; font-weight: 700; font-size: 12.5px; }";

/// A drawn matrix: the standalone SVG document and its size.
#[derive(Clone, Debug, PartialEq)]
pub struct MatrixSvg {
    /// The file's text.
    pub svg: String,
    /// Width in SVG units.
    pub width: f64,
    /// Height in SVG units.
    pub height: f64,
}

/// Escapes text for XML.
fn xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Draws `m` under the heading `title` (and the line `subtitle`) as a standalone SVG.
pub fn matrix_svg(m: &MatrixView, title: &str, subtitle: &str) -> MatrixSvg {
    let columns = m.batches.len() as f64;
    let grid_w = LABEL_W + columns * (CELL_W + GAP);
    let width = (grid_w.max(MIN_W) + 2.0 * PAD).ceil();
    let grid_top = PAD + TITLE_H + HEAD_H;
    let grid_h = m.rows.len() as f64 * (CELL_H + GAP);
    let height = (grid_top + grid_h + LEGEND_H + PAD).ceil();
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"{}\">",
        xml(title)
    );
    let _ = write!(
        s,
        "<rect width=\"{width}\" height=\"{height}\" fill=\"#ffffff\"/>\
         <text class=\"title\" x=\"{PAD}\" y=\"{}\">{}</text>\
         <text class=\"muted\" x=\"{PAD}\" y=\"{}\">{}</text>",
        PAD + 14.0,
        xml(title),
        PAD + 33.0,
        xml(subtitle)
    );
    let left = PAD + LABEL_W;
    let _ = write!(
        s,
        "<text class=\"muted\" x=\"{}\" y=\"{}\" text-anchor=\"end\">point \\ batch</text>",
        left - 8.0,
        grid_top - 6.0
    );
    for (i, b) in m.batches.iter().enumerate() {
        let x = left + i as f64 * (CELL_W + GAP) + CELL_W / 2.0;
        let _ = write!(
            s,
            "<text class=\"muted\" x=\"{x}\" y=\"{}\" text-anchor=\"middle\">{b}</text>",
            grid_top - 6.0
        );
    }
    for (r, row) in m.rows.iter().enumerate() {
        let y = grid_top + r as f64 * (CELL_H + GAP);
        let _ = write!(
            s,
            "<text class=\"mono\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            left - 8.0,
            y + CELL_H / 2.0 + 4.0,
            xml(&row.point)
        );
        for (i, c) in row.cells.iter().enumerate() {
            let x = left + i as f64 * (CELL_W + GAP);
            match c.color {
                Some(color) => {
                    let _ = write!(
                        s,
                        "<g><title>{}</title><rect x=\"{x}\" y=\"{y}\" width=\"{CELL_W}\" height=\"{CELL_H}\" rx=\"5\" fill=\"{color}\"/>\
                         <text class=\"cell\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text></g>",
                        xml(&c.tooltip),
                        x + CELL_W / 2.0,
                        y + CELL_H / 2.0 + 4.5,
                        xml(&c.label)
                    );
                }
                None => {
                    let _ = write!(
                        s,
                        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"5\" fill=\"none\" stroke=\"#c3cad3\" stroke-dasharray=\"3 3\"/>",
                        x + 0.5,
                        y + 0.5,
                        CELL_W - 1.0,
                        CELL_H - 1.0
                    );
                }
            }
        }
    }
    legend(&mut s, grid_top + grid_h + 10.0);
    s.push_str("</svg>");
    MatrixSvg {
        svg: standalone_svg(&s, CSS),
        width,
        height,
    }
}

/// The colour keys and the cell labels, two lines from `top`.
fn legend(s: &mut String, top: f64) {
    let keys = Verdict::ALL
        .iter()
        .map(|v| (Some(verdict_color(*v)), verdict_title(*v)))
        .chain([(None, "not reached".to_string())]);
    let mut x = PAD;
    for (color, name) in keys {
        let swatch = match color {
            Some(c) => format!("fill=\"{c}\""),
            None => "fill=\"none\" stroke=\"#8a94a3\" stroke-dasharray=\"2 2\"".to_string(),
        };
        let _ = write!(
            s,
            "<rect x=\"{x}\" y=\"{top}\" width=\"11\" height=\"11\" rx=\"3\" {swatch}/>\
             <text x=\"{}\" y=\"{}\">{}</text>",
            x + 16.0,
            top + 10.0,
            xml(&name)
        );
        x += 24.0 + name.chars().count() as f64 * 6.6;
    }
    let _ = write!(
        s,
        "<text class=\"muted\" x=\"{PAD}\" y=\"{}\">✓ exactly once · +n duplicates · −n lost · ± both · ■ stuck</text>",
        top + 30.0
    );
}
