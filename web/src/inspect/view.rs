//! The report of the Inspect page: the folder's batches, the restart and its steps, the
//! linter's findings, and its files with their bytes.

use batchscope_engine::checkpoint::{Inspection, Severity};
use batchscope_view::upload::{file_preview, Upload};
use std::rc::Rc;
use yew::prelude::*;

/// Bytes of a file shown at most in the file view.
const PREVIEW_BYTES: usize = 16 * 1024;

/// A folder read and inspected.
#[derive(Clone, PartialEq)]
pub struct Loaded {
    /// What the user handed over (the `.zip`'s or the folder's name).
    pub name: String,
    /// The folder.
    pub upload: Rc<Upload>,
    /// What the engine says about it.
    pub inspection: Rc<Inspection>,
}

/// Props of [`Report`].
#[derive(Properties, PartialEq)]
pub struct ReportProps {
    /// The folder and its inspection.
    pub loaded: Loaded,
}

/// Whether `text` speaks of the file at `path` (as `offsets/2`, not as part of
/// `offsets/20`).
fn mentions(text: &str, path: &str) -> bool {
    text.match_indices(path).any(|(at, _)| {
        let next = text[at + path.len()..].chars().next();
        !next.is_some_and(|c| c.is_ascii_alphanumeric())
    })
}

