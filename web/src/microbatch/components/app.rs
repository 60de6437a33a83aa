//! The micro-batch dashboard: owns its player and the hooks, lays out header, diagram, lesson
//! and panels, and timeline. Every view is a pure function of the world at the cursor.

use super::chart_host::ChartRender;
use super::compare_view::{runs_link, CompareRender, CompareSlot};
use super::editor_host::{edited_link, EditorRender};
use super::explore_host::{ExploreRender, ExploreSlot};
use super::minimap_host::{use_minimap_run, MinimapRender, MinimapSlot};
use super::{
    ArmedCrash, BatchStrip, ChannelsPanel, CheckpointPanel, Controls, CrashControls, ExportMenu,
    LabButtons, MetaPanel, ProgressPanel, ScenarioEditorProps, SequenceDiagram, Shared, SideTabs,
    SinkPanel, VerdictBadge,
};
use crate::hooks::{
    use_keyboard, use_play_timer, use_player, use_stop_focus, use_theme, use_url_sync, Shortcut,
    SHORTCUTS,
};
use crate::microbatch::export_file::FileMaker;
use crate::microbatch::state::{Action, MicroPlayer};
use crate::shell::{LessonCard, ModeTabs, Notices, PlayerCmd};
use batchscope_engine::microbatch::event::EventKind;
use batchscope_engine::microbatch::scenario::{presets, Scenario, SourceKind};
use batchscope_engine::microbatch::source::uses_meta_table;
use batchscope_view::microbatch::lessons::lesson_head;
use batchscope_view::microbatch::panels::{self, batch_offsets, offset_text, SinkDetail};
use batchscope_view::microbatch::tab::Tab;
use batchscope_view::microbatch::{focus, strip};
use batchscope_view::url::Dashboard;
use yew::prelude::*;

/// Rows of the sequence diagram.
const WINDOW: usize = 17;

/// Which tab the event changes.
fn tab_changed(kind: &EventKind) -> Option<Tab> {
    match kind {
        EventKind::MetaRowWritten { .. } => Some(Tab::Meta),
        EventKind::SourceInitialized { meta_rows, .. } if !meta_rows.is_empty() => Some(Tab::Meta),
        EventKind::QueryStarted { created: true, .. }
        | EventKind::SourceInitialized { .. }
        | EventKind::OffsetLogWritten { .. }
        | EventKind::OffsetLogTorn { .. }
        | EventKind::CommitLogWritten { .. } => Some(Tab::Checkpoint),
        EventKind::TaskFinished { .. } | EventKind::SinkCommitted { .. } => Some(Tab::Sink),
        EventKind::SourceCommit { .. }
        | EventKind::ChannelState { .. }
        | EventKind::TaskRead { .. }
        | EventKind::GetOffset { .. } => Some(Tab::Channels),
        _ => None,
    }
}

/// Props of [`App`].
#[derive(Properties, PartialEq, Default)]
pub struct AppProps {
    /// The URL hash to start from (`None`: read `location.hash`).
    #[prop_or_default]
    pub hash: Option<String>,
    /// Draws the Explore dialog (the page: [`super::explore_host::lazy_explore`], drawn by the
    /// second module; tests: [`super::explore_host::inline_explore`]). None: no dialog.
    #[prop_or_default]
    pub explore: Option<ExploreRender>,
    /// Draws the Spark UI tab's charts (the page: [`super::chart_host::lazy_chart`], drawn by
    /// the second module; tests: [`super::chart_host::inline_chart`]). None: the tab without
    /// charts.
    #[prop_or_default]
    pub charts: Option<ChartRender>,
    /// Draws the scenario editor (the page: [`super::editor_host::lazy_editor`], drawn by the
    /// second module; tests: [`super::editor_host::inline_editor`]). None: no editor.
    #[prop_or_default]
    pub editor: Option<EditorRender>,
    /// Draws compare mode's two runs (the page: [`super::compare_view::lazy_compare`], drawn by
    /// the second module; tests: [`super::compare_view::inline_compare`]). None: compare mode
    /// shows the page's run alone.
    #[prop_or_default]
    pub compare: Option<CompareRender>,
    /// Draws the minimap above the sequence diagram (the page:
    /// [`super::minimap_host::lazy_minimap`], drawn by the second module; tests:
    /// [`super::minimap_host::inline_minimap`]). None: no minimap.
    #[prop_or_default]
    pub minimap: Option<MinimapRender>,
    /// Where the lesson paragraphs and tour stop texts come from (the page:
    /// [`super::lesson_text::texts_from_module`], the second module; tests:
    /// [`super::lesson_text::texts_in_place`]). None: titles only.
    #[prop_or_default]
    pub texts: Option<super::lesson_text::TextSource>,
    /// Makes the Export menu's files (the page: [`super::export::files_from_module`], made by
    /// the second module; tests: [`crate::microbatch::export_file::files_in_place`]). None: no Export menu.
    #[prop_or_default]
    pub files: Option<FileMaker>,
}

