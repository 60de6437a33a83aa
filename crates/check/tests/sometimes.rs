//! Claims checked against a real exploration: a sometimes-claim at a crash point is held where
//! the oracle's verdict of that crash agrees, violated where it does not, never reached where
//! no run crashes; a never-claim is broken by the smallest run with its verdict, which
//! reproduces; the run without failures is the oracle's own run.

use batchscope_check::explore::{Explorer, Origin, Property, Status, Summary};
use batchscope_check::oracle::{check, Verdict};
use batchscope_engine::microbatch::scenario::{preset, CrashKind, Scenario};

fn base(name: &str) -> Scenario {
    let mut s = preset(name).unwrap();
    s.crashes.clear();
    s.crash_after_events.clear();
    s
}

fn explore(name: &str) -> Summary {
    Explorer::new(base(name), 1).run_to_completion()
}

fn origin(name: &str) -> Origin {
    Origin::Preset(name.into())
}

/// The oracle's verdict of the preset with one crash.
fn verdict_with_crash(name: &str, crash: &str) -> Verdict {
    let mut s = base(name);
    s.crashes = vec![crash.parse().unwrap()];
    check(&s).verdict
}

fn sometimes(point: CrashKind, batch: Option<u64>, verdict: Verdict) -> Property {
    Property::Sometimes {
        point,
        batch,
        verdict,
    }
}

#[test]
fn a_sometimes_claim_holds_where_the_oracle_agrees_and_is_violated_where_not() {
    let summary = explore("kafka-append");
    let at_3 = verdict_with_crash("kafka-append", "sink-commit@3");
    let held =
        sometimes(CrashKind::SinkCommit, Some(3), at_3).check(&summary, &origin("kafka-append"));
    assert_eq!(held.status, Status::Held);
    assert_eq!(held.evidence.text, format!("sink-commit@3 → {at_3}"));
    assert_eq!(held.evidence.cells.len(), 1);

    let other = Verdict::ALL.into_iter().find(|v| *v != at_3).unwrap();
    let violated =
        sometimes(CrashKind::SinkCommit, Some(3), other).check(&summary, &origin("kafka-append"));
    assert_eq!(violated.status, Status::Violated);
    // It names what the run gave.
    assert_eq!(violated.evidence.text, format!("sink-commit@3 → {at_3}"));
}

#[test]
fn a_sometimes_claim_in_any_batch_lists_every_batch_with_the_verdict() {
    let summary = explore("kafka-append");
    let at_0 = verdict_with_crash("kafka-append", "sink-commit@0");
    let c = sometimes(CrashKind::SinkCommit, None, at_0).check(&summary, &origin("kafka-append"));
    assert_eq!(c.status, Status::Held);
    let expected: Vec<u64> = summary
        .matrix
        .batches
        .iter()
        .copied()
        .filter(|b| verdict_with_crash("kafka-append", &format!("sink-commit@{b}")) == at_0)
        .collect();
    let got: Vec<u64> = c.evidence.cells.iter().map(|c| c.batch).collect();
    assert_eq!(got, expected);
}

#[test]
fn a_claim_at_a_point_no_run_crashes_at_is_never_reached() {
    let summary = explore("kafka-append");
    let o = origin("kafka-append");
    // Only SeaTunnel readers write state files.
    let none = sometimes(CrashKind::StatePrepared, None, Verdict::Duplicates).check(&summary, &o);
    assert_eq!(none.status, Status::NeverReached);
    assert!(none.evidence.cells.is_empty());
    let past = summary.matrix.batches.last().unwrap() + 1;
    let late =
        sometimes(CrashKind::SinkCommit, Some(past), Verdict::Duplicates).check(&summary, &o);
    assert_eq!(late.status, Status::NeverReached);
    assert_eq!(
        late.evidence.text,
        format!("no explored run crashed at sink-commit@{past}")
    );
}

#[test]
fn a_never_claim_is_broken_by_its_smallest_run_which_reproduces() {
    let summary = explore("kafka-append");
    let c = Property::Never {
        verdicts: vec![Verdict::Duplicates],
    }
    .check(&summary, &origin("kafka-append"));
    assert_eq!(c.status, Status::Violated);
    assert_eq!(
        c.evidence.matching,
        Some(summary.outcomes[&Verdict::Duplicates])
    );
    let run = c.evidence.run.unwrap();
    assert_eq!(run.verdict, Verdict::Duplicates);
    let command = run.command.unwrap();
    assert!(
        command.starts_with("batchscope run --preset kafka-append"),
        "{command}"
    );
    // The run it names gives that verdict when run on its own.
    let smallest = summary
        .counterexamples
        .iter()
        .find(|x| x.outcome.verdict == Verdict::Duplicates)
        .unwrap();
    assert_eq!(run.schedule, smallest.outcome.schedule());
    assert_eq!(check(&smallest.scenario).verdict, Verdict::Duplicates);
    assert!(c.evidence.text.contains(&command));
}

#[test]
fn a_never_claim_holds_when_no_run_has_its_verdicts() {
    for name in ["kafka-idempotent", "kafka-append"] {
        let summary = explore(name);
        let loss = vec![Verdict::DataLoss, Verdict::DuplicatesAndLoss];
        let c = Property::Never {
            verdicts: loss.clone(),
        }
        .check(&summary, &origin(name));
        let any_loss = summary.bad_runs.iter().any(|o| loss.contains(&o.verdict));
        assert_eq!(c.status == Status::Violated, any_loss, "{name}");
        assert_eq!(c.status == Status::Held, !any_loss, "{name}");
        if !any_loss {
            assert_eq!(
                c.evidence.text,
                format!(
                    "{} runs, none data-loss or duplicates-and-loss",
                    summary.runs
                )
            );
        }
    }
}

#[test]
fn the_run_without_failures_is_the_oracles_run() {
    for name in ["kafka-append", "torn-offset-log", "two-drivers"] {
        let summary = explore(name);
        let own = check(&base(name)).verdict;
        for v in Verdict::ALL {
            let c = Property::WithoutFailure { verdict: v }.check(&summary, &origin(name));
            let want = if v == own {
                Status::Held
            } else {
                Status::Violated
            };
            assert_eq!(c.status, want, "{name} {v}");
            assert_eq!(c.evidence.run.as_ref().unwrap().verdict, own, "{name}");
        }
    }
}

#[test]
fn a_property_reads_back_from_its_json() {
    let p = sometimes(CrashKind::SinkCommit, Some(3), Verdict::Duplicates);
    let json = serde_json::to_string(&p).unwrap();
    assert_eq!(
        json,
        r#"{"kind":"sometimes","point":"sink-commit","batch":3,"verdict":"duplicates"}"#
    );
    assert_eq!(serde_json::from_str::<Property>(&json).unwrap(), p);
}
