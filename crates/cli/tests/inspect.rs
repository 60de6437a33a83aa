//! `batchscope inspect` as a library: reading real folders from disk, the JSON contract,
//! the text summary and the exit code 2 with one line naming the broken file.

use batchscope_cli::inspect::{read_folder, render_text, run, InspectArgs};
use batchscope_engine::checkpoint::{
    initial_offset_bytes, CheckpointFolder, InspectOptions, Inspection,
};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/spark-checkpoints")
        .join(name)
}

/// A fresh empty directory under the system temp dir, unique per test and process.
fn temp_dir(label: &str) -> PathBuf {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let n = COUNTER.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!(
        "batchscope-inspect-{label}-{}-{n}",
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn inspect(folder: &CheckpointFolder) -> Inspection {
    batchscope_engine::checkpoint::inspect(folder, &InspectOptions::default())
}

fn codes(inspection: &Inspection) -> Vec<&str> {
    inspection
        .problems
        .iter()
        .map(|p| p.code.as_str())
        .collect()
}

fn write(dir: &Path, relative: &str, bytes: &[u8]) {
    let path = dir.join(relative);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

#[test]
fn spark_2_1_folder_reruns_its_last_batch() {
    let folder = read_folder(&fixture("checkpoint-version-2.1.0")).unwrap();
    let inspection = inspect(&folder);
    assert_eq!(
        inspection.query_id.as_deref(),
        Some("dddc5e7f-1e71-454c-8362-de184444fb5a")
    );
    assert_eq!(inspection.format.offset_log, Some(1));
    assert_eq!(inspection.latest_offset, Some(1));
    assert_eq!(inspection.latest_commit, None);
    assert_eq!(inspection.batches.len(), 2);
    assert_eq!(
        inspection.batches[1].batch_timestamp_ms,
        Some(1_489_180_209_261)
    );
    assert!(!inspection.batches[1].committed);
    assert_eq!(inspection.restart.action, "rerun");
    assert_eq!(inspection.restart.batch, Some(1));
    let text = render_text(&inspection);
    assert!(
        text.contains(
            "restart (Spark 4.3): re-run batch 1 (offsets/1 has no commits/1; there is no commit log at all)"
        ),
        "{text}"
    );
    assert!(
        text.contains("query id: dddc5e7f-1e71-454c-8362-de184444fb5a"),
        "{text}"
    );
}

#[test]
fn json_contract_field_names() {
    let folder = read_folder(&fixture(
        "checkpoint-version-2.4.3-kafka-include-headers-default",
    ))
    .unwrap();
    let json = serde_json::to_value(inspect(&folder)).unwrap();
    assert_eq!(json["query_id"], "fc415a71-f0a2-4c3c-aeaf-f9e258c3f726");
    assert_eq!(json["format"]["offset_log"], 1);
    assert!(json["format"]["commit_log"].is_null());
    assert_eq!(json["format"]["named_sources"], false);
    let batch = &json["batches"][0];
    assert_eq!(batch["batch_id"], 0);
    assert_eq!(batch["offsets"][0]["id"], 0);
    assert_eq!(
        batch["offsets"][0]["offset"],
        "{\"spark-test-topic-2b8619f5-d3c4-4c2d-b5d1-8d9d9458aa62\":{\"2\":3,\"4\":3,\"1\":3,\"3\":3,\"0\":3}}"
    );
    assert_eq!(batch["batch_watermark_ms"], 0);
    assert_eq!(batch["batch_timestamp_ms"], 1_568_508_285_207_i64);
    assert_eq!(batch["committed"], false);
    assert!(batch["next_batch_watermark_ms"].is_null());
    assert_eq!(json["latest_offset"], 0);
    assert!(json["latest_commit"].is_null());
    assert_eq!(json["sources"][0]["id"], 0);
    assert_eq!(json["sources"][0]["kind"], "kafka");
    assert!(json.get("state").is_none(), "no state/ folder, no `state`");
    assert_eq!(json["restart"]["action"], "rerun");
    assert_eq!(json["restart"]["batch"], 0);
    assert_eq!(json["restart"]["rule"], "no_commit_log");
    assert!(json["restart"]["reason"]
        .as_str()
        .unwrap()
        .contains("offsets/0"));
    assert_eq!(json["problems"], serde_json::json!([]));
}

#[test]
fn flat_map_groups_with_state_folder_has_a_commit_ahead_of_offsets() {
    // As copied: offsets/0 and commits/1 only (offsets/1, commits/0 were not retrievable).
    // C = 1 > L = 0 matches no branch of populateStartOffsets: batch 0 re-runs.
    let folder = read_folder(&fixture(
        "checkpoint-version-2.3.1-flatMapGroupsWithState-state-format-1",
    ))
    .unwrap();
    let inspection = inspect(&folder);
    assert_eq!(inspection.restart.action, "rerun");
    assert_eq!(inspection.restart.batch, Some(0));
    assert_eq!(inspection.latest_commit, Some(1));
    let ids: Vec<u64> = inspection.batches.iter().map(|b| b.batch_id).collect();
    assert_eq!(ids, vec![0, 1]);
    assert!(!inspection.batches[1].has_offsets);
    assert!(inspection.batches[1].committed);
    assert_eq!(inspection.batches[1].next_batch_watermark_ms, None);
    let problem = &inspection.problems[0];
    assert_eq!(problem.code, "commits_ahead_of_offsets");
    assert!(problem
        .spark_says
        .as_deref()
        .unwrap()
        .starts_with("[CONCURRENT_STREAM_LOG_UPDATE] Concurrent update to the log."));
}

#[test]
fn inconsistent_folder_fails_for_the_missing_offsets_3() {
    let folder = read_folder(&fixture("checkpoint-test-offsetId-commitId-inconsistent")).unwrap();
    let inspection = inspect(&folder);
    assert_eq!(inspection.restart.action, "fail");
    assert_eq!(inspection.restart.batch, None);
    assert!(inspection.restart.reason.contains("offsets/3 is missing"));
    assert_eq!(
        codes(&inspection),
        vec!["previous_offsets_missing", "offsets_gap"]
    );
    assert_eq!(
        inspection.problems[0].spark_says.as_deref(),
        Some("requirement failed: Previous batch 3 not found in offset log")
    );
    assert_eq!(inspection.problems[0].path.as_deref(), Some("offsets/3"));
    assert!(render_text(&inspection).contains("restart (Spark 4.3): fails (offsets/3 is missing"));
}

#[test]
fn reads_sources_state_and_skips_crc_and_tmp() {
    let dir = temp_dir("layout");
    write(
        &dir,
        "metadata",
        b"{\"id\":\"fc415a71-f0a2-4c3c-aeaf-f9e258c3f726\"}",
    );
    write(
        &dir,
        "offsets/0",
        b"v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":7}\n{\"t\":{\"0\":3}}\n{\"logOffset\":0}",
    );
    write(&dir, "offsets/.0.crc", b"\x01\x02");
    write(&dir, "offsets/1.tmp", b"partial");
    write(&dir, "commits/0", b"v1\n{\"nextBatchWatermarkMs\":0}");
    write(
        &dir,
        "sources/0/0",
        &initial_offset_bytes(1, "{\"t\":{\"0\":0}}"),
    );
    write(
        &dir,
        "sources/1/0",
        b"v1\n{\"path\":\"/in/a\",\"timestamp\":1,\"batchId\":0}\n",
    );
    write(&dir, "state/0/0/1.delta", b"\x00\x00binary");
    write(&dir, "state/0/1/1.delta", b"\x00\x00binary");
    write(&dir, "state/0/0/.1.delta.crc", b"\x00");
    write(&dir, "notes.txt", b"mine");
    let folder = read_folder(&dir).unwrap();
    assert!(!folder.contains("offsets/.0.crc"));
    assert!(!folder.contains("offsets/1.tmp"));
    assert_eq!(folder.read("state/0/0/1.delta"), Some(&[][..]));
    let inspection = inspect(&folder);
    let state = inspection.state.as_ref().unwrap();
    assert_eq!(state.operators.len(), 1);
    assert_eq!(state.operators[0].partitions, 2);
    assert_eq!(state.operators[0].files, 2);
    assert_eq!(state.operators[0].latest_version, Some(1));
    assert_eq!(inspection.restart.action, "next");
    assert_eq!(inspection.restart.batch, Some(1));
    assert_eq!(inspection.restart.state_version, Some(1));
    assert!(inspection.restart.get_batch_without_running);
    assert!(inspection.problems.is_empty(), "{:?}", inspection.problems);
    assert_eq!(inspection.batches[0].next_batch_watermark_ms, Some(0));
    assert_eq!(inspection.sources.len(), 2);
    assert_eq!(inspection.sources[0].kind, "kafka");
    assert_eq!(inspection.sources[0].private_files, 1);
    assert_eq!(
        inspection.sources[0].initial_offset.as_deref(),
        Some("{\"t\":{\"0\":0}}")
    );
    assert_eq!(inspection.sources[1].kind, "file");
    assert_eq!(inspection.sources[1].initial_offset, None);
    assert_eq!(
        inspection.sources[1].file_log.as_ref().unwrap().input_files,
        1
    );
    let text = render_text(&inspection);
    assert!(
        text.contains("restart (Spark 4.3): run next batch 1 (commits/0 records batch 0 as done)"),
        "{text}"
    );
    let mut args = InspectArgs::for_dir(&dir);
    args.json = true;
    assert_eq!(run(&args), 0);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_empty_offsets_file_fails_the_restart_with_sparks_incomplete_log_file() {
    // A write torn on a store without atomic rename leaves the latest entry empty; pyspark
    // 4.3.0 and 3.5.9 then fail with "Incomplete log file" (conformance row offset-log-empty).
    let dir = temp_dir("empty-entry");
    write(
        &dir,
        "metadata",
        b"{\"id\":\"fc415a71-f0a2-4c3c-aeaf-f9e258c3f726\"}",
    );
    write(&dir, "offsets/0", b"v1\n\n0");
    write(&dir, "offsets/1", b"");
    let inspection = inspect(&read_folder(&dir).unwrap());
    assert_eq!(inspection.restart.action, "fail");
    assert_eq!(inspection.restart.rule.to_string(), "unreadable_log");
    let said = batchscope_engine::checkpoint::EMPTY_LOG_FILE_ERROR;
    assert_eq!(inspection.restart.spark_error.as_deref(), Some(said));
    let problem = inspection
        .problems
        .iter()
        .find(|p| p.code == "unreadable_file")
        .unwrap();
    assert_eq!(problem.path.as_deref(), Some("offsets/1"));
    assert_eq!(problem.spark_says.as_deref(), Some(said));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn garbage_offsets_file_is_a_problem_naming_it_and_the_restart_fails() {
    let dir = temp_dir("garbage");
    write(
        &dir,
        "metadata",
        b"{\"id\":\"fc415a71-f0a2-4c3c-aeaf-f9e258c3f726\"}",
    );
    write(&dir, "offsets/0", b"v1\n\n0");
    write(&dir, "offsets/1", b"garbage\x00\x01");
    let folder = read_folder(&dir).unwrap();
    let inspection = inspect(&folder);
    assert_eq!(inspection.restart.action, "fail");
    assert_eq!(inspection.restart.rule.to_string(), "unreadable_log");
    let problem = inspection
        .problems
        .iter()
        .find(|p| p.code == "unreadable_file")
        .unwrap();
    assert_eq!(problem.path.as_deref(), Some("offsets/1"));
    assert!(problem
        .message
        .starts_with("offsets/1: line 1: expected a version line"));
    assert!(problem
        .spark_says
        .as_deref()
        .unwrap()
        .starts_with("[MALFORMED_LOG_FILE]"));
    assert_eq!(run(&InspectArgs::for_dir(&dir)), 0);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_log_version_from_a_newer_spark_is_a_report_line_not_a_refusal() {
    let dir = temp_dir("newer");
    write(
        &dir,
        "metadata",
        b"{\"id\":\"fc415a71-f0a2-4c3c-aeaf-f9e258c3f726\"}",
    );
    write(&dir, "offsets/0", b"v1\n\n0");
    write(&dir, "offsets/1", b"v1\n\n1");
    write(&dir, "commits/0", b"v9\n{}");
    let inspection = inspect(&read_folder(&dir).unwrap());
    assert_eq!(inspection.batches.len(), 2);
    assert_eq!(inspection.batches[0].commit_version, None);
    let problem = &inspection.problems[0];
    assert_eq!(problem.path.as_deref(), Some("commits/0"));
    assert!(
        problem
            .spark_says
            .as_deref()
            .unwrap()
            .starts_with("[INVALID_LOG_VERSION.MAX_SUPPORTED_VERSION] The maximum supported log version is v3, but encountered v9."),
        "{problem:?}"
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn not_a_checkpoint_and_missing_paths_are_refused() {
    let dir = temp_dir("empty");
    write(&dir, "notes.txt", b"hello");
    let message = read_folder(&dir).unwrap_err();
    assert!(
        message.contains("not a Spark checkpoint folder"),
        "{message}"
    );
    assert!(!message.contains('\n'));
    let mut args = InspectArgs::for_dir(&dir);
    args.json = true;
    assert_eq!(run(&args), 2);
    let missing = dir.join("nope");
    let message = read_folder(&missing).unwrap_err();
    assert!(
        message.starts_with(&missing.display().to_string()),
        "{message}"
    );
    assert_eq!(run(&InspectArgs::for_dir(&missing)), 2);
    let file = dir.join("notes.txt");
    assert!(read_folder(&file).unwrap_err().contains("not a directory"));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn run_succeeds_on_every_fixture_folder_in_both_modes() {
    for name in [
        "checkpoint-version-2.1.0",
        "checkpoint-test-offsetId-commitId-inconsistent",
        "checkpoint-version-4.0.0-tws-unsaferow",
    ] {
        for json in [false, true] {
            let mut args = InspectArgs::for_dir(fixture(name));
            args.json = json;
            assert_eq!(run(&args), 0, "{name}");
        }
    }
}

#[test]
fn folder_without_metadata_fails_on_spark_4_2_and_warns_before() {
    let dir = temp_dir("nometa");
    write(&dir, "offsets/0", b"v1\n\n5");
    let inspection = inspect(&read_folder(&dir).unwrap());
    assert_eq!(inspection.query_id, None);
    assert_eq!(inspection.batches[0].batch_watermark_ms, None);
    assert_eq!(inspection.restart.action, "fail");
    assert_eq!(codes(&inspection), vec!["missing_metadata"]);
    assert!(inspection.problems[0]
        .spark_says
        .as_deref()
        .unwrap()
        .starts_with("[STREAMING_CHECKPOINT_MISSING_METADATA_FILE]"));
    let mut options = InspectOptions::default();
    options.restart.spark = batchscope_engine::checkpoint::SparkVersion::parse("3.5").unwrap();
    let old = batchscope_engine::checkpoint::inspect(&read_folder(&dir).unwrap(), &options);
    assert_eq!(old.restart.action, "rerun");
    assert_eq!(codes(&old), vec!["missing_metadata"]);
    assert_eq!(
        old.problems[0].severity,
        batchscope_engine::checkpoint::Severity::Warning
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// A folder left by a kill inside batch 2 (offsets/2, no commits/2), with a file sink
/// whose manifest has (or has not) batch 2.
fn killed_in_batch_2(label: &str) -> PathBuf {
    let dir = temp_dir(label);
    write(
        &dir,
        "ckpt/metadata",
        b"{\"id\":\"fc415a71-f0a2-4c3c-aeaf-f9e258c3f726\"}",
    );
    for id in 0..3 {
        let entry = format!(
            "v1\n{{\"batchWatermarkMs\":0,\"batchTimestampMs\":{}}}\n{{\"logOffset\":{id}}}",
            100 + id
        );
        write(&dir, &format!("ckpt/offsets/{id}"), entry.as_bytes());
    }
    for id in 0..2 {
        write(
            &dir,
            &format!("ckpt/commits/{id}"),
            b"v1\n{\"nextBatchWatermarkMs\":0}",
        );
    }
    let file = |name: &str| {
        format!(
            "{{\"path\":\"file:/out/{name}\",\"size\":9,\"isDir\":false,\"modificationTime\":1,\
             \"blockReplication\":1,\"blockSize\":9,\"action\":\"add\"}}"
        )
    };
    for id in 0..3 {
        let entry = format!(
            "v1\n{}\n{}",
            file(&format!("a{id}")),
            file(&format!("b{id}"))
        );
        write(
            &dir,
            &format!("sink/_spark_metadata/{id}"),
            entry.as_bytes(),
        );
    }
    dir
}

#[test]
fn the_dry_run_says_what_each_sink_kind_gets() {
    let dir = killed_in_batch_2("sinks");
    let folder = read_folder(&dir.join("ckpt")).unwrap();
    let effect = |kind: &str| {
        let options = InspectOptions {
            sink_kind: batchscope_engine::microbatch::scenario::SinkKind::parse(kind),
            ..InspectOptions::default()
        };
        let inspection = batchscope_engine::checkpoint::inspect(&folder, &options);
        assert_eq!(inspection.restart.action, "rerun");
        assert_eq!(inspection.restart.batch_timestamp_ms, Some(102));
        inspection.restart.sink.unwrap()
    };
    assert!(effect("append").duplicates_possible);
    assert!(effect("append").effect.contains("twice"));
    assert!(effect("foreach-batch").effect.contains("batchId 2"));
    assert!(!effect("upsert").duplicates_possible);
    assert!(!effect("file").duplicates_possible);
    assert!(!effect("two-phase").duplicates_possible);
    assert!(effect("two-phase")
        .effect
        .contains("StreamingWrite.commit(2)"));
    assert!(effect("batch-id-in-memory").duplicates_possible);
    assert!(effect("batch-id-in-memory")
        .effect
        .contains("latestBatchId"));
    // With the sink folder the manifest decides: batch 2 is in it, so it is skipped.
    let mut args = InspectArgs::for_dir(dir.join("ckpt"));
    args.sink = Some(dir.join("sink"));
    assert_eq!(run(&args), 0);
    let sink = batchscope_cli::inspect::read_sink(&dir.join("sink")).unwrap();
    let options = InspectOptions {
        sink: Some(sink),
        ..InspectOptions::default()
    };
    let inspection = batchscope_engine::checkpoint::inspect(&folder, &options);
    let sink_log = inspection.sink.as_ref().unwrap();
    assert_eq!(sink_log.latest_batch, Some(2));
    assert_eq!(sink_log.files_added.get(&2), Some(&2));
    let effect = inspection.restart.sink.unwrap();
    assert!(
        effect.effect.contains("FileStreamSink skips it") && effect.effect.contains("(2 files)"),
        "{}",
        effect.effect
    );
    assert!(batchscope_cli::inspect::read_sink(&dir).is_err());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn conf_given_for_the_restart_is_compared_with_the_offset_metadata() {
    let dir = temp_dir("conf");
    write(
        &dir,
        "metadata",
        b"{\"id\":\"fc415a71-f0a2-4c3c-aeaf-f9e258c3f726\"}",
    );
    write(
        &dir,
        "offsets/0",
        b"v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":7,\"conf\":{\"spark.sql.shuffle.partitions\":\"5\"}}\n3",
    );
    let folder = read_folder(&dir).unwrap();
    let mut options = InspectOptions::default();
    options
        .conf
        .insert("spark.sql.shuffle.partitions".to_owned(), "200".to_owned());
    let inspection = batchscope_engine::checkpoint::inspect(&folder, &options);
    assert_eq!(codes(&inspection), vec!["conf_differs"]);
    // As Spark 4.3.0 logs it (conformance row shuffle-partitions-changed); 3.5.9 names
    // spark.sql.shuffle.partitions itself (crates/cli/tests/rerun_input.rs).
    assert_eq!(
        inspection.problems[0].spark_says.as_deref(),
        Some(
            "Updating the value of conf 'spark.sql.streaming.internal.stateStore.partitions' in \
             current session from '200' to '5'."
        )
    );
    options
        .conf
        .insert("spark.sql.shuffle.partitions".to_owned(), "5".to_owned());
    let inspection = batchscope_engine::checkpoint::inspect(&folder, &options);
    assert!(inspection.problems.is_empty());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn state_behind_the_last_commit_is_an_error() {
    let dir = killed_in_batch_2("state");
    let ckpt = dir.join("ckpt");
    write(&ckpt, "state/0/0/1.delta", b"x");
    write(&ckpt, "state/0/1/1.delta", b"x");
    write(&ckpt, "state/0/1/2.delta", b"x");
    let inspection = inspect(&read_folder(&ckpt).unwrap());
    assert_eq!(inspection.restart.state_version, Some(2));
    assert_eq!(codes(&inspection), vec!["state_behind_commit"]);
    assert!(inspection.problems[0]
        .spark_says
        .as_deref()
        .unwrap()
        .starts_with("[CANNOT_LOAD_STATE_STORE.CANNOT_READ_DELTA_FILE_NOT_EXISTS]"));
    write(&ckpt, "state/0/0/2.delta", b"x");
    write(&ckpt, "state/0/0/3.delta", b"x");
    let inspection = inspect(&read_folder(&ckpt).unwrap());
    assert!(inspection.problems.is_empty(), "{:?}", inspection.problems);
    assert_eq!(
        inspection.state.unwrap().operators[0].latest_version,
        Some(3)
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// Every option through the real binary (clap's parsing included).
#[test]
fn the_binary_takes_every_option() {
    let named = fixture("checkpoint-version-4.3.0-named-sources-killed-in-batch-2");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_batchscope"))
        .arg("inspect")
        .arg(&named)
        .args(["--json", "--sources", "src_a,src_b,src_c", "--sink-kind"])
        .args(["foreach-batch", "--conf", "spark.sql.shuffle.partitions=7"])
        .args(["--spark", "4.3", "--async-progress-tracking"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["restart"]["action"], "rerun");
    assert_eq!(json["restart"]["sink"]["kind"], "foreach-batch");
    assert_eq!(json["problems"][0]["code"], "conf_differs");
    assert!(json["notes"][0]
        .as_str()
        .unwrap()
        .starts_with("source src_c is not in offsets/2"));
    let count = std::process::Command::new(env!("CARGO_BIN_EXE_batchscope"))
        .arg("inspect")
        .arg(&named)
        .args(["--sources", "2"])
        .output()
        .unwrap();
    assert!(count.status.success());
    let text = String::from_utf8(count.stdout).unwrap();
    assert!(text.contains("restart (Spark 4.3): fails"), "{text}");
    for bad in [
        &["--sink-kind", "kafka"][..],
        &["--conf", "novalue"],
        &["--spark", "four"],
    ] {
        let refused = std::process::Command::new(env!("CARGO_BIN_EXE_batchscope"))
            .arg("inspect")
            .arg(&named)
            .args(bad)
            .output()
            .unwrap();
        assert_eq!(refused.status.code(), Some(2), "{bad:?}");
    }
}

#[test]
fn commit_log_v3_sinks_and_v2_state_ids_are_reported() {
    let dir = temp_dir("v3");
    write(
        &dir,
        "metadata",
        b"{\"id\":\"fc415a71-f0a2-4c3c-aeaf-f9e258c3f726\"}",
    );
    write(
        &dir,
        "offsets/0",
        b"v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":7}\n3",
    );
    write(
        &dir,
        "commits/0",
        b"v3\n{\"nextBatchWatermarkMs\":0,\"stateUniqueIds\":{\"0\":[[\"u1\"]]},\
          \"sinkMetadataMap\":{\"out\":{\"sinkName\":\"out\",\"commitOffset\":\"-\",\
          \"providerName\":\"parquet\",\"isActive\":true}}}",
    );
    write(&dir, "state/0/0/1_u1.zip", b"x");
    let inspection = inspect(&read_folder(&dir).unwrap());
    assert_eq!(inspection.format.commit_log, Some(3));
    assert_eq!(inspection.commit_sinks.len(), 1);
    assert_eq!(inspection.commit_sinks[0].provider_name, "parquet");
    assert_eq!(inspection.batches[0].state_checkpoint_operators, vec!["0"]);
    let operator = &inspection.state.as_ref().unwrap().operators[0];
    assert!(operator.checkpoint_ids);
    assert_eq!(operator.latest_version, Some(1));
    assert!(inspection.problems.is_empty(), "{:?}", inspection.problems);
    fs::remove_dir_all(&dir).unwrap();
}
