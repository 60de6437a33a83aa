//! Every row of SEMANTICS.md §1.5: what Spark does on restart for a given set of
//! offset and commit entries (checked against `MicroBatchExecution.populateStartOffsets`).

use batchscope_engine::checkpoint::{
    inspect, restart_plan, restart_plan_with, CheckpointError, CheckpointFolder, CommitMetadata,
    InspectOptions, OffsetSeq, OffsetSeqMetadata, QueryMetadata, RestartAction, RestartOptions,
    RestartRule, SourceId, SparkVersion, COMMIT_LOG_MAX_VERSION,
};

fn folder(offset_ids: &[u64], commit_ids: &[u64]) -> CheckpointFolder {
    let mut folder = CheckpointFolder::new();
    folder
        .write_metadata(&QueryMetadata {
            id: "d4358946-170c-49a7-823b-d8e4e9126616".to_owned(),
        })
        .unwrap();
    for &id in offset_ids {
        let metadata = OffsetSeqMetadata {
            batch_watermark_ms: 0,
            batch_timestamp_ms: 1_000 + id as i64,
            conf: None,
        };
        folder
            .write_offsets(
                id,
                &OffsetSeq::v1(Some(metadata), vec![Some(id.to_string())]),
            )
            .unwrap();
    }
    for &id in commit_ids {
        folder.write_commit(id, &CommitMetadata::v1(0)).unwrap();
    }
    folder
}

fn action(offset_ids: &[u64], commit_ids: &[u64]) -> RestartAction {
    restart_plan(&folder(offset_ids, commit_ids))
        .unwrap()
        .action
}

#[test]
fn no_offsets_is_a_fresh_query() {
    let plan = restart_plan(&CheckpointFolder::new()).unwrap();
    assert_eq!(plan.action, RestartAction::Fresh);
    assert!(plan.warnings.is_empty());
}

#[test]
fn committed_latest_batch_moves_on() {
    assert_eq!(action(&[0], &[0]), RestartAction::Next { batch_id: 1 });
    assert_eq!(
        action(&[0, 1, 2], &[0, 1, 2]),
        RestartAction::Next { batch_id: 3 }
    );
}

#[test]
fn uncommitted_latest_batch_runs_again() {
    let plan = restart_plan(&folder(&[0, 1], &[0])).unwrap();
    assert_eq!(plan.action, RestartAction::Rerun { batch_id: 1 });
    assert_eq!(plan.reason, "offsets/1 has no commits/1");
    assert!(plan.warnings.is_empty());
}

#[test]
fn commit_log_two_behind_warns_and_reruns() {
    let plan = restart_plan(&folder(&[0, 1, 2, 3], &[0, 1])).unwrap();
    assert_eq!(plan.action, RestartAction::Rerun { batch_id: 3 });
    assert_eq!(
        plan.warnings,
        vec!["commit log latest batch id is 1, which is not trailing batch id 3 by one"]
    );
}

#[test]
fn no_commit_log_reruns_latest() {
    assert_eq!(action(&[0, 1], &[]), RestartAction::Rerun { batch_id: 1 });
    assert_eq!(action(&[0], &[]), RestartAction::Rerun { batch_id: 0 });
}

#[test]
fn missing_previous_offsets_fails_even_when_committed() {
    // validateOffsetLogAndGetPrevOffset runs before the commit log is consulted.
    for commits in [&[][..], &[2][..], &[3][..]] {
        match action(&[0, 1, 3], commits) {
            RestartAction::Fail { reason } => {
                assert!(reason.contains("offsets/2 is missing"), "{reason}");
                assert!(reason.contains("batch 2 doesn't exist"), "{reason}");
            }
            other => panic!("commits {commits:?}: expected a failure, got {other:?}"),
        }
    }
}

