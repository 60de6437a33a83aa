//! The Topology mode's page: header (mode tabs, controls), the DAG with its barrier table and
//! delay chart on the left, lesson, query panel and faults on the right, a scrubber below.
//! Every view is a pure function of the world at the cursor.

use super::state::{TopoAction, TopoPlayer};
use super::{
    BarrierTable, CheckpointPanel, DelayChart, QueryPanel, TopoControls, TopoFaults, TopologyGraph,
};
use crate::hooks::{use_keyboard, use_play_timer, use_player, use_theme, use_url_sync, Shortcut};
use crate::shell::{LessonCard, ModeTabs, Notices, PlayerCmd, Shared};
use batchscope_engine::barrier::{self, BarrierEventKind};
use batchscope_view::topology::{
    fault_text_in, parse_topology, simplifications, step_text, topology_lesson,
};
use batchscope_view::url::Dashboard;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Props of [`TopologyApp`].
#[derive(Properties, PartialEq, Default)]
pub struct TopologyAppProps {
    /// The URL hash to start from (`None`: read `location.hash`).
    #[prop_or_default]
    pub hash: Option<String>,
}

/// The Topology dashboard.
#[component]
pub fn TopologyApp(props: &TopologyAppProps) -> Html {
    let (player, on_action) = use_player(props.hash.clone(), TopoPlayer::from_hash);
    // The micro-batch mode's own keys (next batch, crash now) mean nothing here.
    {
        let cb = on_action.clone();
        use_keyboard(Callback::from(move |key| match key {
            Shortcut::Player(cmd) => cb.emit(TopoAction::Player(cmd)),
            Shortcut::NextBatch | Shortcut::CrashNow => {}
        }));
    }
    use_play_timer(
        player.playing,
        player.step_ms().round() as u32,
        on_action.reform(|_| PlayerCmd::Tick.into()),
    );
    use_url_sync(&player, on_action.clone());
    use_theme(player.theme);
    let dark = player.theme.is_dark();

    let url = &player.mode.url;
    let world = Shared(player.world.clone());
    let history = Shared(player.mode.history.clone());
    let cursor = player.cursor;
    let spec = world.spec();
    let lesson = topology_lesson(&url.topology);
    let tour_data = batchscope_view::topology::topology_tour(&url.topology);
    let tour_view = player.tour_view(
        parse_topology(tour_data.hash)
            .ok()
            .and_then(|u| u.faults.first().cloned())
            .map(|f| match f {
                barrier::Fault::FailBeforeWritten { job, barrier } => {
                    format!("fails {job} at barrier {barrier}")
                }
                other => format!("sets up {other:?}"),
            }),
        tour_data.stops.iter().map(|s| (s.title, s.text)).collect(),
    );
    let (step_head, note, alarm) = match world.trace().last() {
        Some(e) => (
            format!("#{} · {} ms", e.step, e.at_ms),
            step_text(&e.kind, spec.no_barriers),
            matches!(
                e.kind,
                BarrierEventKind::JobFailed { .. }
                    | BarrierEventKind::Revised { .. }
                    | BarrierEventKind::TransactionAborted { .. }
                    | BarrierEventKind::ExpiredSnapshotRead { .. }
                    | BarrierEventKind::CommitRenotified { threw: true, .. }
            ),
        ),
        None => (
            "before the first step".to_string(),
            format!(
                "{} Press play (space) or step (→): CDC records arrive, the MetaService issues a barrier every {} ms, and each job carries it from table to table.",
                spec.description, spec.barrier_interval_ms
            ),
            false,
        ),
    };
    let topologies: Vec<(String, String)> = barrier::presets()
        .into_iter()
        .map(|(n, d)| (n.to_string(), d.to_string()))
        .collect();
    let on_scrub = {
        let cb = on_action.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(v) = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
                .and_then(|i| i.value().parse::<usize>().ok())
            {
                cb.emit(PlayerCmd::Seek(v).into());
            }
        })
    };
    let total = player.len();
    let marks = scrub_marks(player.mode.last().trace(), total);
    let stops = tour_view.marks().into_iter().map(|(c, title)| {
            let left = c as f64 / total.max(1) as f64 * 100.0;
            html! {
                <span class={classes!("tl-stop", "scrub-stop", (c <= cursor).then_some("tl-stop-reached"))}
                    style={format!("left:{left:.2}%")} title={format!("Tour stop: {title}")}></span>
            }
        });
    html! {
        <div class="app topo-app" data-testid="topology-app">
            <header class="topbar">
                <h1 class="brand" title="Deterministic simulator of streaming fault tolerance">
                    <span class="logo" aria-hidden="true">{ "◧" }</span>{ "batchscope" }
                </h1>
                <ModeTabs mode={Dashboard::Topology} />
                <TopoControls topology={url.topology.clone()} topologies={topologies}
                    seed={url.seed} cursor={cursor} total={total} playing={player.playing}
                    speed={player.speed} no_barriers={url.no_barriers} theme={player.theme}
                    per_checkpoint={url.per_checkpoint} barriers={world.run().barriers}
                    on_action={on_action.clone()} />
            </header>
            <Notices notices={player.notices.clone()} on_dismiss={on_action.reform(|id| PlayerCmd::Dismiss(id).into())} />
            <main class="topo-main">
                <section class="topo-left" tabindex="0" aria-label="Topology, barriers and queries">
                    <div class="card topo-graph-card">
                        <TopologyGraph world={world.clone()} />
                    </div>
                    <div class="topo-lower">
                        <BarrierTable world={world.clone()} />
                        <DelayChart world={world.clone()} dark={dark} />
                    </div>
                    <CheckpointPanel world={world.clone()} dark={dark} />
                </section>
                <aside class="side topo-side">
                    <LessonCard class="topo-lesson" tour={tour_view} on_cmd={on_action.reform(TopoAction::from)}
                        step_head={step_head} note={note} alarm={alarm} note_testid="topo-step-note"
                        title={lesson.title} title_testid="topo-lesson-title" question={lesson.question}
                        paragraphs={lesson.paragraphs.clone()} current={url.topology.clone()}>
                        <p class="try">{ "Try: " }<a href={lesson.try_hash} data-testid="topo-try">{ lesson.try_text }</a></p>
                        <details class="simplified">
                            <summary>{ "Where the model simplifies FLIP-276" }</summary>
                            <ul>{ for simplifications().into_iter().map(|s| html! { <li>{ s }</li> }) }</ul>
                        </details>
                    </LessonCard>
                    <QueryPanel world={world.clone()} history={history} cursor={cursor}
                        level={url.level} consistency={url.consistency} on_action={on_action.clone()} />
                    <TopoFaults jobs={spec.jobs.iter().map(|j| j.name.clone()).collect::<Vec<_>>()}
                        tables={spec.tables.iter().map(|t| t.name.clone()).collect::<Vec<_>>()}
                        barriers={world.run().barriers} no_barriers={spec.no_barriers}
                        fault_texts={url.faults.iter().map(|f| fault_text_in(f, spec)).collect::<Vec<_>>()}
                        own_texts={barrier::preset(&url.topology).map(|t| t.faults.iter().map(|f| fault_text_in(f, spec)).collect::<Vec<_>>()).unwrap_or_default()}
                        faults={url.faults.clone()} on_action={on_action.clone()} />
                </aside>
            </main>
            <footer class="bottom topo-bottom">
                <div class="scrub">
                    <input type="range" class="scrub-range" data-testid="topo-scrub" aria-label="Step"
                           min="0" max={total.to_string()} value={cursor.to_string()} oninput={on_scrub} />
                    <div class="scrub-marks" aria-hidden="true">{ marks }{ for stops }</div>
                </div>
                <div class="shortcuts" aria-label="Keyboard shortcuts">
                    <span><kbd>{ "→" }</kbd>{ "step" }</span><span><kbd>{ "←" }</kbd>{ "back" }</span>
                    <span><kbd>{ "space" }</kbd>{ "play / pause" }</span><span><kbd>{ "r" }</kbd>{ "reset" }</span>
                    <span><kbd>{ "t" }</kbd>{ "tour: next stop" }</span>
                    <span class="muted">{ "● COMMIT   ✕ failure / revision" }</span>
                </div>
            </footer>
        </div>
    }
}

/// The timeline's marks: a dot at every COMMIT, a cross at every failure or revision.
fn scrub_marks(trace: &[barrier::BarrierEvent], total: usize) -> Html {
    let marks = trace.iter().filter_map(|e| {
        let (class, sym) = match e.kind {
            BarrierEventKind::Commit { .. } => ("mark-commit", "●"),
            BarrierEventKind::JobFailed { .. } | BarrierEventKind::Revised { .. } => {
                ("mark-fail", "✕")
            }
            _ => return None,
        };
        let left = (e.step + 1) as f64 / total.max(1) as f64 * 100.0;
        Some(html! { <span class={classes!("scrub-mark", class)} style={format!("left:{left:.2}%")}>{ sym }</span> })
    });
    html! { { for marks } }
}
