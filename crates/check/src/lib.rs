//! Judges of batchscope runs: the exactly-once oracle and the crash-point explorer.
