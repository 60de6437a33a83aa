//! wasm-bindgen API of the batchscope engine for JavaScript users.
//!
//! A thin adapter (the engine knows nothing of the web): [`Simulation`] owns one
//! [`World`] and converts at the boundary. Structured results cross as JSON text, typed for
//! TypeScript by the interfaces in `types.d.ts` (emitted into the generated `.d.ts`):
//! `const e: BatchscopeEvent = JSON.parse(sim.step())`. JSON keeps 64-bit numbers exact in
//! the text; `trace_hash` is a string because a u64 does not fit a JavaScript number.
//!
//! Every method also works natively (errors are Rust values until they cross into
//! JavaScript), so the behaviour is tested without a JavaScript engine too.

pub mod state;

use batchscope_check::oracle::{expected_counts, judge, liveness_bound_ms, run, Limit, Report};
use batchscope_check::Verdict;
use batchscope_engine::microbatch::scenario::{
    preset, presets, CrashPoint, Scenario, ScenarioError,
};
use batchscope_engine::microbatch::upstream::RowKey;
use batchscope_engine::microbatch::World;
use batchscope_engine::trace;
use serde::Serialize;
use state::{finished, summarize, State};
use std::collections::BTreeMap;
use std::fmt;
use wasm_bindgen::prelude::*;

/// The TypeScript shapes of the JSON texts this API returns.
pub const TYPESCRIPT_TYPES: &str = include_str!("types.d.ts");

#[wasm_bindgen(typescript_custom_section)]
const TS_APPEND_CONTENT: &'static str = TYPESCRIPT_TYPES;

/// Bad input to the API: names the field (or argument) and the reason. Thrown in JavaScript
/// as an `Error` whose message is `field: reason`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    /// The offending field (`upstream.channels`) or argument (`crash point`).
    pub field: String,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.reason)
    }
}

impl std::error::Error for ApiError {}

impl From<ScenarioError> for ApiError {
    fn from(e: ScenarioError) -> Self {
        ApiError {
            field: e.field,
            reason: e.reason,
        }
    }
}

impl From<ApiError> for JsValue {
    fn from(e: ApiError) -> JsValue {
        JsError::from(e).into()
    }
}

/// One simulated run that JavaScript steps, crashes and inspects.
#[wasm_bindgen]
pub struct Simulation {
    world: World,
    /// Key → copies in a failure-free run of the same scenario: what the oracle expects.
    expected: BTreeMap<RowKey, u64>,
}

impl Simulation {
    /// A simulation of a validated scenario; runs its failure-free twin once for the oracle.
    pub fn new(scenario: Scenario) -> Simulation {
        // The oracle's failure-free run drops crashes (crash-now inputs too) and outages.
        Simulation {
            expected: expected_counts(&scenario),
            world: World::new(scenario),
        }
    }

    /// The world being simulated.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The summary of the current moment.
    pub fn state(&self) -> State {
        let verdict = finished(&self.world).then(|| self.judge().verdict);
        summarize(&self.world, &self.expected, verdict)
    }

    /// The oracle's report on the run, or an error while it has neither converged nor
    /// passed its liveness bound (its verdict is not decided yet).
    pub fn report(&self) -> Result<Report, ApiError> {
        if !finished(&self.world) {
            return Err(ApiError {
                field: "report".into(),
                reason: format!(
                    "the run has not finished: {} ms simulated, not converged, liveness bound {} ms; call step_until_converged first",
                    self.world.now_ms(),
                    liveness_bound_ms(&self.world)
                ),
            });
        }
        Ok(self.judge())
    }

    fn judge(&self) -> Report {
        judge(
            &self.world,
            self.world.is_converged(),
            &self.expected,
            false,
        )
    }
}

fn to_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("API types serialize to JSON")
}

#[wasm_bindgen]
impl Simulation {
    /// A simulation of a built-in preset (see `presetsJson`); `seed` replaces the preset's
    /// seed when given.
    #[wasm_bindgen(js_name = fromPreset)]
    pub fn from_preset(name: &str, seed: Option<u64>) -> Result<Simulation, ApiError> {
        let mut scenario = preset(name)?;
        if let Some(seed) = seed {
            scenario.seed = seed;
        }
        Ok(Simulation::new(scenario))
    }

    /// A simulation of a scenario given as JSON text (the `Scenario` shape, e.g. from
    /// `JSON.stringify` or `scenarioJson`); the error names
    /// the field that is wrong.
    #[wasm_bindgen(js_name = fromScenarioJson)]
    pub fn from_scenario_json(json: &str) -> Result<Simulation, ApiError> {
        Ok(Simulation::new(Scenario::from_json(json)?))
    }

    /// Performs exactly one protocol action and returns its event.
    #[wasm_bindgen(unchecked_return_type = "JsonText<BatchscopeEvent>")]
    pub fn step(&mut self) -> String {
        to_json(&self.world.step())
    }

