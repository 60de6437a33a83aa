//! `batchscope inspect --json` on 200 damaged checkpoint folders made from the real fixtures
//! with a fixed seed: truncated and flipped bytes, garbage, deleted and oddly named files,
//! symlink loops, a FIFO, a directory where a file belongs, deep nesting, many entries, an
//! oversized (sparse) file. Each run must end with a report (exit 0, valid JSON) or a clear
//! error (exit 2, one line on stderr), never a panic. The slowest case is printed.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Cases in the suite; `BATCHSCOPE_FUZZ_CASES` raises it (scripts/fuzz.sh).
const CASES: u64 = 200;
/// The fixed seed; `BATCHSCOPE_FUZZ_SEED` changes it.
const SEED: u64 = 0x005e_ed18;
/// A run still going after this long is killed and reported as a hang (a guard so the suite
/// cannot block on a FIFO; the speed itself is printed, not asserted).
const HANG_GUARD: Duration = Duration::from_secs(60);

/// splitmix64: a small deterministic generator, so every case can be rebuilt from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/spark-checkpoints");
    let mut dirs: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.is_dir()
                && p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("checkpoint")
        })
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 5, "fixtures found in {}", root.display());
    dirs
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Every regular file and directory below `dir` (not following symlinks), sorted.
fn walk(dir: &Path, files: &mut Vec<PathBuf>, dirs: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    paths.sort();
    for path in paths {
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            dirs.push(path.clone());
            walk(&path, files, dirs);
        } else if meta.is_file() {
            files.push(path);
        }
    }
}

/// Writes `bytes` to `path` unless something other than a regular file is there (a FIFO,
/// a directory or a symlink left by earlier damage) or the write fails.
fn put(path: &Path, bytes: &[u8]) {
    match fs::symlink_metadata(path) {
        Ok(meta) if !meta.is_file() => {}
        _ => {
            let _ = fs::write(path, bytes);
        }
    }
}

/// Applies one random kind of damage to the folder at `root`; returns its name.
fn damage(rng: &mut Rng, root: &Path) -> &'static str {
    use std::os::unix::fs::symlink;
    let (mut files, mut dirs) = (Vec::new(), vec![root.to_path_buf()]);
    walk(root, &mut files, &mut dirs);
    let file = files.get(rng.below(files.len())).cloned();
    let dir = dirs[rng.below(dirs.len())].clone();
    let odd_names = [
        "-1",
        "99999999999999999999999",
        "0 ",
        "ä",
        "1.delta.tmp",
        "007",
        "1e3",
        "\u{202e}3",
    ];
    match (rng.below(16), file) {
        (0, Some(f)) => {
            let len = fs::metadata(&f).unwrap().len();
            fs::OpenOptions::new()
                .write(true)
                .open(&f)
                .unwrap()
                .set_len(rng.next() % (len + 1))
                .unwrap();
            "truncate"
        }
        (1, Some(f)) => {
            let mut bytes = fs::read(&f).unwrap_or_default();
            for _ in 0..=rng.below(8) {
                if !bytes.is_empty() {
                    let at = rng.below(bytes.len());
                    bytes[at] ^= 1 << rng.below(8);
                }
            }
            put(&f, &bytes);
            "flip bits"
        }
        (2, Some(f)) => {
            let len = [0, 1, 17, 4096, 70_000][rng.below(5)];
            let garbage = rng.bytes(len);
            put(&f, &garbage);
            "garbage"
        }
        (3, Some(f)) => {
            fs::remove_file(&f).unwrap();
            "delete"
        }
        (4, Some(f)) => {
            let name = odd_names[rng.below(odd_names.len())];
            fs::rename(&f, f.with_file_name(name)).unwrap();
            "odd name"
        }
        (5, Some(f)) => {
            use std::os::unix::ffi::OsStrExt;
            let name = std::ffi::OsStr::from_bytes(b"\xff\xfe1");
            fs::rename(&f, f.with_file_name(name)).unwrap();
            "name not UTF-8"
        }
        (6, _) => {
            let _ = symlink(".", dir.join("loop"));
            let _ = symlink("b", dir.join("a"));
            let _ = symlink("a", dir.join("b"));
            let _ = symlink("/", dir.join("root"));
            "symlink loops"
        }
        (7, Some(f)) => {
            fs::remove_file(&f).unwrap();
            symlink(f.file_name().unwrap(), &f).unwrap();
            "file is a symlink to itself"
        }
        (8, Some(f)) => {
            fs::remove_file(&f).unwrap();
            let status = Command::new("mkfifo")
                .arg(&f)
                .status()
                .expect("mkfifo runs");
            assert!(status.success());
            "FIFO in place of a file"
        }
        (9, Some(f)) => {
            fs::remove_file(&f).unwrap();
            fs::create_dir(&f).unwrap();
            put(&f.join("0"), b"v1\n{}");
            "directory in place of a file"
        }
        (10, _) => {
            let mut deep = dir.clone();
            for _ in 0..200 {
                deep.push("d");
            }
            let _ = fs::create_dir_all(&deep);
            put(&deep.join("0"), b"v1\n");
            "deep nesting"
        }
        (11, _) => {
            for n in 0..2000 {
                put(&dir.join(n.to_string()), b"");
            }
            "2000 empty files"
        }
        (12, Some(f)) => {
            if let Ok(big) = fs::OpenOptions::new().write(true).open(&f) {
                let _ = big.set_len(65 * 1024 * 1024);
            }
            "sparse file over the size limit"
        }
        (13, Some(f)) => {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&f, fs::Permissions::from_mode(0o000)).unwrap();
            "unreadable file"
        }
        (14, _) => {
            let victim = ["metadata", "offsets", "commits", "sources", "state"][rng.below(5)];
            let path = root.join(victim);
            let _ = fs::remove_dir_all(&path).or_else(|_| fs::remove_file(&path));
            "remove a top-level entry"
        }
        _ => {
            let name = ["offsets", "commits"][rng.below(2)];
            let log = root.join(name);
            let _ = fs::create_dir_all(&log);
            let id = [0u64, 1, 7, u64::MAX, 1 << 40][rng.below(5)];
            let text = [
                "v1\n{}",
                "v99\n",
                "v1\n\n\n",
                "",
                "v1\n{\"batchWatermarkMs\":-1}",
            ];
            put(
                &log.join(id.to_string()),
                text[rng.below(text.len())].as_bytes(),
            );
            "log entry with an odd id or body"
        }
    }
}

