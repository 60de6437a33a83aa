//! FLIP-276's failover with checkpoints of several barriers (restore the checkpoint, replay the
//! barriers after it, the same data), revisions with corrected rows, and the MetaService's
//! `<checkpoint, barrier>` mapping, on the presets.

use batchscope_engine::barrier::trace as barrier_trace;
use batchscope_engine::barrier::{
    preset, BarrierEventKind, Consistency, Fault, ReadLevel, TopologyRun, TopologyWorld,
};

fn world(name: &str, per_checkpoint: u64, faults: Vec<Fault>) -> TopologyWorld {
    let mut spec = preset(name).expect("preset");
    spec.barriers_per_checkpoint = per_checkpoint;
    TopologyWorld::from_run(TopologyRun {
        barriers: spec.barriers,
        spec,
        seed: 1,
        faults,
    })
    .expect("valid run")
}

fn rows(w: &TopologyWorld) -> Vec<(String, u64, Vec<Vec<i64>>)> {
    w.tables()
        .iter()
        .flat_map(|t| {
            t.snapshots.iter().map(|s| {
                (
                    t.name.clone(),
                    s.barrier,
                    t.rows_at(s.barrier).into_values().collect(),
                )
            })
        })
        .collect()
}

#[test]
fn a_failed_job_restores_its_checkpoint_and_replays_the_barriers_after_it() {
    let mut clean = world("shopping", 2, vec![]);
    clean.run_to_end();
    let fail = vec![Fault::FailBeforeWritten {
        job: "price_job".into(),
        barrier: 4,
    }];
    let mut w = world("shopping", 2, fail);
    let events = w.run_to_end();
    let (checkpoint, restored, replayed) = events
        .iter()
        .find_map(|e| match &e.kind {
            BarrierEventKind::JobFailed {
                restored_checkpoint,
                restored_barrier,
                replayed_barriers,
                ..
            } => Some((
                *restored_checkpoint,
                *restored_barrier,
                replayed_barriers.clone(),
            )),
            _ => None,
        })
        .expect("the job failed");
    let mapping = w.meta().checkpoint_barriers();
    let (_, barriers) = mapping.iter().find(|(c, _)| *c == checkpoint).unwrap();
    assert_eq!(barriers.last(), Some(&restored), "<checkpoint, barrier>");
    assert!(barriers.len() > 1, "a checkpoint of several barriers");
    assert_eq!(replayed.first(), Some(&(restored + 1)));
    assert!(replayed.len() >= 2, "{replayed:?}");
    // The WRITTEN barrier after the checkpoint is recomputed, not written twice.
    let recomputed: Vec<u64> = events
        .iter()
        .filter_map(|e| match &e.kind {
            BarrierEventKind::Replayed { barrier, .. } => Some(*barrier),
            _ => None,
        })
        .collect();
    assert!(!recomputed.is_empty());
    assert!(recomputed.iter().all(|b| replayed.contains(b)));
    assert_eq!(
        rows(&w),
        rows(&clean),
        "the same snapshots as without the failure"
    );
    let line = events
        .iter()
        .find(|e| matches!(e.kind, BarrierEventKind::JobFailed { .. }))
        .map(barrier_trace::line)
        .unwrap();
    assert!(
        line.contains(&format!(
            "restores checkpoint {checkpoint} (barriers up to {restored})"
        )),
        "{line}"
    );
    assert!(line.contains("PRECOMMIT"), "{line}");
}

#[test]
fn one_barrier_per_checkpoint_restores_the_last_written_barrier() {
    let fail = vec![Fault::FailBeforeWritten {
        job: "price_job".into(),
        barrier: 4,
    }];
    let mut w = world("shopping", 1, fail);
    let events = w.run_to_end();
    assert!(events.iter().any(|e| matches!(
        &e.kind,
        BarrierEventKind::JobFailed {
            restored_checkpoint: 3,
            restored_barrier: 3,
            ..
        }
    )));
    assert!(!events
        .iter()
        .any(|e| matches!(e.kind, BarrierEventKind::Replayed { .. })));
}

