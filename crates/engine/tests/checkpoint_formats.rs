//! Exact bytes Spark writes for offsets, commits, metadata and initial offsets, and
//! how they read back (SEMANTICS.md §1.4, §2, §3.2, §6).

use batchscope_engine::checkpoint::{
    initial_offset_bytes, parse_commit_sinks, parse_initial_offset, CheckpointError,
    CheckpointFolder, CommitMetadata, OffsetLogEntry, OffsetSeq, OffsetSeqMetadata, QueryMetadata,
    SourceId, COMMIT_LOG_MAX_VERSION,
};
use std::collections::BTreeMap;

fn conf() -> BTreeMap<String, String> {
    BTreeMap::from([
        ("spark.sql.shuffle.partitions".to_owned(), "5".to_owned()),
        (
            "spark.sql.streaming.multipleWatermarkPolicy".to_owned(),
            "min".to_owned(),
        ),
    ])
}

fn metadata(conf: Option<BTreeMap<String, String>>) -> OffsetSeqMetadata {
    OffsetSeqMetadata {
        batch_watermark_ms: 0,
        batch_timestamp_ms: 5,
        conf,
    }
}

#[test]
fn offsets_v1_bytes_are_spark_bytes() {
    let seq = OffsetSeq::v1(
        Some(metadata(Some(conf()))),
        vec![None, Some("3".to_owned())],
    );
    assert_eq!(
        seq.to_bytes(),
        b"v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":5,\"conf\":{\"spark.sql.shuffle.partitions\":\"5\",\"spark.sql.streaming.multipleWatermarkPolicy\":\"min\"}}\n-\n3".to_vec()
    );
    assert_eq!(
        OffsetSeq::parse(std::str::from_utf8(&seq.to_bytes()).unwrap()),
        Ok(seq)
    );
}

#[test]
fn offsets_v1_without_conf_is_the_spark_2_1_layout() {
    let seq = OffsetSeq::v1(Some(metadata(None)), vec![Some("2".to_owned())]);
    assert_eq!(
        seq.to_bytes(),
        b"v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":5}\n2".to_vec()
    );
    assert_eq!(
        OffsetSeq::parse("v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":5}\n2"),
        Ok(seq)
    );
}

#[test]
fn continuous_mode_writes_an_empty_metadata_line() {
    // ContinuousExecution.addOffset writes OffsetSeq.fill(offset): no metadata (§2).
    let seq = OffsetSeq::v1(None, vec![Some("{\"topic\":{\"0\":7}}".to_owned())]);
    assert_eq!(seq.to_bytes(), b"v1\n\n{\"topic\":{\"0\":7}}".to_vec());
    let read = OffsetSeq::parse("v1\n\n{\"topic\":{\"0\":7}}").unwrap();
    assert_eq!(read.metadata, None);
    assert_eq!(read, seq);
}

#[test]
fn offsets_v2_uses_source_index_lines() {
    let seq = OffsetSeq {
        version: 2,
        metadata: Some(metadata(Some(BTreeMap::new()))),
        offsets: vec![
            Some("0".to_owned()),
            None,
            Some("{\"logOffset\":3}".to_owned()),
        ],
    };
    assert_eq!(
        seq.to_bytes(),
        b"v2\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":5,\"conf\":{}}\n0:0\n1:-\n2:{\"logOffset\":3}"
            .to_vec()
    );
    assert_eq!(
        OffsetSeq::parse(std::str::from_utf8(&seq.to_bytes()).unwrap()),
        Ok(seq.clone())
    );
    // Spark writes the map in hash order; any order reads the same.
    let shuffled = "v2\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":5,\"conf\":{}}\n2:{\"logOffset\":3}\n0:0\n1:-";
    assert_eq!(OffsetSeq::parse(shuffled), Ok(seq));
}

#[test]
fn offsets_accept_trailing_newline_and_crlf() {
    let lf = OffsetSeq::parse("v1\n{\"batchWatermarkMs\":1,\"batchTimestampMs\":2}\n0\n").unwrap();
    let crlf =
        OffsetSeq::parse("v1\r\n{\"batchWatermarkMs\":1,\"batchTimestampMs\":2}\r\n0\r\n").unwrap();
    assert_eq!(lf, crlf);
    assert_eq!(lf.offsets, vec![Some("0".to_owned())]);
}

