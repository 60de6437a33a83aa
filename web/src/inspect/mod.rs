//! The Inspect page (`#mode=inspect`): drop a real Spark checkpoint folder, or a `.zip` of
//! one, and see what `batchscope inspect` says — its batches, the restart Spark would make
//! and why, the linter's findings, each file's bytes — read in this browser, nothing
//! uploaded. "Simulate the restart" walks the restart step by step over the files it reads.

mod read;
mod view;

use crate::shell::ModeTabs;
use batchscope_engine::checkpoint::{inspect, InspectOptions, Inspection, SparkVersion};
use batchscope_engine::microbatch::scenario::SinkKind;
use batchscope_view::upload::Upload;
use batchscope_view::url::Dashboard;
use std::rc::Rc;
use view::{Loaded, Report};
use web_sys::{DragEvent, HtmlInputElement};
use yew::prelude::*;

/// Spark releases whose restart rules the page can apply (the rules changed in 4.2).
const SPARKS: [&str; 3] = ["4.3", "4.1", "3.5"];
/// Sink kinds the dry-run knows ([`SinkKind::ALL`], by name), with the empty choice first.
fn sink_choices() -> Vec<&'static str> {
    std::iter::once("")
        .chain(SinkKind::ALL.iter().map(|k| k.name()))
        .collect()
}

/// A real folder to try the page with: pyspark 4.3.0, a running count, killed in batch 2
/// (the project's fixture, zipped; its README says where it comes from).
const SAMPLE_ZIP: &[u8] = include_bytes!(
    "../../../tests/fixtures/spark-checkpoints/zip/checkpoint-version-4.3.0-stateful-aggregation-killed-in-batch-2.zip"
);
/// The sample's name on screen.
const SAMPLE_NAME: &str = "sample: a pyspark 4.3.0 running count, killed in batch 2";

/// Whether the URL hash asks for the sample folder (`sample=1`).
fn hash_wants_sample() -> bool {
    let hash = gloo::utils::window().location().hash().unwrap_or_default();
    hash.trim_start_matches('#')
        .split('&')
        .any(|part| part == "sample=1")
}

/// What the page holds: the folder read, its name, and the inspection with the options.
#[derive(Clone, PartialEq)]
struct Page {
    name: String,
    upload: Rc<Upload>,
    spark: String,
    sink: String,
    inspection: Rc<Inspection>,
}

fn inspect_with(upload: &Upload, spark: &str, sink: &str) -> Inspection {
    let mut options = InspectOptions::default();
    options.restart.spark = SparkVersion::parse(spark).unwrap_or_default();
    options.sink_kind = SinkKind::parse(sink);
    inspect(&upload.folder, &options)
}

