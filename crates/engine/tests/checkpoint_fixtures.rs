//! Real files written by Spark (tests/fixtures/spark-checkpoints, byte-exact copies of
//! Apache Spark test resources) parse, carry the values Spark put there, and round-trip.

use batchscope_engine::checkpoint::{
    restart_plan, source_reports, state_operators, CheckpointFolder, CommitMetadata,
    OffsetLogEntry, OffsetSeq, QueryMetadata, RestartAction, SourceId,
};
use std::fs;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/spark-checkpoints")
}

fn text(relative: &str) -> String {
    let path = fixtures().join(relative);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn offsets(relative: &str) -> OffsetSeq {
    OffsetSeq::parse(&text(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// Loads a fixture folder's metadata, offsets and commits into memory.
fn load(name: &str) -> CheckpointFolder {
    let root = fixtures().join(name);
    let mut files = Vec::new();
    if root.join("metadata").is_file() {
        files.push((
            "metadata".to_owned(),
            fs::read(root.join("metadata")).unwrap(),
        ));
    }
    for dir in ["offsets", "commits"] {
        let Ok(entries) = fs::read_dir(root.join(dir)) else {
            continue;
        };
        for entry in entries {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            files.push((format!("{dir}/{name}"), fs::read(entry.path()).unwrap()));
        }
    }
    CheckpointFolder::from_files(files)
}

/// The folders copied from Apache Spark's test resources (the `-killed-in-` folders were
/// written by the conformance suite and are read by their own tests below).
fn checkpoint_folders() -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(fixtures())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.starts_with("checkpoint-") && !name.contains("-killed-in-"))
        .collect();
    names.sort();
    names
}

#[test]
fn every_fixture_log_file_parses() {
    let names = checkpoint_folders();
    assert_eq!(names.len(), 7, "{names:?}");
    let mut files = 0;
    for name in names {
        let folder = load(&name);
        let meta = folder.query_metadata().unwrap().expect("metadata file");
        assert_eq!(meta.id.len(), 36);
        for id in folder.offset_log_ids() {
            let seq = folder.offsets(id).unwrap().unwrap();
            assert_eq!(seq.version, 1, "{name}/offsets/{id}");
            assert!(seq.metadata.is_some(), "{name}/offsets/{id}");
            assert_eq!(seq.offsets.len(), 1, "{name}/offsets/{id}");
            files += 1;
        }
        for id in folder.commit_log_ids() {
            folder.commit(id).unwrap().unwrap();
            files += 1;
        }
    }
    assert_eq!(files, 14);
}

#[test]
fn spark_2_1_offsets_have_watermark_timestamp_and_no_conf() {
    let zero = offsets("checkpoint-version-2.1.0/offsets/0");
    let one = offsets("checkpoint-version-2.1.0/offsets/1");
    let meta = one.metadata.as_ref().unwrap();
    assert_eq!(meta.batch_watermark_ms, 0);
    assert_eq!(meta.batch_timestamp_ms, 1_489_180_209_261);
    assert_eq!(meta.conf, None);
    assert_eq!(zero.offsets, vec![Some("0".to_owned())]);
    assert_eq!(one.offsets, vec![Some("2".to_owned())]);
    // No conf, no hash-ordered map: Spark's bytes come back exactly.
    for relative in [
        "checkpoint-version-2.1.0/offsets/0",
        "checkpoint-version-2.1.0/offsets/1",
    ] {
        assert_eq!(offsets(relative).to_bytes(), text(relative).into_bytes());
    }
}

#[test]
fn spark_2_3_1_conf_watermark_and_empty_commit() {
    let one = offsets("checkpoint-version-2.3.1-without-commit-log-metadata/offsets/1");
    let meta = one.metadata.unwrap();
    assert_eq!(meta.batch_watermark_ms, 5000);
    let conf = meta.conf.unwrap();
    assert_eq!(conf.len(), 2);
    assert_eq!(conf["spark.sql.shuffle.partitions"], "5");
    let commit_path = "checkpoint-version-2.3.1-flatMapGroupsWithState-state-format-1/commits/1";
    assert_eq!(text(commit_path), "v1\n{}");
    let commit = CommitMetadata::parse(&text(commit_path)).unwrap();
    assert_eq!(commit, CommitMetadata::legacy_empty());
    assert_eq!(commit.to_bytes(), text(commit_path).into_bytes());
}

#[test]
fn spark_2_4_3_kafka_offsets_line_is_kept_verbatim() {
    let seq = offsets("checkpoint-version-2.4.3-kafka-include-headers-default/offsets/0");
    assert_eq!(
        seq.offsets,
        vec![Some(
            "{\"spark-test-topic-2b8619f5-d3c4-4c2d-b5d1-8d9d9458aa62\":{\"2\":3,\"4\":3,\"1\":3,\"3\":3,\"0\":3}}"
                .to_owned()
        )]
    );
    let meta = seq.metadata.unwrap();
    assert_eq!(meta.batch_timestamp_ms, 1_568_508_285_207);
    assert_eq!(meta.conf.unwrap().len(), 5);
}

#[test]
fn spark_3_2_and_4_0_conf_maps() {
    let meta = offsets("checkpoint-version-3.2.0-deduplication-with-repartition/offsets/1")
        .metadata
        .unwrap();
    let conf = meta.conf.unwrap();
    assert_eq!(conf.len(), 8);
    assert_eq!(
        conf["spark.sql.streaming.stateStore.rocksdb.formatVersion"],
        "5"
    );
    // 4.0.0 offsets/0 ends with a newline upstream; offsets/1 does not.
    assert!(text("checkpoint-version-4.0.0-tws-unsaferow/offsets/0").ends_with("0\n"));
    let zero = offsets("checkpoint-version-4.0.0-tws-unsaferow/offsets/0");
    assert_eq!(zero.offsets, vec![Some("0".to_owned())]);
    let conf = zero.metadata.unwrap().conf.unwrap();
    assert_eq!(conf.len(), 11);
    assert_eq!(
        conf["spark.sql.streaming.stateStore.encodingFormat"],
        "unsaferow"
    );
}

#[test]
fn written_conf_reads_back_to_the_same_values() {
    // Spark's conf key order is a hash order; ours is sorted. Same values either way.
    for relative in [
        "checkpoint-version-3.2.0-deduplication-with-repartition/offsets/1",
        "checkpoint-version-4.0.0-tws-unsaferow/offsets/1",
        "checkpoint-version-2.4.3-kafka-include-headers-default/offsets/0",
    ] {
        let seq = offsets(relative);
        let rewritten = String::from_utf8(seq.to_bytes()).unwrap();
        assert_eq!(rewritten.len(), text(relative).len(), "{relative}");
        assert_eq!(OffsetSeq::parse(&rewritten).unwrap(), seq, "{relative}");
    }
}

#[test]
fn standalone_offset_log_entries() {
    let zero = offsets("standalone-logs/offset-log-version-2.1.0/0");
    assert_eq!(
        zero.offsets,
        vec![
            Some("0".to_owned()),
            Some("{\"topic-0\":{\"0\":1}}".to_owned())
        ]
    );
    assert_eq!(zero.metadata.unwrap().batch_timestamp_ms, 1_480_981_499_528);
    let fifteen = offsets("standalone-logs/offset-log-version-2.1.0/15");
    assert_eq!(fifteen.offsets.len(), 1);
    assert!(fifteen.offsets[0]
        .as_deref()
        .unwrap()
        .starts_with("{\"stress5\":{"));
    let sixteen_text = text("standalone-logs/offset-log-version-2.1.0/16");
    assert!(sixteen_text.ends_with('\n'));
    let sixteen = offsets("standalone-logs/offset-log-version-2.1.0/16");
    assert_eq!(sixteen.offsets.len(), 1);
    let kafka: serde_json::Value =
        serde_json::from_str(sixteen.offsets[0].as_deref().unwrap()).unwrap();
    assert_eq!(kafka["kafka-topic"]["4"], 4);
}

#[test]
fn standalone_commit_logs_v1_and_v2() {
    let v1_text = text("standalone-logs/testCommitLogV1/testCommitLog");
    let v1 = CommitMetadata::parse(&v1_text).unwrap();
    assert_eq!(v1, CommitMetadata::v1(1));
    assert_eq!(v1.to_bytes(), v1_text.into_bytes());
    let v2_text = text("standalone-logs/testCommitLogV2/testCommitLog");
    let v2 = CommitMetadata::parse(&v2_text).unwrap();
    assert_eq!(v2.version, 2);
    assert_eq!(v2.next_batch_watermark_ms, Some(0));
    let ids = v2.state_unique_ids.as_ref().unwrap();
    assert_eq!(ids["1"][1][0], "unique_id7");
    assert_eq!(v2.to_bytes(), v2_text.into_bytes());
}

#[test]
fn pretty_printed_query_metadata() {
    let meta = QueryMetadata::parse(&text(
        "standalone-logs/query-metadata-logs-version-2.1.0.txt",
    ))
    .unwrap();
    assert_eq!(meta.id, "d366a8bf-db79-42ca-b5a4-d9ca0a11d63e");
    // And every folder's metadata is the compact form Spark writes.
    for name in checkpoint_folders() {
        let bytes = fs::read(fixtures().join(&name).join("metadata")).unwrap();
        let meta = QueryMetadata::parse(std::str::from_utf8(&bytes).unwrap()).unwrap();
        assert_eq!(meta.to_bytes(), bytes, "{name}");
    }
}

#[test]
fn restart_decisions_on_the_fixture_folders() {
    let expected = [
        ("checkpoint-test-offsetId-commitId-inconsistent", None),
        (
            "checkpoint-version-2.1.0",
            Some(RestartAction::Rerun { batch_id: 1 }),
        ),
        (
            "checkpoint-version-2.3.1-flatMapGroupsWithState-state-format-1",
            Some(RestartAction::Rerun { batch_id: 0 }),
        ),
        (
            "checkpoint-version-2.3.1-without-commit-log-metadata",
            Some(RestartAction::Rerun { batch_id: 1 }),
        ),
        (
            "checkpoint-version-2.4.3-kafka-include-headers-default",
            Some(RestartAction::Rerun { batch_id: 0 }),
        ),
        (
            "checkpoint-version-3.2.0-deduplication-with-repartition",
            Some(RestartAction::Rerun { batch_id: 1 }),
        ),
        (
            "checkpoint-version-4.0.0-tws-unsaferow",
            Some(RestartAction::Rerun { batch_id: 1 }),
        ),
    ];
    for (name, action) in expected {
        let plan = batchscope_engine::checkpoint::restart_plan(&load(name)).unwrap();
        match action {
            Some(action) => assert_eq!(plan.action, action, "{name}"),
            None => match &plan.action {
                RestartAction::Fail { reason } => {
                    assert!(reason.contains("offsets/3 is missing"), "{reason}")
                }
                other => panic!("{name}: expected a failure, got {other:?}"),
            },
        }
    }
}

/// Every file of a fixture folder, recursively, with paths relative to it.
fn load_all(name: &str) -> CheckpointFolder {
    fn walk(root: &Path, dir: &Path, files: &mut Vec<(String, Vec<u8>)>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, files);
            } else {
                let relative = path.strip_prefix(root).unwrap().to_str().unwrap();
                files.push((relative.replace('\\', "/"), fs::read(&path).unwrap()));
            }
        }
    }
    let root = fixtures().join(name);
    let mut files = Vec::new();
    walk(&root, &root, &mut files);
    CheckpointFolder::from_files(files)
}

