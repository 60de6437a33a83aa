//! The benchmark report: `scripts/bench.sh` measures and writes what each program printed
//! into one folder; [`measurements`] reads that folder, [`table`] renders the performance
//! table from it, and [`document`] puts the table into `docs/PERFORMANCE.md` under a header
//! naming the machine, keeping the hand-written text below the table.

pub mod document;
pub mod format;
pub mod measurements;
pub mod table;
