//! What a scenario implies beyond its fields: the `maxOffsetsPerTrigger` in force in a run (an
//! `on_restart` change), the Spark release, how long a restart waits, and the same scenario without failures.

use super::fault::{OnRestart, Restart};
use super::spec::Scenario;

impl Scenario {
    /// `maxOffsetsPerTrigger` in run `run` (1 = the first start): the `on_restart` change's
    /// from its restart on, else the source's.
    pub fn max_offsets_in_run(&self, run: u32) -> u64 {
        match self.on_restart {
            Some(OnRestart {
                from,
                max_offsets_per_trigger: Some(limit),
                ..
            }) if run > from => limit,
            _ => self.source.max_offsets_per_trigger,
        }
    }

    /// Async progress tracking in run `run`: the scenario's, unless an `on_restart` change
    /// turned it off from its restart on.
    pub fn async_progress_in_run(&self, run: u32) -> Option<super::AsyncProgress> {
        match self.on_restart {
            Some(c) if run > c.from && c.async_progress == Some(false) => None,
            _ => self.async_progress,
        }
    }

    /// How many sources the query reads in run `run`, when an `on_restart` change set it
    /// (`None`: the scenario's one source).
    pub fn sources_in_run(&self, run: u32) -> Option<u32> {
        let change = self.on_restart?;
        change.sources.filter(|_| run > change.from)
    }

    /// The Spark release of [`Scenario::spark_version`] (4.3 when absent).
    pub fn spark(&self) -> crate::checkpoint::SparkVersion {
        self.spark_version
            .as_deref()
            .and_then(crate::checkpoint::SparkVersion::parse)
            .unwrap_or_default()
    }

    /// How long a failed or crashed query stays down before it is restarted: the `restart`
    /// setting's delay, else `restart_delay_ms` (also the bound's unit when nobody restarts).
    pub fn restart_delay(&self) -> u64 {
        match self.restart {
            Some(Restart::After { after_ms }) => after_ms,
            _ => self.restart_delay_ms,
        }
    }

    /// The same scenario with every failure removed — no crash points, no crash after N
    /// events, no faults, no sink outages: the run the oracle and the explorer compare with.
    /// What the query is (a memory budget, a change at a restart) stays.
    pub fn failure_free(&self) -> Scenario {
        let mut clean = self.clone();
        clean.crashes.clear();
        clean.crash_after_events.clear();
        clean.faults.clear();
        clean.sink.outages.clear();
        clean
    }
}
