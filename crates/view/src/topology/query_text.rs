//! A query's words in the Query panel: its SQL line, and the caption of its value history.

use batchscope_engine::barrier::QuerySpec;

/// The query as SQL: the key columns, the value columns (short names) and the ratio, from the
/// tables joined on their key columns (`USING`, as every table has them); a query of one table
/// has no join condition.
pub fn query_sql(spec: &QuerySpec, value_columns: &[String]) -> String {
    let selected: Vec<String> = spec
        .on
        .iter()
        .cloned()
        .chain(value_columns.iter().cloned())
        .chain(spec.ratio.as_ref().map(|r| r.name.clone()))
        .collect();
    let what = if selected.is_empty() {
        "*".to_string()
    } else {
        selected.join(", ")
    };
    let using = match (spec.tables.len() > 1, spec.on.is_empty()) {
        (true, false) => format!(" USING ({})", spec.on.join(", ")),
        _ => String::new(),
    };
    format!("SELECT {what} FROM {}{using}", spec.tables.join(" JOIN "))
}

/// The caption of the value history: the ratio's name (or "value") and the row it follows,
/// by its key (`avgPrice of userId 1`), or the first row when the query has no key.
pub fn history_caption<V: std::fmt::Display>(spec: &QuerySpec, first_key: Option<&[V]>) -> String {
    let value = spec.ratio.as_ref().map_or("value", |r| r.name.as_str());
    let row = match first_key {
        None => String::new(),
        Some([]) => " of the first row".to_string(),
        Some(key) => {
            let named: Vec<String> = spec
                .on
                .iter()
                .zip(key)
                .map(|(c, v)| format!("{c} {v}"))
                .collect();
            format!(" of {}", named.join(", "))
        }
    };
    format!("{value}{row} over the steps:")
}

#[cfg(test)]
mod tests {
    use super::*;
    use batchscope_engine::barrier::{preset, RatioSpec};

    fn spec(tables: &[&str], on: &[&str], ratio: Option<&str>) -> QuerySpec {
        QuerySpec {
            name: "Q".into(),
            tables: tables.iter().map(|t| t.to_string()).collect(),
            on: on.iter().map(|c| c.to_string()).collect(),
            ratio: ratio.map(|name| RatioSpec {
                name: name.into(),
                numerator: "t.a".into(),
                denominator: "t.b".into(),
            }),
        }
    }

    #[test]
    fn a_query_of_one_table_has_no_join_condition() {
        let cols = ["amount".to_string()];
        assert_eq!(
            query_sql(&spec(&["table1"], &[], None), &cols),
            "SELECT amount FROM table1"
        );
        assert_eq!(
            query_sql(
                &spec(&["table1", "table2"], &["userId"], Some("avgPrice")),
                &cols
            ),
            "SELECT userId, amount, avgPrice FROM table1 JOIN table2 USING (userId)"
        );
        assert_eq!(query_sql(&spec(&["t"], &[], None), &[]), "SELECT * FROM t");
    }

    #[test]
    fn every_query_of_every_topology_preset_reads_as_sql() {
        for name in ["shopping", "chain", "three-queries"] {
            let topology = preset(name).unwrap();
            for q in &topology.queries {
                let sql = query_sql(q, &[]);
                assert!(
                    !sql.ends_with(" ON") && !sql.contains(" ON "),
                    "{name}: {sql}"
                );
                assert!(!sql.ends_with("USING ()"), "{name}: {sql}");
            }
        }
    }

    #[test]
    fn the_history_names_the_row_it_follows() {
        let keyed = spec(&["a", "b"], &["userId"], Some("avgPrice"));
        assert_eq!(
            history_caption(&keyed, Some(&[1i64][..])),
            "avgPrice of userId 1 over the steps:"
        );
        let plain = spec(&["table1"], &[], None);
        assert_eq!(
            history_caption(&plain, Some(&[] as &[i64])),
            "value of the first row over the steps:"
        );
        assert_eq!(
            history_caption(&plain, None::<&[i64]>),
            "value over the steps:"
        );
    }
}
