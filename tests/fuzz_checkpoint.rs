//! Fuzz target for the engine's checkpoint folder reader (`CheckpointFolder::from_files` and
//! `checkpoint::inspect`: metadata, offset and commit logs, source files, state, the restart
//! dry-run and the linter), on the in-memory tree. Inputs are the real fixture folders with
//! random edits (truncation, flipped and inserted bytes, files replaced by random bytes or by
//! another file's bytes, deleted, renamed to odd paths such as `offsets/18446744073709551615`)
//! and trees of random bytes at random paths.
//!
//! Property: no panic; the inspection serialises to JSON. A short run is part of `cargo test`
//! (fixed seed, `BATCHSCOPE_FUZZ_CASES` cases, 256 by default); `scripts/fuzz.sh` runs long. A
//! failing tree is written to `target/fuzz-found/checkpoint-<seed>/`; once fixed it belongs in
//! `tests/fuzz-corpus/checkpoint/<name>/`, which [`the_checkpoint_corpus_holds`] replays.

use batchscope_engine::checkpoint::{
    inspect, CheckpointFolder, InspectOptions, RestartOptions, SourceId, SparkVersion,
};
use batchscope_engine::microbatch::scenario::SinkKind;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

type Tree = Vec<(String, Vec<u8>)>;
/// One edit of a tree: what (`kind`), which file (`at`), where in it and with what (`with`).
type Op = (u8, u32, u32);

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file below `dir` with its bytes, paths relative to `base`, sorted.
fn read_tree(base: &Path, dir: &Path, out: &mut Tree) {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("entry").path())
        .collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            read_tree(base, &path, out);
        } else {
            let relative = path
                .strip_prefix(base)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            out.push((relative, std::fs::read(&path).expect("readable")));
        }
    }
}

/// The fixture folders, as trees.
fn seeds() -> Vec<Tree> {
    let dir = root().join("tests/fixtures/spark-checkpoints");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("checkpoint")
        })
        .collect();
    names.sort();
    names
        .iter()
        .map(|folder| {
            let mut tree = Vec::new();
            read_tree(folder, folder, &mut tree);
            tree
        })
        .collect()
}

/// Paths the reader treats specially, and odd ones.
const PATHS: [&str; 20] = [
    "metadata",
    "offsets/0",
    "offsets/1",
    "offsets/18446744073709551615",
    "offsets/1099511627776",
    "offsets/-1",
    "offsets/01",
    "commits/0",
    "commits/2",
    "commits/18446744073709551615",
    "sources/0/0",
    "sources/0/18446744073709551615",
    "sources/0/3.compact",
    "sources/a b/0",
    "state/0/0/1.delta",
    "state/0/0/18446744073709551615.snapshot",
    "state/0/_metadata/metadata",
    "state/18446744073709551615/0/1.delta",
    "offsets//1",
    "",
];

/// Byte strings that parsers meet at their edges.
const SNIPPETS: [&[u8]; 12] = [
    b"v1\n",
    b"v99999999999999999999\n",
    b"v0\n",
    b"\n",
    b"{\"batchWatermarkMs\":-1,\"batchTimestampMs\":18446744073709551616,\"conf\":{}}",
    b"{\"id\":\"\"}",
    b"{\"0\":{\"0\":-2}}",
    b"[]",
    b"null",
    b"{\"logOffset\":9223372036854775807}",
    b"\xff\xfe\x00",
    b"{\"nextBatchWatermarkMs\":1e400}",
];

fn edit(tree: &mut Tree, donor: &Tree, (kind, at, with): Op, random: &[u8]) {
    let n = tree.len();
    let pick = |x: u32, len: usize| (x as usize) % len.max(1);
    let i = pick(at, n);
    match kind % 9 {
        0 if n > 0 => {
            let len = tree[i].1.len();
            tree[i].1.truncate(pick(with, len + 1));
        }
        1 if n > 0 && !tree[i].1.is_empty() => {
            let j = pick(with, tree[i].1.len());
            tree[i].1[j] ^= 1 << (with % 8);
        }
        2 if n > 0 => tree[i].1 = random.to_vec(),
        3 if n > 0 => {
            tree.remove(i);
        }
        4 if n > 0 => tree[i].0 = PATHS[pick(with, PATHS.len())].to_owned(),
        5 if n > 0 => {
            let j = pick(with, tree[i].1.len() + 1);
            let snippet = SNIPPETS[pick(at, SNIPPETS.len())];
            tree[i].1.splice(j..j, snippet.iter().copied());
        }
        6 if !donor.is_empty() => {
            let (_, bytes) = &donor[pick(with, donor.len())];
            let path = PATHS[pick(at, PATHS.len())].to_owned();
            tree.push((path, bytes.clone()));
        }
        7 => {
            let mut bytes = SNIPPETS[pick(with, SNIPPETS.len())].to_vec();
            bytes.extend_from_slice(random);
            tree.push((PATHS[pick(at, PATHS.len())].to_owned(), bytes));
        }
        _ if n > 0 => {
            let copy = tree[i].clone();
            tree.push((PATHS[pick(with, PATHS.len())].to_owned(), copy.1));
        }
        _ => {}
    }
}

