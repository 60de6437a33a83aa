//! The Meta table: rows (UUID, channel) → channelOffset, start and end UUID highlighted,
//! rows written by the step on screen marked.

use batchscope_view::microbatch::focus::meta_key;
use batchscope_view::microbatch::panels::{MetaRowView, RowRole};
use yew::prelude::*;

/// Props of [`MetaPanel`].
#[derive(Properties, PartialEq)]
pub struct MetaPanelProps {
    /// The rows, grouped by UUID.
    pub rows: Vec<MetaRowView>,
    /// Whether the source uses a Meta table at all.
    pub used: bool,
    /// The key of the row the step points at (see `batchscope_view::microbatch::focus`).
    #[prop_or_default]
    pub focus: Option<String>,
}

/// The Meta table tab.
#[component]
pub fn MetaPanel(props: &MetaPanelProps) -> Html {
    if !props.used {
        return html! {
            <div role="tabpanel" tabindex="0" aria-labelledby="tab-meta" class="panel empty" data-testid="panel-meta">
                { "This source keeps no Meta table: the offsets in offsets/N are real positions." }
            </div>
        };
    }
    html! {
        <div role="tabpanel" tabindex="0" aria-labelledby="tab-meta" class="panel" data-testid="panel-meta">
            <div class="panel-sub legend">
                <span class="key key-start">{ "start UUID" }</span>
                <span class="key key-end">{ "end UUID" }</span>
                <span class="key key-new">{ "written by this step" }</span>
                <span class="muted">{ "table __spark_meta_checkpoint__, tunnel tunnel-cdc" }</span>
            </div>
            if props.rows.is_empty() {
                <p class="muted">{ "No rows yet: the source writes UUID₀'s rows on first use." }</p>
            } else {
                <table class="grid">
                    <thead><tr>
                        <th>{ "uuid" }</th><th>{ "channel" }</th><th>{ "channelOffset" }</th><th>{ "named by" }</th>
                    </tr></thead>
                    <tbody>
                        { for props.rows.iter().map(|r| {
                            let role = match r.role {
                                RowRole::Start => Some("row-start"),
                                RowRole::End => Some("row-end"),
                                RowRole::Other => None,
                            };
                            let focus = props.focus.as_deref() == Some(meta_key(r).as_str());
                            html! {
                                <tr class={classes!(role, r.written_now.then_some("row-new"))}
                                    data-testid="meta-row" title={r.uuid.clone()} data-focus={focus.then_some("true")}>
                                    <td class="mono">{ &r.uuid_short }</td>
                                    <td class="mono">{ &r.channel }</td>
                                    <td class="mono small">{ &r.channel_offset }</td>
                                    <td class="mono small">
                                        { &r.named_by }
                                        if r.written_now { <span class="pill pill-new">{ "new" }</span> }
                                    </td>
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
            }
        </div>
    }
}
