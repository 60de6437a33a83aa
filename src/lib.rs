//! Acceptance suites of batchscope live in `tests/`; this library is empty on purpose.
