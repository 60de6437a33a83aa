//! The barrier cut: which records enter barrier N of a job. With timestamp barriers a job reads
//! barrier N of each input once it is available (issued by the MetaService for `cdc`, WRITTEN
//! upstream for a table) and the operator aligns the inputs; without barriers the job cuts its
//! own checkpoint and takes everything available now. Both cuts read an input through
//! [`TopologyWorld::input_records`] and hand stateless output to the sink through
//! [`TopologyWorld::deliver`]. CDC records also stream straight into root tables as they arrive.

use super::event::{BarrierEventKind, CdcRecord, TableBarrierRef};
use super::job::Arrival;
use super::operator::Record;
use super::spec::is_cdc_source;
use super::world::{Action, TopologyWorld};

/// What one input contributes to a cut.
enum Span {
    /// CDC offsets `[from, to)`.
    Cdc { from: u64, to: u64 },
    /// The records the upstream table wrote in barriers `(after, upto]`.
    Table { after: u64, upto: u64 },
}

/// A CDC record as a root table's input record (its key: the CDC offset).
pub(super) fn cdc_to_record(r: &CdcRecord) -> Record {
    Record {
        key: vec![r.offset as i64],
        values: r.row.to_vec(),
    }
}

impl TopologyWorld {
    /// A CDC record arrives; stateless jobs that have read every closed barrier stream it into
    /// their sink at once.
    pub(super) fn on_cdc(&mut self, i: usize) -> BarrierEventKind {
        assert_eq!(i, self.cdc_arrived, "CDC records arrive in offset order");
        self.cdc_arrived = i + 1;
        let mut written = Vec::new();
        let source = self.cdc_plan[i].source.clone();
        for j in 0..self.jobs.len() {
            // A job streams the record once it has streamed every earlier one of its source.
            if self.jobs[j].cdc_source() == Some(source.as_str()) && self.cdc_unstreamed(j) == [i] {
                let barrier = self.open_barrier(j);
                if self.cdc_catch_up(j) > 0 {
                    written.push(TableBarrierRef {
                        table: self.jobs[j].spec.sink.clone(),
                        barrier,
                    });
                }
            }
        }
        BarrierEventKind::CdcRecord {
            record: self.cdc_plan[i].clone(),
            written,
        }
    }

    /// The barrier that records streamed now belong to: the one not yet closed at this input.
    fn open_barrier(&self, j: usize) -> u64 {
        if self.run.spec.no_barriers {
            self.jobs[j].next_cut()
        } else {
            self.meta.last_issued() + 1
        }
    }

    /// Offsets of the records of job `j`'s CDC source that arrived and it has not streamed.
    fn cdc_unstreamed(&self, j: usize) -> Vec<usize> {
        let job = &self.jobs[j];
        let from = (job.cdc_written as usize).min(self.cdc_arrived);
        (from..self.cdc_arrived)
            .filter(|&i| job.cdc_source() == Some(self.cdc_plan[i].source.as_str()))
            .collect()
    }

    /// A stateless job reading a CDC source streams its records straight to its sink once it
    /// has read every closed barrier; returns the records written.
    pub(super) fn cdc_catch_up(&mut self, j: usize) -> u32 {
        let job = &self.jobs[j];
        if !job.up || !job.reads_cdc() || job.pipeline.is_stateful() {
            return 0;
        }
        if !self.run.spec.no_barriers && job.inputs[0].consumed < self.meta.last_issued() {
            return 0;
        }
        let recs: Vec<Record> = self
            .cdc_unstreamed(j)
            .into_iter()
            .map(|i| cdc_to_record(&self.cdc_plan[i]))
            .collect();
        let recs = job.pipeline.apply_pre(recs);
        let barrier = self.open_barrier(j);
        self.jobs[j].cdc_written = self.cdc_arrived as u64;
        let sink = self.sink_of(j);
        let written = self.tables[sink].write(barrier, recs);
        if written > 0 {
            self.txn_write(sink, barrier);
        }
        written
    }

    /// Availability time of barrier `n` at a source, if available.
    fn available(&self, source: &str, n: u64) -> Option<u64> {
        if is_cdc_source(source) {
            self.meta.barrier(n).map(|b| b.issued_at_ms)
        } else {
            let t = &self.tables[self.table_index(source)?];
            t.barrier(n).and_then(|b| b.written_at_ms)
        }
    }

