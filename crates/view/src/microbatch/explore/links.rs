//! Which player state shows an explored run (crashes and a fault), at which moment, and the one
//! `batchscope run` line that reproduces it.

use super::matrix::extra_faults;
use crate::microbatch::url::scenario::{Link, CUSTOM};
use crate::microbatch::url::UrlState;
use batchscope_check::explore::{run_scenario, Fault};
use batchscope_check::oracle::{run, Limit};
use batchscope_engine::microbatch::event::{Event, EventKind};
use batchscope_engine::microbatch::scenario::{CrashPoint, Scenario};
use batchscope_engine::microbatch::scenario::{Fault as BatchFault, FaultKind};
use batchscope_engine::microbatch::World;

/// The file a reproducing line names when flags cannot say the run (`batchscope explore` saves
/// its counterexamples under the same name).
pub const SCENARIO_FILE: &str = batchscope_check::explore::COUNTEREXAMPLE_FILE;

/// Whether the fault needs the whole scenario (a sink outage window or a split: no link key or
/// command-line flag says them).
fn needs_scenario(fault: Option<&Fault>) -> bool {
    matches!(
        fault,
        Some(Fault::SinkOutage { .. } | Fault::PartitionSplit { .. })
    )
}

/// The position in `events` of the first one that shows `fault` happening.
fn fault_position(events: &[Event], fault: &Fault) -> Option<usize> {
    events.iter().position(|e| match (fault, &e.kind) {
        (
            Fault::SinkOutage { from_ms, to_ms, .. },
            EventKind::SinkWriteFailed { .. }
            | EventKind::TaskFailed {
                sink_down: Some(_), ..
            },
        ) => (*from_ms..*to_ms).contains(&e.at_ms),
        (Fault::PartitionSplit { at_ms, .. }, _) => e.at_ms >= *at_ms,
        (Fault::InBatch { fault }, kind) => in_batch_fired(fault, kind),
        _ => false,
    })
}

fn in_batch_fired(fault: &BatchFault, kind: &EventKind) -> bool {
    match (fault.kind, kind) {
        (FaultKind::TaskFail, EventKind::TaskFailed { batch_id, .. })
        | (FaultKind::ForeachFail, EventKind::SinkWriteFailed { batch_id, .. }) => {
            *batch_id == fault.batch_id
        }
        (FaultKind::CheckpointDeleted, EventKind::CheckpointDeleted { .. }) => true,
        _ => false,
    }
}

/// The cursor that shows the first thing going wrong in `scenario`'s run: its first crash or the
/// moment `fault` strikes, whichever comes first (`None`: neither happens).
pub fn trouble_moment(scenario: &Scenario, fault: Option<&Fault>) -> Option<usize> {
    let mut world = World::new(scenario.clone());
    run(&mut world, Limit::SCREEN);
    let events = world.events();
    let crash = events
        .iter()
        .position(|e| matches!(e.kind, EventKind::Crashed { .. }));
    let struck = fault.and_then(|f| fault_position(events, f));
    [crash, struck].into_iter().flatten().min().map(|i| i + 1)
}

/// The player state that shows the explored run of `preset` (scenario `base`) with `crashes`
/// and `fault`, at the first thing that goes wrong. A failure inside a batch travels as
/// `fault=`; an outage or a split as the run's own scenario (`scenario=`).
pub fn run_link(
    preset: &str,
    base: &Scenario,
    crashes: &[CrashPoint],
    fault: Option<&Fault>,
) -> Link {
    let full = run_scenario(base, crashes, &[], fault);
    let at = trouble_moment(&full, fault).unwrap_or(0) as u64;
    let mut faults = extra_faults(preset, base);
    let custom = if needs_scenario(fault) {
        faults.clear();
        let mut own = full.clone();
        own.crashes.clear();
        Some(Box::new(own))
    } else {
        if let Some(Fault::InBatch { fault }) = fault {
            faults.push(*fault);
        }
        None
    };
    let name = match &custom {
        Some(s) if s.name.is_empty() => CUSTOM.to_string(),
        Some(s) => s.name.clone(),
        None => preset.to_string(),
    };
    Link {
        base: UrlState {
            preset: name,
            seed: base.seed,
            crashes: crashes.to_vec(),
            faults,
            crash_after_events: vec![],
            outages: vec![],
            at,
            tour: false,
            tab: None,
            file: None,
        },
        custom,
        vs: None,
    }
}

/// How to reproduce an explored run from a shell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reproduce {
    /// One short line: `batchscope run --preset kafka-append --seed 7 --crash task@3`.
    pub line: String,
    /// When the line names [`SCENARIO_FILE`]: what the file holds (one sentence) and its JSON.
    pub file: Option<(String, String)>,
}

/// Whether `base` is the built-in preset `preset` but for seed, batches, faults and crashes.
fn is_preset(preset: &str, base: &Scenario) -> bool {
    batchscope_engine::microbatch::scenario::preset(preset).is_ok_and(|mut p| {
        p.seed = base.seed;
        p.batches = base.batches;
        p.faults = base.faults.clone();
        p.crashes = base.crashes.clone();
        p.crash_after_events = base.crash_after_events.clone();
        p == *base
    })
}

/// The `batchscope run` line of the explored run of `preset` (scenario `base`) with `crashes`
/// and `fault`: the preset with `--seed`, `--crash` and `--fault` flags, or, when flags cannot
/// say it (an outage window, a split, a scenario of one's own), [`SCENARIO_FILE`] and its JSON.
pub fn reproduce(
    preset: &str,
    base: &Scenario,
    crashes: &[CrashPoint],
    fault: Option<&Fault>,
) -> Reproduce {
    let preset_form = is_preset(preset, base) && !needs_scenario(fault);
    let mut words = vec!["batchscope run".to_string()];
    let mut file = None;
    if preset_form {
        words.push(format!("--preset {preset} --seed {}", base.seed));
        let own = batchscope_engine::microbatch::scenario::preset(preset).expect("checked above");
        if own.batches != base.batches {
            words.push(format!("--batches {}", base.batches));
        }
    } else {
        let scenario = run_scenario(base, &[], &[], fault);
        let what = match fault {
            Some(f) if needs_scenario(Some(f)) => format!("{preset} with a {f}"),
            _ => format!("the scenario {preset}"),
        };
        file = Some((
            format!("{SCENARIO_FILE}: {what} (seed {}).", base.seed),
            scenario.to_json(),
        ));
        words.push(SCENARIO_FILE.to_string());
    }
    words.extend(crashes.iter().map(|c| format!("--crash {c}")));
    if preset_form {
        let mut faults = extra_faults(preset, base);
        if let Some(Fault::InBatch { fault }) = fault {
            faults.push(*fault);
        }
        words.extend(faults.iter().map(|f| format!("--fault {f}")));
    }
    Reproduce {
        line: words.join(" "),
        file,
    }
}
