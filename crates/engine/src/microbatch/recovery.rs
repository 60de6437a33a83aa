//! Starting and restarting the query: `metadata`, the recovery rules of SEMANTICS §1.5 (and
//! the continuous variant of §2), and the source's `sources/0/0` initial offset.

use super::{cost, BatchRun, Phase, World, EPOCH_BASE_MS};
use crate::checkpoint::{self, QueryMetadata, RestartAction};
use crate::microbatch::event::{EventKind, Recovery};
use crate::microbatch::scenario::{Execution, SourceApi};
use crate::microbatch::source::SourceOffset;

/// Where the source keeps its initial offset.
const INITIAL_OFFSET_PATH: &str = "sources/0/0";

impl World {
    pub(super) fn start_query(&mut self) -> EventKind {
        self.run += 1;
        self.now_ms += cost::START;
        self.phase = Phase::Recover;
        let metadata = self
            .checkpoint
            .query_metadata()
            .expect("metadata is written only by this engine, with a UUID");
        match metadata {
            Some(meta) => {
                self.driver.query_id = Some(meta.id.clone());
                self.sink.set_app_id(&meta.id);
                EventKind::QueryStarted {
                    query_id: meta.id,
                    created: false,
                    max_offsets_per_trigger: self.restart_change(),
                }
            }
            // Spark 4.2+ refuses to start when offsets or commits exist without `metadata`
            // (STREAMING_CHECKPOINT_MISSING_METADATA_FILE, apache/spark PR #53844): it writes
            // no new id, and the restart's plan fails.
            None if self.scenario.spark().at_least(4, 2)
                && (self.checkpoint.latest_offset_id().is_some()
                    || self.checkpoint.latest_commit_id().is_some()) =>
            {
                self.driver.query_id = None;
                EventKind::QueryStarted {
                    query_id: String::new(),
                    created: false,
                    max_offsets_per_trigger: self.restart_change(),
                }
            }
            None => {
                let id = self.rng.uuid().to_string();
                self.checkpoint
                    .write_metadata(&QueryMetadata { id: id.clone() })
                    .expect("metadata is absent, and a fresh query id is a UUID");
                self.driver.query_id = Some(id.clone());
                self.sink.set_app_id(&id);
                EventKind::QueryStarted {
                    query_id: id,
                    created: true,
                    max_offsets_per_trigger: self.restart_change(),
                }
            }
        }
    }

    /// The `on_restart` change in force in this run, if any: its `maxOffsetsPerTrigger`.
    fn restart_change(&self) -> Option<u64> {
        let change = self.scenario.on_restart?;
        change
            .max_offsets_per_trigger
            .filter(|_| self.run > change.from)
    }

    pub(super) fn offset_line(&self, batch_id: u64) -> Option<(SourceOffset, u64)> {
        let seq = self.checkpoint.offsets(batch_id).ok()??;
        let line = seq.offsets.first()?.clone()?;
        let ts = seq.metadata.map_or(0, |m| {
            (m.batch_timestamp_ms as u64).saturating_sub(EPOCH_BASE_MS)
        });
        SourceOffset::parse(self.scenario.source.kind, &line, &self.upstream)
            .ok()
            .map(|o| (o, ts))
    }

    /// How this run's query restarts, as far as Spark's decision depends on it: the scenario's
    /// Spark release, and the query's sources when an `on_restart` change gave their count.
    /// What `inspect` is told to predict the same restart from the folder.
    pub fn restart_options(&self) -> checkpoint::RestartOptions {
        let query_sources = self
            .scenario
            .sources_in_run(self.run)
            .map(|n| (0..n).map(checkpoint::SourceId::Index).collect());
        checkpoint::RestartOptions {
            spark: self.scenario.spark(),
            async_progress_tracking: self.scenario.async_progress_in_run(self.run).is_some(),
            query_sources,
        }
    }