#[test]
fn offsets_errors_name_the_line_and_the_problem() {
    let cases = [
        (
            "x1\n\n0",
            "line 1: expected a version line like `v1`, found `x1`",
        ),
        ("", "empty file: expected a version line like `v1`"),
        ("v9\n\n0", "log version v9 is newer than the supported v2"),
        ("v1", "line 2: missing the metadata line"),
        (
            "v1\n{\"batchWatermarkMs\":\"x\"}\n0",
            "line 2: offset metadata: `batchWatermarkMs` must be a whole number",
        ),
        (
            "v1\n[1]\n0",
            "line 2: offset metadata: expected a JSON object",
        ),
        ("v2\n{}\nzero", "line 3: expected `<sourceId>:<offset>`"),
        (
            "v2\n{}\nsrc-a:1",
            "line 3: source id `src-a` is neither an index nor",
        ),
        ("v2\n{}\n0:1\n0:2", "line 4: source 0 appears twice"),
        (
            "v2\n{}\nkafka:1",
            "source `kafka` is named; sources by position were expected",
        ),
    ];
    for (text, expected) in cases {
        let message = OffsetSeq::parse(text).unwrap_err().to_string();
        assert!(message.starts_with(expected), "{text:?} gave {message:?}");
    }
}

#[test]
fn commit_bytes_for_each_spark_version() {
    assert_eq!(
        CommitMetadata::v1(0).to_bytes(),
        b"v1\n{\"nextBatchWatermarkMs\":0}".to_vec()
    );
    assert_eq!(
        CommitMetadata::legacy_empty().to_bytes(),
        b"v1\n{}".to_vec()
    );
    let v2 = CommitMetadata {
        version: 2,
        next_batch_watermark_ms: Some(0),
        state_unique_ids: Some(serde_json::json!({"0": [["a", "b"]]})),
    };
    assert_eq!(
        v2.to_bytes(),
        b"v2\n{\"nextBatchWatermarkMs\":0,\"stateUniqueIds\":{\"0\":[[\"a\",\"b\"]]}}".to_vec()
    );
    for commit in [CommitMetadata::v1(-7), CommitMetadata::legacy_empty(), v2] {
        let text = String::from_utf8(commit.to_bytes()).unwrap();
        assert_eq!(CommitMetadata::parse(&text), Ok(commit));
    }
}

#[test]
fn commit_without_second_line_reads_as_empty_object() {
    assert_eq!(
        CommitMetadata::parse("v1"),
        Ok(CommitMetadata::legacy_empty())
    );
    assert_eq!(
        CommitMetadata::parse("v1\n"),
        Ok(CommitMetadata::legacy_empty())
    );
    assert_eq!(
        CommitMetadata::parse(" v1 \n{}"),
        Ok(CommitMetadata::legacy_empty())
    );
}

#[test]
fn commit_errors_are_clear() {
    assert_eq!(
        CommitMetadata::parse("v4\n{}").unwrap_err().to_string(),
        format!("log version v4 is newer than the supported v{COMMIT_LOG_MAX_VERSION}")
    );
    let message = CommitMetadata::parse("v1\nnot json")
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with("line 2: commit metadata: not valid JSON"),
        "{message}"
    );
    let message = CommitMetadata::parse("v2\n{\"stateUniqueIds\":{\"0\":[1]}}")
        .unwrap_err()
        .to_string();
    assert!(message.contains("stateUniqueIds"), "{message}");
}

#[test]
fn query_metadata_bytes_and_any_layout() {
    let meta = QueryMetadata {
        id: "d4358946-170c-49a7-823b-d8e4e9126616".to_owned(),
    };
    assert_eq!(
        meta.to_bytes(),
        b"{\"id\":\"d4358946-170c-49a7-823b-d8e4e9126616\"}".to_vec()
    );
    assert_eq!(
        QueryMetadata::parse("{\n  \"id\" : \"d4358946-170c-49a7-823b-d8e4e9126616\"\n}\n"),
        Ok(meta)
    );
    assert!(QueryMetadata::parse("{\"id\":\"not-a-uuid\"}")
        .unwrap_err()
        .to_string()
        .contains("not a UUID"));
    assert!(QueryMetadata::parse("{}")
        .unwrap_err()
        .to_string()
        .contains("`id`"));
}

#[test]
fn initial_offset_files_of_kafka_and_tablestore() {
    let kafka = initial_offset_bytes(1, "{\"topic\":{\"0\":0}}");
    assert_eq!(kafka, b"\x00v1\n{\"topic\":{\"0\":0}}".to_vec());
    assert_eq!(
        parse_initial_offset(&kafka),
        Ok((1, "{\"topic\":{\"0\":0}}".to_owned()))
    );
    let uuid = "9e107d9d-372b-4b8a-9f7b-1c2f3d4e5f60";
    let tablestore = initial_offset_bytes(2, uuid);
    assert_eq!(&tablestore[..4], b"\x00v2\n");
    assert_eq!(parse_initial_offset(&tablestore), Ok((2, uuid.to_owned())));
    // Spark 2.1.0 form: no version line.
    assert_eq!(
        parse_initial_offset(b"\x00{\"t\":{\"0\":1}}"),
        Ok((0, "{\"t\":{\"0\":1}}".to_owned()))
    );
    // A file-source log is not an initial-offset file.
    let message = parse_initial_offset(b"v1\n{\"path\":\"a\"}\n")
        .unwrap_err()
        .to_string();
    assert!(message.contains("0x00 marker"), "{message}");
    assert!(parse_initial_offset(b"\x00v1").is_err());
    assert!(parse_initial_offset(b"").is_err());
}

