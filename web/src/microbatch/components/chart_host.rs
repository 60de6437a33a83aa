//! Where the "Spark UI" tab's charts are drawn. The tab hands each chart's data (a
//! [`ChartSlot`]) to a renderer it is given: the page's is [`LazyChart`], which has the second
//! module (`batchscope-modes`, fetched the first time a chart is shown) draw it — plotters and
//! the chart code stay out of the page's first load; component tests draw it in place with
//! [`InlineChart`].

use crate::shell::{chart_in_module, load_module, module_loaded};
use batchscope_view::microbatch::spark_ui::{chart_svg, pack, BatchProgress, Chart};
use std::rc::Rc;
use yew::prelude::*;

/// What one chart is drawn from.
#[derive(Properties, Clone, PartialEq)]
pub struct ChartSlot {
    /// Every batch attempt up to the step on screen.
    pub progress: Rc<Vec<BatchProgress>>,
    /// Which chart.
    pub chart: Chart,
    /// Width of the drawing, px.
    pub width: u32,
    /// Height of the drawing, px.
    pub height: u32,
    /// Dark theme colours.
    pub dark: bool,
}

/// Draws a chart for a slot.
pub type ChartRender = Callback<ChartSlot, Html>;

/// The renderer of [`InlineChart`].
pub fn inline_chart() -> ChartRender {
    Callback::from(|slot: ChartSlot| html! { <InlineChart ..slot /> })
}

/// The renderer of [`LazyChart`].
pub fn lazy_chart() -> ChartRender {
    Callback::from(|slot: ChartSlot| html! { <LazyChart ..slot /> })
}

/// An SVG string as markup.
fn svg_html(svg: String) -> Html {
    Html::from_html_unchecked(AttrValue::from(svg))
}

/// A chart drawn in place.
#[component]
pub fn InlineChart(props: &ChartSlot) -> Html {
    svg_html(chart_svg(
        &props.progress,
        props.chart,
        props.width,
        props.height,
        props.dark,
    ))
}

/// A chart drawn by the second module, fetched the first time a chart is shown. While it
/// loads the chart's place says so; if it cannot be loaded, why, with *Try again*.
#[component]
pub fn LazyChart(props: &ChartSlot) -> Html {
    let failed = use_state(|| None::<String>);
    let attempt = use_state(|| 0u32);
    // Redrawn once the module is in.
    let loaded = use_state(module_loaded);
    {
        let (failed, loaded) = (failed.clone(), loaded.clone());
        use_effect_with(*attempt, move |_| {
            if !module_loaded() {
                wasm_bindgen_futures::spawn_local(async move {
                    match load_module(false).await {
                        Ok(()) => loaded.set(true),
                        Err(why) => failed.set(Some(why)),
                    }
                });
            }
        });
    }
    // As high as the chart will be (the SVG is drawn at the panel's width, its aspect kept).
    let size = format!("aspect-ratio:{}/{}", props.width, props.height);
    if *loaded || module_loaded() {
        let numbers = pack(&props.progress);
        return match chart_in_module(
            &numbers,
            props.chart.name(),
            props.width,
            props.height,
            props.dark,
        ) {
            Ok(svg) => svg_html(svg),
            Err(why) => html! {
                <p class="chart-status" role="alert" style={size}>{ format!("The chart could not be drawn: {why}.") }</p>
            },
        };
    }
    match &*failed {
        Some(why) => {
            let retry = {
                let (attempt, failed) = (attempt.clone(), failed.clone());
                Callback::from(move |_: MouseEvent| {
                    failed.set(None);
                    attempt.set(*attempt + 1);
                })
            };
            html! {
                <p class="chart-status" role="alert" style={size}>
                    { format!("The charts could not be loaded: {why}. ") }
                    <button onclick={retry}>{ "Try again" }</button>
                </p>
            }
        }
        None => html! {
            <p class="chart-status" role="status" style={size}>{ "Loading the chart…" }</p>
        },
    }
}
