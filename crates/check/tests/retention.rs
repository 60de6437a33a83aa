//! Retention on the Kafka-like log: `failOnDataLoss` true fails every restart on a range that
//! aged out; false skips it, and the oracle names those records `aged-out`, not protocol loss.

use batchscope_check::anomaly::AnomalyName;
use batchscope_check::oracle::check_world;
use batchscope_check::why::explain;
use batchscope_check::Verdict;
use batchscope_engine::microbatch::event::EventKind;
use batchscope_engine::microbatch::scenario::preset;
use batchscope_engine::microbatch::upstream::RowKey;

#[test]
fn skipped_records_are_aged_out_not_lost_by_the_protocol() {
    let scenario = preset("kafka-retention-skip").expect("preset");
    let (mut report, world) = check_world(&scenario, false);
    explain(&scenario, &mut report);
    assert_eq!(report.verdict, Verdict::DataLoss);
    assert!(report.aged_out > 0);
    let names: Vec<AnomalyName> = report.anomalies.iter().map(|a| a.name).collect();
    assert_eq!(names, vec![AnomalyName::AgedOut], "{:?}", report.anomalies);
    assert_eq!(report.anomalies[0].keys, report.aged_out_keys);
    // Each skipped range is one task read's: its first `aged_out` offsets, and the proof
    // names exactly those reads.
    let mut skipped = vec![];
    let mut proof = vec![];
    for e in world.events() {
        if let EventKind::TaskRead {
            channel,
            from,
            aged_out,
            error,
            ..
        } = &e.kind
        {
            assert!(error.is_none(), "failOnDataLoss=false never throws");
            let from = from.offset_or_zero();
            skipped.extend((from..from + aged_out).map(|seq| (channel.0, seq)));
            if *aged_out > 0 {
                proof.push(e.seq);
            }
        }
    }
    assert_eq!(report.anomalies[0].events, proof);
    for key in &report.aged_out_keys {
        let RowKey::Record { channel, seq } = *key else {
            panic!("a record key: {key:?}")
        };
        assert!(
            skipped.contains(&(channel, seq)),
            "{key:?} was never skipped"
        );
    }
}

#[test]
fn fail_on_data_loss_fails_every_restart_with_sparks_message() {
    let scenario = preset("kafka-retention-fail").expect("preset");
    let (report, world) = check_world(&scenario, false);
    assert_eq!((report.verdict, report.aged_out), (Verdict::Stuck, 0));
    let failures: Vec<&str> = world
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::QueryFailed { reason } if reason.contains("failOnDataLoss") => {
                Some(reason.as_str())
            }
            _ => None,
        })
        .collect();
    assert!(failures.len() > 2, "a restart loop: {failures:?}");
    assert!(failures.iter().all(|f| f.contains("Cannot fetch offset")));
    // Once the first partition's range is gone, every restart throws on the same offset.
    let last = failures[failures.len() - 1];
    assert_eq!(
        failures[failures.len() - 2],
        last,
        "the same range each time"
    );
}

#[test]
fn a_retention_longer_than_the_outage_loses_nothing() {
    for name in ["kafka-retention-fail", "kafka-retention-skip"] {
        let mut scenario = preset(name).expect("preset");
        scenario.source.retention_ms = Some(60_000);
        let (report, _) = check_world(&scenario, false);
        assert_eq!(report.verdict, Verdict::ExactlyOnce, "{name}: {report:?}");
        assert_eq!(report.aged_out, 0);
    }
}