/// The inspection of one folder.
#[component]
pub fn Report(props: &ReportProps) -> Html {
    let Loaded {
        name,
        upload,
        inspection: i,
    } = &props.loaded;
    let open = use_state(|| None::<String>);
    // The restart step on screen while simulating; `None` = not simulating.
    let step = use_state(|| None::<usize>);
    {
        let (open, step) = (open.clone(), step.clone());
        use_effect_with(props.loaded.inspection.clone(), move |_| {
            open.set(None);
            step.set(None);
        });
    }
    let steps = &i.restart.steps;
    let hot_text = step.and_then(|s| steps.get(s)).cloned().unwrap_or_default();
    let hot = |path: &str| !hot_text.is_empty() && mentions(&hot_text, path);

    let has_state = i.state.is_some();
    let batches = i.batches.iter().map(|b| {
        let offsets = format!("offsets/{}", b.batch_id);
        let commits = format!("commits/{}", b.batch_id);
        let row_hot = hot(&offsets) || hot(&commits) || (step.is_some() && i.restart.batch == Some(b.batch_id));
        let shown: Vec<String> = b.offsets.iter().map(|o| format!("{}={}", o.id, o.offset.as_deref().unwrap_or("-"))).collect();
        html! {
            <tr class={classes!(row_hot.then_some("hot"))} data-batch={b.batch_id.to_string()}>
                <td class="num">{ b.batch_id }</td>
                <td><code>{ if b.has_offsets { shown.join(", ") } else { "(purged)".to_owned() } }</code></td>
                <td>{ if b.committed { "committed" } else { "no commits/N" } }</td>
                <td class="num">{ b.batch_watermark_ms.map(|w| w.to_string()).unwrap_or_default() }</td>
                if has_state { <td class="num">{ b.batch_id + 1 }</td> }
            </tr>
        }
    });
    let decision = match (i.restart.action.as_str(), i.restart.batch) {
        ("fresh", _) => "Starts as a new query from batch 0".to_owned(),
        ("rerun", Some(b)) => format!("Re-runs batch {b} with its logged offsets"),
        ("next", Some(b)) => format!("Moves on: batch {b} is planned from the sources"),
        ("fail", _) => "Spark refuses to start".to_owned(),
        (other, b) => format!("{other} {}", b.map(|b| b.to_string()).unwrap_or_default()),
    };
    let sim = {
        let step = step.clone();
        let n = steps.len();
        Callback::from(move |_: MouseEvent| {
            step.set(match *step {
                None if n > 0 => Some(0),
                Some(s) if s + 1 < n => Some(s + 1),
                _ => None,
            })
        })
    };
    let sim_label = match *step {
        None => "▶ Simulate the restart".to_owned(),
        Some(s) if s + 1 < steps.len() => format!("Next step ({}/{})", s + 2, steps.len()),
        Some(_) => "Done — start over".to_owned(),
    };
    let files = upload.folder.files().map(|(path, bytes)| {
        let path = path.to_owned();
        let is_open = open.as_deref() == Some(path.as_str());
        let onclick = {
            let (open, path) = (open.clone(), path.clone());
            Callback::from(move |_: MouseEvent| open.set((open.as_deref() != Some(path.as_str())).then(|| path.clone())))
        };
        html! {
            <li class={classes!(hot(&path).then_some("hot"), is_open.then_some("open"))}>
                <button class="file-link" {onclick} aria-expanded={is_open.to_string()}>
                    <code>{ path.clone() }</code><span class="muted">{ format!(" {} B", bytes.len()) }</span>
                </button>
            </li>
        }
    });
    let viewer = open.as_ref().and_then(|path| {
        let bytes = upload.folder.read(path)?;
        let text = if bytes.is_empty() && path.starts_with("state/") {
            "(state files are binary; only their names are read)".to_owned()
        } else {
            file_preview(bytes, PREVIEW_BYTES)
        };
        Some(html! {
            <section class="card file-view" data-testid="file-view" aria-label={format!("File {path}")}>
                <h3><code>{ path.clone() }</code></h3>
                <pre>{ text }</pre>
            </section>
        })
    });
    let problems = i.problems.iter().map(|p| {
        let class = match p.severity { Severity::Error => "sev-error", Severity::Warning => "sev-warning" };
        html! {
            <li class={class}>
                <strong>{ format!("{:?}", p.severity).to_ascii_lowercase() }</strong>{ " " }<code>{ p.code.clone() }</code>
                { p.path.as_ref().map(|path| html! { <>{ " in " }<code>{ path.clone() }</code></> }).unwrap_or_default() }
                <p>{ p.message.clone() }</p>
                { p.spark_says.as_ref().map(|s| html! { <p class="muted">{ "Spark says: " }<code>{ s.clone() }</code></p> }).unwrap_or_default() }
            </li>
        }
    });
    let sources = i.sources.iter().map(|s| {
        html! { <li><code>{ format!("source {}", s.id) }</code>{ format!(" — {}; latest offset {}", s.kind, s.latest_offset.as_deref().unwrap_or("none")) }</li> }
    });
    let state = i.state.as_ref().map(|st| {
        let ops: Vec<String> = st
            .operators
            .iter()
            .map(|o| {
                format!(
                    "operator {}: latest version {}",
                    o.operator_id,
                    o.latest_version
                        .map(|v| v.to_string())
                        .unwrap_or_else(|| "none".into())
                )
            })
            .collect();
        html! { <p data-testid="inspect-state">{ format!("State: {}.", ops.join("; ")) }</p> }
    });

    html! {
        <main class="inspect-main">
            <div class="inspect-col">
                <section class="card" aria-label="The folder">
                    <h2 data-testid="inspect-name">{ name.clone() }</h2>
                    <p class="muted">{ format!(
                        "Query {} · restart rules of Spark {} · offset log v{} · commit log v{}{}",
                        i.query_id.as_deref().unwrap_or("(no metadata file)"), i.spark,
                        i.format.offset_log.map(|v| v.to_string()).unwrap_or_else(|| "-".into()),
                        i.format.commit_log.map(|v| v.to_string()).unwrap_or_else(|| "-".into()),
                        if upload.root.is_empty() { String::new() } else { format!(" · found at {}/", upload.root) }) }</p>
                    <ul class="plain">{ for sources }</ul>
                    { state.unwrap_or_default() }
                </section>
                <section class={classes!("card", "restart", (i.restart.action == "fail").then_some("restart-fail"))}
                         data-testid="restart-decision" aria-live="polite">
                    <h2>{ decision }</h2>
                    <p>{ i.restart.reason.clone() }</p>
                    <p class="muted">{ "Rule: " }<code>{ i.restart.rule.to_string() }</code>{ " — " }{ i.restart.rule_source.clone() }</p>
                    { i.restart.spark_error.as_ref().map(|e| html! { <p class="sev-error">{ "Spark's error: " }<code>{ e.clone() }</code></p> }).unwrap_or_default() }
                    { i.restart.sink.as_ref().map(|s| html! { <p>{ s.effect.clone() }</p> }).unwrap_or_default() }
                    <ol class="restart-steps">
                        { for steps.iter().enumerate().map(|(n, s)| html! {
                            <li class={classes!((*step == Some(n)).then_some("hot"), step.is_some_and(|c| n > c).then_some("later"))}>{ s.clone() }</li>
                        }) }
                    </ol>
                    <button class="primary" data-testid="simulate-restart" onclick={sim} disabled={steps.is_empty()}>{ sim_label }</button>
                </section>
                <section class="card" aria-label="Batches">
                    <h2>{ format!("Batches ({})", i.batches.len()) }</h2>
                    <table class="grid inspect-batches" data-testid="inspect-batches">
                        <thead><tr><th>{ "batch" }</th><th>{ "offsets/N (per source)" }</th><th>{ "commits/N" }</th><th>{ "watermark" }</th>
                            if has_state { <th title="A stateful batch N writes state version N + 1 (Spark's StateStore versions)">{ "state version" }</th> }</tr></thead>
                        <tbody>{ for batches }</tbody>
                    </table>
                </section>
                <section class="card" data-testid="problems" aria-label="What Spark would fail on">
                    <h2>{ if i.problems.is_empty() { "No problems found".to_owned() } else { format!("Problems ({})", i.problems.len()) } }</h2>
                    <ul class="problems">{ for problems }</ul>
                    { for i.notes.iter().chain(upload.notes.iter()).map(|n| html! { <p class="muted">{ n.clone() }</p> }) }
                </section>
            </div>
            <div class="inspect-col">
                <section class="card" aria-label="Files">
                    <h2>{ format!("Files ({})", upload.folder.files().count()) }</h2>
                    <ul class="inspect-files" data-testid="inspect-files">{ for files }</ul>
                </section>
                { viewer.unwrap_or_default() }
            </div>
        </main>
    }
}