/// Whether the checkpoint folder's missing `commits/N` is one the query stopped at (a crash or a
/// failure after `offsets/N`), not a batch in flight.
fn stopped_after_missing_commit(
    files: Option<&[panels::CheckpointFile]>,
    world: &batchscope_engine::microbatch::World,
) -> bool {
    focus::missing_commit(files.unwrap_or_default())
        .is_some_and(|n| focus::stopped_after_offsets(world.events(), n))
}

/// The header's presets (name, description), one's own scenario first when the link has one.
fn preset_list(preset: &str, custom: bool, scenario: &Scenario) -> Vec<(String, String)> {
    let mut list: Vec<(String, String)> = presets()
        .into_iter()
        .map(|p| (p.name.to_string(), p.description.to_string()))
        .collect();
    if custom && !list.iter().any(|(n, _)| n == preset) {
        let what = format!("your scenario (from the link): {}", scenario.description);
        list.insert(0, (preset.to_string(), what));
    }
    list
}

/// The dashboard.
#[component]
pub fn App(props: &AppProps) -> Html {
    let (player, on_action) = use_player(props.hash.clone(), MicroPlayer::from_hash);
    use_keyboard(on_action.reform(|key| match key {
        Shortcut::Player(cmd) => Action::Player(cmd),
        Shortcut::NextBatch => Action::NextBatch,
        Shortcut::CrashNow => Action::CrashNow,
    }));
    use_play_timer(
        player.playing,
        player.step_ms().round() as u32,
        on_action.reform(|_| PlayerCmd::Tick.into()),
    );
    use_url_sync(&player, on_action.clone());
    use_theme(player.theme);

    let explore_open = use_state(|| false);
    let editor_open = use_state(|| false);
    // Callbacks made once, not at each render: a new `Callback` compares unequal and renders
    // the child again at every step (the editor re-parsed its scenario's JSON at each one).
    let close_explore = use_callback(explore_open.setter(), |(), open| open.set(false));
    let close_editor = use_callback(editor_open.setter(), |(), open| open.set(false));
    // A valid edit runs as a link of its own (compare mode's second run kept), shown at its
    // end: its verdict.
    let apply_edit = use_callback(
        (on_action.clone(), player.mode.versus.clone()),
        |s: Scenario, (on_action, vs)| {
            on_action.emit(Action::LoadUrl(edited_link(&s, vs.clone())));
            on_action.emit(Action::Player(PlayerCmd::Seek(usize::MAX)));
        },
    );
    let dismiss = use_callback(on_action.clone(), |id: u32, a| {
        a.emit(PlayerCmd::Dismiss(id).into())
    });
    let base_scenario = use_memo(player.mode.run.scenario.clone(), |s| s.clone());

    let run = Shared(player.mode.run.clone());
    let strip = use_memo(run.clone(), |r| strip::Strip::of(r.events()));
    let world = &player.world;
    let scenario = player.scenario();
    let cursor = player.cursor;

    // Verdict.
    // The sink counted once for the badge and the Sink panel, and again only when its visible
    // rows changed (most steps do not touch them; its visible version tells, along one run);
    // the lost keys found again only when those rows or the last commit changed.
    // The verdict alone, not the oracle's whole report; the sink's rows and files read only
    // for its open tab.
    let progress = player.mode.run.progress_of(world);
    let settled = player.mode.run.settled_verdict(world, cursor, &progress);
    let lost = player.mode.run.lost_of(world, &progress);
    let detail = match player.mode.tab {
        Tab::Sink => SinkDetail::Panel,
        _ => SinkDetail::Summary,
    };
    let sink = panels::sink_view_with(world, &player.mode.run.expected, &progress, &lost, detail);
    let badge = panels::progress_badge(settled, &progress, sink.lost_keys.len() as u64);

    // The link on screen (Export menu, lab buttons); the run's part (minimap, step notes).
    let link = player.url_state();
    let (run_link, batches, on_seek) = use_minimap_run(&run, &link, &on_action);
    // Lesson and the note on the current step.
    let preset = &player.mode.preset;
    let (paragraphs, stop_texts) = super::lesson_text::use_lesson_texts(preset, props.texts);
    let lesson_data = lesson_head(preset);
    let (setup, stops) = super::lesson_text::tour_stops(preset, stop_texts);
    let tour_view = player.tour_view(setup, stops);
    let timeline_stops: Vec<(usize, String)> = tour_view
        .marks()
        .into_iter()
        .map(|(c, title)| (c, title.to_string()))
        .collect();
    let current = world.events().last();
    let note_of = super::lesson_text::use_step_note(props.texts, &run_link, current, scenario);
    let (step_head, mut note, alarm) = match current {
        Some(e) => (
            format!(
                "#{} · run {} · {} ms · {}",
                e.seq,
                e.run,
                e.at_ms,
                batchscope_view::microbatch::labels::arrow_label_for(&e.kind, scenario.source.kind)
            ),
            note_of.unwrap_or_default(),
            matches!(
                e.kind,
                EventKind::Crashed { .. }
                    | EventKind::QueryFailed { .. }
                    | EventKind::SinkWriteFailed { .. }
            ),
        ),
        None => (
            "before the first step".to_string(),
            format!(
                "{} Step through it, arm a crash below, and watch the badge.",
                presets()
                    .iter()
                    .find(|p| p.name == *preset)
                    .map_or("", |p| p.description)
            ),
            false,
        ),
    };

    if let Some(EventKind::CommitLogWritten { batch_id, .. }) = current.map(|e| &e.kind) {
        if !sink.lost_keys.is_empty() {
            note.push_str(&format!(
                " {} expected records are now behind commits/{batch_id} but not in the sink: the next batch starts after them, so they are lost.",
                sink.lost_keys.len()
            ));
        }
    }

    // Faults.
    let fired = player.mode.run.last().fired_crashes();
    let armed: Vec<ArmedCrash> = scenario
        .crashes
        .iter()
        .map(|p| ArmedCrash {
            point: *p,
            fires_at: fired.iter().find(|f| f.point == Some(*p)).map(|f| f.seq),
        })
        .collect();
    let offsets = batch_offsets(world);
    let can_crash = !player.at_end() || world.is_converged();

    // Panels.
    let kind = scenario.source.kind;
    let channel_rows = panels::channel_rows(world);
    let meta_rows = panels::meta_rows(world);
    // The folder's files as the panel shows them (their text, in folder order) only when its
    // tab is open: at 1,000 batches that is thousands of files at every step.
    let files = (player.mode.tab == Tab::Checkpoint).then(|| panels::checkpoint_files(world));
    let progress = std::rc::Rc::new(player.mode.run.spark_progress(cursor));
    let counts = vec![
        channel_rows.len().to_string(),
        meta_rows.len().to_string(),
        world.checkpoint.files().count().to_string(),
        sink.visible.to_string(),
        progress.iter().filter(|p| p.completed).count().to_string(),
    ];
    let batch_label = match (offsets.batch_id, offsets.in_flight) {
        (Some(b), true) => format!("batch {b} in flight"),
        (Some(b), false) if offsets.end.is_some() => format!("batch {b} to re-run"),
        (Some(b), false) => format!("batch {b} next"),
        (None, _) => "no batch".to_string(),
    };
    // What the step points at in the open tab; a tour stop scrolls it into view.
    let event_kind = current.map(|e| &e.kind);
    let focus = match player.mode.tab {
        Tab::Channels => focus::channel_focus(&channel_rows, event_kind),
        Tab::Meta => focus::meta_focus(&meta_rows, event_kind),
        Tab::Checkpoint => focus::checkpoint_focus(files.as_deref().unwrap_or_default()),
        Tab::Sink => focus::sink_focus(&sink, event_kind),
        Tab::Progress => None,
    };
    let at_stop = tour_view.at_stop();
    use_stop_focus(at_stop, cursor, player.mode.tab.name());
    let panel = match player.mode.tab {
        Tab::Channels => html! {
            <ChannelsPanel rows={channel_rows} focus={focus.clone()} meta_rows={uses_meta_table(&scenario.source)}
                kafka={kind == SourceKind::ReplayableLog} batch={batch_label}
                start={offset_text(&offsets.start, world)} end={offset_text(&offsets.end, world)}
                counters={world.counters.clone()} pull_ahead={kind == SourceKind::PullAhead} />
        },
        Tab::Meta => html! {
            <MetaPanel rows={meta_rows} focus={focus.clone()} used={uses_meta_table(&scenario.source)} />
        },
        Tab::Checkpoint => html! {
            <CheckpointPanel stopped={stopped_after_missing_commit(files.as_deref(), world)} files={files.unwrap_or_default()} selected={player.mode.selected_file.clone()} focus={focus.clone()} on_action={on_action.clone()} />
        },
        Tab::Sink => html! { <SinkPanel view={sink} settled={settled.is_some()} focus={focus} /> },
        Tab::Progress => {
            let charts = props
                .charts
                .clone()
                .unwrap_or_else(|| Callback::from(|_| html! {}));
            html! { <ProgressPanel progress={progress} dark={player.theme.is_dark()} charts={charts} /> }
        }
    };

    let window_start = cursor.saturating_sub(WINDOW);
    let window = world.events()[window_start..].to_vec();
    let animate_ms = if player.playing {
        (player.step_ms() * 0.7).min(650.0)
    } else {
        320.0
    };
    let preset_list = preset_list(preset, player.mode.custom.is_some(), scenario);
    // Compare mode: both runs, drawn from the link's part they are made from.
    let diagram = match (&player.mode.versus, &props.compare) {
        (Some(_), Some(compare)) => compare.emit(CompareSlot {
            link: runs_link(&link).into(),
            cursor,
            animate_ms,
        }),
        _ => {
            html! { <SequenceDiagram events={window} cursor={cursor} animate_ms={animate_ms} source={scenario.source.kind} on_fail={Some(on_action.reform(Action::FailNow))} /> }
        }
    };

    html! {
        <div class="app">
            <header class="topbar">
                <h1 class="brand" title="Deterministic simulator of streaming fault tolerance">
                    <span class="logo" aria-hidden="true">{ "◧" }</span>{ "batchscope" }
                </h1>
                <ModeTabs mode={Dashboard::Micro} />
                <Controls preset={preset.clone()} presets={preset_list} seed={scenario.seed}
                    cursor={cursor} total={player.len()} playing={player.playing} speed={player.speed}
                    theme={player.theme} can_crash={can_crash} on_action={on_action.clone()} />
                <button class="xp-open" data-testid="explore-open"
                        title="Explore every crash point of this preset and seed: which ones lose or duplicate data?"
                        onclick={{ let o = explore_open.clone(); move |_| o.set(true) }}>{ "▦ Explore" }</button>
                if let Some(files) = &props.files {
                    <ExportMenu name={preset.clone()} link={link.clone()} total={player.len()} cursor={cursor} files={files.clone()} />
                }
                <VerdictBadge badge={badge} />
            </header>
            if let Some(explore) = &props.explore {
                { explore.emit(ExploreSlot {
                    preset: preset.clone(),
                    scenario: Shared(base_scenario.clone()),
                    custom: player.mode.custom.clone().map(Shared),
                    open: *explore_open,
                    on_close: close_explore,
                }) }
            }
            if let Some(editor) = &props.editor {
                { editor.emit(ScenarioEditorProps {
                    scenario: scenario.clone(),
                    open: *editor_open,
                    on_close: close_editor,
                    on_apply: apply_edit,
                }) }
            }
            <Notices notices={player.notices.clone()} on_dismiss={dismiss} />
            <main class="main">
                <section class="diagram-pane" aria-label="Sequence diagram">
                    if let (None, Some(minimap)) = (&player.mode.versus, &props.minimap) {
                        { minimap.emit(MinimapSlot { link: run_link, cursor, stops: timeline_stops.clone(), batches, on_seek }) }
                    }
                    { diagram }
                </section>
                <aside class="side">
                    <LessonCard tour={tour_view} on_cmd={on_action.reform(Action::from)}
                        step_head={step_head} note={note} alarm={alarm} note_testid="step-note"
                        title={lesson_data.title} title_testid="lesson-title" question={lesson_data.question}
                        paragraphs={paragraphs} current={preset.clone()}>
                        <p class="simplified"><a href="glossary.html#simplified" target="_blank">{ "Where the simulation simplifies ↗" }</a></p>
                    </LessonCard>
                    <CrashControls armed={armed} faults={scenario.faults.clone()}
                        crash_after_events={scenario.crash_after_events.clone()}
                        cursor={cursor} batch_hint={offsets.batch_id.unwrap_or(0)}
                        suggestion={lesson_data.try_crash.map(str::to_string)}
                        suggestion_outcome={lesson_data.try_outcome.to_string()}
                        on_action={on_action.clone()} />
                    <section class={classes!("card", "panels", at_stop.then_some("at-stop"))}>
                        <SideTabs tab={player.mode.tab} counts={counts} source={scenario.source.kind}
                            changed={current.and_then(|e| tab_changed(&e.kind))} on_action={on_action.clone()} />
                        { panel }
                    </section>
                </aside>
            </main>
            <footer class="bottom">
                <BatchStrip strip={strip} cursor={cursor} stops={timeline_stops}
                    on_action={on_action.clone()} />
                <div class="shortcuts" aria-label="Keyboard shortcuts">
                    { for SHORTCUTS.iter().map(|(k, what)| html! { <span><kbd>{ *k }</kbd>{ *what }</span> }) }
                    <span class="lab-tools">
                        <button class="ed-open" data-testid="editor-open" title="Edit this scenario: form and JSON, load and save files"
                                onclick={{ let o = editor_open.clone(); move |_| o.set(!*o) }}>{ "✎ Edit scenario" }</button>
                        <LabButtons link={link} comparing={player.mode.versus.is_some()} on_action={on_action.clone()} />
                    </span>
                </div>
            </footer>
        </div>
    }
}
