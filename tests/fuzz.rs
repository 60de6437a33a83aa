//! Fuzz targets for every parser of user input: the scenario JSON, the topology JSON, and the
//! URL hash of both dashboard modes. Inputs are random bytes and mutations of real inputs
//! (every preset, `scenarios/*.json`, the topology presets, real dashboard links).
//!
//! Properties: no panic; every accepted input is inside the work budget and, run, ends within
//! its step bound (no hang); every rejection names a field or what is wrong, in one line.
//!
//! A short run is part of `cargo test` (a fixed seed, `BATCHSCOPE_FUZZ_CASES` cases a target,
//! 256 by default); `scripts/fuzz.sh` runs long. An input that breaks a property is written to
//! `target/fuzz-found/`; once fixed it belongs in `tests/fuzz-corpus/<target>/`, which
//! [`the_regression_corpus_holds`] replays.

mod fuzz_support;

use batchscope_check::liveness::{run, Ending, Limit};
use batchscope_engine::barrier::{self, budget as topo_budget, Consistency, TopologySpec};
use batchscope_engine::microbatch::scenario::{presets, Scenario};
use batchscope_engine::microbatch::scenario::{MAX_EVENTS, MAX_RECORDS};
use batchscope_engine::microbatch::World;
use batchscope_view::microbatch::url;
use batchscope_view::topology::url as topo_url;
use fuzz_support::mutate::{self, Op};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Inputs accepted, and accepted inputs also run, over all targets (printed by each target).
static ACCEPTED: AtomicU64 = AtomicU64::new(0);
static RAN: AtomicU64 = AtomicU64::new(0);

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Accepted inputs whose work estimate is at most this many events are also run.
fn run_events() -> u64 {
    env_u64("BATCHSCOPE_FUZZ_RUN_EVENTS", 20_000)
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files(dir: &Path, ext: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .map(|p| {
            let text = std::fs::read(&p).expect("readable");
            (
                p.display().to_string(),
                String::from_utf8_lossy(&text).into_owned(),
            )
        })
        .collect();
    out.sort();
    out
}

fn scenario_seeds() -> Vec<String> {
    let mut seeds: Vec<String> = presets().iter().map(|p| p.scenario.to_json()).collect();
    seeds.extend(
        files(&root().join("scenarios"), "json")
            .into_iter()
            .map(|f| f.1),
    );
    seeds
}

fn topology_seeds() -> Vec<String> {
    let dir = root().join("crates/engine/src/barrier/presets");
    files(&dir, "json").into_iter().map(|f| f.1).collect()
}

fn url_seeds() -> Vec<String> {
    let mut seeds: Vec<String> = presets()
        .iter()
        .map(|p| url::format(&url::UrlState::default_for(p.name)))
        .collect();
    seeds.push("#preset=kafka-append&seed=7&crash=sink-commit@3&after=57&tour=1&at=60".into());
    seeds.push("#preset=tablestore&crash=task@2,commit-log@4".into());
    seeds.push("#preset=tablestore-append&fault=task-fail@3&seed=2".into());
    // An own scenario in the link, and a comparison.
    let mut own = batchscope_engine::microbatch::scenario::preset("kafka-append").expect("preset");
    own.upstream.channels = 5;
    seeds.push(format!(
        "#scenario={}&crash=sink-commit@3&vs=kafka-idempotent",
        url::scenario::encode(&own)
    ));
    for t in topo_url::topology_names() {
        seeds.push(topo_url::format_topology(&topo_url::TopoUrl::default_for(
            t,
        )));
    }
    seeds.push(
        "#mode=topology&topology=shopping&seed=1&fail=price_job@2&level=rc&consistency=strong&at=40"
            .into(),
    );
    seeds.push("#mode=topology&topology=chain&nobarriers=1&failat=sum_job@12&at=3".into());
    seeds
}

fn caught<T>(what: &str, f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        format!("{what} panicked: {msg}")
    })
}

fn one_line(what: &str, message: &str) -> Result<(), String> {
    if message.trim().is_empty() || message.contains('\n') {
        return Err(format!(
            "{what}: a rejection must be one non-empty line: {message:?}"
        ));
    }
    Ok(())
}