#[test]
fn folder_writes_are_immutable() {
    let mut folder = CheckpointFolder::new();
    let seq = OffsetSeq::v1(Some(metadata(None)), vec![Some("1".to_owned())]);
    folder.write_offsets(0, &seq).unwrap();
    let again = folder.write_offsets(0, &seq).unwrap_err();
    assert_eq!(
        again,
        CheckpointError::AlreadyExists {
            path: "offsets/0".to_owned()
        }
    );
    assert!(again.to_string().starts_with("offsets/0: already exists"));
    folder.write_commit(0, &CommitMetadata::v1(0)).unwrap();
    assert!(matches!(
        folder.write_commit(0, &CommitMetadata::v1(9)),
        Err(CheckpointError::AlreadyExists { .. })
    ));
    assert_eq!(folder.commit(0), Ok(Some(CommitMetadata::v1(0))));
    assert_eq!(folder.offsets(0), Ok(Some(seq)));
    assert!(folder
        .create_atomic("sources/0/0", initial_offset_bytes(1, "{}"))
        .is_ok());
    assert!(folder.create_atomic("sources/0/0", Vec::new()).is_err());
    assert!(folder.create_atomic("../escape", Vec::new()).is_err());
    assert!(folder.create_atomic("", Vec::new()).is_err());
}

#[test]
fn folder_refuses_values_spark_cannot_write() {
    let mut folder = CheckpointFolder::new();
    let no_meta_v2 = OffsetSeq {
        version: 2,
        metadata: None,
        offsets: vec![],
    };
    assert!(folder
        .write_offsets(0, &no_meta_v2)
        .unwrap_err()
        .to_string()
        .contains("metadata"));
    let v3 = OffsetSeq {
        version: 3,
        metadata: None,
        offsets: vec![],
    };
    assert!(folder.write_offsets(0, &v3).is_err());
    assert!(folder
        .write_metadata(&QueryMetadata { id: "x".to_owned() })
        .is_err());
    assert!(folder.files().next().is_none());
}

#[test]
fn metadata_round_trip_through_folder() {
    let mut folder = CheckpointFolder::new();
    assert_eq!(folder.query_metadata(), Ok(None));
    let meta = QueryMetadata {
        id: "04d960cd-d38f-4ce6-b8d0-ebcf84c9dccc".to_owned(),
    };
    folder.write_metadata(&meta).unwrap();
    assert_eq!(folder.read("metadata"), Some(meta.to_bytes().as_slice()));
    assert_eq!(folder.query_metadata(), Ok(Some(meta.clone())));
    assert!(folder.write_metadata(&meta).is_err());
}

#[test]
fn log_listing_ignores_names_that_are_not_batch_ids() {
    let folder = CheckpointFolder::from_files([
        ("offsets/0".to_owned(), b"v1\n\n1".to_vec()),
        ("offsets/10".to_owned(), b"v1\n\n1".to_vec()),
        ("offsets/2".to_owned(), b"v1\n\n1".to_vec()),
        ("offsets/.2.crc".to_owned(), vec![1, 2]),
        ("offsets/3.tmp".to_owned(), Vec::new()),
        ("offsets/007".to_owned(), Vec::new()),
        ("offsets/sub/4".to_owned(), Vec::new()),
        ("commits/2".to_owned(), b"v1\n{}".to_vec()),
        ("sources/0/5".to_owned(), Vec::new()),
    ]);
    assert_eq!(folder.offset_log_ids(), vec![0, 2, 10]);
    assert_eq!(folder.commit_log_ids(), vec![2]);
    assert_eq!(folder.latest_offset_id(), Some(10));
    assert_eq!(folder.latest_commit_id(), Some(2));
    let paths: Vec<&str> = folder.files().map(|(path, _)| path).collect();
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted);
}

