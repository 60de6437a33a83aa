//! The confs a restart restores from the offset log: `OffsetSeqMetadata.setSessionConf`
//! sets every conf of the latest offset entry's `conf` map in the session that runs the
//! batches, over whatever the restarted query set (SPARK-19873, apache/spark#17216).
//!
//! Since SPARK-53942 (apache/spark#52645) the checkpoint's `spark.sql.shuffle.partitions`
//! goes into the internal `spark.sql.streaming.internal.stateStore.partitions` (the state's
//! partitions stay fixed) while the session's value applies to stateless shuffles again.
//! Observed on Spark 4.3.0 and, the old way, on 3.5.9 (conformance row
//! `shuffle-partitions-changed`); that the change came with 4.1 is inferred from the PR's date.

use super::offsets::OffsetLogEntry;
use super::restart::SparkVersion;
use serde::{Deserialize, Serialize};

/// `spark.sql.shuffle.partitions`, the conf the offset log has recorded since Spark 2.2.
pub const SHUFFLE_PARTITIONS: &str = "spark.sql.shuffle.partitions";

/// Where Spark 4.1+ restores the checkpoint's shuffle partitions
/// (`SQLConf.STATEFUL_SHUFFLE_PARTITIONS_INTERNAL`).
pub const STATE_PARTITIONS_INTERNAL: &str = "spark.sql.streaming.internal.stateStore.partitions";

/// One conf the restart takes from the offset log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestoredConf {
    /// The key in the offset entry's `conf` map.
    pub key: String,
    /// Its value there: what the restarted query runs with, whatever its session says.
    pub value: String,
    /// The session conf Spark sets to it (the key itself, or the internal state-partitions
    /// conf for the shuffle partitions on 4.1+).
    pub session_key: String,
}

/// The session conf that Spark sets from the checkpoint's `key`.
pub fn session_key(key: &str, spark: SparkVersion) -> &str {
    if key == SHUFFLE_PARTITIONS && spark.at_least(4, 1) {
        STATE_PARTITIONS_INTERNAL
    } else {
        key
    }
}

/// Every conf of the latest offset entry's metadata, which the restart restores (fresh
/// queries restore none: there is no entry).
pub fn restored_confs(latest: Option<&OffsetLogEntry>, spark: SparkVersion) -> Vec<RestoredConf> {
    let Some(conf) = latest
        .and_then(|entry| entry.metadata.as_ref())
        .and_then(|metadata| metadata.conf.as_ref())
    else {
        return Vec::new();
    };
    conf.iter()
        .map(|(key, value)| RestoredConf {
            key: key.clone(),
            value: value.clone(),
            session_key: session_key(key, spark).to_owned(),
        })
        .collect()
}

/// Adds a restart step naming the confs the restart restores, when there are any.
pub fn explain_confs(confs: &[RestoredConf], latest: Option<u64>, steps: &mut Vec<String>) {
    let (Some(first), Some(latest)) = (confs.first(), latest) else {
        return;
    };
    let shown = confs
        .iter()
        .find(|c| c.key == SHUFFLE_PARTITIONS)
        .unwrap_or(first);
    let into = if shown.session_key == shown.key {
        String::new()
    } else {
        format!(" (set as {}: stateful operators keep the checkpoint's partitions, stateless shuffles take the session's value)", shown.session_key)
    };
    steps.push(format!(
        "The session takes {} conf(s) from offsets/{}'s metadata over whatever the restarted query set (OffsetSeqMetadata.setSessionConf), among them {}={}{into}.",
        confs.len(),
        latest,
        shown.key,
        shown.value,
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffle_partitions_go_to_the_internal_conf_from_4_1() {
        let old = SparkVersion { major: 3, minor: 5 };
        assert_eq!(session_key(SHUFFLE_PARTITIONS, old), SHUFFLE_PARTITIONS);
        assert_eq!(
            session_key(SHUFFLE_PARTITIONS, SparkVersion::LATEST),
            STATE_PARTITIONS_INTERNAL
        );
        let other = "spark.sql.streaming.multipleWatermarkPolicy";
        assert_eq!(session_key(other, SparkVersion::LATEST), other);
    }
}