/// pyspark 4.3.0 with source evolution writes `<name>:<offset>` lines (offset log v2).
#[test]
fn spark_4_3_named_offset_lines_keep_their_names() {
    let name = "checkpoint-version-4.3.0-named-sources-killed-in-batch-2";
    let text = text(&format!("{name}/offsets/2"));
    let entry = OffsetLogEntry::parse(&text).unwrap();
    assert_eq!(entry.version, 2);
    let ids: Vec<String> = entry.sources.iter().map(|s| s.id.to_string()).collect();
    assert_eq!(ids, vec!["src_a", "src_b"]);
    assert_eq!(entry.metadata_extra_keys, vec!["sourceMetadataInfo"]);
    let conf = entry.metadata.unwrap().conf.unwrap();
    assert_eq!(
        conf.get("spark.sql.streaming.queryEvolution.enableSourceEvolution")
            .map(String::as_str),
        Some("true")
    );
    assert!(
        OffsetSeq::parse(&text).is_err(),
        "positions cannot hold names"
    );
    let folder = load_all(name);
    let plan = restart_plan(&folder).unwrap();
    assert_eq!(plan.action, RestartAction::Rerun { batch_id: 2 });
    let (sources, notes) = source_reports(&folder, plan.end.as_ref());
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(sources[0].id, SourceId::Name("src_a".to_owned()));
    let log = sources[0].file_log.as_ref().unwrap();
    assert_eq!(log.latest_entry, Some(2));
    assert_eq!(log.input_files, 3);
}

#[test]
fn spark_4_3_state_folder_counts_versions_per_operator() {
    let folder = load_all("checkpoint-version-4.3.0-stateful-aggregation-killed-in-batch-2");
    let (operators, unknown) = state_operators(&folder);
    assert!(unknown.is_empty(), "{unknown:?}");
    assert_eq!(operators.len(), 1);
    assert_eq!(operators[0].operator_id, 0);
    assert_eq!(operators[0].latest_version, Some(3));
    assert_eq!(operators[0].min_partition_version, Some(3));
    assert_eq!(operators[0].by_kind.get("delta"), Some(&3));
    assert!(!operators[0].checkpoint_ids);
}
