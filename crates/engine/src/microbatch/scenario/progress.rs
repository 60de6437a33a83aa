//! Asynchronous progress tracking (`asyncProgressTrackingEnabled`, Spark 3.4+, apache/spark PR
//! #38517): the offset and commit logs written off the batch's path, at most once per interval.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `"async_progress": {"checkpoint_interval_ms": 1000}`: the query runs with
/// `asyncProgressTrackingEnabled` and `asyncProgressTrackingCheckpointIntervalMs`
/// (`AsyncProgressTrackingMicroBatchExecution`). Spark accepts it only with a processing-time
/// trigger, a stateless query and a sink it names (Kafka, console, memory, noop): here the
/// Kafka-like log into an append sink (a Kafka topic).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AsyncProgress {
    /// `asyncProgressTrackingCheckpointIntervalMs` (Spark's default 1000; 0 writes every entry).
    #[serde(default = "default_interval_ms")]
    pub checkpoint_interval_ms: u64,
}

fn default_interval_ms() -> u64 {
    1_000
}

impl AsyncProgress {
    /// Whether batch N's `offsets/N` is written (`AsyncOffsetSeqLog.addAsync`): the first entry
    /// of a run (`lastCommitIssuedTimestampMs` is -1), then once `checkpoint_interval_ms` has
    /// passed since the last write was issued; an interval of 0 writes every entry. The others
    /// stay in the driver's memory (`batchCache`).
    pub fn writes_offsets(&self, last_issued_ms: Option<u64>, now_ms: u64) -> bool {
        match last_issued_ms {
            Some(last) if self.checkpoint_interval_ms > 0 => {
                last + self.checkpoint_interval_ms <= now_ms
            }
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_entry_of_a_run_is_written_then_one_per_interval() {
        let a = AsyncProgress {
            checkpoint_interval_ms: 1_000,
        };
        assert!(a.writes_offsets(None, 5));
        assert!(!a.writes_offsets(Some(100), 1_099));
        assert!(a.writes_offsets(Some(100), 1_100));
        let every = AsyncProgress {
            checkpoint_interval_ms: 0,
        };
        assert!(every.writes_offsets(Some(100), 100));
    }
}
