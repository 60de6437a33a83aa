//! SeaTunnel's checkpoint records under the crash point only its readers have (`state-prepared`:
//! after a reader wrote `<id>.prepared`, before the sink saw the record): PR #7476's restore
//! order loses data there, the committed-only design does not.

use batchscope_check::oracle::{check, Verdict};
use batchscope_engine::microbatch::scenario::{preset, presets, CrashKind, CrashPoint};

fn at(name: &str, batch_id: u64) -> batchscope_check::oracle::Report {
    let mut s = preset(name).unwrap();
    s.crashes.push(CrashPoint {
        kind: CrashKind::StatePrepared,
        batch_id,
    });
    check(&s)
}

#[test]
fn a_crash_after_prepared_loses_data_only_with_the_prs_restore_order() {
    for (name, batch_id, want) in [
        ("seatunnel-checkpoint-records", 0, Verdict::DataLoss),
        ("reader-idle-timeout", 1, Verdict::DataLoss),
        ("seatunnel-committed-only", 0, Verdict::ExactlyOnce),
        ("seatunnel-idempotent-sink", 0, Verdict::ExactlyOnce),
    ] {
        let r = at(name, batch_id);
        assert_eq!(
            r.crashes_fired,
            vec![format!("state-prepared@{batch_id}")],
            "{name}"
        );
        assert_eq!(r.verdict, want, "{name}: {r:?}");
        if want == Verdict::DataLoss {
            assert!(r.lost > 0 && !r.lost_keys.is_empty(), "{name}");
        }
    }
}

#[test]
fn only_seatunnel_readers_have_the_state_prepared_point() {
    for p in presets() {
        let r = at(p.name, 1);
        let seatunnel = p.scenario.source.kind
            == batchscope_engine::microbatch::scenario::SourceKind::SeaTunnel
            && p.scenario.source.reader
                != batchscope_engine::microbatch::scenario::ReaderEnd::Never;
        if !seatunnel {
            assert!(r.crashes_fired.is_empty(), "{}: {r:?}", p.name);
        }
    }
}
