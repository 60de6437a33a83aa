//! The Topology mode's URL state: `#mode=topology&topology=shopping&seed=1&fail=price_job@2&level=rc&consistency=strong&at=40`.
//! Parsed with the skeleton the micro-batch URL shares ([`crate::url`]).

use crate::topology::text::consistency_short;
use crate::url::UrlError;
use crate::url::{error as url_err, flag, items, number, pairs};
use batchscope_engine::barrier::{self, Consistency, Fault, ReadLevel, TopologyRun, TopologySpec};
use std::collections::BTreeMap;

/// The topology loaded when the URL names none.
pub const DEFAULT_TOPOLOGY: &str = "shopping";
/// The seed used when the URL names none (the CLI's default).
pub const DEFAULT_TOPOLOGY_SEED: u64 = 1;

/// What the URL hash holds in Topology mode:
/// `#mode=topology&topology=shopping&seed=1&fail=price_job@2&level=rc&consistency=strong&at=40`.
#[derive(Clone, Debug, PartialEq)]
pub struct TopoUrl {
    /// Topology preset name.
    pub topology: String,
    /// Seed of the generated CDC rows.
    pub seed: u64,
    /// The contrast without timestamp barriers (`nobarriers=1`).
    pub no_barriers: bool,
    /// Timestamp barriers per checkpoint (`bpc=2`; 1 when absent).
    pub per_checkpoint: u64,
    /// Recorded faults, in canonical order (see [`canonical_faults`]).
    pub faults: Vec<Fault>,
    /// Reader level of the query panel.
    pub level: ReadLevel,
    /// Strong or Weak consistency of the query panel.
    pub consistency: Consistency,
    /// Steps shown (the cursor).
    pub at: u64,
    /// Whether the guided tour is on (`tour=1`): playback pauses at the lesson's stops.
    pub tour: bool,
}

impl TopoUrl {
    /// A fresh page of `topology`: default seed, barriers on, Repeatable Read + Strong, step 0.
    pub fn default_for(topology: &str) -> TopoUrl {
        TopoUrl {
            topology: topology.to_string(),
            seed: DEFAULT_TOPOLOGY_SEED,
            no_barriers: false,
            per_checkpoint: 1,
            faults: vec![],
            level: ReadLevel::RepeatableRead,
            consistency: Consistency::Strong,
            at: 0,
            tour: false,
        }
    }

    /// The recorded run this state describes (`None` for an unknown topology).
    pub fn run(&self) -> Option<TopologyRun> {
        let mut spec = barrier::preset(&self.topology)?;
        spec.no_barriers = self.no_barriers;
        spec.barriers_per_checkpoint = self.per_checkpoint.clamp(1, spec.barriers);
        Some(TopologyRun {
            barriers: spec.barriers,
            spec,
            seed: self.seed,
            faults: self.faults.clone(),
        })
    }
}

/// Topology preset names, in the engine's order.
pub fn topology_names() -> Vec<&'static str> {
    barrier::PRESET_NAMES.to_vec()
}

/// Faults sorted by kind (fail after PRECOMMIT, fail at a step, revise at a step, revise after
/// WRITTEN), stable within a kind: the order the URL writes them, so links round-trip.
pub fn canonical_faults(mut faults: Vec<Fault>) -> Vec<Fault> {
    faults.sort_by_key(|f| match f {
        Fault::FailBeforeWritten { .. } => 0,
        Fault::FailAfterWritten { .. } => 4,
        Fault::FailAtStep { .. } => 1,
        Fault::ReviseAtStep { .. } => 2,
        Fault::ReviseAfterWritten { .. } => 3,
    });
    faults
}

fn split_at(param: &str, item: &str, parts: usize, shape: &str) -> Result<Vec<String>, UrlError> {
    let v: Vec<String> = item.split('@').map(|s| s.trim().to_string()).collect();
    if v.len() != parts || v.iter().any(String::is_empty) {
        return Err(url_err(param, format!("`{item}` is not {shape}")));
    }
    Ok(v)
}

