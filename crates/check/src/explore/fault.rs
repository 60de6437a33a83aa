//! The faults the explorer adds besides crashes, the judgement of one explored run, and the
//! counterexample with the command that reproduces it.

use crate::oracle::Verdict;
use batchscope_engine::microbatch::scenario::{CrashPoint, Scenario};
use batchscope_engine::microbatch::scenario::{Fault as BatchFault, SplitSpec, Window};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A fault other than a driver crash, added to the scenario for one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Fault {
    /// Every sink write fails in `[from_ms, to_ms)`.
    SinkOutage {
        /// The batch whose task phase or sink commit the window starts at.
        batch_id: u64,
        /// Start (inclusive).
        from_ms: u64,
        /// End (exclusive).
        to_ms: u64,
    },
    /// Channel `channel` splits at `at_ms` (during batch `batch_id`'s trigger interval).
    PartitionSplit {
        /// The batch during whose interval the split happens.
        batch_id: u64,
        /// Parent channel index.
        channel: u32,
        /// When.
        at_ms: u64,
    },
    /// A failure inside a batch (`task-fail@3`, `foreach-fail@3`), as `--fault` arms it.
    InBatch {
        /// The fault.
        #[serde(with = "fault_name")]
        fault: BatchFault,
    },
}

/// A batch fault as its `KIND@N` name in JSON.
mod fault_name {
    use batchscope_engine::microbatch::scenario::Fault;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(f: &Fault, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(f)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Fault, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl Fault {
    /// Adds the fault to a scenario.
    pub fn apply(&self, scenario: &mut Scenario) {
        match *self {
            Fault::SinkOutage { from_ms, to_ms, .. } => {
                scenario.sink.outages.push(Window { from_ms, to_ms })
            }
            Fault::PartitionSplit { channel, at_ms, .. } => {
                scenario.upstream.splits.push(SplitSpec { channel, at_ms })
            }
            Fault::InBatch { fault } => scenario.faults.push(fault),
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::SinkOutage {
                batch_id,
                from_ms,
                to_ms,
            } => write!(f, "sink outage [{from_ms}, {to_ms}) ms (batch {batch_id})"),
            Fault::PartitionSplit {
                batch_id,
                channel,
                at_ms,
            } => write!(f, "split of ch{channel} at {at_ms} ms (batch {batch_id})"),
            Fault::InBatch { fault } => write!(f, "{fault}"),
        }
    }
}
/// The judgement of one explored run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// The crashes, in the order they fired (the scenario's crash list).
    pub crashes: Vec<CrashPoint>,
    /// Crashes after every event: the events the crashes fire after (the scenario's
    /// `crash_after_events`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub crash_after_events: Vec<u64>,
    /// The non-crash fault, if any.
    pub fault: Option<Fault>,
    /// The oracle's verdict.
    pub verdict: Verdict,
    /// Extra copies beyond the first.
    pub duplicates: u64,
    /// Expected records not visible.
    pub lost: u64,
    /// Sequence numbers of the crash-site events, in firing order (the "earliest" order).
    pub site_seqs: Vec<u64>,
}

impl Outcome {
    /// Number of faults: crashes plus the non-crash fault.
    pub fn depth(&self) -> u32 {
        (self.crashes.len() + self.crash_after_events.len()) as u32
            + u32::from(self.fault.is_some())
    }

    /// The crash schedule and fault in words: `crashes [task@0, after event #12] + task-fail@2`
    /// (`crashes []` for the run without failures).
    pub fn schedule(&self) -> String {
        let mut crashes: Vec<String> = self.crashes.iter().map(|p| p.to_string()).collect();
        crashes.extend(
            self.crash_after_events
                .iter()
                .map(|seq| format!("after event #{seq}")),
        );
        let fault = self.fault.map_or(String::new(), |f| format!(" + {f}"));
        format!("crashes [{}]{fault}", crashes.join(", "))
    }

    /// Orders counterexamples: fewest faults, crash-only first, then earliest.
    pub(crate) fn rank(&self) -> (u32, Option<Fault>, &[u64], &[CrashPoint]) {
        (self.depth(), self.fault, &self.site_seqs, &self.crashes)
    }

