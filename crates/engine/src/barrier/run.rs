//! The recorded inputs of a topology run: the spec, the seed, the barriers issued and the
//! [`Fault`]s, checked against the topology before the world starts.

use serde::{Deserialize, Serialize};

pub use super::fault::Fault;
use super::meta::MetaService;
use super::spec::{TopologyError, TopologySpec};

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
        Fault::FailBeforeWritten { job, .. }
        | Fault::FailAfterWritten { job, .. }
        | Fault::FailAtStep { job, .. } => {
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