#[test]
fn a_revision_with_corrected_rows_recomputes_downstream() {
    let spec = preset("chain").unwrap();
    let fix = spec
        .revision("table1", 1)
        .expect("the preset ships corrected rows")
        .clone();
    let revise = vec![Fault::ReviseAfterWritten {
        table: "table1".into(),
        barrier: 1,
        written: spec.barriers,
    }];
    let mut clean = world("chain", 1, vec![]);
    clean.run_to_end();
    let mut w = world("chain", 1, revise);
    let events = w.run_to_end();
    assert!(events.iter().any(|e| matches!(
        &e.kind,
        BarrierEventKind::Revised { rolled_back_to: 0, corrected_rows, .. } if *corrected_rows as usize == fix.rows.len()
    )));
    let barrier_1 = |w: &TopologyWorld| -> Vec<Vec<i64>> {
        w.table("table1")
            .unwrap()
            .log
            .iter()
            .filter(|r| r.barrier == 1)
            .map(|r| r.values.clone())
            .collect()
    };
    // The clean run's barrier 1 with the corrected row in place of the row with its userId
    // and itemId: every other row of the barrier is kept.
    let mut expected = barrier_1(&clean);
    for row in &fix.rows {
        let at = expected
            .iter()
            .position(|r| r[..2] == row[..2])
            .expect("the corrected row means a row of the barrier");
        expected[at] = row.clone();
    }
    assert!(expected.len() > fix.rows.len(), "barrier 1 has other rows");
    assert_eq!(
        barrier_1(&w),
        expected,
        "barrier 1 of table1 holds the corrected row and keeps the rest"
    );
    let answer = |w: &TopologyWorld| {
        w.query(&w.declared_query(ReadLevel::RepeatableRead, Consistency::Strong))
    };
    assert_ne!(answer(&w).rows, answer(&clean).rows, "the answer changes");
    assert!(answer(&w).consistent);
    assert_eq!(w.meta().committed, spec.barriers);
}

#[test]
fn bad_revisions_checkpoints_and_queries_are_refused_naming_the_field() {
    let refused = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut v = serde_json::to_value(preset("chain").unwrap()).unwrap();
        edit(&mut v);
        batchscope_engine::barrier::TopologySpec::from_json(&v.to_string())
            .unwrap_err()
            .to_string()
    };
    let e = refused(&|v| v["revisions"][0]["table"] = "table2".into());
    assert!(
        e.starts_with("revisions[0].table: `table2` is not a root table"),
        "{e}"
    );
    let e = refused(&|v| v["revisions"][0]["table"] = "nope".into());
    assert!(
        e.starts_with("revisions[0].table: unknown table `nope`"),
        "{e}"
    );
    let e = refused(&|v| v["revisions"][0]["barrier"] = 0.into());
    assert!(
        e.starts_with("revisions[0].barrier: must be between 1 and barriers"),
        "{e}"
    );
    let e = refused(&|v| v["revisions"][0]["rows"][0] = serde_json::json!([1, 2]));
    assert!(
        e.starts_with("revisions[0].rows[0]: 2 values for the 4 columns"),
        "{e}"
    );
    let e = refused(&|v| v["barriers_per_checkpoint"] = 0.into());
    assert!(
        e.starts_with("barriers_per_checkpoint: must be between 1 and barriers"),
        "{e}"
    );
    let e = refused(&|v| {
        v["queries"] = serde_json::json!([{"name": "share", "tables": ["table1"], "on": []}])
    });
    assert!(e.contains("query `share` is declared twice"), "{e}");
    let e = refused(&|v| {
        v["queries"] = serde_json::json!([{"name": "q", "tables": ["nope"], "on": []}])
    });
    assert!(
        e.starts_with("queries[0].tables[0]: unknown table `nope`"),
        "{e}"
    );
    let mut w = world("chain", 1, vec![]);
    let e = w.revise("table1", 0).unwrap_err().to_string();
    assert!(e.contains("barrier 0 holds no data"), "{e}");
}

