//! A revised barrier's data: the corrected rows a topology ships for a root table's barrier,
//! merged by key into that barrier's CDC rows — each corrected row replaces the row it means,
//! every other row of the barrier stays — and what the replay after the revision replaced.
//! (`TopologyWorld::revised_barrier`, in `faults`, reads the barrier's CDC rows.)

use super::event::RowCorrection;
use super::operator::Record;

/// A revised barrier: the records its replay writes, and what the corrected rows replaced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct RevisedBarrier {
    /// The barrier's records with the corrections merged in, in CDC order (added rows last).
    pub(super) records: Vec<Record>,
    /// Each corrected row with the row it replaced.
    pub(super) replaced: Vec<RowCorrection>,
    /// Rows of the barrier no corrected row replaced.
    pub(super) kept: u32,
}

/// Merges `rows` into `records` by the `key` column positions: each row replaces the first
/// record with the same key values not replaced yet, or is added after them.
pub(super) fn merge(
    mut records: Vec<Record>,
    rows: &[Vec<i64>],
    key: &[usize],
    barrier: u64,
) -> RevisedBarrier {
    let original = records.len();
    let mut taken = vec![false; original];
    let mut replaced = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let same = |r: &Record| key.iter().all(|&k| r.values.get(k) == row.get(k));
        match (0..original).find(|&x| !taken[x] && same(&records[x])) {
            Some(x) => {
                taken[x] = true;
                replaced.push(RowCorrection {
                    cdc_offset: records[x].key.first().map(|o| *o as u64),
                    before: Some(records[x].values.clone()),
                    after: row.clone(),
                });
                records[x].values = row.clone();
            }
            None => {
                replaced.push(RowCorrection {
                    cdc_offset: None,
                    before: None,
                    after: row.clone(),
                });
                // A key no CDC offset has: (barrier, index of the corrected row).
                records.push(Record {
                    key: vec![barrier as i64, i as i64],
                    values: row.clone(),
                });
            }
        }
    }
    let kept = taken.iter().filter(|t| !**t).count() as u32;
    RevisedBarrier {
        records,
        replaced,
        kept,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(offset: i64, values: &[i64]) -> Record {
        Record {
            key: vec![offset],
            values: values.to_vec(),
        }
    }

    #[test]
    fn a_corrected_row_replaces_the_row_with_its_key_and_keeps_the_others() {
        let records = vec![rec(0, &[1, 1, 100, 1000]), rec(1, &[3, 2, 2, 32])];
        let r = merge(records.clone(), &[vec![1, 1, 100, 800]], &[0, 1], 1);
        assert_eq!(r.records[1], records[1]);
        assert_eq!(r.records[0], rec(0, &[1, 1, 100, 800]));
        assert_eq!(r.kept, 1);
        assert_eq!(r.replaced[0].cdc_offset, Some(0));
        assert_eq!(
            r.replaced[0].before.as_deref(),
            Some(&[1, 1, 100, 1000][..])
        );
    }

    #[test]
    fn rows_with_the_same_key_replace_in_order_and_an_unmatched_row_is_added() {
        let records = vec![rec(4, &[2, 1, 1, 10]), rec(5, &[2, 1, 2, 20])];
        let rows = [vec![2, 1, 1, 11], vec![2, 1, 2, 22], vec![9, 9, 1, 1]];
        let r = merge(records, &rows, &[0, 1], 3);
        let values: Vec<&[i64]> = r.records.iter().map(|r| r.values.as_slice()).collect();
        assert_eq!(values, [&rows[0][..], &rows[1][..], &rows[2][..]]);
        assert_eq!(r.records[2].key, vec![3, 2]);
        assert_eq!(r.kept, 0);
        assert_eq!(r.replaced[2].cdc_offset, None);
    }
}
