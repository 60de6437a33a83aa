//! Tidy: the project's code rules, enforced by a test rather than by discipline.
//!
//! - The engine stays deterministic: no hashed collections, no wall clock, no unseeded
//!   randomness, and no ChaCha8 outside the engine's one PRNG (`crates/engine/src/rng.rs`).
//! - No test is skipped: the ignore attribute appears in no `.rs` file.
//! - No source file under `crates/*/src` or `web/src` is longer than [`MAX_LINES`].
//! - Every `.rs` file opens with a `//!` line saying what it is for.
//!
//! The `KNOWN_BANNED` list names exceptions (none today); it must only shrink, and an entry
//! that no longer needs its exception fails the test until it is removed.

use std::fs;
use std::path::{Path, PathBuf};

/// The longest a source file may be.
const MAX_LINES: usize = 600;

/// Engine files still allowed a banned name, with the name (none: both worlds draw from the
/// one `Prng`).
const KNOWN_BANNED: &[(&str, &str)] = &[];

/// Names the engine must not use: hashed iteration, wall clocks, unseeded randomness.
const ENGINE_BANNED: &[&str] = &["HashMap", "HashSet", "Instant", "SystemTime", "thread_rng"];

/// The one engine file that may name the PRNG's algorithm.
const RNG_FILE: &str = "crates/engine/src/rng.rs";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, as paths relative to the repository root with `/`
/// separators, sorted. Build output, VCS data and dependencies are not walked.
fn rust_files(dir: &str) -> Vec<String> {
    let mut out = vec![];
    let start = if dir == "." { root() } else { root().join(dir) };
    walk(&start, &mut out);
    let mut files: Vec<String> = out
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .map(|p| relative(&p))
        .collect();
    files.sort();
    files
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().to_string();
        if path.is_dir() {
            let skipped = name.starts_with('.')
                || ["target", "node_modules", "dist"].contains(&name.as_str());
            if !skipped {
                walk(&path, out);
            }
        } else {
            out.push(path);
        }
    }
}

fn relative(path: &Path) -> String {
    let rel = path.strip_prefix(root()).expect("walked under the root");
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().to_string())
        .collect::<Vec<_>>()
        .join("/")
}

fn read(rel: &str) -> String {
    fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Whether `line` uses `name` as a whole identifier (not inside a longer one).
fn names(line: &str, name: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    line.match_indices(name).any(|(i, _)| {
        let before = line[..i].chars().next_back();
        let after = line[i + name.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// Code lines: comments (and doc comments) may name a banned thing to explain the ban.
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim_start().starts_with("//"))
        .map(|(i, l)| (i + 1, l))
}

#[test]
fn the_engine_uses_no_hashed_iteration_no_clock_and_one_prng() {
    let mut found = vec![];
    for file in rust_files("crates/engine/src") {
        let text = read(&file);
        for (n, line) in code_lines(&text) {
            let chacha = file != RNG_FILE && names(line, "ChaCha8Rng");
            let banned = ENGINE_BANNED.iter().copied().filter(|b| names(line, b));
            for name in banned.chain(chacha.then_some("ChaCha8Rng")) {
                if !KNOWN_BANNED.contains(&(file.as_str(), name)) {
                    found.push(format!("{file}:{n}: `{name}` in the engine"));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "banned in the engine:\n{}",
        found.join("\n")
    );
}

#[test]
fn known_banned_exceptions_are_still_needed() {
    for (file, name) in KNOWN_BANNED {
        let needed = root().join(file).exists()
            && code_lines(&read(file)).any(|(_, line)| names(line, name));
        assert!(
            needed,
            "{file} no longer uses `{name}`: remove it from KNOWN_BANNED in tests/tidy.rs"
        );
    }
}

#[test]
fn no_test_is_ignored() {
    // Built from two parts so that this file does not match itself.
    let pattern = format!("#[{}", "ignore");
    let mut found = vec![];
    for file in rust_files(".") {
        for (n, line) in read(&file).lines().enumerate() {
            if line.contains(&pattern) {
                found.push(format!("{file}:{}", n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "ignored tests (a test fails, it is never skipped):\n{}",
        found.join("\n")
    );
}

/// Source files of the crates and the dashboard (tests and benches excluded).
fn source_files() -> Vec<String> {
    let mut files = vec![];
    let crates = fs::read_dir(root().join("crates")).expect("crates/ exists");
    for krate in crates.flatten() {
        let name = krate.file_name().to_string_lossy().to_string();
        files.extend(rust_files(&format!("crates/{name}/src")));
    }
    files.extend(rust_files("web/src"));
    files.sort();
    files
}

#[test]
fn source_files_are_at_most_600_lines() {
    let too_long: Vec<String> = source_files()
        .into_iter()
        .filter_map(|f| {
            let n = read(&f).lines().count();
            (n > MAX_LINES).then(|| format!("{f}: {n} lines"))
        })
        .collect();
    assert!(
        too_long.is_empty(),
        "longer than {MAX_LINES} lines (split by concern):\n{}",
        too_long.join("\n")
    );
}

#[test]
fn every_rust_file_opens_with_a_module_doc_line() {
    let missing: Vec<String> = rust_files(".")
        .into_iter()
        .filter(|f| !read(f).starts_with("//!"))
        .collect();
    assert!(
        missing.is_empty(),
        "files whose first line is not a `//!` line saying what they are for:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_walk_sees_the_engine_and_this_file() {
    // A walk that found nothing would pass every rule above.
    let all = rust_files(".");
    assert!(all.contains(&"tests/tidy.rs".to_string()));
    assert!(all.contains(&RNG_FILE.to_string()));
    assert!(
        source_files().len() > 50,
        "too few source files: {}",
        source_files().len()
    );
}
