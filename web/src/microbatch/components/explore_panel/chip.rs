//! What the Explore panel's lists share: a verdict chip, and how a listed run opens in the player.

use batchscope_check::explore::Fault;
use batchscope_check::oracle::Verdict;
use batchscope_engine::microbatch::scenario::CrashPoint;
use batchscope_view::microbatch::explore::{verdict_color, verdict_title};
use yew::prelude::*;

/// Opens an explored run in the player: its crashes, in firing order, and its non-crash fault.
pub type OpenRun = Callback<(Vec<CrashPoint>, Option<Fault>)>;

/// A coloured verdict chip: `● duplicates 6`.
pub fn verdict_chip(v: Verdict, count: Option<u64>) -> Html {
    html! {
        <span class={classes!("xp-chip", format!("xp-{}", v.name()))} data-verdict={v.name()}>
            <span class="xp-dot" style={format!("background:{}", verdict_color(v))}></span>
            { verdict_title(v) }
            if let Some(n) = count { <b>{ n }</b> }
        </span>
    }
}
