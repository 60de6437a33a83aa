//! The Export menu's files — the sequence diagram as SVG or PNG, the trace as JSON (what
//! `batchscope run --trace --json` prints) and the simulated checkpoint folder as a `.zip` (the
//! bytes `--checkpoint-out` writes) — made from the page's diagram and the link of the moment on
//! screen.
//!
//! They are built into the lazily loaded module (`batchscope-modes`), not the page's first:
//! the zip writer, its deflate encoder, the events' JSON serializer and the diagram's
//! SVG-to-PNG drawing were a tenth of the page's first load, for buttons few people press.
//! The module reads the diagram from the page it shares, and gets the link, not the run: a run
//! is deterministic, so the link's scenario, seed, crash inputs and cursor give back the very
//! run and moment on screen (tested against the page's own player below). Component tests make
//! the files in place ([`files_in_place`]).

use crate::microbatch::state::{Micro, MicroPlayer};
use crate::shell::{Mode, Player};
use batchscope_check::itf;
use batchscope_view::microbatch::export::{checkpoint_zip, standalone_svg, trace_json};
use js_sys::{Array, Promise, Uint8Array};
use std::future::Future;
use std::pin::Pin;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    Blob, BlobPropertyBag, CanvasRenderingContext2d, CssStyleSheet, HtmlCanvasElement,
    HtmlImageElement, Url,
};
use yew::Callback;

/// Which file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportKind {
    /// The sequence diagram on the page, as a standalone SVG with the page's styles.
    Svg,
    /// The same drawn as PNG, [`PNG_SCALE`] pixels per unit.
    Png,
    /// Every event and the verdict, as JSON.
    Trace,
    /// The run in the Informal Trace Format (Apalache, Quint): one state per event.
    Itf,
    /// The checkpoint folder at the cursor, as a `.zip` with one top folder `checkpoint/`.
    Checkpoint,
}

impl ExportKind {
    /// Every kind, in the menu's order.
    pub const ALL: [ExportKind; 5] = [
        ExportKind::Svg,
        ExportKind::Png,
        ExportKind::Trace,
        ExportKind::Itf,
        ExportKind::Checkpoint,
    ];

    /// The name the page and the module use for it.
    pub fn name(self) -> &'static str {
        match self {
            ExportKind::Svg => "svg",
            ExportKind::Png => "png",
            ExportKind::Trace => "trace",
            ExportKind::Itf => "itf",
            ExportKind::Checkpoint => "checkpoint",
        }
    }

    /// The kind named `name`, if any.
    pub fn from_name(name: &str) -> Option<ExportKind> {
        ExportKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// What the status line calls it.
    pub fn what(self) -> &'static str {
        match self {
            ExportKind::Svg => "the diagram as SVG",
            ExportKind::Png => "the diagram as PNG",
            ExportKind::Trace => "the trace",
            ExportKind::Itf => "the trace in ITF",
            ExportKind::Checkpoint => "the checkpoint folder",
        }
    }

    /// Its MIME type.
    pub fn mime(self) -> &'static str {
        match self {
            ExportKind::Svg => "image/svg+xml",
            ExportKind::Png => "image/png",
            ExportKind::Trace | ExportKind::Itf => "application/json",
            ExportKind::Checkpoint => "application/zip",
        }
    }

    /// The file's name for the run named `name` with `cursor` events shown (`at_end`: all).
    pub fn file_name(self, name: &str, cursor: usize, at_end: bool) -> String {
        match self {
            ExportKind::Svg => format!("{name}-diagram.svg"),
            ExportKind::Png => format!("{name}-diagram.png"),
            ExportKind::Trace => format!("{name}-trace.json"),
            ExportKind::Itf => format!("{name}-trace.itf.json"),
            ExportKind::Checkpoint if at_end => format!("{name}-checkpoint.zip"),
            ExportKind::Checkpoint => format!("{name}-checkpoint-at-{cursor}.zip"),
        }
    }
}

/// An Export menu file being made: its bytes, or why not.
pub type FileFuture = Pin<Box<dyn Future<Output = Result<Vec<u8>, String>>>>;

/// Makes the Export menu's file of a kind for the link of the moment on screen (`#…`).
pub type FileMaker = Callback<(ExportKind, String), FileFuture>;

/// PNG pixels per SVG unit (sharp on slides and high-density screens).
pub const PNG_SCALE: f64 = 2.0;

