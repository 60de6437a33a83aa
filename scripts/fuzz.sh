#!/usr/bin/env bash
# Long run of the fuzz targets (tests/fuzz.rs): the scenario JSON, the topology JSON and the
# URL hash of both dashboard modes. The suite runs them briefly with a fixed seed; this runs
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
RUST_BACKTRACE=0 cargo test --test fuzz -- --nocapture --test-threads 2 >"$log" 2>&1 || status=$?
grep -E '^(fuzz|test |input written)|fuzz target|test result' "$log" || true
echo "fuzz: done in $(( $(date +%s) - start )) s"
exit "$status"
