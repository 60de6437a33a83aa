//! Paimon snapshot files: real Java-written snapshots parse and print back byte for byte, and
//! the snapshots the simulation writes carry the barrier as `commitIdentifier`.

use batchscope_engine::barrier::{preset, PaimonSnapshot, TopologyWorld};

const FIXTURES: [(&str, &str); 3] = [
    (
        "java_types/snapshot/snapshot-1",
        include_str!("fixtures/paimon/java_types/snapshot/snapshot-1"),
    ),
    (
        "append_java_compat/snapshot/snapshot-1",
        include_str!("fixtures/paimon/append_java_compat/snapshot/snapshot-1"),
    ),
    (
        "append_java_compat/snapshot/snapshot-2",
        include_str!("fixtures/paimon/append_java_compat/snapshot/snapshot-2"),
    ),
];

#[test]
fn real_snapshot_files_parse_and_print_back_byte_for_byte() {
    for (path, text) in FIXTURES {
        let s = PaimonSnapshot::from_json(text).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(s.version, 3, "{path}");
        assert_eq!(s.commit_kind, "APPEND", "{path}");
        assert_eq!(
            s.commit_identifier,
            i64::MAX,
            "{path}: batch commits use Long.MAX_VALUE"
        );
        assert_eq!(s.to_paimon_json(), text, "{path}");
    }
    let two = PaimonSnapshot::from_json(FIXTURES[2].1).unwrap();
    assert_eq!(
        (two.id, two.total_record_count, two.delta_record_count),
        (2, 4, 2)
    );
}

#[test]
fn simulated_snapshots_are_paimon_files_tagged_with_their_barrier() {
    let mut w = TopologyWorld::new(preset("shopping").unwrap(), 7).unwrap();
    w.run_to_end();
    let t = w.table("user_item_amount").unwrap();
    let mut total = 0;
    for (i, s) in t.snapshots.iter().enumerate() {
        let text = s.snapshot.to_paimon_json();
        assert!(
            text.starts_with("{\n  \"version\" : 3,\n  \"id\" : "),
            "{text}"
        );
        let back = PaimonSnapshot::from_json(&text).unwrap();
        assert_eq!(back, s.snapshot);
        assert_eq!(back.id, i as u64 + 1, "ids dense from 1");
        assert_eq!(back.commit_identifier, s.barrier as i64);
        assert!(back.time_millis > 0);
        assert!(back.total_record_count >= total);
        total = back.total_record_count;
    }
    assert_eq!(t.snapshots.len(), 5);
}
