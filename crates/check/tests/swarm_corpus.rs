//! Replays the swarm's corpus (`tests/swarm-corpus/*.json`): every scenario a swarm found
//! breaking an invariant, kept after its bug was fixed, holds every invariant now.

use batchscope_check::swarm::check;
use batchscope_engine::microbatch::scenario::Scenario;
use std::path::PathBuf;

#[test]
fn every_corpus_scenario_holds_every_invariant() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/swarm-corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the corpus folder")
        .map(|e| e.expect("a corpus entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 3,
        "the corpus keeps the runs that found bugs"
    );
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let scenario: Scenario =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        scenario.validate().unwrap();
        let checked = check(&scenario);
        assert!(checked.verdict.is_some(), "{}", file.display());
        assert_eq!(checked.violations, vec![], "{}", file.display());
    }
}
