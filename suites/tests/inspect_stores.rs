//! `batchscope inspect` on object stores, against real servers on 127.0.0.1: moto's S3 server
//! and Azurite (Azure Blob Storage), both started and stopped here.
//!
//! A real Spark checkpoint (a fixture, plus a hidden `.crc`, a `*.tmp` and a stray file so the
//! notes are compared too) is uploaded to a bucket and a container; the built binary's
//! `inspect --json` on the folder, on `s3://…` and `s3a://…`, on `az://…` and `abfss://…` and
//! on `file://…` must print the same bytes. Then the failures: a missing bucket or container, a
//! refused credential (Azurite checks the shared key; moto accepts any key unless started with
//! `INITIAL_NO_AUTH_ACTION_COUNT=0`, and then refuses keys it did not issue), a server that
//! accepts and never answers, moto paused with SIGSTOP, a server that is gone and a bad scheme:
//! each ends with exit code 2 and one `error: ` line naming the URL, within the timeout. moto
//! and Azurite come from `scripts/setup-spark.sh` (`.venv`) and `scripts/setup.sh`
//! (`suites/stores/node_modules`); a missing one fails, never skips.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const SETUP_HINT: &str = "run `bash scripts/setup-spark.sh` (moto into .venv) and \
                          `bash scripts/setup.sh` (Azurite into suites/stores)";
/// The fixture read from the three places.
const FIXTURE: &str =
    "tests/fixtures/spark-checkpoints/checkpoint-version-4.3.0-stateful-aggregation-killed-in-batch-2";
/// Azurite's well-known development account and key (public, the same for every install).
const AZURITE_ACCOUNT: &str = "devstoreaccount1";
const AZURITE_KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
/// The store timeout of the failure cases, and what a run may take beyond it.
const TIMEOUT_SECS: u64 = 3;
const MARGIN: Duration = Duration::from_secs(2);

/// The workspace root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("suites/ sits in the repository")
        .to_path_buf()
}

/// The batchscope binary: `BATCHSCOPE_BIN` when set, else `<target>/debug/batchscope`.
fn batchscope_bin() -> PathBuf {
    if let Some(path) = std::env::var_os("BATCHSCOPE_BIN") {
        return PathBuf::from(path);
    }
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or(root().join("target"), |dir| root().join(dir));
    let bin = target.join("debug").join("batchscope");
    assert!(
        bin.exists(),
        "batchscope binary not found at {}: run `cargo build -p batchscope-cli` (or set BATCHSCOPE_BIN)",
        bin.display()
    );
    bin
}

/// A server process, killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A port that was free a moment ago on 127.0.0.1.
fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("its address").port()
}

/// Starts `program args` (with `env`) and waits until it accepts connections on `port`
/// (60 s at most).
fn start(program: &Path, args: &[&str], env: &[(&str, &str)], port: u16) -> Server {
    assert!(
        program.exists(),
        "{} is missing: {SETUP_HINT}",
        program.display()
    );
    let child = Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("start {}: {e}", program.display()));
    let server = Server(child);
    let until = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < until,
            "{} did not listen on port {port} within 60 s",
            program.display()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    server
}

/// moto's S3 server on `port`; with `check_keys`, it refuses keys it did not issue (moto's
/// `INITIAL_NO_AUTH_ACTION_COUNT=0`; by default it accepts any).
fn start_moto(port: u16, check_keys: bool) -> Server {
    let moto = root().join(".venv/bin/moto_server");
    let env: &[(&str, &str)] = if check_keys {
        &[("INITIAL_NO_AUTH_ACTION_COUNT", "0")]
    } else {
        &[]
    };
    start(
        &moto,
        &["-H", "127.0.0.1", "-p", &port.to_string()],
        env,
        port,
    )
}

fn start_azurite(port: u16, data: &Path) -> Server {
    let azurite = root().join("suites/stores/node_modules/.bin/azurite-blob");
    let data = data.to_str().expect("a UTF-8 temporary folder");
    let port_text = port.to_string();
    let args = [
        "--blobHost",
        "127.0.0.1",
        "--blobPort",
        &port_text,
        "--location",
        data,
    ];
    let quiet = ["--silent", "--skipApiVersionCheck", "--loose"];
    start(&azurite, &[&args[..], &quiet[..]].concat(), &[], port)
}

/// A fresh temporary folder named for `what`.
fn temp(what: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("batchscope-stores-{}-{what}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a temporary folder");
    dir
}