    /// The scenario that reproduces this run exactly (`base` is the explored scenario).
    pub fn scenario(&self, base: &Scenario) -> Scenario {
        run_scenario(
            base,
            &self.crashes,
            &self.crash_after_events,
            self.fault.as_ref(),
        )
    }
}

/// Bad outcomes kept in [`super::Summary::bad_runs`] (counts are always complete).
pub(crate) const MAX_BAD_RUNS_KEPT: usize = 10_000;

/// The scenario of an explored run: `base` with exactly these crash inputs (its own replaced)
/// and `fault` applied.
pub fn run_scenario(
    base: &Scenario,
    crashes: &[CrashPoint],
    crash_after_events: &[u64],
    fault: Option<&Fault>,
) -> Scenario {
    let mut s = base.clone();
    s.crashes = crashes.to_vec();
    s.crash_after_events = crash_after_events.to_vec();
    if let Some(f) = fault {
        f.apply(&mut s);
    }
    s
}

/// Where the explored scenario came from, for the reproducing command line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Origin {
    /// A built-in preset.
    Preset(String),
    /// A scenario file (its path as given).
    File(String),
}

/// The smallest run found for one bad verdict, and how to reproduce it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counterexample {
    /// The run.
    #[serde(flatten)]
    pub outcome: Outcome,
    /// The full scenario of the run (crashes and fault included).
    pub scenario: Scenario,
    /// How to reproduce it from a command line, once the scenario's origin is known (see
    /// [`Summary::with_commands`](crate::explore::Summary::with_commands)).
    #[serde(flatten)]
    pub reproduce: Option<Reproduce>,
}

/// The command line that reproduces a counterexample.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reproduce {
    /// The shell command.
    pub command: String,
    /// The arguments of `batchscope` (after writing the scenario to [`COUNTEREXAMPLE_FILE`]
    /// when there is a non-crash fault).
    pub run_args: Vec<String>,
}

/// The file name used by the reproducing command of a counterexample with a non-crash fault.
pub const COUNTEREXAMPLE_FILE: &str = "counterexample.json";

impl Counterexample {
    /// Arguments of `batchscope` that reproduce the run. Runs with crashes and batch faults use
    /// the preset or file plus `--crash` and `--fault` flags; runs with an outage, a split or a
    /// crash after an event (`crash_after_events`) need the scenario written to [`COUNTEREXAMPLE_FILE`] (`batchscope run` has no flag for those).
    pub fn run_args(&self, origin: &Origin) -> Vec<String> {
        if self.needs_file() {
            return vec!["run".into(), COUNTEREXAMPLE_FILE.into()];
        }
        let mut args = vec!["run".to_string()];
        match origin {
            Origin::Preset(name) => args.extend(["--preset".to_string(), name.clone()]),
            Origin::File(path) => args.push(path.clone()),
        }
        args.extend([
            "--seed".to_string(),
            self.scenario.seed.to_string(),
            "--batches".to_string(),
            self.scenario.batches.to_string(),
        ]);
        for c in &self.outcome.crashes {
            args.extend(["--crash".to_string(), c.to_string()]);
        }
        if let (Origin::File(_), Some(Fault::InBatch { fault })) = (origin, &self.outcome.fault) {
            args.extend(["--fault".to_string(), fault.to_string()]);
        }
        if let Origin::Preset(name) = origin {
            // Faults inside a batch (`task-fail@3`) the preset does not list itself; a file
            // lists its own.
            let mut own = batchscope_engine::microbatch::scenario::preset(name)
                .map(|p| p.faults)
                .unwrap_or_default();
            for f in &self.scenario.faults {
                match own.iter().position(|o| o == f) {
                    Some(i) => {
                        own.remove(i);
                    }
                    None => args.extend(["--fault".to_string(), f.to_string()]),
                }
            }
        }
        args
    }

    /// Whether reproducing needs the whole scenario in a file: an outage, a split or a crash
    /// after an event (no flag).
    fn needs_file(&self) -> bool {
        !self.outcome.crash_after_events.is_empty()
            || matches!(
                self.outcome.fault,
                Some(Fault::SinkOutage { .. } | Fault::PartitionSplit { .. })
            )
    }

    /// This counterexample with its command line filled in for `origin`.
    pub fn with_command(&self, origin: &Origin) -> Counterexample {
        Counterexample {
            reproduce: Some(Reproduce {
                command: self.command(origin),
                run_args: self.run_args(origin),
            }),
            ..self.clone()
        }
    }

    /// The shell command line that reproduces the run.
    pub fn command(&self, origin: &Origin) -> String {
        let args: Vec<String> = self
            .run_args(origin)
            .iter()
            .map(|a| shell_quote(a))
            .collect();
        let run = format!("batchscope {}", args.join(" "));
        if self.needs_file() {
            let json = serde_json::to_string(&self.scenario).expect("scenario serializes");
            format!(
                "echo {} > {COUNTEREXAMPLE_FILE} && {run}",
                shell_quote(&json)
            )
        } else {
            run
        }
    }
}

/// Quotes a word for a POSIX shell when it needs it.
fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_@./=:".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}
