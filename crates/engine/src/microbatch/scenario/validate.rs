//! Scenario validation: the ranges and combinations serde cannot check, each error naming
//! the field and the reason.

use super::fault::{FaultKind, Restart};
use super::spec::{
    invalid, Execution, ReaderEnd, Scenario, ScenarioError, SinkKind, SourceApi, SourceKind,
    MAX_BATCHES, MAX_CHANNELS,
};
use crate::checkpoint::SparkVersion;

impl Scenario {
    /// Checks the values that serde cannot: ranges and combinations. The first problem is
    /// reported, in the order below.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        self.validate_sizes()?;
        self.validate_source()?;
        self.validate_retention()?;
        self.validate_memory_and_restart()?;
        self.validate_upstream()?;
        self.validate_execution()?;
        self.validate_faults()?;
        self.validate_async_progress()?;
        self.validate_budget()
    }

    /// Channels, batches and the trigger interval are within bounds.
    fn validate_sizes(&self) -> Result<(), ScenarioError> {
        let u = &self.upstream;
        if u.channels == 0 || u.channels > MAX_CHANNELS {
            return Err(invalid(
                "upstream.channels",
                format!("must be between 1 and {MAX_CHANNELS}, got {}", u.channels),
            ));
        }
        if self.batches == 0 || self.batches > MAX_BATCHES {
            return Err(invalid(
                "batches",
                format!("must be between 1 and {MAX_BATCHES}, got {}", self.batches),
            ));
        }
        if self.trigger_interval_ms == 0 {
            return Err(invalid("trigger_interval_ms", "must be greater than 0"));
        }
        Ok(())
    }

    /// The source's options, and the sink SeaTunnel needs.
    fn validate_source(&self) -> Result<(), ScenarioError> {
        if self.source.page_size == 0 {
            return Err(invalid("source.page_size", "must be greater than 0"));
        }
        if self.source.kind == SourceKind::SeaTunnel && self.source.reader != ReaderEnd::Never {
            if self.source.idle_timeout_ms == 0 {
                return Err(invalid("source.idle_timeout_ms", "must be greater than 0"));
            }
            if self.source.checkpoint_interval_ms == 0 {
                return Err(invalid(
                    "source.checkpoint_interval_ms",
                    "must be greater than 0",
                ));
            }
        }
        if let Some(api) = self.source.api {
            if self.source.kind != SourceKind::ReplayableLog
                && api != self.source.kind.default_api()
            {
                return Err(invalid(
                    "source.api",
                    format!(
                        "only the Kafka-like log (`replayable-log`) has both APIs; this source is a {} source",
                        match self.source.kind.default_api() {
                            SourceApi::V1 => "V1 `Source` (getOffset/getBatch)",
                            SourceApi::V2 => "V2 `MicroBatchStream`",
                        }
                    ),
                ));
            }
        }
        if self.source.kind == SourceKind::SeaTunnel
            && !matches!(self.sink.kind, SinkKind::Append | SinkKind::Upsert)
        {
            return Err(invalid(
                "sink.kind",
                "the SeaTunnel presets write through SeaTunnel's sink writer, modelled as an append sink (`append`) or an idempotent one (`upsert`)",
            ));
        }
        if !self.sink.value.is_record() && self.sink.kind != SinkKind::Upsert {
            return Err(invalid(
                "sink.value",
                "a running sum is kept by an upsert sink: use `\"kind\": \"upsert\"` with it",
            ));
        }
        if self.source.max_offsets_per_channel == 0 {
            return Err(invalid(
                "source.max_offsets_per_channel",
                "must be greater than 0",
            ));
        }
        Ok(())
    }

    /// Retention and `failOnDataLoss` are the Kafka-like log's, in micro-batches.
    fn validate_retention(&self) -> Result<(), ScenarioError> {
        let log = self.source.kind == SourceKind::ReplayableLog;
        if !self.source.fail_on_data_loss && !log {
            return Err(invalid(
                "source.fail_on_data_loss",
                "only the Kafka-like log (`replayable-log`) has it",
            ));
        }
        let Some(retention_ms) = self.source.retention_ms else {
            return Ok(());
        };
        if !log {
            return Err(invalid(
                "source.retention_ms",
                "only the Kafka-like log (`replayable-log`) has it",
            ));
        }
        if self.execution == Execution::Continuous {
            return Err(invalid("source.retention_ms", "micro-batches only"));
        }
        if retention_ms == 0 {
            return Err(invalid("source.retention_ms", "must be greater than 0"));
        }
        Ok(())
    }

    /// A task memory budget is for micro-batch tasks; a change at a restart names the Kafka-like
    /// log's `maxOffsetsPerTrigger` and a real restart.
    fn validate_memory_and_restart(&self) -> Result<(), ScenarioError> {
        let tasks =
            self.execution == Execution::MicroBatch && self.source.kind != SourceKind::SeaTunnel;
        if let Some(max) = self.task_memory_records {
            if max == 0 {
                return Err(invalid("task_memory_records", "must be greater than 0"));
            }
            if !tasks {
                return Err(invalid(
                    "task_memory_records",
                    "modelled for micro-batch tasks only (not continuous mode nor SeaTunnel's readers)",
                ));
            }
        }
        let Some(change) = self.on_restart else {
            return Ok(());
        };
        if change.from == 0 {
            return Err(invalid(
                "on_restart.from",
                "must be at least 1 (the first restart)",
            ));
        }
        if change.max_offsets_per_trigger.is_none()
            && change.sources.is_none()
            && change.async_progress.is_none()
        {
            return Err(invalid(
                "on_restart",
                "changes nothing: give max_offsets_per_trigger, sources or async_progress",
            ));
        }
        if change.async_progress == Some(true)
            || (change.async_progress.is_some() && self.async_progress.is_none())
        {
            return Err(invalid(
                "on_restart.async_progress",
                "only false is modelled, and only when the scenario has async_progress (turning it on at a restart: give async_progress from the start)",
            ));
        }
        if change.max_offsets_per_trigger.is_some()
            && (self.source.kind != SourceKind::ReplayableLog
                || self.execution != Execution::MicroBatch)
        {
            return Err(invalid(
                "on_restart.max_offsets_per_trigger",
                "only the Kafka-like log (`replayable-log`) in micro-batches has maxOffsetsPerTrigger",
            ));
        }
        if change.sources == Some(0)
            || (change.sources.is_some() && self.execution != Execution::MicroBatch)
        {
            return Err(invalid(
                "on_restart.sources",
                "must be at least 1, in micro-batches (a continuous restart reads the commit log alone)",
            ));
        }
        Ok(())
    }

    /// Idle windows, outages, bursts and splits name real channels and real intervals.
    fn validate_upstream(&self) -> Result<(), ScenarioError> {
        let u = &self.upstream;
        for (i, w) in u.idle.iter().chain(self.sink.outages.iter()).enumerate() {
            if w.from_ms >= w.to_ms {
                let field = if i < u.idle.len() {
                    format!("upstream.idle[{i}]")
                } else {
                    format!("sink.outages[{}]", i - u.idle.len())
                };
                return Err(invalid(
                    &field,
                    format!("from_ms {} must be before to_ms {}", w.from_ms, w.to_ms),
                ));
            }
        }
        for (i, b) in u.bursts.iter().enumerate() {
            if b.channel >= u.channels {
                return Err(invalid(
                    &format!("upstream.bursts[{i}].channel"),
                    format!(
                        "channel {} does not exist (channels: {})",
                        b.channel, u.channels
                    ),
                ));
            }
        }
        let mut split_parents = std::collections::BTreeSet::new();
        for (i, s) in u.splits.iter().enumerate() {
            let field = format!("upstream.splits[{i}]");
            if !self.source.kind.uses_tunnel() {
                return Err(invalid(
                    &field,
                    "partition splits need a Tunnel-based source (tablestore, pull-ahead, auto-commit); a Kafka-like log does not split partitions, nor do SeaTunnel's subtasks",
                ));
            }
            if s.channel >= u.channels {
                return Err(invalid(
                    &format!("{field}.channel"),
                    format!(
                        "channel {} does not exist (channels: {})",
                        s.channel, u.channels
                    ),
                ));
            }
            if !split_parents.insert(s.channel) {
                return Err(invalid(
                    &format!("{field}.channel"),
                    format!("channel {} is split twice", s.channel),
                ));
            }
        }
        Ok(())
    }

    /// Continuous processing and foreachBatch combinations.
    fn validate_execution(&self) -> Result<(), ScenarioError> {
        if self.execution == Execution::Continuous {
            if self.source.kind != SourceKind::ReplayableLog {
                return Err(invalid(
                    "source.kind",
                    "continuous processing supports only a Kafka-like replayable-log source (Spark: Kafka and rate sources)",
                ));
            }
            if !matches!(self.sink.kind, SinkKind::Append | SinkKind::Upsert) {
                return Err(invalid(
                    "sink.kind",
                    "continuous processing writes through DataWriters committed per epoch: use an append (Kafka-like) or upsert sink; file and foreachBatch sinks are micro-batch only",
                ));
            }
        }
        if self.sink.kind == SinkKind::ForeachBatch && self.sink.stores == 0 {
            return Err(invalid(
                "sink.stores",
                "a foreachBatch sink needs at least one store",
            ));
        }
        Ok(())
    }

    /// Faults fit the source, the sink and the execution they fail in.
    fn validate_faults(&self) -> Result<(), ScenarioError> {
        if let Some(v) = &self.spark_version {
            if SparkVersion::parse(v).is_none() {
                return Err(invalid(
                    "spark_version",
                    format!(
                        "`{}` is not a Spark release like \"3.5\" or \"4.3\"",
                        crate::spec_json::printable(v)
                    ),
                ));
            }
        }
        if self.task_max_failures == 0 {
            return Err(invalid(
                "task_max_failures",
                "must be at least 1 (spark.task.maxFailures counts attempts)",
            ));
        }
        for (i, fault) in self.faults.iter().enumerate() {
            let field = format!("faults[{i}]");
            match fault.kind {
                FaultKind::TaskFail if self.execution == Execution::Continuous => {
                    return Err(invalid(
                        &field,
                        format!("{fault}: continuous mode does not retry tasks (Spark's ContinuousTaskRetryException stops the query at a task's first failure); task-fail is modelled for micro-batches only"),
                    ));
                }
                FaultKind::TaskFail if self.source.kind == SourceKind::SeaTunnel => {
                    return Err(invalid(
                        &field,
                        format!(
                            "{fault}: SeaTunnel readers are not retried in this model; use a crash"
                        ),
                    ));
                }
                FaultKind::TornOffsetLog | FaultKind::MetadataLost | FaultKind::SecondDriver
                    if self.execution == Execution::Continuous =>
                {
                    return Err(invalid(
                        &field,
                        format!("{fault}: modelled for micro-batches only (a continuous restart reads the commit log alone)"),
                    ));
                }
                FaultKind::SecondDriver if self.restart == Some(Restart::None) => {
                    return Err(invalid(
                        &field,
                        format!("{fault}: the second driver is started by a job scheduler; with restart none nobody starts it"),
                    ));
                }
                FaultKind::ForeachFail if self.sink.kind != SinkKind::ForeachBatch => {
                    return Err(invalid(
                        &field,
                        format!("{fault}: needs a foreachBatch sink (sink.kind `foreach-batch`)"),
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Async progress tracking where Spark accepts it: micro-batches (not continuous), and a
    /// sink Spark names (`validateAndGetTrigger`: Kafka, console, memory, noop; modelled as
    /// the append sink, a Kafka topic); modelled for the Kafka-like log only.
    pub(super) fn validate_async_progress(&self) -> Result<(), ScenarioError> {
        if self.async_progress.is_none() {
            return Ok(());
        }
        if self.execution != Execution::MicroBatch || self.source.kind != SourceKind::ReplayableLog
        {
            return Err(invalid(
                "async_progress",
                "modelled for the Kafka-like log (`replayable-log`) in micro-batches",
            ));
        }
        if self.sink.kind != SinkKind::Append {
            return Err(invalid(
                "async_progress",
                format!(
                    "Spark refuses it: \"Sink {} does not support async progress tracking\" (only Kafka, console, memory and noop sinks do; here `append`, a Kafka topic)",
                    self.sink.kind
                ),
            ));
        }
        Ok(())
    }
}
