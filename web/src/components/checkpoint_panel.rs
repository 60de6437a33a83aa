//! The checkpoint folder as a tree; click a file to read its exact contents.

use crate::state::Action;
use batchscope_view::panels::CheckpointFile;
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
}

/// The Checkpoint folder tab.
#[component]
pub fn CheckpointPanel(props: &CheckpointPanelProps) -> Html {
    if props.files.is_empty() {
        return html! {
            <div class="panel empty" data-testid="panel-checkpoint">{ "The folder is empty until the query starts." }</div>
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
    html! {
        <div class="panel ckpt" data-testid="panel-checkpoint">
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
                                    <li>
                                        <button class={classes!("tree-file", on.then_some("tree-on"), f.new.then_some("tree-new"))}
                                                data-testid={format!("ckpt-file-{}", f.path)}
                                                onclick={Callback::from(move |_| cb.emit(Action::SelectFile(Some(path.clone()))))}>
                                            { &f.name }
                                            if f.new { <span class="pill pill-new">{ "new" }</span> }
                                        </button>
                                    </li>
                                }
                            }) }
                        </ul>
                    </li>
                }) }
            </ul>
            if let Some(f) = shown {
                <div class="file-view">
                    <div class="file-head"><code>{ &f.path }</code><span class="muted">{ format!("{} bytes", f.bytes) }</span></div>
                    <pre class="file-text" data-testid="file-text">{ &f.text }</pre>
                    if f.path.starts_with("sources/") {
                        <p class="muted small">{ "\\0 is the single 0x00 byte Spark writes first (SPARK-19517 compatibility)." }</p>
                    }
                </div>
            }
        </div>
    }
}
