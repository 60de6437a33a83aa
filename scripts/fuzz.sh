#!/usr/bin/env bash
# Long run of the fuzz targets (tests/fuzz.rs): the scenario JSON, the topology JSON and the
# URL hash of both dashboard modes; tests/fuzz_checkpoint.rs: the checkpoint folder reader on
# in-memory trees; crates/cli/tests/damaged.rs: `batchscope inspect` on damaged folders on disk.
# The suite runs them briefly with a fixed seed; this runs
#   BATCHSCOPE_FUZZ_CASES   cases per target (default 100000)
#   BATCHSCOPE_FUZZ_SEED    the seed (default: the current second, printed, so a run can be repeated)
#   BATCHSCOPE_FUZZ_RUN_EVENTS  accepted inputs whose work estimate is at most this many events
#                           are also run to their end (default 200000)
# An input that breaks a property is written to target/fuzz-found/; after the fix, move it to
# tests/fuzz-corpus/<target>/ so the suite replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
export BATCHSCOPE_FUZZ_CASES="${BATCHSCOPE_FUZZ_CASES:-100000}"
export BATCHSCOPE_FUZZ_SEED="${BATCHSCOPE_FUZZ_SEED:-$(date +%s)}"
export BATCHSCOPE_FUZZ_RUN_EVENTS="${BATCHSCOPE_FUZZ_RUN_EVENTS:-200000}"
echo "fuzz: ${BATCHSCOPE_FUZZ_CASES} cases per target, seed ${BATCHSCOPE_FUZZ_SEED}, runs up to ${BATCHSCOPE_FUZZ_RUN_EVENTS} events"
start=$(date +%s)
# Caught panics would print their message once per case: show the verdicts only.
log=target/fuzz.log
mkdir -p target
status=0
RUST_BACKTRACE=0 cargo test --test fuzz --test fuzz_checkpoint -- --nocapture --test-threads 2 >"$log" 2>&1 || status=$?
# Damaged folders on disk are slower to make: a tenth as many (at least the suite's 200).
BATCHSCOPE_FUZZ_CASES=$(( BATCHSCOPE_FUZZ_CASES / 10 )) RUST_BACKTRACE=0 \
  cargo test -p batchscope-cli --test damaged -- --nocapture >>"$log" 2>&1 || status=$?
grep -E '^(fuzz|test |input written|damaged folders|100,500)|fuzz target|test result|^case ' "$log" || true
echo "fuzz: done in $(( $(date +%s) - start )) s"
exit "$status"
