//! The work budget of a scenario: how many records it generates and how many events a run of it
//! can take at most, computed from its settings alone, so that a scenario too big to run is
//! refused by validation instead of exhausting memory (a native abort, a dead browser tab).
//!
//! The limits, stated once here and in every refusal:
//! - every time field (`*_ms`, and `batches × trigger_interval_ms`) is at most [`MAX_TIME_MS`];
//! - every list (`crashes`, `crash_after_events`, `upstream.idle`, `upstream.bursts`,
//!   `upstream.splits`, `sink.outages`) holds at most [`MAX_LIST`] entries;
//! - `upstream.channels × upstream.records_per_batch × batches + Σ upstream.bursts[].records`
//!   is at most [`MAX_RECORDS`];
//! - the events a run can take ([`Work::events`], an upper estimate) are at most [`MAX_EVENTS`].
//!
//! The benchmark's scenario (1 M records over 256 channels, `benches/throughput.rs`) and every
//! preset stay well inside.

use super::spec::{invalid, Execution, Scenario, ScenarioError, SourceKind};

/// Largest value of any time field, and of the data's span `batches × trigger_interval_ms`
/// (10¹² ms, about 31 years of simulated time).
pub const MAX_TIME_MS: u64 = 1_000_000_000_000;
/// Most entries of any list in a scenario.
pub const MAX_LIST: usize = 4096;
/// Most records a scenario may generate.
pub const MAX_RECORDS: u64 = 2_000_000;
/// Most events a run of a scenario may take, by [`Work::events`].
pub const MAX_EVENTS: u64 = 5_000_000;

/// Events of one batch apart from its tasks: trigger, getOffset, offsets/N, source commit,
/// getBatch, addBatch, sink commit, commits/N, idle, restart and recovery steps, with room.
const EVENTS_PER_BATCH: u64 = 24;
/// Events per task of a batch: read, finish, Meta row, channel state, with room.
const EVENTS_PER_TASK: u64 = 4;
/// Events per SeaTunnel reader poll: poll, prepared file, sink commit, rename.
const EVENTS_PER_POLL: u64 = 4;

/// The work a scenario asks for, computed from its settings before it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Work {
    /// Records generated upstream.
    pub records: u64,
    /// Channels, split children included.
    pub channels: u64,
    /// Trigger intervals (batches or epochs) a run can span before it converges or is judged
    /// stuck: the data, the backlog a per-batch cap leaves, and the liveness bound after it.
    pub intervals: u64,
    /// An upper estimate of the events of a run (the step bound of a judged run).
    pub events: u64,
}

fn sat(x: u128) -> u64 {
    u64::try_from(x).unwrap_or(u64::MAX)
}

impl Scenario {
    /// The work this scenario asks for. Meaningful for a scenario whose time fields and lists
    /// are within [`MAX_TIME_MS`] and [`MAX_LIST`]; saturates rather than overflows otherwise.
    pub fn work(&self) -> Work {
        let u = &self.upstream;
        let bursts: u128 = u.bursts.iter().map(|b| u128::from(b.records)).sum();
        let per_channel = u128::from(u.records_per_batch) * u128::from(self.batches)
            + max_burst_per_channel(self);
        let records =
            u128::from(u.channels) * u128::from(u.records_per_batch) * u128::from(self.batches)
                + bursts;
        let channels = u128::from(u.channels) + 2 * u.splits.len() as u128;
        let trigger = u128::from(self.trigger_interval_ms.max(1));
        let drain = match rows_per_batch(self) {
            Some(rate) if rate > 0 => per_channel.div_ceil(rate),
            _ => 0,
        };
        let span_ms = u128::from(data_end_ms(self)) + stall_bound_ms(self);
        let restarts = (self.crashes.len()
            + self.crash_after_events.len()
            + self.sink.outages.len()
            + self.faults.len()) as u128
            + 2;
        let intervals = span_ms.div_ceil(trigger) + drain + restarts + 2;
        let mut events =
            intervals * (u128::from(EVENTS_PER_BATCH) + u128::from(EVENTS_PER_TASK) * channels);
        if self.source.kind == SourceKind::SeaTunnel {
            // Readers poll in turn, each poll `1000 / readers` ms apart, until the run ends.
            let poll_ms = (1000 / u128::from(u.channels.max(1))).max(1);
            events += span_ms.div_ceil(poll_ms) * u128::from(EVENTS_PER_POLL);
        }
        Work {
            records: sat(records),
            channels: sat(channels),
            intervals: sat(intervals),
            events: sat(events),
        }
    }

    /// Time fields, list lengths, records and events within the limits of this module.
    pub(super) fn validate_budget(&self) -> Result<(), ScenarioError> {
        self.validate_times()?;
        self.validate_lists()?;
        let work = self.work();
        if work.records > MAX_RECORDS {
            return Err(invalid(
                "upstream.records_per_batch",
                format!(
                    "upstream.channels × upstream.records_per_batch × batches + upstream.bursts[].records = {} records, over the budget of {MAX_RECORDS}",
                    work.records
                ),
            ));
        }
        if work.events > MAX_EVENTS {
            return Err(invalid(
                "scenario",
                format!(
                    "a run could take {} events (upstream.channels {} with splits × {} trigger intervals: batches, the backlog left by source.max_offsets_per_channel / max_offsets_per_trigger, and the liveness bound), over the budget of {MAX_EVENTS}",
                    work.events, work.channels, work.intervals
                ),
            ));
        }
        Ok(())
    }

