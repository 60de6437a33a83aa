//! The checkpoint folder as a tree; click a file to read its exact contents. An `offsets/N`
//! shows its source offsets first and folds the batch metadata line (Spark's conf); a batch
//! logged in `offsets/N` without its `commits/N` shows the missing commit in the tree.

use crate::microbatch::state::Action;
use batchscope_view::microbatch::focus::{missing_commit, missing_commit_key};
use batchscope_view::microbatch::panels::CheckpointFile;
use yew::prelude::*;

/// Props of [`CheckpointPanel`].
#[derive(Properties, PartialEq)]
pub struct CheckpointPanelProps {
    /// The files, in folder order.
    pub files: Vec<CheckpointFile>,
    /// The file shown (else the newest one).
    pub selected: Option<String>,
    /// Every intent.
    pub on_action: Callback<Action>,
    /// The key of the file (or missing commit) the step points at (`batchscope_view::microbatch::focus`).
    #[prop_or_default]
    pub focus: Option<String>,
    /// Whether the query stopped after the newest `offsets/N` was logged
    /// (`batchscope_view::microbatch::focus::stopped_after_offsets`): only then is the missing
    /// `commits/N` drawn as an alarm; before, it is a batch in flight ("not yet").
    #[prop_or_default]
    pub stopped: bool,
}

/// A file's text; an `offsets/N` (`v1`, the batch metadata JSON, one line per source) shows
/// its version and source offsets first and folds the metadata line, which is mostly conf.
fn file_body(f: &CheckpointFile) -> Html {
    let lines: Vec<&str> = f.text.lines().collect();
    if !f.path.starts_with("offsets/") || lines.len() < 3 {
        return html! { <pre class="file-text" data-testid="file-text">{ &f.text }</pre> };
    }
    let sources = lines[2..].join("\n");
    html! {
        <div class="file-text offsets-file" data-testid="file-text">
            <pre class="offsets-version">{ lines[0] }</pre>
            <pre class="offsets-sources" title="Lines 3 and on: one offset per source, in the order of the query's sources">{ sources }</pre>
            <details class="offsets-meta">
                <summary>{ format!("line 2: batch metadata and Spark conf ({} bytes) — folded", lines[1].len()) }</summary>
                <pre>{ lines[1] }</pre>
            </details>
        </div>
    }
}

/// The Checkpoint folder tab.
#[component]
pub fn CheckpointPanel(props: &CheckpointPanelProps) -> Html {
    if props.files.is_empty() {
        return html! {
            <div role="tabpanel" tabindex="0" aria-labelledby="tab-checkpoint" class="panel empty" data-testid="panel-checkpoint">{ "The folder is empty until the query starts." }</div>
        };
    }
    let shown = props
        .selected
        .as_ref()
        .and_then(|p| props.files.iter().find(|f| &f.path == p))
        .or_else(|| props.files.iter().find(|f| f.new))
        .or_else(|| props.files.first());
    let mut dirs: Vec<&str> = vec![];
    for f in &props.files {
        if !dirs.contains(&f.dir.as_str()) {
            dirs.push(&f.dir);
        }
    }
    let missing = missing_commit(&props.files);
    if missing.is_some() && !dirs.contains(&"commits") {
        let at = dirs
            .iter()
            .position(|d| *d == "offsets")
            .map_or(dirs.len(), |i| i + 1);
        dirs.insert(at, "commits");
    }
    let is_focus = |key: &str| (props.focus.as_deref() == Some(key)).then_some("true");
    html! {
        <div role="tabpanel" tabindex="0" aria-labelledby="tab-checkpoint" class="panel ckpt" data-testid="panel-checkpoint">
            <ul class="tree">
                <li class="tree-root">{ "checkpoint/" }</li>
                { for dirs.iter().map(|dir| html! {
                    <li>
                        if !dir.is_empty() { <span class="tree-dir">{ format!("{dir}/") }</span> }
                        <ul>
                            { for props.files.iter().filter(|f| f.dir == *dir).map(|f| {
                                let cb = props.on_action.clone();
                                let path = f.path.clone();
                                let on = shown.is_some_and(|s| s.path == f.path);
                                html! {
                                    <li data-focus={is_focus(&f.path)}>
                                        <button class={classes!("tree-file", on.then_some("tree-on"), f.new.then_some("tree-new"))}
                                                data-testid={format!("ckpt-file-{}", f.path)}
                                                onclick={Callback::from(move |_| cb.emit(Action::SelectFile(Some(path.clone()))))}>
                                            { &f.name }
                                            if f.new { <span class="pill pill-new">{ "new" }</span> }
                                        </button>
                                    </li>
                                }
                            }) }
                            if let Some(n) = missing.filter(|_| *dir == "commits") {
                                <li data-focus={is_focus(&missing_commit_key(n))} data-testid="missing-commit">
                                    if props.stopped {
                                        <span class="tree-missing"
                                              title={format!("offsets/{n} is logged but commits/{n} is not: a restart re-runs batch {n} with the offsets logged (MicroBatchExecution)")}>
                                            <span class="missing-id">{ n }</span><span class="pill pill-missing">{ "not written" }</span>
                                        </span>
                                    } else {
                                        <span class="tree-pending" title={format!("Batch {n} is in flight: Spark writes commits/{n} once its sink has finished")}>
                                            { n }<span class="pill">{ "not yet" }</span>
                                        </span>
                                    }
                                </li>
                            }
                        </ul>
                    </li>
                }) }
            </ul>
            if let Some(f) = shown {
                <div class="file-view">
                    <div class="file-head"><code>{ &f.path }</code><span class="muted">{ format!("{} bytes", f.bytes) }</span></div>
                    { file_body(f) }
                    if f.path.starts_with("sources/") {
                        <p class="muted small">{ "\\0 is the single 0x00 byte Spark writes first (SPARK-19517 compatibility)." }</p>
                    }
                </div>
            }
        </div>
    }
}
