//! The compare view's crash matrix as text between the page's two modules: the second one
//! crashes both designs at every single crash point (`check::compare::compare_matrices`, the
//! explorer twice) and hands the page the points judged differently as lines, so the page's
//! first module does not carry the explorer.

use batchscope_check::compare::CellDifference;
use batchscope_check::Verdict;

/// Stands for a design that never reaches the crash point.
const NOT_REACHED: &str = "-";

/// The cells as lines, `CRASH\tA\tB`: each verdict's stable name, or `-` where that design never
/// reaches the point.
pub fn cells_to_text(cells: &[CellDifference]) -> String {
    let name = |v: Option<Verdict>| v.map_or(NOT_REACHED, Verdict::name);
    cells
        .iter()
        .map(|c| format!("{}\t{}\t{}\n", c.crash, name(c.a), name(c.b)))
        .collect()
}

/// Reads back what [`cells_to_text`] wrote; a line it did not write is an error that names it.
pub fn cells_from_text(text: &str) -> Result<Vec<CellDifference>, String> {
    let verdict = |s: &str, line: &str| match s {
        NOT_REACHED => Ok(None),
        _ => Verdict::from_name(s)
            .map(Some)
            .ok_or_else(|| format!("no verdict named {s:?} in the line {line:?}")),
    };
    text.lines()
        .map(|line| {
            let mut fields = line.split('\t');
            match (fields.next(), fields.next(), fields.next(), fields.next()) {
                (Some(crash), Some(a), Some(b), None) if !crash.is_empty() => Ok(CellDifference {
                    crash: crash.to_string(),
                    a: verdict(a, line)?,
                    b: verdict(b, line)?,
                }),
                _ => Err(format!(
                    "not a crash point and two verdicts, tab-separated: {line:?}"
                )),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use batchscope_check::compare::compare_matrices;
    use batchscope_engine::preset;

    #[test]
    fn the_cells_two_designs_differ_at_come_back_as_they_were_written() {
        let (a, b) = (
            preset("kafka-append").unwrap(),
            preset("kafka-idempotent").unwrap(),
        );
        let cells = compare_matrices(&a, &b);
        assert!(!cells.is_empty(), "the two designs differ somewhere");
        assert_eq!(cells_from_text(&cells_to_text(&cells)), Ok(cells));
        // A point only one design reaches keeps its `None`.
        let one_sided = vec![CellDifference {
            crash: "task@3".into(),
            a: None,
            b: Some(Verdict::Duplicates),
        }];
        assert_eq!(cells_from_text(&cells_to_text(&one_sided)), Ok(one_sided));
        assert_eq!(cells_from_text(""), Ok(vec![]));
    }

    #[test]
    fn a_line_it_did_not_write_is_named() {
        for (text, names) in [
            ("task@1\texactly-once\n", "task@1\\texactly-once"),
            ("task@1\texactly-once\tmaybe\n", "maybe"),
            ("\tstuck\tstuck\n", "\\tstuck\\tstuck"),
            ("a\tstuck\tstuck\textra\n", "extra"),
        ] {
            let e = cells_from_text(text).unwrap_err();
            assert!(e.contains(names), "{text:?}: {e}");
        }
    }
}
