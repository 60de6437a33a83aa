//! The recorded inputs of a topology run: the spec, the seed, the barriers issued and the
//! [`Fault`]s, checked against the topology before the world starts.

use serde::{Deserialize, Serialize};

use super::meta::MetaService;
use super::spec::{TopologyError, TopologySpec};

/// A recorded input; the same spec, seed and faults replay the same events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "fault", rename_all = "snake_case")]
pub enum Fault {
    /// The job fails after `barrier` is PRECOMMIT and before its sink table has WRITTEN it (the
    /// seed's roll-back case). If its snapshot is due earlier, the fault holds it until PRECOMMIT.
    /// A job whose table other jobs read (PRECOMMIT waits for its snapshot), and any job without
    /// barriers, fails after PROCESSED and before WRITTEN instead.
    FailBeforeWritten {
        /// Job.
        job: String,
        /// Barrier.
        barrier: u64,
    },
    /// The job fails right after event number `step` (the dashboard's "fail now").
    FailAtStep {
        /// Job.
        job: String,
        /// Events emitted before the failure.
        step: u64,
    },
    /// Revise barrier `barrier` of `table` as soon as the table has WRITTEN barrier `written`.
    ReviseAfterWritten {
        /// Table.
        table: String,
        /// Barrier revised.
        barrier: u64,
        /// Barrier whose snapshot triggers the revision.
        written: u64,
    },
    /// Revise barrier `barrier` of `table` right after event number `step`.
    ReviseAtStep {
        /// Table.
        table: String,
        /// Barrier revised.
        barrier: u64,
        /// Events emitted before the revision.
        step: u64,
    },
}

/// Everything that defines a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopologyRun {
    /// The topology.
    pub spec: TopologySpec,
    /// PRNG seed (generated CDC rows, commit users).
    pub seed: u64,
    /// Barriers issued (overrides `spec.barriers`).
    pub barriers: u64,
    /// Recorded faults.
    pub faults: Vec<Fault>,
}

/// Refuses a fault naming an unknown job or table, or a revision the run cannot perform.
pub(super) fn check_fault(
    spec: &TopologySpec,
    meta: &MetaService,
    f: &Fault,
) -> Result<(), TopologyError> {
    let bad = |field: &str, reason: String| {
        Err(TopologyError::Invalid {
            field: field.into(),
            reason,
        })
    };
    match f {
        Fault::FailBeforeWritten { job, .. } | Fault::FailAtStep { job, .. } => {
            if meta.job(job).is_none() {
                return bad("fail", format!("unknown job `{job}`"));
            }
        }
        Fault::ReviseAfterWritten { table, .. } | Fault::ReviseAtStep { table, .. } => {
            if meta.writer_of(table).is_none() {
                return bad("revise", format!("unknown table `{table}`"));
            }
            if spec.no_barriers {
                return bad(
                    "revise",
                    "revision needs timestamp barriers: without them barrier N of one table \
                     means nothing in the tables downstream"
                        .into(),
                );
            }
        }
    }
    if let Fault::ReviseAfterWritten {
        barrier, written, ..
    } = f
    {
        if *barrier == 0 || barrier > written || *written > spec.barriers {
            return bad(
                "revise",
                format!(
                    "barrier {barrier} must be between 1 and {written} ≤ {}",
                    spec.barriers
                ),
            );
        }
    }
    Ok(())
}
