//! `batchscope inspect` on folders real Spark left (conformance rows `input-deleted` and
//! `shuffle-partitions-changed`): the input files the re-run batch reads, checked on this
//! machine, and the confs the restart restores from the offset log, quoted as Spark logs them.

use batchscope_engine::checkpoint::{MISSING_INPUT_WARNING, SHUFFLE_PARTITIONS};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/spark-checkpoints")
        .join(name)
}

fn batchscope(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_batchscope"))
        .arg("inspect")
        .arg(dir)
        .args(args)
        .output()
        .unwrap()
}

fn inspect_json(dir: &Path, args: &[&str]) -> Value {
    let output = batchscope(dir, &[&["--json"][..], args].concat());
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

/// A copy of a fixture in a fresh temp folder.
fn copy_fixture(name: &str, label: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "batchscope-rerun-input-{label}-{}",
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&dir);
    copy_dir(&fixture(name), &dir.join("ckpt"));
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The folders Spark left when the driver died inside batch 2: its input file, logged in
/// `sources/0/2` under the path of that run, is gone here as it was for the restart.
#[test]
fn the_rerun_input_of_a_killed_batch_is_listed_and_found_gone() {
    for (name, spark) in [
        (
            "checkpoint-version-4.3.0-input-deleted-killed-in-batch-2",
            "4.3",
        ),
        (
            "checkpoint-version-3.5.9-input-deleted-killed-in-batch-2",
            "3.5",
        ),
    ] {
        let json = inspect_json(&fixture(name), &["--spark", spark]);
        assert_eq!(json["restart"]["action"], "rerun", "{name}");
        let input = &json["rerun_input"];
        assert_eq!(input["batch"], 2);
        let files = input["files"].as_array().unwrap();
        assert_eq!(files.len(), 1, "{name}: {files:?}");
        let path = files[0]["path"].as_str().unwrap();
        assert!(path.ends_with("/input/a/f02.json"), "{path}");
        assert_eq!(files[0]["log_batch_id"], 2);
        let local = batchscope_engine::checkpoint::local_path(path).unwrap();
        assert!(
            !Path::new(&local).exists(),
            "{local} exists on this machine"
        );
        assert_eq!(files[0]["missing"], true);
        let problem = &json["problems"][0];
        assert_eq!(problem["code"], "input_file_missing");
        assert_eq!(problem["spark_says"], MISSING_INPUT_WARNING);
        assert!(input["rule"]
            .as_str()
            .unwrap()
            .contains("whatever maxFilesPerTrigger"));
    }
}

/// The same folder with its logged input pointed at a file of a temp folder (the test's
/// only edit of Spark's bytes): present, nothing to report; deleted, the warning Spark logs.
#[test]
fn an_input_file_is_checked_on_this_machine() {
    let dir = copy_fixture(
        "checkpoint-version-4.3.0-input-deleted-killed-in-batch-2",
        "present",
    );
    let ckpt = dir.join("ckpt");
    let log = ckpt.join("sources/0/2");
    let text = fs::read_to_string(&log).unwrap();
    let logged = text.split('"').nth(3).unwrap().to_owned();
    let input = dir.join("f02.json");
    fs::write(&input, "{}\n").unwrap();
    let uri = format!("file://{}", input.display());
    fs::write(&log, text.replace(&logged, &uri)).unwrap();
    let json = inspect_json(&ckpt, &[]);
    assert_eq!(json["rerun_input"]["files"][0]["path"], uri.as_str());
    assert_eq!(json["rerun_input"]["files"][0]["missing"], false);
    assert_eq!(json["problems"], serde_json::json!([]));
    fs::remove_file(&input).unwrap();
    let output = batchscope(&ckpt, &[]);
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains(&format!("input: {uri} (gone)")), "{text}");
    assert!(text.contains("warning [input_file_missing]"), "{text}");
    fs::remove_dir_all(&dir).unwrap();
}

/// Spark restores the checkpoint's shuffle partitions over the session's 3; the warning
/// names the conf it sets, which Spark 4.1+ keeps apart for stateful operators.
#[test]
fn restored_confs_name_the_conf_spark_sets() {
    for (name, spark, session_key) in [
        (
            "checkpoint-version-4.3.0-stateful-aggregation-killed-in-batch-2",
            "4.3",
            "spark.sql.streaming.internal.stateStore.partitions",
        ),
        (
            "checkpoint-version-3.5.9-stateful-aggregation-killed-in-batch-2",
            "3.5",
            SHUFFLE_PARTITIONS,
        ),
    ] {
        let conf = format!("{SHUFFLE_PARTITIONS}=3");
        let json = inspect_json(&fixture(name), &["--spark", spark, "--conf", &conf]);
        let restored = json["restored_confs"].as_array().unwrap();
        let shuffle = restored
            .iter()
            .find(|c| c["key"] == SHUFFLE_PARTITIONS)
            .expect("the offset log records the shuffle partitions");
        assert_eq!(shuffle["session_key"], session_key, "{name}");
        let value = shuffle["value"].as_str().unwrap();
        let operators = json["state"]["operators"][0]["partitions"].to_string();
        assert_eq!(
            value, operators,
            "{name}: one state partition per shuffle partition"
        );
        // The text Spark 4.3.0 and 3.5.9 logged on restart (conformance row
        // shuffle-partitions-changed), with this folder's value.
        let says = format!(
            "Updating the value of conf '{session_key}' in current session from '3' to '{value}'."
        );
        assert_eq!(json["problems"][0]["spark_says"], says.as_str(), "{name}");
    }
}

/// A malformed `--conf` is one error line naming the flag, exit 2.
#[test]
fn a_malformed_conf_is_one_error_line() {
    let dir = fixture("checkpoint-version-4.3.0-input-deleted-killed-in-batch-2");
    for bad in ["spark.sql.shuffle.partitions", "=3"] {
        let output = batchscope(&dir, &["--conf", bad]);
        assert_eq!(output.status.code(), Some(2), "{bad}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error")).collect();
        assert_eq!(errors.len(), 1, "{stderr}");
        assert!(errors[0].contains("--conf"), "{stderr}");
        assert!(output.stdout.is_empty());
    }
}