/// The scenario target: parse and validate; an accepted scenario is in the budget and its
/// run ends within the step bound.
fn check_scenario(text: &str) -> Result<(), String> {
    let parsed = caught("Scenario::from_json", || Scenario::from_json(text))?;
    let scenario = match parsed {
        Err(e) => {
            if e.field.is_empty() || e.reason.is_empty() {
                return Err(format!("a rejection names no field or reason: {e:?}"));
            }
            return one_line("scenario", &e.to_string());
        }
        Ok(s) => s,
    };
    ACCEPTED.fetch_add(1, Ordering::Relaxed);
    let work = scenario.work();
    if work.records > MAX_RECORDS || work.events > MAX_EVENTS {
        return Err(format!("accepted over the budget: {work:?}"));
    }
    if work.events > run_events() {
        return Ok(());
    }
    RAN.fetch_add(1, Ordering::Relaxed);
    let (ending, taken) = caught("the run", || {
        let mut world = World::new(scenario.clone());
        let ending = run(&mut world, Limit::JUDGE);
        (ending, world.events().len() as u64)
    })?;
    if ending == Ending::Capped || taken > work.events {
        return Err(format!(
            "the run took {taken} events ({ending:?}), step bound {}",
            work.events
        ));
    }
    Ok(())
}

/// The topology target: parse and validate; an accepted topology is in the budget and its run
/// (with the judge's query evaluations) drains.
fn check_topology(text: &str) -> Result<(), String> {
    let parsed = caught("TopologySpec::from_json", || TopologySpec::from_json(text))?;
    let spec = match parsed {
        Err(e) => return one_line("topology", &e.to_string()),
        Ok(s) => s,
    };
    ACCEPTED.fetch_add(1, Ordering::Relaxed);
    let work = spec.work();
    if work.records > topo_budget::MAX_RECORDS
        || work.events > topo_budget::MAX_EVENTS
        || work.query_rows > topo_budget::MAX_QUERY_ROWS
    {
        return Err(format!("accepted over the budget: {work:?}"));
    }
    if work.events > run_events() || work.query_rows > 100 * run_events() * run_events() {
        return Ok(());
    }
    RAN.fetch_add(1, Ordering::Relaxed);
    let taken = caught("the topology run", || {
        barrier::TopologyWorld::new(spec.clone(), 1).map(|mut world| {
            batchscope_check::topology::tally_to_end(&mut world, Consistency::Strong);
            world.trace().len() as u64
        })
    })?;
    match taken {
        Err(e) => one_line("topology world", &e.to_string()),
        Ok(n) if n > work.events => Err(format!("{n} events, estimate {}", work.events)),
        Ok(_) => Ok(()),
    }
}

/// The URL target, both modes: parse (the micro-batch link as the dashboard reads it, with an
/// own `scenario=` and `vs=`); every error names its parameter; an accepted link's run is
/// validated like a scenario and ends.
fn check_url(hash: &str) -> Result<(), String> {
    let names: Vec<&str> = presets().iter().map(|p| p.name).collect();
    caught("PageLink::parse", || {
        batchscope_view::url::PageLink::parse(hash)
    })?;
    let micro = caught("url::scenario::parse_link", || {
        url::scenario::parse_link(hash, &names)
    })?;
    match micro {
        Err(errors) => named(&errors)?,
        Ok(link) => {
            let state = link.base;
            let mut s = match link.custom {
                Some(own) => *own,
                None => batchscope_engine::microbatch::scenario::preset(&state.preset)
                    .map_err(|e| e.to_string())?,
            };
            s.seed = state.seed;
            s.crashes = state.crashes;
            s.faults.extend(state.faults);
            s.crash_after_events = state.crash_after_events;
            match s.validate() {
                Err(e) => one_line("url scenario", &e.to_string())?,
                Ok(()) => {
                    let bound = s.work().events;
                    let taken = caught("the linked run", || {
                        let mut world = World::new(s);
                        run(&mut world, Limit::SCREEN);
                        world.events().len() as u64
                    })?;
                    if taken > bound {
                        return Err(format!("{taken} events, step bound {bound}"));
                    }
                }
            }
        }
    }
    let topo = caught("parse_topology", || topo_url::parse_topology(hash))?;
    match topo {
        Err(errors) => named(&errors),
        Ok(state) => {
            let Some(recorded) = state.run() else {
                return Err(format!("accepted an unknown topology `{}`", state.topology));
            };
            let world = caught("TopologyWorld::from_run", || {
                barrier::TopologyWorld::from_run(recorded).map(|mut w| {
                    run(&mut w, Limit::SCREEN);
                })
            })?;
            match world {
                Err(e) => one_line("url topology", &e.to_string()),
                Ok(()) => Ok(()),
            }
        }
    }
}

