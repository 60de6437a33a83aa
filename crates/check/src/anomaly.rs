//! The parts of a bad verdict and the moments of a run, as the report carries them (filled by
//! [`crate::why::explain`]).

use batchscope_engine::microbatch::event::Event;
use batchscope_engine::microbatch::trace;
use batchscope_engine::microbatch::upstream::RowKey;
use serde::{Deserialize, Serialize};

/// The name of an anomaly (`duplicate` in JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AnomalyName {
    /// Keys visible more than once.
    Duplicate,
    /// Expected keys missing at the end, lost by the protocol.
    Lost,
    /// Expected keys missing because retention deleted them from the log before a task read
    /// them (`failOnDataLoss` false skipped them).
    AgedOut,
    /// Running-sum keys with a wrong value.
    WrongValue,
    /// Keys a query stopped for good never delivered (still upstream).
    UnreadAfterStop,
    /// The run did not converge.
    Stuck,
}

impl AnomalyName {
    /// The stable name (`unread-after-stop`).
    pub fn as_str(self) -> &'static str {
        match self {
            AnomalyName::Duplicate => "duplicate",
            AnomalyName::Lost => "lost",
            AnomalyName::AgedOut => "aged-out",
            AnomalyName::WrongValue => "wrong-value",
            AnomalyName::UnreadAfterStop => "unread-after-stop",
            AnomalyName::Stuck => "stuck",
        }
    }
}

/// One part of a bad verdict, with its proof.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Anomaly {
    /// What is wrong.
    pub name: AnomalyName,
    /// The keys it concerns, in key order (as text in JSON: `ch0-17`).
    pub keys: Vec<RowKey>,
    /// The trace events that prove it (their `seq`, `#N` in the text trace), ascending.
    pub events: Vec<u64>,
}

/// The events whose task skipped records retention had deleted: the proof of `aged-out`.
pub fn aged_out_proof(events: &[Event]) -> std::collections::BTreeSet<u64> {
    use batchscope_engine::microbatch::event::EventKind;
    let skipped =
        |e: &&Event| matches!(e.kind, EventKind::TaskRead { aged_out, .. } if aged_out > 0);
    events.iter().filter(skipped).map(|e| e.seq).collect()
}

/// One event of the trace, named by its number and its text line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Moment {
    /// The event's `seq`.
    pub event: u64,
    /// Its line in the text trace.
    pub line: String,
}

impl Moment {
    /// The moment of event `e`.
    pub fn of(e: &Event) -> Moment {
        Moment {
            event: e.seq,
            line: trace::line(e),
        }
    }
}

/// When a bad run's outcome was sealed, in one sentence, from a report's `inevitable_at` and
/// `avoidable_until` (made by `why::explain`); `None` when neither is known. `events` is the
/// run's trace.
pub fn when_text(
    inevitable_at: Option<&Moment>,
    avoidable_until: Option<&Moment>,
    events: &[Event],
) -> Option<String> {
    let label = |m: &Moment| {
        let kind = events.get(m.event as usize).map(|e| e.kind.label());
        format!("#{} `{}`", m.event, kind.unwrap_or_default())
    };
    match (inevitable_at, avoidable_until) {
        (Some(at), Some(until)) => Some(format!(
            "bad for good from {} on (no failure-free continuation after it is exactly-once); still avoidable at {} (running on from there with no further failure is exactly-once)",
            label(at),
            label(until)
        )),
        (Some(at), None) => Some(format!(
            "bad for good from {} on (even the failure-free continuation after the first event is bad)",
            label(at)
        )),
        _ => None,
    }
}
