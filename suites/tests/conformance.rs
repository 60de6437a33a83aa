//! Spark conformance: kills a real Spark driver at protocol points and holds batchscope to it.
//!
//! Runs `suites/conformance/run.py` (pyspark 4.3.0 in the project's `.venv` and 3.5.x in
//! `.venv/pyspark-3.5`, made by `scripts/setup-spark.sh`) with the built `batchscope` binary. Fails when Spark and
//! batchscope disagree on any scenario, when the checkpoint layouts differ, or when the
//! committed `docs/CONFORMANCE.md` is not what the suite generates (the suite rewrites it, so
//! after a change the new table is in the working tree, ready to review and commit).
//! Missing Spark, Java or binary is a failure, never a skip.

use std::path::{Path, PathBuf};
use std::process::Command;

const SETUP_HINT: &str =
    "run `bash scripts/setup-spark.sh` first (installs Java 17, pyspark 4.3.0 \
     into .venv and pyspark 3.5.x into .venv/pyspark-3.5)";

/// The workspace root (this test belongs to the root package).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("suites/ sits in the repository")
        .to_path_buf()
}

/// The cargo target folder: `CARGO_TARGET_DIR` when set, else `<workspace>/target`.
fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => root.join(dir),
        None => root.join("target"),
    }
}

/// The batchscope binary: `BATCHSCOPE_BIN` when set, else `<target>/debug/batchscope`.
fn batchscope_bin(root: &Path) -> PathBuf {
    match std::env::var_os("BATCHSCOPE_BIN") {
        Some(path) => PathBuf::from(path),
        None => target_dir(root).join("debug").join("batchscope"),
    }
}

#[test]
fn spark_conformance() {
    let root = root();
    let python = root.join(".venv").join("bin").join("python");
    assert!(
        python.exists(),
        "{} is missing: {SETUP_HINT}",
        python.display()
    );
    let java = Command::new("java").arg("-version").output();
    assert!(
        java.as_ref().is_ok_and(|out| out.status.success()),
        "`java -version` failed ({java:?}): {SETUP_HINT}"
    );
    let pyspark = Command::new(&python)
        .args(["-c", "import pyspark"])
        .status()
        .expect("run .venv/bin/python");
    assert!(
        pyspark.success(),
        "pyspark is not importable from .venv: {SETUP_HINT}"
    );
    let spark_35 = root.join(".venv").join("pyspark-3.5");
    let pyspark_35 = Command::new(&python)
        .args([
            "-c",
            "import pyspark, sys; sys.exit(not pyspark.__version__.startswith('3.5.'))",
        ])
        .env("PYTHONPATH", &spark_35)
        .status()
        .expect("run .venv/bin/python");
    assert!(
        pyspark_35.success(),
        "pyspark 3.5 is not importable from {}: {SETUP_HINT}",
        spark_35.display()
    );
    let bin = batchscope_bin(&root);
    assert!(
        bin.exists(),
        "batchscope binary not found at {}: run `cargo build -p batchscope-cli` (or set BATCHSCOPE_BIN)",
        bin.display()
    );

    let doc = root.join("docs").join("CONFORMANCE.md");
    let committed = std::fs::read_to_string(&doc).unwrap_or_default();
    let out = target_dir(&root).join("conformance");
    let output = Command::new(&python)
        .arg(root.join("suites").join("conformance").join("run.py"))
        .arg("--out")
        .arg(&out)
        .arg("--batchscope")
        .arg(&bin)
        .arg("--doc")
        .arg(&doc)
        .current_dir(&root)
        .output()
        .expect("run suites/conformance/run.py");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    let mismatches: Vec<&str> = stdout
        .lines()
        .filter(|line| line.starts_with("MISMATCH"))
        .collect();
    assert!(
        output.status.success(),
        "Spark conformance failed (exit {:?}); details in {}/results.json:\n{}",
        output.status.code(),
        out.display(),
        if mismatches.is_empty() {
            stderr.lines().rev().take(20).collect::<Vec<_>>().join("\n")
        } else {
            mismatches.join("\n")
        }
    );

    let generated = std::fs::read_to_string(out.join("CONFORMANCE.md"))
        .expect("the suite writes CONFORMANCE.md into its --out folder");
    assert!(
        committed == generated,
        "docs/CONFORMANCE.md was not current; the suite has rewritten it: review \
         `git diff docs/CONFORMANCE.md` and commit it"
    );
}