/// The property: reading and inspecting `tree` (with a few option sets, the tree also given
/// as the file sink's manifest) never panics and serialises.
fn check(tree: &Tree) -> Result<(), String> {
    catch_unwind(AssertUnwindSafe(|| {
        let folder = CheckpointFolder::from_files(tree.clone());
        let sink_files: Tree = tree
            .iter()
            .map(|(p, b)| {
                (
                    format!("_spark_metadata/{}", p.rsplit('/').next().unwrap_or("")),
                    b.clone(),
                )
            })
            .collect();
        let options = [
            InspectOptions::default(),
            InspectOptions {
                restart: RestartOptions {
                    spark: SparkVersion::parse("2.1").expect("a version"),
                    async_progress_tracking: true,
                    query_sources: Some(vec![SourceId::Index(0), SourceId::Name("x".into())]),
                },
                sink_kind: Some(SinkKind::File),
                sink: Some(CheckpointFolder::from_files(sink_files)),
                ..InspectOptions::default()
            },
            InspectOptions {
                restart: RestartOptions {
                    spark: SparkVersion::LATEST,
                    ..RestartOptions::default()
                },
                sink_kind: Some(SinkKind::Append),
                ..InspectOptions::default()
            },
        ];
        for options in &options {
            let inspection = inspect(&folder, options);
            serde_json::to_string(&inspection).expect("the inspection serialises");
        }
    }))
    .map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    })
}

fn write_tree(dir: &Path, tree: &Tree) {
    std::fs::create_dir_all(dir).expect("target/ is writable");
    let listing: Vec<serde_json::Value> = tree
        .iter()
        .map(|(p, b)| serde_json::json!({"path": p, "bytes": b}))
        .collect();
    std::fs::write(
        dir.join("tree.json"),
        serde_json::to_string_pretty(&listing).unwrap(),
    )
    .expect("writable");
}

#[test]
fn fuzz_checkpoint_folder() {
    let cases = env_u64("BATCHSCOPE_FUZZ_CASES", 256) as u32;
    let seed = env_u64("BATCHSCOPE_FUZZ_SEED", 18);
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..18].copy_from_slice(b"checkpoint");
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &key));
    let seeds = seeds();
    assert!(seeds.len() >= 5, "the fixture folders are found");
    let op = (any::<u8>(), any::<u32>(), any::<u32>());
    let strategy = (
        0..seeds.len(),
        0..seeds.len(),
        proptest::collection::vec(op, 0..12),
        proptest::collection::vec(any::<u8>(), 0..200),
    );
    let build = |(i, d, ops, random): &(usize, usize, Vec<Op>, Vec<u8>)| {
        let mut tree = seeds[*i].clone();
        for op in ops {
            edit(&mut tree, &seeds[*d], *op, random);
        }
        tree
    };
    let result = runner.run(&strategy, |input| {
        check(&build(&input)).map_err(TestCaseError::fail)
    });
    if let Err(e) = result {
        let dir = root().join(format!("target/fuzz-found/checkpoint-{seed}"));
        if let proptest::test_runner::TestError::Fail(_, input) = &e {
            write_tree(&dir, &build(input));
        }
        panic!(
            "fuzz target checkpoint: {e}\ninput written to {}",
            dir.display()
        );
    }
    eprintln!("fuzz checkpoint: {cases} cases, seed {seed}");
}

/// Replays every tree in `tests/fuzz-corpus/checkpoint/<name>/` (a folder of files, or a
/// `tree.json` as the fuzz target writes it).
#[test]
fn the_checkpoint_corpus_holds() {
    let corpus = root().join("tests/fuzz-corpus/checkpoint");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .expect("tests/fuzz-corpus/checkpoint exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    names.sort();
    assert!(!names.is_empty(), "the corpus holds trees");
    for dir in names {
        let json = dir.join("tree.json");
        let tree: Tree = if json.is_file() {
            let listing: Vec<serde_json::Value> =
                serde_json::from_slice(&std::fs::read(&json).unwrap()).expect("tree.json parses");
            listing
                .iter()
                .map(|v| {
                    let bytes = serde_json::from_value(v["bytes"].clone()).expect("bytes");
                    (v["path"].as_str().expect("path").to_owned(), bytes)
                })
                .collect()
        } else {
            let mut tree = Vec::new();
            read_tree(&dir, &dir, &mut tree);
            tree
        };
        if let Err(e) = check(&tree) {
            panic!("{}: {e}", dir.display());
        }
    }
}
