//! Programs the project's scripts run, in Rust rather than in shell: parsing and rendering
//! that a script would otherwise do with `awk` column numbers.
//!
//! - [`bench`]: the benchmark report, `docs/PERFORMANCE.md`, from the measurements
//!   `scripts/bench.sh` collects (the `bench-report` binary).

pub mod bench;