    /// Schedules a read of the next barrier on every input of job `j` where it is available.
    pub(super) fn schedule_reads(&mut self, j: usize) {
        if self.run.spec.no_barriers || !self.jobs[j].up {
            return;
        }
        for i in 0..self.jobs[j].inputs.len() {
            let input = &self.jobs[j].inputs[i];
            let next = input.consumed + 1;
            if !input.read_scheduled && self.available(&input.source, next).is_some() {
                self.jobs[j].inputs[i].read_scheduled = true;
                let at = self.now_ms + self.jobs[j].spec.read_ms;
                self.schedule(
                    at,
                    Action::Read {
                        job: j,
                        input: i,
                        barrier: next,
                    },
                );
            }
        }
    }

    /// The records of one input of job `j` in `span`, through the job's stateless operators
    /// before the stateful one, and the CDC records reflected once they are in.
    fn input_records(&self, j: usize, source: &str, span: Span) -> (Vec<Record>, u64) {
        let (recs, coverage) = match span {
            Span::Cdc { from, to } => {
                let recs = self.cdc_plan[from as usize..to as usize]
                    .iter()
                    .filter(|r| r.source == source)
                    .map(cdc_to_record)
                    .collect();
                (recs, to)
            }
            Span::Table { after, upto } => {
                let t = &self.tables[self.table_index(source).expect("validated")];
                let recs = t
                    .log
                    .iter()
                    .filter(|r| r.barrier > after && r.barrier <= upto)
                    .map(|r| Record {
                        key: r.key.clone(),
                        values: r.values.clone(),
                    })
                    .collect();
                (recs, t.cdc_offset_at(upto))
            }
        };
        (self.jobs[j].pipeline.apply_pre(recs), coverage)
    }

    /// Hands an input's records of barrier `n` on: a stateful job keeps them for the operator
    /// (returned); a stateless job writes them to its sink at once (visible to read-uncommitted).
    fn deliver(&mut self, j: usize, n: u64, recs: Vec<Record>) -> Vec<Record> {
        if self.jobs[j].pipeline.is_stateful() {
            return recs;
        }
        let sink = self.sink_of(j);
        let table = &self.tables[sink];
        if n <= table.written() {
            // A replay after a failover: the table WROTE `n` before; the same records again.
            table.assert_replay_equal(n, &recs, "reads");
            return Vec::new();
        }
        if self.tables[sink].write(n, recs) > 0 {
            self.txn_write(sink, n);
        }
        Vec::new()
    }

    /// With barriers: input `i` of job `j` emits barrier `n`'s records, then the barrier.
    pub(super) fn on_read(&mut self, j: usize, i: usize, n: u64) -> Option<BarrierEventKind> {
        self.jobs[j].inputs[i].read_scheduled = false;
        let source = self.jobs[j].inputs[i].source.clone();
        let available_at = self.available(&source, n)?;
        assert_eq!(
            n,
            self.jobs[j].inputs[i].consumed + 1,
            "an input reads barriers in order"
        );
        let span = if is_cdc_source(&source) {
            let b = self.meta.barrier(n).expect("available");
            let from = if self.jobs[j].pipeline.is_stateful() {
                b.cdc_offset_start
            } else {
                b.cdc_offset_start.max(self.jobs[j].cdc_written)
            };
            Span::Cdc {
                from,
                to: b.cdc_offset_end,
            }
        } else {
            Span::Table {
                after: n - 1,
                upto: n,
            }
        };
        let (mut recs, coverage) = self.input_records(j, &source, span);
        if let Some(revised) = self.corrections.get(&(self.jobs[j].spec.sink.clone(), n)) {
            // A revised barrier: the CDC range's rows with the corrected rows merged in by key.
            recs = revised.records.clone();
        }
        let count = recs.len() as u32;
        let expired_snapshot = self.expired_snapshot(&source, n);
        if let Some(failed) = self.expired_read(j, &source, n, expired_snapshot) {
            return Some(failed);
        }
        let delta = self.deliver(j, n, recs);
        let job = &mut self.jobs[j];
        let ninputs = job.inputs.len();
        if is_cdc_source(&source) {
            job.cdc_written = job.cdc_written.max(coverage);
        }
        job.inputs[i].consumed = n;
        let arrival = job
            .arrived
            .entry(n)
            .or_insert_with(|| Arrival::empty(ninputs));
        arrival.deltas[i] = Some(delta);
        arrival.coverage[i] = coverage;
        arrival.available_at_ms[i] = available_at;
        let waiting_for = job
            .inputs
            .iter()
            .zip(&arrival.deltas)
            .filter(|(_, d)| d.is_none())
            .map(|(inp, _)| inp.source.clone())
            .collect();
        job.refresh_buffered();
        if is_cdc_source(&source) {
            self.cdc_catch_up(j);
        }
        self.schedule_reads(j);
        self.schedule_process(j);
        Some(BarrierEventKind::SourceEmit {
            job: self.jobs[j].spec.name.clone(),
            input: source,
            barrier: n,
            records: count,
            waiting_for,
            expired_snapshot,
        })
    }

