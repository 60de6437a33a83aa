//! `batchscope lesson PRESET`: a preset's lesson and its guided tour in the terminal — the same
//! text the dashboard shows, with the event (numbered as the trace numbers it, from #0) at which
//! each stop pauses in the tour's run, and the run's verdict at the end.

use batchscope_check::oracle::check_world;
use batchscope_engine::barrier;
use batchscope_engine::microbatch::scenario::{presets, CrashPoint};
use batchscope_view::microbatch::claims::claims;
use batchscope_view::microbatch::lessons::{lesson, SIMPLIFICATIONS};
use batchscope_view::microbatch::tab::Tab;
use batchscope_view::microbatch::tour::{stop_cursors, tour};
use batchscope_view::topology::{
    parse_topology, record, topo_stop_cursors, topology_lesson, topology_tour,
};
use clap::Args;
use serde::Serialize;

/// Arguments of `batchscope lesson`.
#[derive(Args, Debug, Clone)]
pub struct LessonArgs {
    /// A micro-batch preset (see `batchscope presets`) or a topology (`shopping`, `chain`,
    /// `three-queries`: see `batchscope topology --help`).
    pub preset: String,
    /// Seed of the tour's run (micro-batch presets; default: the preset's own).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// One stop of the tour, where it pauses in the tour's run.
#[derive(Debug, Serialize)]
pub struct StopReport {
    /// Heading.
    pub title: &'static str,
    /// What to look at.
    pub text: &'static str,
    /// The side-panel tab it shows (micro-batch).
    pub panel: Option<&'static str>,
    /// Events shown when it pauses — the player's cursor (the last one shown is the trace's
    /// event `at - 1`); `None` if this run never gets there.
    pub at: Option<usize>,
}

/// A lesson and its tour.
#[derive(Debug, Serialize)]
pub struct LessonReport {
    /// Preset or topology name.
    pub preset: String,
    /// `micro-batch` or `topology`.
    pub mode: &'static str,
    /// Heading.
    pub title: &'static str,
    /// The seed question it answers.
    pub question: &'static str,
    /// What to watch, and why.
    pub paragraphs: Vec<&'static str>,
    /// What the tour sets up (`crash sink-commit@2`, a topology fault).
    pub setup: Option<String>,
    /// The dashboard link of the tour (topology; micro-batch tours start from the preset).
    pub link: Option<String>,
    /// Seed of the tour's run.
    pub seed: u64,
    /// Events in the tour's run.
    pub steps: usize,
    /// The stops, in order.
    pub stops: Vec<StopReport>,
    /// The oracle's verdict on the tour's run (micro-batch).
    pub verdict: Option<&'static str>,
    /// The lesson's claims that `batchscope explore` checks (micro-batch).
    pub claims: Vec<&'static str>,
    /// Where the model simplifies.
    pub simplified: Vec<String>,
}

/// Stops (title, text, panel) with where each pauses.
fn stop_reports(
    stops: impl Iterator<Item = (&'static str, &'static str, Option<&'static str>)>,
    cursors: Vec<Option<usize>>,
) -> Vec<StopReport> {
    stops
        .zip(cursors)
        .map(|((title, text, panel), at)| StopReport {
            title,
            text,
            panel,
            at,
        })
        .collect()
}

/// The lesson of a micro-batch preset or a topology, with the tour resolved against its run.
pub fn report(args: &LessonArgs) -> Result<LessonReport, String> {
    let name = args.preset.as_str();
    if let Some(p) = presets().into_iter().find(|p| p.name == name) {
        let l = lesson(name);
        let t = tour(name);
        let mut scenario = p.scenario.clone();
        if let Some(seed) = args.seed {
            scenario.seed = seed;
        }
        if let Some(c) = t.crash {
            scenario
                .crashes
                .push(c.parse::<CrashPoint>().map_err(|e| e.to_string())?);
        }
        let (checked, world) = check_world(&scenario, false);
        let cursors = stop_cursors(&t.stops, world.events());
        return Ok(LessonReport {
            preset: name.to_string(),
            mode: "micro-batch",
            title: l.title,
            question: l.question,
            paragraphs: l.paragraphs,
            setup: t.crash.map(|c| format!("crash {c}")),
            link: Some(format!(
                "#preset={name}&seed={}{}&tour=1&at=0",
                scenario.seed,
                t.crash.map(|c| format!("&crash={c}")).unwrap_or_default()
            )),
            seed: scenario.seed,
            steps: world.events().len(),
            stops: stop_reports(
                t.stops
                    .iter()
                    .map(|s| (s.title, s.text, s.panel.map(Tab::title))),
                cursors,
            ),
            verdict: Some(checked.verdict.name()),
            claims: claims(name).iter().map(|c| c.words).collect(),
            simplified: vec![SIMPLIFICATIONS.to_string()],
        });
    }
    if barrier::presets().iter().any(|(n, _)| *n == name) {
        if args.seed.is_some() {
            return Err(format!(
                "--seed: the {name} tour runs its own link's seed; use `batchscope topology --preset {name} --seed N` for others"
            ));
        }
        let l = topology_lesson(name);
        let t = topology_tour(name);
        let url = parse_topology(t.hash).map_err(|e| format!("{e:?}"))?;
        let run = url
            .run()
            .ok_or_else(|| format!("unknown topology `{name}`"))?;
        let timeline = record(&run)?;
        let trace = timeline.last().trace();
        let cursors = topo_stop_cursors(&t.stops, trace);
        return Ok(LessonReport {
            preset: name.to_string(),
            mode: "topology",
            title: l.title,
            question: l.question,
            paragraphs: l.paragraphs,
            setup: Some(l.try_text.to_string()),
            link: Some(t.hash.replace("&at=0", "&tour=1&at=0")),
            seed: url.seed,
            steps: trace.len(),
            stops: stop_reports(t.stops.iter().map(|s| (s.title, s.text, None)), cursors),
            verdict: None,
            claims: vec![],
            simplified: batchscope_view::topology::simplifications(),
        });
    }
    let mut known: Vec<&str> = presets().iter().map(|p| p.name).collect();
    known.extend(barrier::presets().iter().map(|(n, _)| *n));
    Err(format!(
        "unknown preset `{name}` (known: {})",
        known.join(", ")
    ))
}

/// Runs `batchscope lesson`: 0, or 2 with a message naming what is wrong.
pub fn run(args: &LessonArgs) -> i32 {
    let r = match report(args) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&r).expect("a lesson serializes")
        );
        return 0;
    }
    println!("{} · {}", r.preset, r.title);
    println!("{}", r.question);
    println!();
    for p in &r.paragraphs {
        println!("  • {p}");
    }
    println!();
    println!(
        "Guided tour: {} stops{} · seed {} · {} events",
        r.stops.len(),
        r.setup
            .as_deref()
            .map(|s| format!(" · {s}"))
            .unwrap_or_default(),
        r.seed,
        r.steps
    );
    if let Some(link) = &r.link {
        println!("  dashboard: {link}");
    }
    for (i, s) in r.stops.iter().enumerate() {
        // The cursor counts the events shown; the last one shown is the trace's `#(a - 1)`
        // (both traces number events from #0).
        let at = match s.at {
            Some(a) if a == r.steps => "at the end".to_string(),
            Some(a) => format!("at event #{}", a - 1),
            None => "not reached in this run".to_string(),
        };
        let panel = s.panel.map(|p| format!(" [{p}]")).unwrap_or_default();
        println!("  {}. {} — {at}{panel}", i + 1, s.title);
        println!("     {}", s.text);
    }
    if let Some(v) = r.verdict {
        println!();
        println!("verdict of the tour's run: {v}");
    }
    if !r.claims.is_empty() {
        println!();
        println!(
            "Claims the explorer checks (batchscope explore --preset {}):",
            r.preset
        );
        for c in &r.claims {
            println!("  • {c}");
        }
    }
    println!();
    for s in &r.simplified {
        println!("{s}");
    }
    0
}
