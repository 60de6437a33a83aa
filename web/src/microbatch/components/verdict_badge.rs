//! The verdict badge in the header: running tally, then the oracle's final verdict.

use batchscope_view::microbatch::panels::Badge;
use yew::prelude::*;

/// Props of [`VerdictBadge`].
#[derive(Properties, PartialEq)]
pub struct VerdictBadgeProps {
    /// What to show.
    pub badge: Badge,
}

/// The exactly-once verdict, coloured by outcome.
#[component]
pub fn VerdictBadge(props: &VerdictBadgeProps) -> Html {
    let b = &props.badge;
    html! {
        <div class={classes!("badge", format!("badge-{}", b.class))}
             id="verdict" data-testid="verdict" role="status" aria-live="polite" aria-atomic="true" data-verdict={b.class.clone()}
             title="The oracle compares the sink with every record the upstream produced: each should be there exactly once">
            <span class="badge-title">{ &b.title }</span>
            <span class="badge-detail">{ &b.detail }</span>
        </div>
    }
}
