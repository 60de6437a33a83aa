//! The upsert sink: each task writes its rows by key as it finishes, visible at once. By
//! record, a replayed row overwrites itself; as a running sum per user, a replayed record is
//! added a second time.

use super::{KeySlots, Row, Sink, SinkCommit, SinkState, TaskOutput, ROW_CHUNK};
use crate::chunked::Chunked;
use crate::microbatch::event::SinkEffect;
use crate::microbatch::scenario::SinkValue;
use crate::microbatch::upstream::{Record, Rows, Upstream};

/// Writes each row by primary key (Cassandra, HBase, Tablestore tables).
#[derive(Clone, Copy, Debug, Default)]
pub struct UpsertSink;

impl Sink for UpsertSink {
    fn task_output(
        &self,
        state: &mut SinkState,
        output: TaskOutput,
        upstream: &Upstream,
    ) -> SinkEffect {
        state.changed_visibly();
        let store = &mut state.stores[0].rows;
        let index = &mut state.upsert_index;
        match state.spec.value {
            SinkValue::RunningSum => {
                for r in output.rows.records(upstream) {
                    add_to_sum(store, index, output.batch_id, &r);
                }
            }
            SinkValue::Record => upsert_records(store, index, output.batch_id, &output.rows),
        }
        SinkEffect::Upserted
    }

    fn commit(&self, state: &mut SinkState, _batch_id: u64) -> SinkCommit {
        SinkCommit::written_by_tasks(state)
    }
}

/// Writes each record's row under its key: a key written before has its row overwritten in
/// place, the rows of keys never written are gathered and appended at once (a push per row
/// made the store's chunk writable once per row).
fn upsert_records(
    store: &mut Chunked<Row, ROW_CHUNK>,
    index: &mut KeySlots,
    batch_id: u64,
    rows: &Rows,
) {
    let mut fresh: Vec<Row> = vec![];
    for (channel, from, to) in rows.runs() {
        let slots = index.records.run_mut(channel, from, to);
        for (slot, seq) in slots.iter_mut().zip(from..) {
            let row = Row::record(batch_id, channel, seq);
            let at = slot.row as usize;
            if slot.writes == 0 {
                slot.row = row_index(store.len() + fresh.len());
                fresh.push(row);
            } else if at >= store.len() {
                fresh[at - store.len()] = row;
            } else {
                *store.get_mut(at).expect("an indexed row") = row;
            }
            slot.writes += 1;
        }
    }
    store.extend(fresh);
}

/// Running sum: reads the user's row, adds the record's amount and writes it back (not
/// idempotent: the same record added twice counts twice). The row's key is `user-<id>`, its
/// value the sum.
fn add_to_sum(
    store: &mut Chunked<Row, ROW_CHUNK>,
    index: &mut KeySlots,
    batch_id: u64,
    r: &Record,
) {
    // Not counted as a rewrite: nothing is absorbed, every add counts.
    let slot = index.users.entry(r.user_id).or_default();
    if slot.writes > 0 {
        let row = store.get_mut(slot.row as usize).expect("an indexed row");
        *row = Row::sum(batch_id, r.user_id, row.word + r.amount);
    } else {
        slot.row = row_index(store.len());
        slot.writes = 1;
        store.push(Row::sum(batch_id, r.user_id, r.amount));
    }
}

/// A store position as a slot keeps it (a store holds fewer rows than the work budget's
/// records, far below `u32::MAX`).
fn row_index(len: usize) -> u32 {
    u32::try_from(len).expect("a store holds fewer than 2^32 rows")
}