#[test]
fn purged_log_restarts_when_previous_entry_is_kept() {
    let mut purged = folder(&[0, 1, 2, 3, 4, 5], &[0, 1, 2, 3, 4]);
    purged.purge(4);
    assert_eq!(purged.offset_log_ids(), vec![4, 5]);
    let plan = restart_plan(&purged).unwrap();
    assert_eq!(plan.action, RestartAction::Rerun { batch_id: 5 });
    assert!(plan.warnings.is_empty(), "{:?}", plan.warnings);
    let mut committed = folder(&[0, 1, 2, 3], &[0, 1, 2, 3]);
    committed.purge(2);
    assert_eq!(
        restart_plan(&committed).unwrap().action,
        RestartAction::Next { batch_id: 4 }
    );
    // A purge that removed L-1 (not possible with minBatchesToRetain > 0) fails.
    let mut too_far = folder(&[0, 1, 2], &[0, 1, 2]);
    too_far.purge(2);
    assert!(matches!(
        restart_plan(&too_far).unwrap().action,
        RestartAction::Fail { .. }
    ));
}

#[test]
fn commits_without_offsets_fail_like_spark_assert() {
    match action(&[], &[0]) {
        RestartAction::Fail { reason } => assert!(reason.contains("commits/0"), "{reason}"),
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[test]
fn commit_ahead_of_offsets_reruns_latest_with_a_warning() {
    // No branch of populateStartOffsets matches C > L: batch L stays constructed.
    let plan = restart_plan(&folder(&[0, 1], &[0, 2])).unwrap();
    assert_eq!(plan.action, RestartAction::Rerun { batch_id: 1 });
    assert_eq!(plan.warnings.len(), 2, "{:?}", plan.warnings);
    assert!(plan.warnings[0].contains("commits/ has gaps (missing 1)"));
    assert!(plan.warnings[1].contains("batch 2 will stop the query"));
    // commits/L itself exists: Spark still re-runs L (C != L), and that re-run is the
    // batch that stops, after its sink writes, when it cannot write commits/L.
    let plan = restart_plan(&folder(&[0, 1], &[0, 1, 2])).unwrap();
    assert_eq!(plan.action, RestartAction::Rerun { batch_id: 1 });
    assert!(plan.warnings[0].contains("batch 1 will stop the query when it finds commits/1"));
    let plan = restart_plan(&folder(&[0], &[0, 1])).unwrap();
    assert_eq!(plan.action, RestartAction::Rerun { batch_id: 0 });
    assert!(plan.warnings[0].contains("batch 0 will stop the query"));
}

#[test]
fn source_count_change_between_entries_fails() {
    let mut f = folder(&[0], &[]);
    f.write_offsets(1, &OffsetSeq::v1(None, vec![Some("1".to_owned()), None]))
        .unwrap();
    match restart_plan(&f).unwrap().action {
        RestartAction::Fail { reason } => assert!(reason.contains("lists 1 sources"), "{reason}"),
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[test]
fn broken_files_spark_reads_are_errors() {
    let mut f = folder(&[0, 1], &[0]);
    f.delete("offsets/0");
    f.create_atomic("offsets/0", b"x1".to_vec()).unwrap();
    let error = restart_plan(&f).unwrap_err();
    assert!(matches!(&error, CheckpointError::Format { path, .. } if path == "offsets/0"));
    let mut f = folder(&[0, 1], &[]);
    f.create_atomic("commits/0", b"v7\n{}".to_vec()).unwrap();
    assert_eq!(
        restart_plan(&f).unwrap_err().to_string(),
        format!("commits/0: log version v7 is newer than the supported v{COMMIT_LOG_MAX_VERSION}")
    );
}

#[test]
fn gaps_in_the_offset_log_are_reported() {
    let plan = restart_plan(&folder(&[0, 2, 3], &[2])).unwrap();
    assert_eq!(plan.action, RestartAction::Rerun { batch_id: 3 });
    assert_eq!(
        plan.warnings,
        vec!["offsets/ has gaps (missing 1); Spark assumes batch ids are contiguous"]
    );
}

#[test]
fn batches_without_metadata_fail_like_spark_4_2() {
    // Observed with Spark 4.3.0 (docs/CONFORMANCE.md): STREAMING_CHECKPOINT_MISSING_METADATA_FILE.
    let mut f = folder(&[0, 1], &[0]);
    assert!(f.delete("metadata"));
    match restart_plan(&f).unwrap().action {
        RestartAction::Fail { reason } => {
            assert!(reason.contains("metadata is missing"), "{reason}")
        }
        other => panic!("expected a failure, got {other:?}"),
    }
    let mut empty = CheckpointFolder::new();
    assert_eq!(restart_plan(&empty).unwrap().action, RestartAction::Fresh);
    empty
        .write_metadata(&QueryMetadata {
            id: "d4358946-170c-49a7-823b-d8e4e9126616".to_owned(),
        })
        .unwrap();
    assert_eq!(restart_plan(&empty).unwrap().action, RestartAction::Fresh);
}

fn with(
    spark: &str,
    async_progress_tracking: bool,
    sources: Option<Vec<SourceId>>,
) -> RestartOptions {
    RestartOptions {
        spark: SparkVersion::parse(spark).unwrap(),
        async_progress_tracking,
        query_sources: sources,
    }
}

#[test]
fn every_decision_names_its_rule() {
    let cases: [(&[u64], &[u64], RestartRule); 6] = [
        (&[], &[], RestartRule::NoOffsetLog),
        (&[0, 1], &[0, 1], RestartRule::LastBatchCommitted),
        (&[0, 1], &[0], RestartRule::LastBatchUncommitted),
        (&[0, 1, 2], &[0], RestartRule::CommitLogBehind),
        (&[0, 1], &[], RestartRule::NoCommitLog),
        (&[0], &[0, 1], RestartRule::CommitAheadOfOffsets),
    ];
    for (offsets, commits, rule) in cases {
        let plan = restart_plan(&folder(offsets, commits)).unwrap();
        assert_eq!(plan.rule, rule, "{offsets:?} {commits:?}");
        assert!(plan.spark_error.is_none());
    }
    let plan = restart_plan(&folder(&[0, 2], &[0])).unwrap();
    assert_eq!(plan.rule, RestartRule::PreviousOffsetsMissing);
    assert_eq!(
        plan.spark_error.as_deref(),
        Some("requirement failed: Previous batch 1 not found in offset log")
    );
    let old = restart_plan_with(&folder(&[0, 2], &[0]), &with("3.5", false, None)).unwrap();
    assert_eq!(old.spark_error.as_deref(), Some("batch 1 doesn't exist"));
}

#[test]
fn a_rerun_uses_the_logged_offsets_and_a_next_batch_starts_from_them() {
    let plan = restart_plan(&folder(&[0, 1, 2], &[0, 1])).unwrap();
    assert_eq!(plan.start.unwrap().sources[0].offset.as_deref(), Some("1"));
    assert_eq!(plan.end.unwrap().sources[0].offset.as_deref(), Some("2"));
    let plan = restart_plan(&folder(&[0, 1, 2], &[0, 1, 2])).unwrap();
    assert_eq!(plan.start.unwrap().sources[0].offset.as_deref(), Some("2"));
    assert_eq!(plan.end, None);
}

#[test]
fn metadata_is_required_from_spark_4_2_only() {
    let mut f = folder(&[0, 1], &[0]);
    f.delete("metadata");
    assert_eq!(
        restart_plan_with(&f, &with("4.2", false, None))
            .unwrap()
            .rule,
        RestartRule::MetadataMissing
    );
    let plan = restart_plan_with(&f, &with("3.5.9", false, None)).unwrap();
    assert_eq!(plan.action, RestartAction::Rerun { batch_id: 1 });
}

/// `AsyncProgressTrackingMicroBatchExecution.validateOffsetLogAndGetPrevOffset`: the
/// previous entry on disk, wherever it is.
#[test]
fn async_progress_tracking_starts_from_the_previous_entry_on_disk() {
    let f = folder(&[0, 2, 5], &[0, 2]);
    let plan = restart_plan_with(&f, &with("4.3", true, None)).unwrap();
    assert_eq!(plan.action, RestartAction::Rerun { batch_id: 5 });
    assert_eq!(plan.start.unwrap().sources[0].offset.as_deref(), Some("2"));
    assert!(plan
        .warnings
        .iter()
        .all(|w| !w.contains("offsets/ has gaps")));
    let plain = restart_plan(&f).unwrap();
    assert_eq!(plain.rule, RestartRule::PreviousOffsetsMissing);
}

#[test]
fn the_query_sources_must_match_the_offset_lines() {
    let f = folder(&[0, 1], &[0]);
    let two = Some(vec![SourceId::Index(0), SourceId::Index(1)]);
    let plan = restart_plan_with(&f, &with("4.3", false, two)).unwrap();
    assert_eq!(plan.rule, RestartRule::SourcesChanged);
    assert_eq!(
        plan.spark_error.as_deref(),
        Some(
            "assertion failed: There are [1] sources in the checkpoint offsets and now there are \
             [2] sources requested by the query. Cannot continue."
        )
    );
    let named = Some(vec![SourceId::Name("a".to_owned())]);
    let plan = restart_plan_with(&f, &with("4.3", false, named)).unwrap();
    assert!(plan
        .spark_error
        .unwrap()
        .contains("CANNOT_ENABLE_ON_EXISTING_CHECKPOINT"));
}

#[test]
fn named_sources_are_matched_by_name() {
    let mut f = CheckpointFolder::new();
    f.write_metadata(&QueryMetadata {
        id: "d4358946-170c-49a7-823b-d8e4e9126616".to_owned(),
    })
    .unwrap();
    let meta = "{\"batchWatermarkMs\":0,\"batchTimestampMs\":1}";
    for (id, offset) in [(0, 1), (1, 2)] {
        let text = format!("v2\n{meta}\nsrc_a:{{\"logOffset\":{offset}}}\nsrc_b:-");
        f.create_atomic(&format!("offsets/{id}"), text.into_bytes())
            .unwrap();
    }
    f.write_commit(0, &CommitMetadata::v1(0)).unwrap();
    let plan = restart_plan(&f).unwrap();
    assert_eq!(plan.action, RestartAction::Rerun { batch_id: 1 });
    let end = plan.end.unwrap();
    assert_eq!(
        end.offset_of(&SourceId::Name("src_a".to_owned())),
        Some("{\"logOffset\":2}")
    );
    let added = Some(vec![
        SourceId::Name("src_a".to_owned()),
        SourceId::Name("src_b".to_owned()),
        SourceId::Name("src_c".to_owned()),
    ]);
    let plan = restart_plan_with(&f, &with("4.3", false, added)).unwrap();
    assert_eq!(plan.action, RestartAction::Rerun { batch_id: 1 });
    assert!(plan
        .warnings
        .iter()
        .any(|w| w.contains("source src_c is not in offsets/1")));
    let unnamed = Some(vec![SourceId::Index(0), SourceId::Index(1)]);
    let plan = restart_plan_with(&f, &with("4.3", false, unnamed)).unwrap();
    assert_eq!(plan.rule, RestartRule::SourcesChanged);
}

fn problem_codes(folder: &CheckpointFolder, options: &InspectOptions) -> Vec<String> {
    inspect(folder, options)
        .problems
        .into_iter()
        .map(|p| p.code)
        .collect()
}

/// Offsets more than one batch ahead of commits: Spark's own warning, and what it means
/// with and without async progress tracking on the restarted query.
#[test]
fn offsets_far_ahead_of_commits_are_a_warning_with_sparks_line() {
    let f = folder(&[0, 1, 2, 3], &[0]);
    let inspection = inspect(&f, &InspectOptions::default());
    let problem = &inspection.problems[0];
    assert_eq!(problem.code, "offsets_ahead_of_commits");
    assert_eq!(
        problem.spark_says.as_deref(),
        Some("Batch completion log latest batch id is 0, which is not trailing batchid 3 by one")
    );
    assert!(problem.message.contains("batches 1..2 are not run again"));
    let mut options = InspectOptions::default();
    options.restart.async_progress_tracking = true;
    let inspection = inspect(&f, &options);
    assert!(inspection.problems[0]
        .message
        .contains("async progress tracking"));
    assert_eq!(inspection.restart.rule, RestartRule::CommitLogBehind);
}

#[test]
fn a_change_in_the_number_of_offset_lines_is_reported() {
    let mut f = folder(&[], &[]);
    for (id, text) in [(0, "v1\n\n1\n1"), (1, "v1\n\n2"), (2, "v1\n\n3")] {
        f.create_atomic(&format!("offsets/{id}"), text.as_bytes().to_vec())
            .unwrap();
    }
    f.write_commit(0, &CommitMetadata::v1(0)).unwrap();
    f.write_commit(1, &CommitMetadata::v1(0)).unwrap();
    assert_eq!(
        problem_codes(&f, &InspectOptions::default()),
        vec!["offset_lines_changed"]
    );
    let healthy = folder(&[0, 1], &[0, 1]);
    assert!(problem_codes(&healthy, &InspectOptions::default()).is_empty());
}
