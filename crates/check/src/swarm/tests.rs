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

#[test]
fn inspect_must_predict_the_engines_recovery() {
    assert!(inspect_agrees(&Recovery::Rerun { batch_id: 3 }, "rerun 3"));
    assert!(inspect_agrees(&Recovery::Next { batch_id: 4 }, "next 4"));
    assert!(inspect_agrees(&Recovery::Fresh, "fail"));
    assert!(!inspect_agrees(&Recovery::Rerun { batch_id: 3 }, "next 3"));
    assert!(!inspect_agrees(&Recovery::Next { batch_id: 4 }, "next 5"));
    assert!(!inspect_agrees(&Recovery::Fresh, "rerun 0"));
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
