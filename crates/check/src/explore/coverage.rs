//! Coverage of the protocol's crash windows: which gaps between two consecutive protocol steps
//! a crash was placed in, which the explored runs passed without one, and which named crash
//! points never had a crash in their window.
//!
//! A *window* is named by the kinds of the event before the crash and of the event after it in
//! the run the crash forks from (`offset-log-written → source-commit`: after `offsets/N` is
//! written, before the previous batch's end is committed to the source), or `end` after the
//! last event. A named crash point (`commit-log@3`) fires after its site event, so it lies in
//! the window that starts with that event; a point is reached when a crash went into one of
//! its windows.

use batchscope_engine::microbatch::scenario::CrashKind;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// A window: the kinds of the events on either side.
type Gap = (&'static str, &'static str);

/// A window a crash went into, with how many explored runs crashed there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrashWindow {
    /// Kind of the event before the crash (`offset-log-written`).
    pub before: String,
    /// Kind of the event after it in the run the crash forks from, or `end`.
    pub after: String,
    /// Runs (not counting de-duplicated ones' descendants) whose last crash went here.
    pub crashes: u64,
    /// Named crash points whose sites lie in this window.
    pub points: Vec<String>,
}

/// Whether a named crash point was reached.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PointCoverage {
    /// The point's name (`commit-log`).
    pub point: String,
    /// Distinct windows its sites lie in (zero: no run reached a site of it).
    pub windows: u64,
    /// Whether a crash went into one of them.
    pub reached: bool,
}

/// The coverage report (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coverage {
    /// Every window a crash went into, by name.
    pub windows: Vec<CrashWindow>,
    /// Windows the explored runs passed through that no crash went into: the driver was down
    /// (between a crash and the restart), or the window occurs only in runs at the full depth.
    pub never_crashed: Vec<(String, String)>,
    /// Every named crash point, in protocol order.
    pub points: Vec<PointCoverage>,
    /// The named crash points never reached (no crash in any of their windows).
    pub unreached: Vec<String>,
}

/// What the runs so far covered.
#[derive(Clone, Debug, Default)]
pub(crate) struct Tally {
    crashed: BTreeMap<Gap, u64>,
    seen: BTreeSet<Gap>,
    named: BTreeMap<&'static str, BTreeSet<Gap>>,
}

/// A [`Tally`] as a shard's report carries it (JSON has no tuple keys).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawTally {
    /// Windows a crash went into, with the runs that crashed there: (before, after, runs).
    pub crashed: Vec<(String, String, u64)>,
    /// Windows the runs passed.
    pub seen: Vec<(String, String)>,
    /// Per named crash point, the windows its sites lie in.
    pub named: Vec<(String, Vec<(String, String)>)>,
}

fn owned(g: &Gap) -> (String, String) {
    (g.0.to_string(), g.1.to_string())
}

/// A name read back from a shard's report, as the `'static` name the tally keys by: leaked (a
/// merge, once per command, reads a few hundred names of the protocol's few steps).
fn name(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

fn from_owned((a, b): &(String, String)) -> Gap {
    (name(a), name(b))
}

impl Tally {
    /// Adds a finished run's gaps and named sites, and the windows of the crashes queued after it.
    pub(crate) fn add(
        &mut self,
        gaps: &[Gap],
        named: &[(&'static str, Gap)],
        crashes: impl Iterator<Item = Gap>,
    ) {
        self.seen.extend(gaps.iter().copied());
        for (point, gap) in named {
            self.named.entry(point).or_default().insert(*gap);
        }
        for gap in crashes {
            *self.crashed.entry(gap).or_insert(0) += 1;
        }
    }

    /// The tally as a shard's report carries it.
    pub(crate) fn raw(&self) -> RawTally {
        RawTally {
            crashed: self
                .crashed
                .iter()
                .map(|(g, &n)| (g.0.to_string(), g.1.to_string(), n))
                .collect(),
            seen: self.seen.iter().map(owned).collect(),
            named: self
                .named
                .iter()
                .map(|(p, gaps)| (p.to_string(), gaps.iter().map(owned).collect()))
                .collect(),
        }
    }

    /// A tally read back from a shard's report.
    pub(crate) fn from_raw(raw: &RawTally) -> Tally {
        let mut t = Tally::default();
        t.union(raw);
        for (a, b, n) in &raw.crashed {
            t.crashed.insert((name(a), name(b)), *n);
        }
        t
    }

    /// Adds another shard's windows passed and named sites (sets: a union). The crash counts
    /// are not added: only runs with children place crashes, and every shard runs those.
    pub(crate) fn union(&mut self, raw: &RawTally) {
        self.seen.extend(raw.seen.iter().map(from_owned));
        for (point, gaps) in &raw.named {
            self.named
                .entry(name(point))
                .or_default()
                .extend(gaps.iter().map(from_owned));
        }
    }

    /// The report.
    pub(crate) fn coverage(&self) -> Coverage {
        let points_in = |gap: &Gap| -> Vec<String> {
            CrashKind::ALL
                .iter()
                .map(|k| k.name())
                .filter(|k| self.named.get(k).is_some_and(|g| g.contains(gap)))
                .map(str::to_string)
                .collect()
        };
        let windows = self
            .crashed
            .iter()
            .map(|(gap, &crashes)| CrashWindow {
                before: gap.0.to_string(),
                after: gap.1.to_string(),
                crashes,
                points: points_in(gap),
            })
            .collect();
        let never_crashed = self
            .seen
            .iter()
            .filter(|g| !self.crashed.contains_key(*g))
            .map(|g| (g.0.to_string(), g.1.to_string()))
            .collect();
        let points: Vec<PointCoverage> = CrashKind::ALL
            .iter()
            .map(|k| {
                let gaps = self.named.get(k.name());
                PointCoverage {
                    point: k.name().to_string(),
                    windows: gaps.map_or(0, |g| g.len() as u64),
                    reached: gaps.is_some_and(|g| g.iter().any(|w| self.crashed.contains_key(w))),
                }
            })
            .collect();
        let unreached = points
            .iter()
            .filter(|p| !p.reached)
            .map(|p| p.point.clone())
            .collect();
        Coverage {
            windows,
            never_crashed,
            points,
            unreached,
        }
    }
}
