//! Spark checkpoint folder: an in-memory file tree in Spark's exact on-disk format.
//! (Temporary minimal version; replaced by the full module.)
#![allow(missing_docs)]

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointFolder {
    files: BTreeMap<String, Vec<u8>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryMetadata {
    pub id: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OffsetSeqMetadata {
    pub batch_watermark_ms: i64,
    pub batch_timestamp_ms: i64,
    pub conf: Option<BTreeMap<String, String>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OffsetSeq {
    pub version: u32,
    pub metadata: Option<OffsetSeqMetadata>,
    pub offsets: Vec<Option<String>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommitMetadata {
    pub version: u32,
    pub next_batch_watermark_ms: Option<i64>,
    pub state_unique_ids: Option<serde_json::Value>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RestartAction {
    Fresh,
    Rerun { batch_id: u64 },
    Next { batch_id: u64 },
    Fail { reason: String },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestartPlan {
    pub action: RestartAction,
    pub warnings: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CheckpointError {
    AlreadyExists { path: String },
    Format { path: String, error: String },
}

impl std::fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

impl OffsetSeq {
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut lines = vec![format!("v{}", self.version)];
        lines.push(match &self.metadata {
            None => String::new(),
            Some(m) => {
                let mut s = format!(
                    "{{\"batchWatermarkMs\":{},\"batchTimestampMs\":{}",
                    m.batch_watermark_ms, m.batch_timestamp_ms
                );
                if let Some(c) = &m.conf {
                    s.push_str(",\"conf\":");
                    s.push_str(&serde_json::to_string(c).unwrap());
                }
                s.push('}');
                s
            }
        });
        for o in &self.offsets {
            lines.push(o.clone().unwrap_or_else(|| "-".into()));
        }
        lines.join("\n").into_bytes()
    }
    pub fn parse(text: &str) -> Result<OffsetSeq, String> {
        let mut lines = text.trim_end_matches('\n').split('\n');
        let v = lines.next().unwrap_or("");
        let version = v
            .trim_start_matches('v')
            .parse()
            .map_err(|_| "version".to_string())?;
        let meta = lines.next().unwrap_or("");
        let metadata = if meta.is_empty() {
            None
        } else {
            let j: serde_json::Value = serde_json::from_str(meta).map_err(|e| e.to_string())?;
            Some(OffsetSeqMetadata {
                batch_watermark_ms: j["batchWatermarkMs"].as_i64().unwrap_or(0),
                batch_timestamp_ms: j["batchTimestampMs"].as_i64().unwrap_or(0),
                conf: None,
            })
        };
        let offsets = lines
            .map(|l| if l == "-" { None } else { Some(l.to_string()) })
            .collect();
        Ok(OffsetSeq {
            version,
            metadata,
            offsets,
        })
    }
}

impl CommitMetadata {
    pub fn to_bytes(&self) -> Vec<u8> {
        match self.next_batch_watermark_ms {
            Some(w) => format!("v{}\n{{\"nextBatchWatermarkMs\":{w}}}", self.version).into_bytes(),
            None => format!("v{}\n{{}}", self.version).into_bytes(),
        }
    }
}

impl CheckpointFolder {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn from_files(files: impl IntoIterator<Item = (String, Vec<u8>)>) -> Self {
        Self {
            files: files.into_iter().collect(),
        }
    }
    pub fn files(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.files.iter().map(|(k, v)| (k.as_str(), v.as_slice()))
    }
    pub fn read(&self, path: &str) -> Option<&[u8]> {
        self.files.get(path).map(|v| v.as_slice())
    }
    pub fn contains(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }
    pub fn create_atomic(&mut self, path: &str, bytes: Vec<u8>) -> Result<(), CheckpointError> {
        if self.files.contains_key(path) {
            return Err(CheckpointError::AlreadyExists { path: path.into() });
        }
        self.files.insert(path.into(), bytes);
        Ok(())
    }
    pub fn delete(&mut self, path: &str) -> bool {
        self.files.remove(path).is_some()
    }
    pub fn write_metadata(&mut self, meta: &QueryMetadata) -> Result<(), CheckpointError> {
        self.create_atomic(
            "metadata",
            format!("{{\"id\":\"{}\"}}", meta.id).into_bytes(),
        )
    }
    pub fn query_metadata(&self) -> Result<Option<QueryMetadata>, CheckpointError> {
        Ok(self.read("metadata").map(|b| {
            let j: serde_json::Value = serde_json::from_slice(b).unwrap();
            QueryMetadata {
                id: j["id"].as_str().unwrap().into(),
            }
        }))
    }
    pub fn write_offsets(&mut self, batch_id: u64, seq: &OffsetSeq) -> Result<(), CheckpointError> {
        self.create_atomic(&format!("offsets/{batch_id}"), seq.to_bytes())
    }
    pub fn write_commit(
        &mut self,
        batch_id: u64,
        c: &CommitMetadata,
    ) -> Result<(), CheckpointError> {
        self.create_atomic(&format!("commits/{batch_id}"), c.to_bytes())
    }
    pub fn offsets(&self, batch_id: u64) -> Result<Option<OffsetSeq>, CheckpointError> {
        let path = format!("offsets/{batch_id}");
        match self.read(&path) {
            None => Ok(None),
            Some(b) => OffsetSeq::parse(&String::from_utf8_lossy(b))
                .map(Some)
                .map_err(|error| CheckpointError::Format { path, error }),
        }
    }
    fn ids(&self, dir: &str) -> Vec<u64> {
        self.files
            .keys()
            .filter_map(|k| k.strip_prefix(dir)?.strip_prefix('/')?.parse().ok())
            .collect::<std::collections::BTreeSet<u64>>()
            .into_iter()
            .collect()
    }
    pub fn offset_log_ids(&self) -> Vec<u64> {
        self.ids("offsets")
    }
    pub fn commit_log_ids(&self) -> Vec<u64> {
        self.ids("commits")
    }
    pub fn latest_offset_id(&self) -> Option<u64> {
        self.offset_log_ids().last().copied()
    }
    pub fn purge(&mut self, threshold: u64) -> Vec<String> {
        let doomed: Vec<String> = self
            .files
            .keys()
            .filter(|k| {
                ["offsets/", "commits/"].iter().any(|d| {
                    k.strip_prefix(d)
                        .and_then(|n| n.parse::<u64>().ok())
                        .is_some_and(|n| n < threshold)
                })
            })
            .cloned()
            .collect();
        for d in &doomed {
            self.files.remove(d);
        }
        doomed
    }
    pub fn latest_commit_id(&self) -> Option<u64> {
        self.commit_log_ids().last().copied()
    }
}

pub fn restart_plan(folder: &CheckpointFolder) -> Result<RestartPlan, CheckpointError> {
    let action = match (folder.latest_offset_id(), folder.latest_commit_id()) {
        (None, _) => RestartAction::Fresh,
        (Some(l), Some(c)) if c == l => RestartAction::Next { batch_id: l + 1 },
        (Some(l), _) => RestartAction::Rerun { batch_id: l },
    };
    Ok(RestartPlan {
        action,
        warnings: vec![],
    })
}

pub fn initial_offset_bytes(version: u32, body: &str) -> Vec<u8> {
    let mut v = vec![0u8];
    v.extend_from_slice(format!("v{version}\n{body}").as_bytes());
    v
}