/// Parses a Topology-mode hash. Unknown parameters (and `preset`, the micro-batch mode's) are
/// ignored; every bad value is named — job and table names are checked against the topology.
pub fn parse_topology(hash: &str) -> Result<TopoUrl, Vec<UrlError>> {
    let known = topology_names();
    let mut state = TopoUrl::default_for(DEFAULT_TOPOLOGY);
    let mut errors = vec![];
    let mut raw_faults: Vec<(String, String)> = vec![];
    for (key, value) in pairs(hash) {
        match key.as_str() {
            "mode" if value != "topology" && value != "micro" => errors.push(url_err(
                "mode",
                format!("unknown mode `{value}` (known: micro, topology)"),
            )),
            "topology" => {
                if known.contains(&value.as_str()) {
                    state.topology = value;
                } else {
                    errors.push(url_err(
                        "topology",
                        format!("unknown topology `{value}` (known: {})", known.join(", ")),
                    ));
                }
            }
            "seed" => match number("seed", &value, "a seed") {
                Ok(s) => state.seed = s,
                Err(e) => errors.push(e),
            },
            "at" => match number("at", &value, "a step count") {
                Ok(a) => state.at = a,
                Err(e) => errors.push(e),
            },
            "tour" => match flag("tour", &value) {
                Ok(on) => state.tour = on,
                Err(e) => errors.push(e),
            },
            "nobarriers" => match value.as_str() {
                "1" | "true" | "" => state.no_barriers = true,
                "0" | "false" => state.no_barriers = false,
                _ => errors.push(url_err("nobarriers", format!("`{value}` is not 0 or 1"))),
            },
            "bpc" => match number("bpc", &value, "a number of barriers per checkpoint") {
                Ok(0) => errors.push(url_err("bpc", "must be at least 1".to_string())),
                Ok(n) => state.per_checkpoint = n,
                Err(e) => errors.push(e),
            },
            "level" => match value.as_str() {
                "ru" => state.level = ReadLevel::ReadUncommitted,
                "rc" => state.level = ReadLevel::ReadCommitted,
                "rr" => state.level = ReadLevel::RepeatableRead,
                _ => errors.push(url_err(
                    "level",
                    format!("unknown level `{value}` (known: ru, rc, rr)"),
                )),
            },
            "consistency" => match value.as_str() {
                "strong" => state.consistency = Consistency::Strong,
                "weak" => state.consistency = Consistency::Weak,
                _ => errors.push(url_err(
                    "consistency",
                    format!("unknown consistency `{value}` (known: strong, weak)"),
                )),
            },
            "fail" | "failat" | "revise" => {
                for item in items(&value) {
                    raw_faults.push((key.clone(), item.trim().to_string()));
                }
            }
            _ => {}
        }
    }
    // Faults are checked against the topology once its name is known.
    let spec = barrier::preset(&state.topology).expect("a known topology");
    if state.per_checkpoint > spec.barriers {
        errors.push(url_err(
            "bpc",
            format!(
                "{} barriers per checkpoint, but the run has {} barriers",
                state.per_checkpoint, spec.barriers
            ),
        ));
    }
    for (param, item) in raw_faults {
        match fault_of(&spec, state.no_barriers, &param, &item) {
            Ok(f) => state.faults.push(f),
            Err(e) => errors.push(e),
        }
    }
    state.faults = canonical_faults(state.faults);
    if errors.is_empty() {
        Ok(state)
    } else {
        Err(errors)
    }
}

fn fault_of(
    spec: &TopologySpec,
    no_barriers: bool,
    param: &str,
    item: &str,
) -> Result<Fault, UrlError> {
    let jobs: Vec<&str> = spec.jobs.iter().map(|j| j.name.as_str()).collect();
    let tables: Vec<&str> = spec.tables.iter().map(|t| t.name.as_str()).collect();
    let job_ok = |job: &str| {
        if jobs.contains(&job) {
            Ok(())
        } else {
            Err(url_err(
                param,
                format!(
                    "unknown job `{job}` in topology `{}` (jobs: {})",
                    spec.name,
                    jobs.join(", ")
                ),
            ))
        }
    };
    match param {
        "fail" => {
            let v = split_at(param, item, 2, "JOB@BARRIER")?;
            job_ok(&v[0])?;
            let b = number(param, &v[1], "a barrier number")?;
            if b == 0 || b > spec.barriers {
                return Err(url_err(
                    param,
                    format!("barrier {b} must be between 1 and {}", spec.barriers),
                ));
            }
            Ok(Fault::FailBeforeWritten {
                job: v[0].clone(),
                barrier: b,
            })
        }
        "failat" => {
            let v = split_at(param, item, 2, "JOB@STEP")?;
            job_ok(&v[0])?;
            Ok(Fault::FailAtStep {
                job: v[0].clone(),
                step: number(param, &v[1], "a step number")?,
            })
        }
        _ => {
            let v = split_at(param, item, 3, "TABLE@BARRIER@STEP")?;
            if !tables.contains(&v[0].as_str()) {
                return Err(url_err(
                    param,
                    format!(
                        "unknown table `{}` in topology `{}` (tables: {})",
                        v[0],
                        spec.name,
                        tables.join(", ")
                    ),
                ));
            }
            if no_barriers {
                return Err(url_err(param, "revision needs timestamp barriers".into()));
            }
            Ok(Fault::ReviseAtStep {
                table: v[0].clone(),
                barrier: number(param, &v[1], "a barrier number")?,
                step: number(param, &v[2], "a step number")?,
            })
        }
    }
}

/// Formats the state as a hash (with the leading `#`); `parse_topology(format(s)) == s`.
pub fn format_topology(state: &TopoUrl) -> String {
    let mut s = format!(
        "#mode=topology&topology={}&seed={}",
        state.topology, state.seed
    );
    if state.no_barriers {
        s.push_str("&nobarriers=1");
    }
    if state.per_checkpoint != 1 {
        s.push_str(&format!("&bpc={}", state.per_checkpoint));
    }
    let mut groups: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for f in &state.faults {
        let (k, v) = match f {
            Fault::FailBeforeWritten { job, barrier } => ("fail", format!("{job}@{barrier}")),
            Fault::FailAtStep { job, step } => ("failat", format!("{job}@{step}")),
            Fault::ReviseAtStep {
                table,
                barrier,
                step,
            } => ("revise", format!("{table}@{barrier}@{step}")),
            // Not produced by the dashboard (the CLI's `--revise`, a topology's own failure);
            // not expressible in a link.
            Fault::ReviseAfterWritten { .. } | Fault::FailAfterWritten { .. } => continue,
        };
        groups.entry(k).or_default().push(v);
    }
    for k in ["fail", "failat", "revise"] {
        if let Some(v) = groups.get(k) {
            s.push_str(&format!("&{k}={}", v.join(",")));
        }
    }
    if state.tour {
        s.push_str("&tour=1");
    }
    s.push_str(&format!(
        "&level={}&consistency={}&at={}",
        state.level.short(),
        consistency_short(state.consistency),
        state.at
    ));
    s
}