    pub(super) fn recover(&mut self) -> EventKind {
        self.now_ms += cost::RECOVER;
        if self.scenario.execution == Execution::Continuous {
            return self.recover_continuous();
        }
        let latest_offset = self.checkpoint.latest_offset_id();
        let latest_commit = self.checkpoint.latest_commit_id();
        let action = match checkpoint::restart_plan_with(&self.checkpoint, &self.restart_options())
        {
            // Spark's own words where the plan quotes them.
            Ok(checkpoint::RestartPlan {
                action: RestartAction::Fail { .. },
                spark_error: Some(said),
                ..
            }) => RestartAction::Fail { reason: said },
            Ok(plan) => plan.action,
            // What Spark says of an entry it cannot read (`HDFSMetadataLog`), where known.
            Err(e) => RestartAction::Fail {
                reason: checkpoint::spark_read_error(&e)
                    .map_or_else(|| e.to_string(), |said| said.replace("<path>", e.path())),
            },
        };
        let recovery = match action {
            RestartAction::Fresh => {
                self.phase = Phase::Trigger { batch_id: 0 };
                Recovery::Fresh
            }
            RestartAction::Next { batch_id } => {
                self.driver.committed = self.offset_line(batch_id - 1).map(|(o, _)| o);
                // Only V1 sources get the extra getBatch of the last committed batch
                // (`MicroBatchExecution.populateStartOffsets`: `case (source: Source, end)
                // => source.getBatch(start, end)`; `case nonV1Tuple =>` "The V2 API does not
                // have the same edge case"). Kafka is V2 unless the scenario says `api: v1`.
                self.phase = if self.scenario.source.api() == SourceApi::V1 {
                    Phase::RecoveryGetBatch {
                        batch_id: batch_id - 1,
                    }
                } else {
                    Phase::Wait { batch_id }
                };
                Recovery::Next { batch_id }
            }
            RestartAction::Rerun { batch_id } => {
                // The start is `offsets/L-1`; with async progress tracking the previous entry
                // on disk, whatever batch it is (`validateOffsetLogAndGetPrevOffset`).
                let previous = if self.scenario.async_progress_in_run(self.run).is_some() {
                    self.checkpoint
                        .offset_log_ids()
                        .into_iter()
                        .rfind(|id| *id < batch_id)
                } else {
                    batch_id.checked_sub(1)
                };
                let start = previous.and_then(|p| self.offset_line(p)).map(|(o, _)| o);
                let (end, timestamp_ms) = self
                    .offset_line(batch_id)
                    .expect("offsets/L written by this engine parses");
                self.driver.committed = start.clone();
                self.driver.batch = Some(BatchRun::new(batch_id, start, end, timestamp_ms, true));
                self.phase = Phase::GetBatch { batch_id };
                Recovery::Rerun { batch_id }
            }
            RestartAction::Fail { reason } => {
                self.phase = Phase::Failing { reason };
                Recovery::Failed
            }
        };
        EventKind::Recovered {
            latest_offset,
            latest_commit,
            recovery,
        }
    }

    /// Continuous `getStartOffsets` (SEMANTICS §2): only the commit log counts. With a latest
    /// committed epoch E the start offsets are `offsets/E` and the next epoch is E+1; offsets
    /// reported for later epochs are ignored ("risk duplicates").
    pub(super) fn recover_continuous(&mut self) -> EventKind {
        let latest_offset = self.checkpoint.latest_offset_id();
        let latest_commit = self.checkpoint.latest_commit_id();
        let recovery = match latest_commit {
            Some(e) => {
                self.driver.committed = self.offset_line(e).map(|(o, _)| o);
                self.phase = Phase::EpochWait { epoch: e + 1 };
                Recovery::Next { batch_id: e + 1 }
            }
            None => {
                self.phase = Phase::EpochWait { epoch: 0 };
                Recovery::Fresh
            }
        };
        EventKind::Recovered {
            latest_offset,
            latest_commit,
            recovery,
        }
    }

    /// On restart after a committed batch L, V1 sources get `getBatch(start_L, end_L)` once
    /// more without running it; then the driver waits for batch L+1.
    pub(super) fn recovery_get_batch(&mut self, batch_id: u64) -> EventKind {
        self.now_ms += cost::CALL;
        self.phase = Phase::Wait {
            batch_id: batch_id + 1,
        };
        EventKind::RecoveryGetBatch { batch_id }
    }

    /// Lazily initialises the source on first use in a run: reads `sources/0/0` if it exists
    /// (silently), or asks the source for its initial offset and writes it (one event).
    pub(super) fn init_source(&mut self) -> Option<EventKind> {
        assert!(
            !self.source.initialized,
            "the source initialises once per run"
        );
        self.source.initialized = true;
        let contract = self.contract();
        if let Some(bytes) = self.checkpoint.read(INITIAL_OFFSET_PATH) {
            let text = String::from_utf8_lossy(bytes.get(1..).unwrap_or_default()).to_string();
            contract.restore_initial(&mut self.source, &text);
            return None;
        }
        self.now_ms += cost::FILE_WRITE;
        let initial = contract.initial_offset(&mut self.source_ctx())?;
        if self.first_start.is_none() {
            self.first_start = self.source.initial_log.clone();
        }
        let bytes = checkpoint::initial_offset_bytes(initial.version, &initial.body);
        self.checkpoint
            .create_atomic(INITIAL_OFFSET_PATH, bytes)
            .expect("sources/0/0 is written only when it does not exist");
        Some(EventKind::SourceInitialized {
            path: INITIAL_OFFSET_PATH.into(),
            contents: format!("v{}\n{}", initial.version, initial.body),
            meta_rows: initial.meta_rows,
        })
    }
}