fn named(errors: &[batchscope_view::url::UrlError]) -> Result<(), String> {
    if errors.is_empty() {
        return Err("rejected with no error".into());
    }
    for e in errors {
        if e.param.is_empty() || e.reason.is_empty() {
            return Err(format!("an error names no parameter or reason: {e:?}"));
        }
    }
    Ok(())
}

/// A target's property check.
type Check = fn(&str) -> Result<(), String>;

/// Runs `cases` inputs of one target from a fixed seed; a failing input is shrunk, written to
/// `target/fuzz-found/`, and fails the test with its path.
fn fuzz(target: &str, seeds: &[String], make: fn(&str, &[Op]) -> String, check: Check) {
    let cases = env_u64("BATCHSCOPE_FUZZ_CASES", 256) as u32;
    let seed = env_u64("BATCHSCOPE_FUZZ_SEED", 18);
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..8 + target.len().min(24)].copy_from_slice(&target.as_bytes()[..target.len().min(24)]);
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &key));
    let op = (any::<u8>(), any::<u32>(), any::<u32>());
    let mutated = (0..seeds.len(), proptest::collection::vec(op, 0..6))
        .prop_map(move |(i, ops)| (i, ops, None::<Vec<u8>>));
    let random = proptest::collection::vec(any::<u8>(), 0..400).prop_map(|b| (0, vec![], Some(b)));
    let strategy = prop_oneof![4 => mutated, 1 => random];
    let text_of = |(i, ops, bytes): &(usize, Vec<Op>, Option<Vec<u8>>)| match bytes {
        Some(b) => String::from_utf8_lossy(b).into_owned(),
        None => make(&seeds[*i], ops),
    };
    let result = runner.run(&strategy, |input| {
        check(&text_of(&input)).map_err(TestCaseError::fail)
    });
    if let Err(e) = result {
        let text = match &e {
            proptest::test_runner::TestError::Fail(_, input) => text_of(input),
            proptest::test_runner::TestError::Abort(_) => String::new(),
        };
        let dir = root().join("target/fuzz-found");
        std::fs::create_dir_all(&dir).expect("target/ is writable");
        let path = dir.join(format!("{target}-{seed}.txt"));
        std::fs::write(&path, &text).expect("writable");
        panic!(
            "fuzz target {target}: {e}\ninput written to {}",
            path.display()
        );
    }
    eprintln!(
        "fuzz {target}: {cases} cases, seed {seed} (all targets so far: {} accepted, {} run)",
        ACCEPTED.load(Ordering::Relaxed),
        RAN.load(Ordering::Relaxed)
    );
}

#[test]
fn fuzz_scenario_json() {
    fuzz("scenario", &scenario_seeds(), mutate::json, check_scenario);
}

#[test]
fn fuzz_topology_json() {
    fuzz("topology", &topology_seeds(), mutate::json, check_topology);
}

#[test]
fn fuzz_url_hash() {
    fuzz("url", &url_seeds(), mutate::hash, check_url);
}

#[test]
fn the_regression_corpus_holds() {
    let corpus = root().join("tests/fuzz-corpus");
    let targets: [(&str, &str, Check); 3] = [
        ("scenario", "json", check_scenario),
        ("topology", "json", check_topology),
        ("url", "txt", check_url),
    ];
    for (dir, ext, check) in targets {
        let inputs = files(&corpus.join(dir), ext);
        assert!(!inputs.is_empty(), "tests/fuzz-corpus/{dir} holds inputs");
        for (path, text) in inputs {
            if let Err(e) = check(&text) {
                panic!("{path}: {e}");
            }
        }
    }
}
