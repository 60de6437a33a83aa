//! Depth 2 in the Explore dialog: every bad run with two faults, worst verdict first (data loss,
//! loss with duplicates, stuck, duplicates), a filter by verdict, and a button per run that opens
//! it in the player with both faults armed.

use super::chip::{verdict_chip, OpenRun};
use batchscope_check::explore::Summary;
use batchscope_check::oracle::Verdict;
use batchscope_view::microbatch::explore::verdict_color;
use batchscope_view::microbatch::explore::{filter_title, pair_counts, pair_rows};
use std::rc::Rc;
use yew::prelude::*;

/// Rows shown at first, and added by "Show more".
const PAGE: usize = 50;

/// Props of [`PairList`].
#[derive(Properties, PartialEq)]
pub struct PairListProps {
    /// The exploration's results (depth 2).
    pub summary: Rc<Summary>,
    /// Opens a run in the player.
    pub on_open: OpenRun,
}

/// The list of bad runs with two faults.
#[component]
pub fn PairList(props: &PairListProps) -> Html {
    let filter = use_state(|| None::<Verdict>);
    let shown = use_state(|| PAGE);
    let s = &props.summary;
    let (counts, exactly_once) = pair_counts(s);
    let all: u64 = counts.iter().map(|(_, n)| n).sum();
    let rows = pair_rows(s, *filter);
    let choose = |v: Option<Verdict>| {
        let (filter, shown) = (filter.clone(), shown.clone());
        Callback::from(move |_: MouseEvent| {
            filter.set(v);
            shown.set(PAGE);
        })
    };
    let button = |v: Option<Verdict>, n: u64| {
        let name = v.map_or("all", |v| v.name());
        let dot = v.map(|v| html! { <span class="xp-dot" style={format!("background:{}", verdict_color(v))}></span> });
        html! {
            <button class="xp-filter-btn" aria-pressed={(*filter == v).to_string()}
                    data-testid={format!("pair-filter-{name}")} onclick={choose(v)}>
                { for dot }{ filter_title(v, n) }
            </button>
        }
    };
    let more = (rows.len() > *shown).then(|| {
        let shown = shown.clone();
        let left = rows.len() - *shown;
        html! {
            <button class="xp-small" data-testid="pairs-more" onclick={move |_| shown.set(*shown + PAGE)}>
                { format!("Show {} more of {left}", left.min(PAGE)) }
            </button>
        }
    });
    let eo = exactly_once.map_or(String::new(), |n| {
        format!(" The other {n} are exactly once and not listed.")
    });
    html! {
        <section class="xp-pairs" data-testid="explore-pairs" data-count={all.to_string()}>
            <h3 class="xp-h">{ format!("Two faults per run: {all} of {} runs go wrong", s.runs_by_depth.get(&2).copied().unwrap_or(0)) }</h3>
            <p class="muted small xp-note">
                { "A crash during the recovery from another crash, or a crash on top of an outage, split or failed task. Worst first: lost data cannot be repaired downstream, a stuck query needs an operator, duplicates an idempotent sink." }
                { eo }
            </p>
            if all > 0 {
                <div class="xp-filter" role="group" aria-label="Show runs with this verdict">
                    { button(None, all) }
                    { for counts.iter().map(|(v, n)| button(Some(*v), *n)) }
                </div>
                <table class="xp-pair-table" data-testid="pair-table">
                    <thead><tr>
                        <th scope="col">{ "verdict" }</th>
                        <th scope="col" title="→ crashes in the order they fire · + a crash during a run with that fault">{ "faults" }</th>
                        <th scope="col">{ "records" }</th>
                        <th scope="col"><span class="visually-hidden">{ "open in the player" }</span></th>
                    </tr></thead>
                    <tbody>
                        { for rows.iter().take(*shown).map(|r| {
                            let (crashes, fault) = (r.crashes.clone(), r.fault);
                            let onclick = props.on_open.reform(move |_: MouseEvent| (crashes.clone(), fault));
                            html! {
                                <tr data-testid="pair-row" data-verdict={r.verdict.name()}
                                    data-crashes={r.crash_list()} data-fault={r.fault.map(|f| f.to_string())} title={r.tooltip.clone()}>
                                    <td>{ verdict_chip(r.verdict, None) }</td>
                                    <td class="mono">{ &r.what }</td>
                                    <td class="mono">{ format!("{} dup, {} lost", r.duplicates, r.lost) }</td>
                                    <td>
                                        <button class="xp-small" data-testid="pair-open" onclick={onclick}
                                                aria-label={format!("Open {} in the player", r.tooltip)}>{ "▶ open" }</button>
                                    </td>
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
                { for more }
            }
        </section>
    }
}