/// The fixture copied into `dir`, with a `.crc` file, a `*.tmp` file and a stray file.
fn checkpoint(dir: &Path) -> PathBuf {
    let copy = dir.join("checkpoint");
    let status = Command::new("cp")
        .arg("-r")
        .arg(root().join(FIXTURE))
        .arg(&copy)
        .status()
        .expect("run cp");
    assert!(status.success(), "copy the fixture");
    std::fs::write(copy.join("offsets/.0.crc"), b"crc").expect("write a .crc file");
    std::fs::write(copy.join("offsets/3.tmp"), b"{").expect("write a .tmp file");
    std::fs::write(copy.join("notes.txt"), b"not Spark's").expect("write a stray file");
    copy
}

/// Uploads `folder` under `prefix` of a new bucket or container (`suites/stores/upload.py`).
fn upload(kind: &str, endpoint: &str, bucket: &str, prefix: &str, folder: &Path) {
    let python = root().join(".venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: {SETUP_HINT}",
        python.display()
    );
    let out = Command::new(python)
        .arg(root().join("suites/stores/upload.py"))
        .args([kind, endpoint, bucket, prefix])
        .arg(folder)
        .env("NO_PROXY", "127.0.0.1,localhost")
        .output()
        .expect("run suites/stores/upload.py");
    assert!(
        out.status.success(),
        "upload to {kind} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The environment of the S3 server on `port` (moto accepts any key).
fn s3_env(port: u16) -> Vec<(&'static str, String)> {
    vec![
        ("AWS_ENDPOINT_URL", format!("http://127.0.0.1:{port}")),
        ("AWS_ALLOW_HTTP", "true".to_owned()),
        ("AWS_ACCESS_KEY_ID", "testing".to_owned()),
        ("AWS_SECRET_ACCESS_KEY", "testing".to_owned()),
        ("AWS_REGION", "us-east-1".to_owned()),
    ]
}

/// The environment of Azurite on `port`, with the account key `key`.
fn azure_env(port: u16, key: &str) -> Vec<(&'static str, String)> {
    vec![
        ("AZURE_STORAGE_USE_EMULATOR", "true".to_owned()),
        (
            "AZURITE_BLOB_STORAGE_URL",
            format!("http://127.0.0.1:{port}"),
        ),
        ("AZURE_STORAGE_ACCOUNT_NAME", AZURITE_ACCOUNT.to_owned()),
        ("AZURE_STORAGE_ACCOUNT_KEY", key.to_owned()),
    ]
}

/// `batchscope inspect ARGS` with only `env` of the store variables set, and no proxy; and
/// how long it took.
fn inspect(args: &[&str], env: &[(&str, String)]) -> (Output, Duration) {
    let mut command = Command::new(batchscope_bin());
    command.arg("inspect").args(args);
    for (key, _) in std::env::vars() {
        let store_var = ["AWS_", "AZURE_", "AZURITE_", "GOOGLE_", "BATCHSCOPE_STORE_"]
            .iter()
            .any(|p| key.starts_with(p));
        // The servers are on 127.0.0.1: no proxy is asked.
        if store_var || key.to_ascii_lowercase().ends_with("_proxy") {
            command.env_remove(key);
        }
    }
    command.envs(env.iter().map(|(k, v)| (k, v)));
    let started = Instant::now();
    let out = command.output().expect("run batchscope inspect");
    (out, started.elapsed())
}

/// The JSON report of a successful run.
fn json(args: &[&str], env: &[(&str, String)]) -> String {
    let (out, _) = inspect(args, env);
    assert!(
        out.status.success(),
        "inspect {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 JSON")
}

#[test]
fn a_checkpoint_reads_the_same_from_its_folder_s3_azure_and_a_file_url() {
    let dir = temp("same");
    let folder = checkpoint(&dir);
    let (s3_port, az_port) = (free_port(), free_port());
    let _moto = start_moto(s3_port, false);
    let _azurite = start_azurite(az_port, &dir.join("azurite"));
    upload(
        "s3",
        &format!("http://127.0.0.1:{s3_port}"),
        "lake",
        "jobs/q1",
        &folder,
    );
    let azure = format!("http://127.0.0.1:{az_port}/{AZURITE_ACCOUNT}");
    upload("azure", &azure, "lake", "jobs/q1", &folder);

    let local = json(&["--json", folder.to_str().expect("UTF-8 path")], &[]);
    let s3 = json(&["--json", "s3://lake/jobs/q1"], &s3_env(s3_port));
    let az = json(
        &["--json", "az://lake/jobs/q1/"],
        &azure_env(az_port, AZURITE_KEY),
    );
    let file = json(&["--json", &format!("file://{}", folder.display())], &[]);
    assert!(
        local.contains("notes.txt: not part of a Spark checkpoint; ignored"),
        "the stray file is noted: {local}"
    );
    assert!(
        !local.contains(".crc") && !local.contains("3.tmp"),
        "{local}"
    );
    assert_eq!(s3, local, "s3:// differs from the folder");
    assert_eq!(az, local, "az:// differs from the folder");
    assert_eq!(file, local, "file:// differs from the folder");
    // Spark's own spellings of the same places.
    let s3a = json(&["--json", "s3a://lake/jobs/q1"], &s3_env(s3_port));
    assert_eq!(s3a, local, "s3a:// differs from the folder");
    let abfss = format!("abfss://lake@{AZURITE_ACCOUNT}.dfs.core.windows.net/jobs/q1");
    let abfss = json(&["--json", &abfss], &azure_env(az_port, AZURITE_KEY));
    assert_eq!(abfss, local, "abfss:// differs from the folder");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Asserts one `error: ` line naming `url` and saying `says`, exit code 2, within the timeout.
fn fails(args: &[&str], env: &[(&str, String)], url: &str, says: &str) {
    let (out, took) = inspect(args, env);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!(
        "{:.2} s, exit {:?}: {}",
        took.as_secs_f64(),
        out.status.code(),
        stderr.trim_end()
    );
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(stderr.starts_with(&format!("error: {url}: ")), "{stderr}");
    assert!(stderr.contains(says), "says {says:?}: {stderr}");
    assert!(out.stdout.is_empty(), "nothing on stdout");
    let limit = Duration::from_secs(TIMEOUT_SECS) + MARGIN;
    assert!(took < limit, "{args:?} took {took:?}, over {limit:?}");
}

/// Sends `SIGname` to the server's process.
fn signal(server: &Server, name: &str) {
    let status = Command::new("kill")
        .arg(format!("-{name}"))
        .arg(server.0.id().to_string())
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -{name} failed");
}

/// A server that accepts connections and never writes a byte.
fn silent_server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    port
}

#[test]
fn store_failures_are_one_error_line_and_exit_2_within_the_timeout() {
    let dir = temp("fail");
    let folder = checkpoint(&dir);
    let (s3_port, guarded_port, az_port) = (free_port(), free_port(), free_port());
    let moto = start_moto(s3_port, false);
    let _guarded = start_moto(guarded_port, true);
    let _azurite = start_azurite(az_port, &dir.join("azurite"));
    let azure = format!("http://127.0.0.1:{az_port}/{AZURITE_ACCOUNT}");
    upload("azure", &azure, "lake", "q1", &folder);
    let wrong_key = "d3Jvbmcga2V5IGZvciB0aGUgZGV2IGFjY291bnQ=";
    let silent = "no answer from the server within 3 s";
    let cases = [
        (
            "s3://no-such-bucket/q1",
            s3_env(s3_port),
            "the bucket does not exist",
        ),
        (
            "az://no-such-container/q1",
            azure_env(az_port, AZURITE_KEY),
            "the container does not exist",
        ),
        (
            "az://lake/q1",
            azure_env(az_port, wrong_key),
            "the credentials were refused",
        ),
        (
            "s3://lake/q1",
            s3_env(guarded_port),
            "the credentials were refused",
        ),
        ("s3://lake/q1", s3_env(silent_server()), silent),
        (
            "az://lake/q1",
            azure_env(silent_server(), AZURITE_KEY),
            silent,
        ),
    ];
    let timeout = TIMEOUT_SECS.to_string();
    for (url, env, says) in &cases {
        fails(&["--json", "--timeout-secs", &timeout, url], env, url, says);
    }
    // The real server stops answering: moto paused (SIGSTOP) still takes connections.
    let paused = ["--timeout-secs", &timeout, "s3://lake/q1"];
    signal(&moto, "STOP");
    fails(&paused, &s3_env(s3_port), "s3://lake/q1", silent);
    signal(&moto, "CONT");
    drop(moto);
    let gone = "the server cannot be reached";
    fails(
        &["--timeout-secs", &timeout, "s3://lake/q1"],
        &s3_env(s3_port),
        "s3://lake/q1",
        gone,
    );
    fails(&["ftp://host/q1"], &[], "ftp://host/q1", "is not a store");
    let _ = std::fs::remove_dir_all(&dir);
}