    /// Steps until the run converges, passes its liveness bound (the oracle's rule: no
    /// progress for `stall_bound_ms`), or `max_steps` more events were taken; returns whether
    /// it converged.
    #[wasm_bindgen(js_name = stepUntilConverged)]
    pub fn step_until_converged(&mut self, max_steps: u32) -> bool {
        let limit = Limit::events(self.world.events().len() as u64 + u64::from(max_steps));
        run(&mut self.world, limit).converged()
    }

    /// Whether the run has settled (see `State.converged`).
    #[wasm_bindgen(js_name = isConverged)]
    pub fn is_converged(&self) -> bool {
        self.world.is_converged()
    }

    /// Every event so far, in order.
    #[wasm_bindgen(js_name = eventsJson, unchecked_return_type = "JsonText<BatchscopeEvent[]>")]
    pub fn events_json(&self) -> String {
        to_json(&self.world.events())
    }

    /// The summary of the current moment: time, driver phase, checkpoint files, Meta rows,
    /// Tunnel channels, sink rows, and the oracle's view so far.
    #[wasm_bindgen(js_name = stateJson, unchecked_return_type = "JsonText<State>")]
    pub fn state_json(&self) -> String {
        to_json(&self.state())
    }

    /// Arms a driver crash at a named point of a batch (`sink-commit@3`, see `CrashPointName`):
    /// a recorded input.
    /// A point already passed never fires and is reported as unreached.
    pub fn crash(&mut self, point: &str) -> Result<(), ApiError> {
        let point: CrashPoint = point.parse().map_err(|e| ApiError {
            field: "crash point".into(),
            reason: format!("{e}"),
        })?;
        self.world.arm_crash(point);
        Ok(())
    }

    /// Kills the driver right after the last event (recorded as `crash_after_events`);
    /// returns false when there is nothing to crash (no event yet, driver down, crash pending).
    #[wasm_bindgen(js_name = crashNow)]
    pub fn crash_now(&mut self) -> bool {
        let before = self.world.scenario().crash_after_events.len();
        self.world.crash_now();
        self.world.scenario().crash_after_events.len() > before
    }

    /// The oracle's report (`Report`) once the run converged or passed its liveness bound;
    /// throws while it is still running.
    #[wasm_bindgen(js_name = reportJson, unchecked_return_type = "JsonText<Report>")]
    pub fn report_json(&self) -> Result<String, ApiError> {
        Ok(to_json(&self.report()?))
    }

    /// The verdict name once decided (`exactly-once`, `duplicates`…), else `undefined`.
    #[wasm_bindgen(unchecked_return_type = "Verdict | undefined")]
    pub fn verdict(&self) -> Option<String> {
        finished(&self.world).then(|| self.judge().verdict.name().to_string())
    }

    /// The scenario with every recorded input (crashes, crash-now positions): replaying it
    /// with `fromScenarioJson` gives the same trace.
    #[wasm_bindgen(js_name = scenarioJson, unchecked_return_type = "JsonText<Scenario>")]
    pub fn scenario_json(&self) -> String {
        self.world.scenario().to_json()
    }

    /// FNV-1a 64 of the trace as `0x` and 16 hex digits (`BigInt(hash)` parses it); equal on
    /// every platform for the same scenario, seed and inputs.
    #[wasm_bindgen(js_name = traceHash)]
    pub fn trace_hash(&self) -> String {
        format!("0x{:016x}", trace::hash(self.world.events()))
    }
}

/// A built-in preset as listed by `presetsJson`.
#[derive(Serialize)]
struct PresetJson {
    name: &'static str,
    description: &'static str,
    scenario: Scenario,
}

/// Every built-in preset: name, description and scenario.
#[wasm_bindgen(js_name = presetsJson, unchecked_return_type = "JsonText<Preset[]>")]
pub fn presets_json() -> String {
    let list: Vec<PresetJson> = presets()
        .into_iter()
        .map(|p| PresetJson {
            name: p.name,
            description: p.description,
            scenario: p.scenario,
        })
        .collect();
    to_json(&list)
}

/// Runs a scenario given as JSON text to its end (converged, stuck past the liveness bound, or
/// the judging cap) and returns the number of events: the engine alone, with no JSON out, so
/// a benchmark can time it the same way natively and in a JavaScript engine.
#[wasm_bindgen(js_name = runScenarioJson)]
pub fn run_scenario_json(json: &str) -> Result<u64, ApiError> {
    let mut world = World::new(Scenario::from_json(json)?);
    run(&mut world, Limit::JUDGE);
    Ok(world.events().len() as u64)
}

/// Every verdict name, good first.
#[wasm_bindgen(js_name = verdictNames, unchecked_return_type = "Verdict[]")]
pub fn verdict_names() -> Vec<String> {
    Verdict::ALL.iter().map(|v| v.name().to_string()).collect()
}