    fn validate_times(&self) -> Result<(), ScenarioError> {
        let u = &self.upstream;
        let mut times: Vec<(String, u64)> = vec![
            ("trigger_interval_ms".into(), self.trigger_interval_ms),
            ("restart_delay_ms".into(), self.restart_delay_ms),
            ("restart.after_ms".into(), self.restart_delay()),
            ("source.idle_timeout_ms".into(), self.source.idle_timeout_ms),
            (
                "source.checkpoint_interval_ms".into(),
                self.source.checkpoint_interval_ms,
            ),
        ];
        for (name, windows) in [
            ("upstream.idle", &u.idle),
            ("sink.outages", &self.sink.outages),
        ] {
            for (i, w) in windows.iter().enumerate() {
                times.push((format!("{name}[{i}].to_ms"), w.to_ms));
            }
        }
        if let Some(ms) = self.source.retention_ms {
            times.push(("source.retention_ms".into(), ms));
        }
        for (i, b) in u.bursts.iter().enumerate() {
            times.push((format!("upstream.bursts[{i}].at_ms"), b.at_ms));
        }
        for (i, s) in u.splits.iter().enumerate() {
            times.push((format!("upstream.splits[{i}].at_ms"), s.at_ms));
        }
        if let Some((field, ms)) = times.into_iter().find(|(_, ms)| *ms > MAX_TIME_MS) {
            return Err(invalid(
                &field,
                format!("{ms} ms is over the limit of {MAX_TIME_MS} ms"),
            ));
        }
        let span = u128::from(self.batches) * u128::from(self.trigger_interval_ms);
        if span > u128::from(MAX_TIME_MS) {
            return Err(invalid(
                "batches",
                format!(
                    "batches × trigger_interval_ms = {span} ms is over the limit of {MAX_TIME_MS} ms"
                ),
            ));
        }
        Ok(())
    }

    fn validate_lists(&self) -> Result<(), ScenarioError> {
        let u = &self.upstream;
        let lists = [
            ("crashes", self.crashes.len()),
            ("faults", self.faults.len()),
            ("crash_after_events", self.crash_after_events.len()),
            ("upstream.idle", u.idle.len()),
            ("upstream.bursts", u.bursts.len()),
            ("upstream.splits", u.splits.len()),
            ("sink.outages", self.sink.outages.len()),
        ];
        match lists.into_iter().find(|(_, n)| *n > MAX_LIST) {
            Some((field, n)) => Err(invalid(
                field,
                format!("{n} entries, over the limit of {MAX_LIST}"),
            )),
            None => Ok(()),
        }
    }
}

/// Records of the largest burst total on one channel.
fn max_burst_per_channel(s: &Scenario) -> u128 {
    let mut by_channel = std::collections::BTreeMap::<u32, u128>::new();
    for b in &s.upstream.bursts {
        *by_channel.entry(b.channel).or_default() += u128::from(b.records);
    }
    by_channel.into_values().max().unwrap_or(0)
}

/// Rows one channel delivers per batch at most when it has a backlog; `None` when the source
/// reads everything that arrived (no backlog builds up), `Some(0)` when a batch can read nothing
/// (a ReadRecords page larger than the per-channel cap: the run is judged stuck).
fn rows_per_batch(s: &Scenario) -> Option<u128> {
    if s.execution == Execution::Continuous {
        return None;
    }
    match s.source.kind {
        SourceKind::ReplayableLog => (s.source.max_offsets_per_trigger > 0).then(|| {
            u128::from(s.source.max_offsets_per_trigger)
                .div_ceil(u128::from(s.upstream.channels.max(1)))
        }),
        SourceKind::SeaTunnel => None,
        SourceKind::Tablestore | SourceKind::PullAhead | SourceKind::AutoCommit => {
            let page = u128::from(s.source.page_size.max(1));
            Some(u128::from(s.source.max_offsets_per_channel) / page * page)
        }
    }
}

/// [`Scenario::data_end_ms`] without overflow.
fn data_end_ms(s: &Scenario) -> u64 {
    let bursts = s
        .upstream
        .bursts
        .iter()
        .map(|b| b.at_ms.saturating_add(1))
        .max()
        .unwrap_or(0);
    s.batches.saturating_mul(s.trigger_interval_ms).max(bursts)
}

/// The liveness bound of `batchscope_check::liveness::stall_bound_ms`, without overflow: 30
/// trigger intervals, a restart per crash and failure, and the outages.
fn stall_bound_ms(s: &Scenario) -> u128 {
    let restarts = (s.crashes.len() + s.crash_after_events.len() + s.faults.len() + 2) as u128
        * (u128::from(s.restart_delay()) + u128::from(s.trigger_interval_ms));
    let outages: u128 = s
        .sink
        .outages
        .iter()
        .map(|w| u128::from(w.to_ms.saturating_sub(w.from_ms)) + u128::from(s.restart_delay()))
        .sum();
    30 * u128::from(s.trigger_interval_ms) + restarts + outages
}