/// `batchscope topology --preset shopping --barriers 6 --barriers-per-checkpoint 3
/// --snapshot-retention 1 --fail price_job@6`: price_job restores checkpoint 1 (barriers up to
/// 3) and reads shopping's snapshots 4, 5 and 6 again. Expiry keeps every snapshot after a
/// reading job's last complete checkpoint, so none of them has expired when it is read, and
/// they expire once the job's next checkpoint completes.
#[test]
fn expiry_keeps_the_snapshots_a_restored_checkpoint_replays() {
    let mut spec = preset("shopping").expect("preset");
    spec.barriers = 6;
    spec.barriers_per_checkpoint = 3;
    spec.snapshot_retention = 1;
    let mut w = TopologyWorld::from_run(TopologyRun {
        barriers: 6,
        spec,
        seed: 1,
        faults: vec![Fault::FailBeforeWritten {
            job: "price_job".into(),
            barrier: 6,
        }],
    })
    .expect("valid run");
    let mut reads_after_restore = Vec::new();
    let mut restored = false;
    loop {
        let before = w.meta().clone();
        let Some(e) = w.step() else { break };
        match &e.kind {
            BarrierEventKind::JobFailed {
                job,
                restored_barrier,
                ..
            } if job == "price_job" => {
                assert_eq!(*restored_barrier, 3, "checkpoint 1 ends with barrier 3");
                restored = true;
            }
            BarrierEventKind::SourceEmit {
                job,
                input,
                barrier,
                expired_snapshot,
                ..
            } if input != "cdc" => {
                assert!(
                    !before.is_expired(input, *barrier),
                    "#{} {job} reads {input} barrier {barrier}, expired before the read",
                    e.step
                );
                assert_eq!(*expired_snapshot, None, "#{}", e.step);
                if restored && job == "price_job" {
                    reads_after_restore.push(*barrier);
                }
            }
            _ => {}
        }
    }
    assert_eq!(
        reads_after_restore,
        [4, 5, 6],
        "the replay reads 4, 5, 6 again"
    );
    assert!(
        w.meta().is_expired("shopping", 4),
        "snapshot 4 expires once price_job's checkpoint 2 completes: expiry still works"
    );
}

/// `batchscope topology --preset chain --revise table2@2 --snapshot-retention 0`: the revision
/// rolls sum_job and join_job back past their checkpoints, and table1's snapshots they read
/// again had expired (expiry is bookkeeping, the data stays). Such a read is shown as one of an
/// expired snapshot, with its id, never as an ordinary read.
#[test]
fn a_read_of_an_expired_snapshot_after_a_revision_says_so() {
    let mut spec = preset("chain").expect("preset");
    spec.snapshot_retention = 0;
    let barriers = spec.barriers;
    let mut w = TopologyWorld::from_run(TopologyRun {
        barriers,
        spec,
        seed: 1,
        faults: vec![Fault::ReviseAfterWritten {
            table: "table2".into(),
            barrier: 2,
            written: barriers,
        }],
    })
    .expect("valid run");
    let mut expired_reads = 0;
    loop {
        let before = w.meta().clone();
        let Some(e) = w.step() else { break };
        if let BarrierEventKind::SourceEmit {
            input,
            barrier,
            expired_snapshot,
            ..
        } = &e.kind
        {
            if input == "cdc" {
                continue;
            }
            let expired = before.is_expired(input, *barrier);
            assert_eq!(expired_snapshot.is_some(), expired, "#{}", e.step);
            let line = barrier_trace::line(&e);
            assert_eq!(line.contains("EXPIRED snapshot-"), expired, "{line}");
            if let Some(id) = expired_snapshot {
                let t = w.table(input).expect("table");
                assert_eq!(t.barrier(*barrier).and_then(|b| b.snapshot_id), Some(*id));
                expired_reads += 1;
            }
        }
    }
    assert!(expired_reads > 0, "the revision reads expired snapshots");
}