#[test]
fn purge_deletes_both_logs_below_the_threshold() {
    let mut folder = CheckpointFolder::new();
    for id in 0..5 {
        folder
            .write_offsets(id, &OffsetSeq::v1(None, vec![Some(id.to_string())]))
            .unwrap();
        folder.write_commit(id, &CommitMetadata::v1(0)).unwrap();
    }
    folder
        .create_atomic("sources/0/0", initial_offset_bytes(1, "{}"))
        .unwrap();
    let deleted = folder.purge(3);
    assert_eq!(
        deleted,
        vec![
            "commits/0",
            "commits/1",
            "commits/2",
            "offsets/0",
            "offsets/1",
            "offsets/2"
        ]
    );
    assert_eq!(folder.offset_log_ids(), vec![3, 4]);
    assert_eq!(folder.commit_log_ids(), vec![3, 4]);
    assert!(folder.contains("sources/0/0"));
    assert!(folder.purge(3).is_empty());
    assert!(folder.delete("offsets/4"));
    assert!(!folder.delete("offsets/4"));
}

#[test]
fn unreadable_bytes_name_the_file() {
    let folder = CheckpointFolder::from_files([
        ("offsets/1".to_owned(), vec![0xff, 0xfe]),
        ("commits/1".to_owned(), b"garbage".to_vec()),
    ]);
    assert_eq!(
        folder.offsets(1).unwrap_err().to_string(),
        "offsets/1: not valid UTF-8 text"
    );
    assert_eq!(
        folder.commit(1).unwrap_err().to_string(),
        "commits/1: line 1: expected a version line like `v1`, found `garbage`"
    );
}

#[test]
fn public_types_serialize_with_snake_case_fields() {
    let json = serde_json::to_value(metadata(None)).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"batch_watermark_ms": 0, "batch_timestamp_ms": 5, "conf": null})
    );
    let folder = CheckpointFolder::from_files([("offsets/0".to_owned(), b"v1\n\n1".to_vec())]);
    let back: CheckpointFolder =
        serde_json::from_str(&serde_json::to_string(&folder).unwrap()).unwrap();
    assert_eq!(back, folder);
}

/// Spark 4.2+ with `spark.sql.streaming.queryEvolution.enableSourceEvolution`: v2 lines
/// carry the source's name (SPARK-54423); the order in the file is a hash map's.
#[test]
fn named_sources_in_offset_log_v2_keep_their_names() {
    let text = "v2\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":7,\"conf\":{},\
                \"sourceMetadataInfo\":{}}\nsrc_b:-\nsrc_a:{\"logOffset\":2}";
    let entry = OffsetLogEntry::parse(text).unwrap();
    assert_eq!(entry.version, 2);
    assert!(entry.named());
    assert_eq!(entry.metadata_extra_keys, vec!["sourceMetadataInfo"]);
    let ids: Vec<String> = entry.sources.iter().map(|s| s.id.to_string()).collect();
    assert_eq!(ids, vec!["src_a", "src_b"]);
    assert_eq!(
        entry.offset_of(&SourceId::Name("src_a".to_owned())),
        Some("{\"logOffset\":2}")
    );
    assert_eq!(entry.offset_of(&SourceId::Name("src_b".to_owned())), None);
    assert_eq!(SourceId::Name("src_a".to_owned()).folder(), "sources/src_a");
    let by_index = OffsetLogEntry::parse("v2\n{}\n1:5\n0:4").unwrap();
    assert!(!by_index.named());
    assert_eq!(by_index.sources[0].id, SourceId::Index(0));
    assert_eq!(
        OffsetSeq::parse("v2\n{}\n1:5\n0:4").unwrap().offsets,
        vec![Some("4".to_owned()), Some("5".to_owned())]
    );
    let v1 = OffsetLogEntry::parse("v1\n\n-\n3").unwrap();
    assert_eq!(v1.sources[1].id, SourceId::Index(1));
    assert_eq!(v1.sources[0].offset, None);
}

/// `CommitMetadataV3` (sink evolution): `sinkMetadataMap` beside `stateUniqueIds`.
#[test]
fn commit_log_v3_carries_sink_metadata() {
    let text = "v3\n{\"nextBatchWatermarkMs\":5,\"stateUniqueIds\":{\"0\":[[\"u1\"]]},\
                \"sinkMetadataMap\":{\"out\":{\"sinkName\":\"out\",\"commitOffset\":\"-\",\
                \"providerName\":\"parquet\",\"isActive\":true}}}";
    let commit = CommitMetadata::parse(text).unwrap();
    assert_eq!(commit.version, 3);
    assert_eq!(commit.next_batch_watermark_ms, Some(5));
    assert!(commit.state_unique_ids.is_some());
    let sinks = parse_commit_sinks(text).unwrap();
    assert_eq!(sinks.len(), 1);
    assert_eq!(sinks[0].sink_name, "out");
    assert_eq!(sinks[0].provider_name, "parquet");
    assert!(sinks[0].is_active);
    assert!(parse_commit_sinks("v1\n{}").unwrap().is_empty());
    let mut folder = CheckpointFolder::new();
    let refused = folder.write_commit(0, &commit).unwrap_err().to_string();
    assert!(refused.contains("must be 1 or 2"), "{refused}");
}
