//! `state/<operatorId>/<partitionId>/…`: the state store files of stateful operators,
//! counted per operator with the latest version (contents are binary and not read).
//!
//! File names, from `HDFSBackedStateStoreProvider` and `RocksDBFileManager`: `<v>.delta`
//! and `<v>.snapshot` (HDFS provider), `<v>.changelog` and `<v>.zip` (RocksDB, with
//! changelog checkpointing or without), each optionally `<v>_<uniqueId>.<ext>` with
//! state checkpoint format v2 (`stateUniqueIds` in the commit log). Stores other than
//! `default` (stream-stream joins) sit one folder deeper; RocksDB keeps its SST files in
//! `SSTs/`; `_metadata/` holds operator metadata. Version `v` is written by batch `v-1`.

use super::folder::CheckpointFolder;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Directory of state store files inside the checkpoint root.
pub const STATE_DIR: &str = "state";

/// What the `state/` folder holds for one stateful operator.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateOperator {
    /// The operator id (the folder name under `state/`).
    pub operator_id: u64,
    /// Number of partition folders.
    pub partitions: u32,
    /// Store names other than `default` (e.g. the four stores of a stream-stream join).
    pub stores: Vec<String>,
    /// Every file below the operator's folder.
    pub files: u64,
    /// Versioned files by kind: `delta`, `snapshot`, `changelog`, `zip`.
    pub by_kind: BTreeMap<String, u64>,
    /// The highest state version of any partition; `None` without versioned files.
    pub latest_version: Option<u64>,
    /// The lowest of the partitions' latest versions (equal to `latest_version` when every
    /// partition committed the same batch).
    pub min_partition_version: Option<u64>,
    /// Whether versioned file names carry unique ids (state checkpoint format v2).
    pub checkpoint_ids: bool,
}

/// Reads every operator folder below `state/`, sorted by operator id; the second list
/// names files that fit no known layout (report lines, not errors).
pub fn state_operators(folder: &CheckpointFolder) -> (Vec<StateOperator>, Vec<String>) {
    let mut operators: BTreeMap<u64, Scan> = BTreeMap::new();
    let mut unknown = Vec::new();
    for (path, _) in folder.files() {
        let Some(rest) = path.strip_prefix("state/") else {
            continue;
        };
        let parts: Vec<&str> = rest.split('/').collect();
        let Some(operator_id) = parts.first().and_then(|p| p.parse::<u64>().ok()) else {
            unknown.push(path.to_owned());
            continue;
        };
        let scan = operators.entry(operator_id).or_default();
        scan.files += 1;
        let Some(partition) = parts.get(1).and_then(|p| p.parse::<u32>().ok()) else {
            continue; // `_metadata/`, `_stateSchema/`: operator-level files
        };
        scan.partitions.insert(partition);
        let (store, name) = match parts.len() {
            3 => (None, parts[2]),
            4 if parts[2] != "SSTs" && !parts[2].starts_with('_') => (Some(parts[2]), parts[3]),
            _ => continue, // SST files, per-partition metadata
        };
        if let Some(store) = store {
            if store != "default" {
                scan.stores.insert(store.to_owned());
            }
        }
        match versioned(name) {
            Some((version, kind, unique)) => {
                *scan.by_kind.entry(kind.to_owned()).or_default() += 1;
                scan.checkpoint_ids |= unique;
                let latest = scan.latest.entry(partition).or_default();
                *latest = (*latest).max(version);
            }
            None if name.ends_with(".sst") || name.starts_with('_') => {}
            None => unknown.push(path.to_owned()),
        }
    }
    let operators = operators
        .into_iter()
        .map(|(operator_id, scan)| StateOperator {
            operator_id,
            partitions: u32::try_from(scan.partitions.len()).unwrap_or(u32::MAX),
            stores: scan.stores.into_iter().collect(),
            files: scan.files,
            by_kind: scan.by_kind,
            latest_version: scan.latest.values().copied().max(),
            min_partition_version: scan.latest.values().copied().min(),
            checkpoint_ids: scan.checkpoint_ids,
        })
        .collect();
    (operators, unknown)
}

#[derive(Default)]
struct Scan {
    files: u64,
    partitions: BTreeSet<u32>,
    stores: BTreeSet<String>,
    by_kind: BTreeMap<String, u64>,
    latest: BTreeMap<u32, u64>,
    checkpoint_ids: bool,
}

/// `<v>.<ext>` or `<v>_<uniqueId>.<ext>` with a state store extension: (version, kind,
/// whether a unique id is present).
fn versioned(name: &str) -> Option<(u64, &str, bool)> {
    let (stem, kind) = name.rsplit_once('.')?;
    if !["delta", "snapshot", "changelog", "zip"].contains(&kind) {
        return None;
    }
    let (digits, unique) = match stem.split_once('_') {
        Some((digits, id)) if !id.is_empty() => (digits, true),
        Some(_) => return None,
        None => (stem, false),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((digits.parse().ok()?, kind, unique))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_give_version_and_kind() {
        assert_eq!(versioned("3.delta"), Some((3, "delta", false)));
        assert_eq!(versioned("12.snapshot"), Some((12, "snapshot", false)));
        assert_eq!(
            versioned("21_0c3d1e2f.changelog"),
            Some((21, "changelog", true))
        );
        assert_eq!(versioned("20_ab.zip"), Some((20, "zip", true)));
        for name in ["x.delta", "3.crc", "3", "_.zip", "3_.delta", ".3.delta.crc"] {
            assert_eq!(versioned(name), None, "{name}");
        }
    }
}