struct Outcome {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    took: Duration,
}

fn inspect_json(dir: &Path) -> Outcome {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_batchscope"))
        .args(["inspect", "--json"])
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    let (out, err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let read = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            let _ = r.read_to_end(&mut s);
            String::from_utf8_lossy(&s).into_owned()
        })
    };
    let (out, err) = (read(Box::new(out)), read(Box::new(err)));
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if start.elapsed() > HANG_GUARD {
            let _ = child.kill();
            let _ = child.wait();
            panic!("inspect on {} did not finish (hang)", dir.display());
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let took = start.elapsed();
    Outcome {
        code,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
        took,
    }
}

fn check(label: &str, outcome: &Outcome) {
    assert!(
        !outcome.stderr.contains("panicked"),
        "{label}: panicked: {}",
        outcome.stderr
    );
    match outcome.code {
        Some(0) => {
            let json: Result<serde_json::Value, _> = serde_json::from_str(&outcome.stdout);
            assert!(json.is_ok(), "{label}: exit 0 without valid JSON");
        }
        Some(2) => {
            let lines = outcome.stderr.lines().count();
            assert_eq!(
                lines, 1,
                "{label}: stderr `{}` is not one line",
                outcome.stderr
            );
            assert!(
                outcome.stderr.starts_with("error: "),
                "{label}: {}",
                outcome.stderr
            );
        }
        other => panic!("{label}: exit {other:?}, stderr {}", outcome.stderr),
    }
}

#[test]
fn inspect_on_damaged_folders_reports_or_refuses_and_never_panics() {
    let cases = env_u64("BATCHSCOPE_FUZZ_CASES", CASES).max(CASES);
    let seed = env_u64("BATCHSCOPE_FUZZ_SEED", SEED);
    let fixtures = fixtures();
    let base = std::env::temp_dir().join(format!("batchscope-damaged-{}", std::process::id()));
    let _ = fs::remove_dir_all(&base);
    let mut slowest = (Duration::ZERO, String::new());
    let (mut reports, mut refusals) = (0, 0);
    for case in 0..cases {
        let mut rng = Rng(seed ^ case.wrapping_mul(0x1000_0000_01b3));
        let fixture = &fixtures[rng.below(fixtures.len())];
        let dir = base.join(case.to_string());
        copy_tree(fixture, &dir);
        let mut kinds = Vec::new();
        for _ in 0..=rng.below(4) {
            kinds.push(damage(&mut rng, &dir));
        }
        let label = format!(
            "case {case} (seed {seed}, {}: {})",
            fixture.file_name().unwrap().to_string_lossy(),
            kinds.join(", ")
        );
        let outcome = inspect_json(&dir);
        check(&label, &outcome);
        if outcome.code == Some(0) {
            reports += 1;
        } else {
            refusals += 1;
        }
        if outcome.took > slowest.0 {
            slowest = (outcome.took, label);
        }
        let _ = fs::remove_dir_all(&dir);
    }
    println!(
        "damaged folders: {cases} runs, {reports} reports, {refusals} refusals; slowest {:.3} s: {}",
        slowest.0.as_secs_f64(),
        slowest.1
    );
    let _ = fs::remove_dir_all(&base);
}