    /// Job `j` without a snapshot guard reads barrier `n` of `source`, whose snapshot expired:
    /// the reader's files are gone, so Paimon's scan fails, and the job with it (it restores
    /// the same checkpoint, so every restart fails alike). `None`: the read goes ahead.
    fn expired_read(
        &mut self,
        j: usize,
        source: &str,
        n: u64,
        expired: Option<u64>,
    ) -> Option<BarrierEventKind> {
        let snapshot_id = expired.filter(|_| !self.jobs[j].spec.snapshot_guard.protects())?;
        self.urgent.push_back(Action::Fail { job: j });
        Some(BarrierEventKind::ExpiredSnapshotRead {
            job: self.jobs[j].spec.name.clone(),
            table: source.to_string(),
            barrier: n,
            snapshot_id,
        })
    }

    /// The id of the snapshot of barrier `n` in table `source`, if the MetaService expired it.
    fn expired_snapshot(&self, source: &str, n: u64) -> Option<u64> {
        if is_cdc_source(source) || !self.meta.is_expired(source, n) {
            return None;
        }
        let t = &self.tables[self.table_index(source)?];
        t.barrier(n).and_then(|b| b.snapshot_id)
    }

    /// Without barriers: job `j` cuts its own checkpoint and reads everything available now
    /// (CDC arrived so far, every snapshot upstream has WRITTEN).
    pub(super) fn on_trigger(&mut self, j: usize) -> Option<BarrierEventKind> {
        if !self.jobs[j].up {
            return None;
        }
        assert!(
            self.run.spec.no_barriers,
            "own checkpoints only without barriers"
        );
        let k = self.jobs[j].next_cut();
        let mut arrival = Arrival::empty(0);
        let mut count = 0u32;
        for i in 0..self.jobs[j].inputs.len() {
            let input = &self.jobs[j].inputs[i];
            let source = input.source.clone();
            let (span, pos) = if is_cdc_source(&source) {
                let from = if self.jobs[j].pipeline.is_stateful() {
                    input.consumed
                } else {
                    self.jobs[j].cdc_written
                };
                let to = self.cdc_arrived as u64;
                (Span::Cdc { from, to }, to)
            } else {
                let t = &self.tables[self.table_index(&source).expect("validated")];
                let upto = t.written();
                let after = input.consumed;
                (Span::Table { after, upto }, upto)
            };
            let (recs, coverage) = self.input_records(j, &source, span);
            count += recs.len() as u32;
            let delta = self.deliver(j, k, recs);
            arrival.deltas.push(Some(delta));
            arrival.coverage.push(coverage);
            arrival.available_at_ms.push(self.now_ms);
            arrival.consumed.push(pos);
        }
        let job = &mut self.jobs[j];
        for (inp, pos) in job.inputs.iter_mut().zip(&arrival.consumed) {
            inp.consumed = *pos;
        }
        if job.reads_cdc() {
            job.cdc_written = self.cdc_arrived as u64;
        }
        arrival.cdc_written = job.cdc_written;
        job.arrived.insert(k, arrival);
        job.refresh_buffered();
        let next = self.now_ms + self.jobs[j].spec.checkpoint_interval_ms;
        if next <= self.drain_until_ms {
            self.schedule(next, Action::Trigger { job: j });
        }
        self.schedule_process(j);
        Some(BarrierEventKind::CheckpointTriggered {
            job: self.jobs[j].spec.name.clone(),
            checkpoint: k,
            records: count,
        })
    }
}
