//! The tab strip of the side panel; a dot marks the tab whose contents the step just changed.

use crate::microbatch::state::Action;
use batchscope_engine::microbatch::scenario::SourceKind;
use batchscope_view::microbatch::tab::Tab;
use yew::prelude::*;

/// Props of [`SideTabs`].
#[derive(Properties, PartialEq)]
pub struct SideTabsProps {
    /// The open tab.
    pub tab: Tab,
    /// A count shown on each tab, in `Tab::ALL` order.
    pub counts: Vec<String>,
    /// The tab the step on screen changed.
    pub changed: Option<Tab>,
    /// Every intent.
    pub on_action: Callback<Action>,
    /// The scenario's source: the Meta table tab only for a source that has one
    /// (`SourceKind::uses_meta_table`).
    pub source: SourceKind,
}

/// Tabs: Channels, Meta table (where the source has one), Checkpoint, Sink, Spark UI; they wrap
/// to a second row where the panel is narrower than all of them.
#[component]
pub fn SideTabs(props: &SideTabsProps) -> Html {
    let meta = props.source.uses_meta_table();
    let shown = Tab::ALL
        .iter()
        .enumerate()
        .filter(|(_, t)| meta || **t != Tab::Meta);
    html! {
        <div class="tabs" role="tablist">
            { for shown.map(|(i, t)| {
                let cb = props.on_action.clone();
                let t = *t;
                let selected = t == props.tab;
                html! {
                    <button role="tab" aria-selected={selected.to_string()}
                            id={format!("tab-{}", t.name())} data-testid={format!("tab-{}", t.name())}
                            class={classes!("tab", selected.then_some("tab-on"))}
                            onclick={Callback::from(move |_| cb.emit(Action::SetTab(t)))}>
                        { t.title() }
                        <span class="tab-count">{ props.counts.get(i).cloned().unwrap_or_default() }</span>
                        if props.changed == Some(t) { <span class="tab-dot" title="changed by this step"></span> }
                    </button>
                }
            }) }
        </div>
    }
}
