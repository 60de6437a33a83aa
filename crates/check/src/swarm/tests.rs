//! The invariants fire: a miscounted sink, a restart `inspect` predicts otherwise, a panic.

use super::*;
use crate::oracle::check_world;
use batchscope_engine::microbatch::scenario::preset;

#[test]
fn a_sink_that_shows_a_row_too_many_breaks_the_counts() {
    let s = preset("kafka-append").unwrap();
    let (mut report, _) = check_world(&s, false);
    assert_eq!(counts_add_up(&s, &report), None);
    report.delivered += 1;
    let v = counts_add_up(&s, &report).expect("a row too many");
    assert_eq!(v.invariant, "counts");
}

fn said(action: &str, batch: Option<u64>) -> Prediction {
    Prediction {
        action: action.into(),
        batch,
    }
}

#[test]
fn inspect_must_predict_the_engines_recovery() {
    assert!(inspect_agrees(
        &Recovery::Rerun { batch_id: 3 },
        &said("rerun", Some(3))
    ));
    assert!(inspect_agrees(
        &Recovery::Next { batch_id: 4 },
        &said("next", Some(4))
    ));
    assert!(inspect_agrees(&Recovery::Failed, &said("fail", None)));
    assert!(!inspect_agrees(&Recovery::Fresh, &said("fail", None)));
    assert!(!inspect_agrees(
        &Recovery::Rerun { batch_id: 3 },
        &said("next", Some(3))
    ));
    assert!(!inspect_agrees(
        &Recovery::Next { batch_id: 4 },
        &said("next", Some(5))
    ));
    assert!(!inspect_agrees(&Recovery::Fresh, &said("rerun", Some(0))));
    assert_eq!(said("rerun", Some(3)).to_string(), "rerun 3");
    assert_eq!(said("fresh", None).to_string(), "fresh");
}

#[test]
fn two_tallies_absorbed_count_as_one() {
    let s = preset("kafka-append").unwrap();
    let (mut one, mut a, mut b) = (Tally::default(), Tally::default(), Tally::default());
    for i in 0..4 {
        let c = check(&s);
        one.add(i, &s, c.clone());
        if i % 2 == 0 {
            a.add(i, &s, c)
        } else {
            b.add(i, &s, c)
        }
    }
    a.absorb(b);
    assert_eq!(a, one);
    assert_eq!(a.runs, 4);
}

#[test]
fn a_panic_is_a_violation_with_its_message() {
    let checked = guarded(|| panic!("an engine assertion"));
    assert_eq!(checked.verdict, None);
    assert_eq!(
        checked.violations,
        vec![Violation::new("panic", "an engine assertion".into())]
    );
}