/// The file of `kind`: the diagram drawn on the page, or made from the moment `hash` (a
/// micro-batch link, `#…`) describes. An error names what is wrong.
pub async fn export_file(kind: ExportKind, hash: &str) -> Result<Vec<u8>, String> {
    let diagram = || diagram_svg().ok_or_else(|| "no diagram on the page".to_string());
    match kind {
        ExportKind::Svg => Ok(diagram()?.0.into_bytes()),
        ExportKind::Png => {
            let (svg, w, h) = diagram()?;
            svg_to_png(&svg, w, h, PNG_SCALE)
                .await
                .map_err(|e| format!("{e:?}"))
        }
        ExportKind::Trace | ExportKind::Itf | ExportKind::Checkpoint => run_file(kind, hash),
    }
}

/// Makes the files in place, with [`export_file`] (component tests; the page has its second
/// module make them: `components::export::files_from_module`).
pub fn files_in_place() -> FileMaker {
    Callback::from(|(kind, hash): (ExportKind, String)| -> FileFuture {
        Box::pin(async move { export_file(kind, &hash).await })
    })
}

/// The file of `kind` (the trace or the checkpoint folder) for the moment `hash` describes:
/// the run of its scenario (a compared run, `vs=`, left out: the export is of the run on the
/// left), at its cursor. A link that cannot be read is an error naming what is wrong.
pub fn run_file(kind: ExportKind, hash: &str) -> Result<Vec<u8>, String> {
    let mut link = Micro::parse_link(hash).map_err(|errors| errors.join("; "))?;
    link.vs = None;
    file_of(kind, &Player::from_link(link), hash)
}

/// The file of `kind` (the trace or the checkpoint folder) for the moment `player` is at, the
/// moment the link `hash` names.
fn file_of(kind: ExportKind, player: &MicroPlayer, hash: &str) -> Result<Vec<u8>, String> {
    let run = &player.mode.run;
    match kind {
        ExportKind::Trace => {
            let (_, report) = run.verdict_at(run.last(), run.len());
            Ok(trace_json(&report, run.events()).into_bytes())
        }
        ExportKind::Itf => {
            let (_, report) = run.verdict_at(run.last(), run.len());
            let source = format!("batchscope dashboard link {hash}");
            Ok(itf::trace(player.scenario(), &report, &source).into_bytes())
        }
        ExportKind::Checkpoint => Ok(checkpoint_zip(&player.world.checkpoint, "checkpoint")),
        ExportKind::Svg | ExportKind::Png => {
            Err(format!("{} is drawn from the page, not a run", kind.what()))
        }
    }
}

/// The page's stylesheets as text, inlined into exported SVG so it looks as on screen. Read
/// from the loaded page (`document.styleSheets`) at export time rather than compiled in: the
/// page already holds them.
fn page_css() -> String {
    let sheets = gloo::utils::document().style_sheets();
    let mut css = String::new();
    for i in 0..sheets.length() {
        let Some(sheet) = sheets
            .item(i)
            .and_then(|s| s.dyn_into::<CssStyleSheet>().ok())
        else {
            continue;
        };
        // A sheet from another origin refuses to be read: it is left out, the rest kept.
        let Ok(rules) = sheet.css_rules() else {
            continue;
        };
        for j in 0..rules.length() {
            if let Some(rule) = rules.item(j) {
                css.push_str(&rule.css_text());
                css.push('\n');
            }
        }
    }
    css
}

/// The diagram on the page as a standalone SVG, with its width and height.
fn diagram_svg() -> Option<(String, f64, f64)> {
    let svg = gloo::utils::document().get_element_by_id("sequence")?;
    let view_box = svg.get_attribute("viewBox")?;
    let mut numbers = view_box
        .split_whitespace()
        .map(|n| n.parse::<f64>().ok().filter(|n| n.is_finite()));
    let (_, _, w, h) = (
        numbers.next()??,
        numbers.next()??,
        numbers.next()??,
        numbers.next()??,
    );
    // The page draws the SVG at its layout's size (`width` and `height` are set): the file
    // keeps that size.
    Some((standalone_svg(&svg.outer_html(), &page_css()), w, h))
}