#[test]
fn a_folder_with_more_entries_than_the_cap_is_reported() {
    let fixture = &fixtures()[0];
    let dir = std::env::temp_dir().join(format!("batchscope-many-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    copy_tree(fixture, &dir);
    let offsets = dir.join("offsets");
    fs::create_dir_all(&offsets).unwrap();
    for n in 0..100_500u32 {
        fs::File::create(offsets.join(n.to_string())).unwrap();
    }
    let outcome = inspect_json(&dir);
    check("100,500 entries in offsets/", &outcome);
    assert_eq!(outcome.code, Some(0));
    assert!(
        outcome.stdout.contains("more than 100000 entries"),
        "the cap is a report line"
    );
    println!(
        "100,500 entries in offsets/: {:.3} s",
        outcome.took.as_secs_f64()
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_folder_that_is_not_a_checkpoint_is_one_clear_line() {
    let dir = std::env::temp_dir().join(format!("batchscope-notckpt-{}", std::process::id()));
    fs::create_dir_all(dir.join("commits")).unwrap();
    std::os::unix::fs::symlink("offsets", dir.join("offsets")).ok();
    let outcome = inspect_json(&dir);
    check("not a checkpoint", &outcome);
    assert_eq!(outcome.code, Some(2));
    assert!(outcome
        .stderr
        .contains("no `metadata` file and no `offsets/` directory"));
    let _ = fs::remove_dir_all(&dir);
}

/// Found by the damaged-folder run (case 53 of seed 6221080): `offsets/1099511627776` next to
/// `offsets/1` made the gap warning list every missing id and abort on a 26 TB allocation.
#[test]
fn log_ids_far_apart_give_a_bounded_gap_warning() {
    let dir = std::env::temp_dir().join(format!("batchscope-gap-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    copy_tree(&fixtures()[0], &dir);
    fs::create_dir_all(dir.join("offsets")).unwrap();
    fs::create_dir_all(dir.join("commits")).unwrap();
    for log in ["offsets", "commits"] {
        for id in [1u64 << 40, u64::MAX] {
            fs::write(dir.join(log).join(id.to_string()), "v1\n{}").unwrap();
        }
    }
    let outcome = inspect_json(&dir);
    check("ids far apart", &outcome);
    assert_eq!(outcome.code, Some(0));
    assert!(
        outcome.stdout.contains("more); "),
        "the gap is counted, not listed"
    );
    let _ = fs::remove_dir_all(&dir);
}

/// Each kind of damaged entry is a report line naming it, and the folder is still reported.
#[test]
fn damaged_entries_are_named_in_report_lines() {
    use std::os::unix::fs::symlink;
    let dir = std::env::temp_dir().join(format!("batchscope-notes-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let fixture = fixtures()
        .into_iter()
        .find(|p| p.ends_with("checkpoint-version-4.3.0-stateful-aggregation-killed-in-batch-2"))
        .expect("the 4.3.0 fixture");
    copy_tree(&fixture, &dir);
    symlink(".", dir.join("state/0/loop")).unwrap();
    symlink("../sources", dir.join("sources/0/up")).unwrap();
    fs::remove_file(dir.join("commits/1")).unwrap();
    let status = Command::new("mkfifo")
        .arg(dir.join("commits/1"))
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    fs::create_dir(dir.join("offsets/7")).unwrap();
    {
        use std::os::unix::ffi::OsStrExt;
        fs::write(
            dir.join(std::ffi::OsStr::from_bytes(b"offsets/\xff")),
            b"v1",
        )
        .unwrap();
    }
    let outcome = inspect_json(&dir);
    check("named damage", &outcome);
    assert_eq!(outcome.code, Some(0));
    for needle in [
        "state/0/loop: symbolic link; not followed",
        "sources/0/up: symbolic link; not followed",
        "commits/1: not a regular file (a FIFO, socket or device); not opened",
        "offsets/7: a directory where a file is expected; skipped",
        "file name is not UTF-8; skipped",
    ] {
        assert!(outcome.stdout.contains(needle), "no report line `{needle}`");
    }
    let _ = fs::remove_dir_all(&dir);
}

/// Found by the damaged-folder run (case 38 of seed 7): `offsets/1` extended to 40 MB of
/// zero bytes was quoted four times in the report (1 GB of JSON, 10 s). Log files over 1 MiB
/// are now skipped with a report line.
#[test]
fn an_oversized_offsets_file_is_skipped_not_quoted() {
    let dir = std::env::temp_dir().join(format!("batchscope-big-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let fixture = fixtures()
        .into_iter()
        .find(|p| p.ends_with("checkpoint-version-2.3.1-without-commit-log-metadata"))
        .expect("the 2.3.1 fixture");
    copy_tree(&fixture, &dir);
    let file = fs::OpenOptions::new()
        .write(true)
        .open(dir.join("offsets/1"))
        .unwrap();
    file.set_len(40 * 1024 * 1024).unwrap();
    let outcome = inspect_json(&dir);
    check("40 MB offsets/1", &outcome);
    assert_eq!(outcome.code, Some(0));
    assert!(outcome
        .stdout
        .contains("offsets/1: 41943040 bytes, over the 1048576-byte limit"));
    assert!(outcome.stdout.len() < 1024 * 1024, "the report stays small");
    let _ = fs::remove_dir_all(&dir);
}
