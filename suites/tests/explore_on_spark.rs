//! Exploration on Spark: `scripts/explore-on-spark.py` runs the shards of an exploration as the
//! tasks of a real pyspark job (`local[2]`, the project's `.venv`) and merges them; the result
//! is exactly what one `batchscope explore` process prints. Missing Spark, Java or the binary is
//! a failure, never a skip.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("suites/ sits in the repository")
        .to_path_buf()
}

/// The debug `batchscope` binary `scripts/test.sh` builds before the suites.
fn batchscope_bin(root: &Path) -> PathBuf {
    match std::env::var_os("BATCHSCOPE_BIN") {
        Some(path) => PathBuf::from(path),
        None => match std::env::var_os("CARGO_TARGET_DIR") {
            Some(dir) => root.join(dir),
            None => root.join("target"),
        }
        .join("debug")
        .join("batchscope"),
    }
}

const EXPLORATION: [&str; 8] = [
    "--preset",
    "tablestore",
    "--batches",
    "3",
    "--every-event",
    "--depth",
    "2",
    "--json",
];

#[test]
fn shards_run_as_a_pyspark_job_merge_into_the_single_process_result() {
    let root = root();
    let python = root.join(".venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run `bash scripts/setup-spark.sh`",
        python.display()
    );
    let bin = batchscope_bin(&root);
    assert!(
        bin.exists(),
        "{} is missing: run `cargo build -p batchscope-cli`",
        bin.display()
    );
    let single = Command::new(&bin)
        .arg("explore")
        .args(EXPLORATION)
        .output()
        .expect("batchscope runs");
    assert!(single.status.success(), "{single:?}");
    let on_spark = Command::new(&python)
        .arg(root.join("scripts/explore-on-spark.py"))
        .args(["--shards", "2", "--json", "--batchscope"])
        .arg(&bin)
        .arg("--")
        .args(&EXPLORATION[..EXPLORATION.len() - 1])
        .output()
        .expect("the pyspark job runs");
    let log = String::from_utf8_lossy(&on_spark.stderr);
    assert!(on_spark.status.success(), "{log}");
    assert!(
        log.contains("shard 1/2: ") && log.contains("shard 2/2: "),
        "{log}"
    );
    let a: serde_json::Value = serde_json::from_slice(&single.stdout).unwrap();
    let b: serde_json::Value = serde_json::from_slice(&on_spark.stdout).unwrap();
    assert!(a["runs"].as_u64().unwrap() > 1000, "{}", a["runs"]);
    assert_eq!(b, a);
}