/// The Inspect page.
#[component]
pub fn InspectApp() -> Html {
    let page = use_state(|| None::<Page>);
    let error = use_state(|| None::<String>);
    let busy = use_state(|| false);
    let over = use_state(|| false);

    let load = {
        let (page, error, busy) = (page.clone(), error.clone(), busy.clone());
        Callback::from(move |(name, result): (String, Result<Upload, String>)| {
            busy.set(false);
            match result {
                Ok(upload) => {
                    let (spark, sink) = page
                        .as_ref()
                        .map(|p| (p.spark.clone(), p.sink.clone()))
                        .unwrap_or_else(|| (SPARKS[0].to_owned(), String::new()));
                    let inspection = Rc::new(inspect_with(&upload, &spark, &sink));
                    error.set(None);
                    page.set(Some(Page {
                        name,
                        upload: Rc::new(upload),
                        spark,
                        sink,
                        inspection,
                    }));
                }
                // The folder on screen stays: a bad drop loses nothing.
                Err(message) => error.set(Some(message)),
            }
        })
    };

    let on_sample = {
        let load = load.clone();
        Callback::from(move |_: MouseEvent| {
            load.emit((
                SAMPLE_NAME.to_owned(),
                batchscope_view::upload::from_zip(SAMPLE_ZIP),
            ))
        })
    };
    {
        let on_sample = on_sample.clone();
        use_effect_with((), move |_| {
            if hash_wants_sample() {
                on_sample.emit(MouseEvent::new("click").unwrap());
            }
        });
    }
    let ondrop = {
        let (load, busy, over) = (load.clone(), busy.clone(), over.clone());
        Callback::from(move |event: DragEvent| {
            event.prevent_default();
            over.set(false);
            let Some(data) = event.data_transfer() else {
                return;
            };
            let name = data
                .files()
                .and_then(|files| files.get(0))
                .map(|file| file.name())
                .unwrap_or_else(|| "the dropped folder".to_owned());
            busy.set(true);
            let load = load.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let result = read::read_drop(&data).await;
                load.emit((name, result));
            });
        })
    };
    let ondragover = {
        let over = over.clone();
        Callback::from(move |event: DragEvent| {
            event.prevent_default();
            if !*over {
                over.set(true);
            }
        })
    };
    let ondragleave = {
        let over = over.clone();
        Callback::from(move |_: DragEvent| over.set(false))
    };
    let on_zip = {
        let (load, busy) = (load.clone(), busy.clone());
        Callback::from(move |event: Event| {
            let input: HtmlInputElement = event.target_unchecked_into();
            let Some(file) = input.files().and_then(|files| files.get(0)) else {
                return;
            };
            input.set_value("");
            busy.set(true);
            let load = load.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let result = read::read_zip(&file).await;
                load.emit((file.name(), result));
            });
        })
    };
    let on_folder = {
        let (load, busy) = (load.clone(), busy.clone());
        Callback::from(move |event: Event| {
            let input: HtmlInputElement = event.target_unchecked_into();
            let Some(list) = input.files() else {
                return;
            };
            let files = read::chosen_files(&list);
            input.set_value("");
            let name = files
                .first()
                .and_then(|(path, _)| path.split('/').next().map(str::to_owned))
                .unwrap_or_else(|| "the chosen folder".to_owned());
            busy.set(true);
            let load = load.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let result = read::read_folder(files).await;
                load.emit((name, result));
            });
        })
    };
    let set_option = |which: &'static str| {
        let page = page.clone();
        Callback::from(move |event: Event| {
            let value = event.target_unchecked_into::<HtmlInputElement>().value();
            if let Some(p) = page.as_ref() {
                let mut next = p.clone();
                match which {
                    "spark" => next.spark = value,
                    _ => next.sink = value,
                }
                next.inspection = Rc::new(inspect_with(&next.upload, &next.spark, &next.sink));
                page.set(Some(next));
            }
        })
    };
    let options = |which: &'static str, values: &[&'static str], current: &str| {
        html! {
            { for values.iter().map(|v| {
                let label = match (which, *v) { ("sink", "") => "sink: not given".to_owned(), ("sink", v) => format!("sink: {v}"), (_, v) => format!("Spark {v}") };
                html! { <option value={*v} selected={*v == current}>{ label }</option> }
            }) }
        }
    };
    let (spark, sink) = page
        .as_ref()
        .map(|p| (p.spark.clone(), p.sink.clone()))
        .unwrap_or_else(|| (SPARKS[0].to_owned(), String::new()));

    html! {
        <div class={classes!("app", "inspect-app", over.then_some("drag-over"))}
             {ondrop} {ondragover} {ondragleave} data-testid="drop-zone">
            <header class="topbar">
                <h1 class="brand" title="Deterministic simulator of streaming fault tolerance">
                    <span class="logo" aria-hidden="true">{ "◧" }</span>{ "batchscope" }
                </h1>
                <ModeTabs mode={Dashboard::Inspect} />
                <div class="inspect-pickers">
                    <label class="button-like" title="Read a .zip of a Spark checkpoint folder">
                        { "Open .zip…" }
                        <input type="file" accept=".zip,application/zip" class="visually-hidden"
                               data-testid="open-zip" onchange={on_zip} />
                    </label>
                    <label class="button-like" title="Read a Spark checkpoint folder">
                        { "Open folder…" }
                        <input type="file" webkitdirectory=true multiple=true class="visually-hidden"
                               data-testid="open-folder" onchange={on_folder} />
                    </label>
                    <select aria-label="Spark release that restarts the query" data-testid="inspect-spark"
                            disabled={page.is_none()} onchange={set_option("spark")}>
                        { options("spark", &SPARKS, &spark) }
                    </select>
                    <select aria-label="The query's sink" data-testid="inspect-sink"
                            disabled={page.is_none()} onchange={set_option("sink")}>
                        { options("sink", &sink_choices(), &sink) }
                    </select>
                </div>
            </header>
            if let Some(message) = (*error).clone() {
                <div class="notice notice-error" role="alert" data-testid="inspect-error">
                    { message }
                    if page.is_some() { { " The folder on screen is unchanged." } }
                </div>
            }
            if *busy { <div class="notice" role="status">{ "Reading…" }</div> }
            { match page.as_ref() {
                None => html! { <Welcome {on_sample} /> },
                Some(p) => html! {
                    <Report loaded={Loaded { name: p.name.clone(), upload: p.upload.clone(), inspection: p.inspection.clone() }} />
                },
            } }
        </div>
    }
}

/// Props of [`Welcome`].
#[derive(Properties, PartialEq)]
struct WelcomeProps {
    /// Opens the sample folder.
    on_sample: Callback<MouseEvent>,
}

/// What the page shows before a folder is read.
#[component]
fn Welcome(props: &WelcomeProps) -> Html {
    html! {
        <main class="inspect-welcome">
            <section class="card drop-card">
                <h2>{ "Drop a Spark checkpoint folder here" }</h2>
                <p>{ "…or a .zip of one, or pick it with “Open folder…”. It is read in this browser: nothing is uploaded." }</p>
                <p class="muted">{ "You will see its batches (offsets and commits per batch, state versions), what a restart does and why — \
                    the rules of Spark's MicroBatchExecution.populateStartOffsets for the release you choose — what Spark would fail on, \
                    and each file's bytes. The same report as " }<code>{ "batchscope inspect DIR" }</code>{ "." }</p>
                <button class="primary" data-testid="inspect-sample" onclick={props.on_sample.clone()}>
                    { "No folder at hand? Open a real one: a pyspark 4.3.0 query killed in batch 2" }
                </button>
            </section>
        </main>
    }
}
