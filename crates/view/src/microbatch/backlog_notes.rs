//! The step notes of the backlog crash loop: a task that runs out of memory, a restart with a
//! changed `maxOffsetsPerTrigger`, and the logged batch that keeps its range.

use batchscope_engine::microbatch::event::{Event, EventKind};
use batchscope_engine::microbatch::scenario::Scenario;

/// The note of an attempt out of memory or of a restart with a new limit; `None` for the rest.
pub fn note(event: &Event, scenario: &Scenario) -> Option<String> {
    Some(match event.kind {
        EventKind::TaskFailed {
            batch_id,
            partition,
            attempt,
            retried,
            oom_records,
            ..
        } if oom_records > 0 => out_of_memory(
            (batch_id, partition, attempt, retried),
            oom_records,
            scenario,
        ),
        EventKind::QueryStarted {
            created: false,
            max_offsets_per_trigger: Some(n),
            ..
        } => restarted_with_limit(n),
        _ => return None,
    })
}

/// The note of a task attempt that ran out of memory holding `held` records.
pub fn out_of_memory(
    (batch_id, partition, attempt, retried): (u64, u32, u32, bool),
    held: u64,
    scenario: &Scenario,
) -> String {
    let max = scenario.task_memory_records.unwrap_or(0);
    format!(
        "Attempt {attempt} of task {partition} in batch {batch_id} holds {held} records, over the {max} a task can hold: the executor runs out of memory and nothing reaches the sink. {}",
        if retried {
            "The retry reads the same range from offsets/ and fails the same way (spark.task.maxFailures)."
        } else {
            "That was the last attempt spark.task.maxFailures allows: the batch and the query fail."
        }
    )
}

/// The note of a restart after the `on_restart` change: the new limit, and what it cannot change.
pub fn restarted_with_limit(limit: u64) -> String {
    format!(
        "The query is restarted with maxOffsetsPerTrigger {limit}. The limit is read when Spark constructs a batch (latestOffset); a batch already in offsets/ is not constructed again: MicroBatchExecution.populateStartOffsets re-runs it with its logged range."
    )
}

/// What a re-run says when a changed limit is in force in `run`.
pub fn rerun_ignores_limit(scenario: &Scenario, run: u32, batch_id: u64) -> String {
    match scenario.on_restart {
        Some(c) if run > c.from && c.max_offsets_per_trigger.is_some() => format!(
            " maxOffsetsPerTrigger is {} now, but offsets/{batch_id} is final: the limit applies from batch {} on.",
            scenario.max_offsets_in_run(run),
            batch_id + 1
        ),
        _ => String::new(),
    }
}
