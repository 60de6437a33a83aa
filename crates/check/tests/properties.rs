//! Property tests: over random scenarios and random crash schedules (0–3 crashes), each
//! source/sink pairing keeps the guarantee it promises (SEMANTICS §8).

use batchscope_check::oracle::{check, Report, Verdict};
use batchscope_engine::microbatch::scenario::Window;
use batchscope_engine::microbatch::scenario::{
    preset, CrashKind, CrashPoint, Scenario, SinkKind, SourceKind,
};
use proptest::prelude::*;

/// A random scenario with this source and sink: 1–4 channels, 0–5 records per batch and
/// channel, 1–6 batches, page sizes 1–8, a per-channel cap of at least one page (a smaller cap
/// is the known stuck channel of SEMANTICS §3.4), up to two idle windows.
fn scenario(source: SourceKind, sink: SinkKind) -> impl Strategy<Value = Scenario> {
    (
        any::<u64>(),
        1u32..=4,
        0u32..=5,
        1u64..=6,
        1u32..=8,
        0u32..=3,
        prop::collection::vec((0u64..6000, 1u64..2500), 0..=2),
    )
        .prop_map(
            move |(seed, channels, records_per_batch, batches, page_size, extra_pages, idle)| {
                let mut s = preset("kafka-idempotent").expect("preset exists");
                s.name = format!("{source:?}-{sink:?}");
                s.description = String::new();
                s.seed = seed;
                s.batches = batches;
                s.upstream.channels = channels;
                s.upstream.records_per_batch = records_per_batch;
                s.upstream.idle = idle
                    .into_iter()
                    .map(|(from_ms, len)| Window {
                        from_ms,
                        to_ms: from_ms + len,
                    })
                    .collect();
                s.source.kind = source;
                s.source.page_size = page_size;
                s.source.max_offsets_per_channel = page_size * (1 + extra_pages);
                s.sink.kind = sink;
                s.validate().expect("generated scenario is valid");
                s
            },
        )
}

/// 0–3 crashes at any named point of batches 0–7 (some may never be reached).
fn crashes() -> impl Strategy<Value = Vec<CrashPoint>> {
    prop::collection::vec((0usize..7, 0u64..=7), 0..=3).prop_map(|v| {
        v.into_iter()
            .map(|(k, batch_id)| CrashPoint {
                kind: CrashKind::ALL[k],
                batch_id,
            })
            .collect()
    })
}

fn run(mut s: Scenario, crashes: Vec<CrashPoint>) -> Report {
    s.crashes = crashes;
    check(&s)
}

fn reproducer(s: &Scenario, r: &Report) -> String {
    format!(
        "{} → {} (dup {}, lost {}); scenario: {}",
        r.crashes.join(", "),
        r.verdict,
        r.duplicates,
        r.lost,
        serde_json::to_string(s).unwrap()
    )
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 96,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn replayable_log_into_file_sink_is_exactly_once(
        s in scenario(SourceKind::ReplayableLog, SinkKind::File),
        c in crashes(),
    ) {
        let r = run(s.clone(), c);
        prop_assert_eq!(r.verdict, Verdict::ExactlyOnce, "{}", reproducer(&s, &r));
    }

    #[test]
    fn replayable_log_into_upsert_sink_is_exactly_once(
        s in scenario(SourceKind::ReplayableLog, SinkKind::Upsert),
        c in crashes(),
    ) {
        let r = run(s.clone(), c);
        prop_assert_eq!(r.verdict, Verdict::ExactlyOnce, "{}", reproducer(&s, &r));
    }

    #[test]
    fn tablestore_into_upsert_sink_is_exactly_once(
        s in scenario(SourceKind::Tablestore, SinkKind::Upsert),
        c in crashes(),
    ) {
        let r = run(s.clone(), c);
        prop_assert_eq!(r.verdict, Verdict::ExactlyOnce, "{}", reproducer(&s, &r));
    }

    #[test]
    fn append_sink_never_loses_data(
        source in prop_oneof![Just(SourceKind::ReplayableLog), Just(SourceKind::Tablestore)],
        seed_scenario in scenario(SourceKind::ReplayableLog, SinkKind::Append),
        c in crashes(),
    ) {
        let mut s = seed_scenario;
        s.source.kind = source;
        let r = run(s.clone(), c);
        prop_assert!(
            matches!(r.verdict, Verdict::ExactlyOnce | Verdict::Duplicates),
            "{}",
            reproducer(&s, &r)
        );
    }
}