/// Draws an SVG document into a PNG, `scale` pixels per unit.
pub(crate) async fn svg_to_png(svg: &str, w: f64, h: f64, scale: f64) -> Result<Vec<u8>, JsValue> {
    let parts = Array::of1(&JsValue::from_str(svg));
    let bag = BlobPropertyBag::new();
    bag.set_type("image/svg+xml");
    let blob = Blob::new_with_str_sequence_and_options(&parts, &bag)?;
    let url = Url::create_object_url_with_blob(&blob)?;
    let image = HtmlImageElement::new()?;
    let loaded = Promise::new(&mut |resolve, reject| {
        image.set_onload(Some(&resolve));
        image.set_onerror(Some(&reject));
    });
    image.set_src(&url);
    let waited = JsFuture::from(loaded).await;
    let _ = Url::revoke_object_url(&url);
    waited?;
    let canvas: HtmlCanvasElement = gloo::utils::document()
        .create_element("canvas")?
        .unchecked_into();
    canvas.set_width((w * scale).round() as u32);
    canvas.set_height((h * scale).round() as u32);
    let context: CanvasRenderingContext2d = canvas
        .get_context("2d")?
        .ok_or("no 2d context")?
        .unchecked_into();
    context.scale(scale, scale)?;
    context.draw_image_with_html_image_element_and_dw_and_dh(&image, 0.0, 0.0, w, h)?;
    let png = Promise::new(&mut |resolve, _reject| {
        let callback = Closure::once_into_js(move |blob: JsValue| {
            let _ = resolve.call1(&JsValue::NULL, &blob);
        });
        let _ = canvas.to_blob(callback.unchecked_ref());
    });
    let blob: Blob = JsFuture::from(png).await?.dyn_into()?;
    let buffer = JsFuture::from(blob.array_buffer()).await?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::microbatch::state::Action;
    use crate::shell::PlayerCmd;
    use std::rc::Rc;
    use yew::Reducible;

    fn reduce(p: MicroPlayer, a: impl Into<Action>) -> MicroPlayer {
        (*Rc::new(p).reduce(a.into())).clone()
    }

    /// Players as a person leaves them: a crash armed, a crash made by hand, a tour (which
    /// arms its own crash), a fault, a scenario of one's own, a comparison.
    fn players() -> Vec<MicroPlayer> {
        let mut crashed_now = MicroPlayer::from_hash("#preset=kafka-append&seed=3&at=30");
        crashed_now = reduce(crashed_now, Action::CrashNow);
        for _ in 0..12 {
            crashed_now = reduce(crashed_now, PlayerCmd::Step);
        }
        let mut own = batchscope_engine::microbatch::scenario::preset("tablestore").unwrap();
        own.upstream.channels = 3;
        let own_hash = format!(
            "#scenario={}&seed=5&at=50",
            batchscope_view::microbatch::url::scenario::encode(&own)
        );
        vec![
            MicroPlayer::from_hash("#preset=kafka-append&seed=7&crash=sink-commit@3&at=40"),
            MicroPlayer::from_hash("#preset=tablestore-two-phase&crash=sink-commit@2&at=999999"),
            crashed_now,
            MicroPlayer::from_hash("#preset=kafka-append&tour=1&at=25"),
            MicroPlayer::from_hash(&own_hash),
            MicroPlayer::from_hash(
                "#preset=kafka-append&vs=kafka-idempotent&crash=sink-commit@3&at=60",
            ),
        ]
    }

    #[test]
    fn the_link_gives_back_the_files_of_the_moment_on_screen() {
        for p in players() {
            // Every link opened as written (`at=` past the end shows the end, and says so).
            assert!(
                p.notices.iter().all(|n| n.text.contains("past the end")),
                "{:?}",
                p.notices
            );
            let hash = Micro::format_link(&p.url_state());
            for kind in [ExportKind::Trace, ExportKind::Itf, ExportKind::Checkpoint] {
                let file = run_file(kind, &hash).unwrap();
                assert!(
                    file == file_of(kind, &p, &hash).unwrap(),
                    "{} of {hash} differs from the page's",
                    kind.name()
                );
            }
            // The link's cursor is honoured: the folder at the start is another file.
            let mut start = p.url_state();
            start.base.at = 0;
            assert_ne!(
                run_file(ExportKind::Checkpoint, &Micro::format_link(&start)).unwrap(),
                run_file(ExportKind::Checkpoint, &hash).unwrap(),
                "{hash}"
            );
        }
    }

    #[test]
    fn a_link_that_cannot_be_read_is_named() {
        let error = run_file(ExportKind::Trace, "#preset=no-such-preset").unwrap_err();
        assert!(error.contains("no-such-preset"), "{error}");
        for kind in ExportKind::ALL {
            assert_eq!(ExportKind::from_name(kind.name()), Some(kind));
        }
        assert_eq!(ExportKind::from_name("zip"), None);
        // The diagram is drawn from the page: a run does not make it.
        let error = run_file(ExportKind::Png, "#preset=kafka-append").unwrap_err();
        assert!(error.contains("diagram as PNG"), "{error}");
    }
}
