//! A recorded failure or revision of a topology run ([`Fault`]): what `--fail`, `--revise`, a
//! link's `fail=` and a topology file's `faults` record, replayed at the same moment.

use serde::{Deserialize, Serialize};

/// A recorded input; the same spec, seed and faults replay the same events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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
    /// The job fails right after its sink table has WRITTEN `barrier` (its checkpoint holds the
    /// barrier; a two-phase sink has pre-committed its transaction), before anything else
    /// happens: the commit of that barrier waits for the restart.
    FailAfterWritten {
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
