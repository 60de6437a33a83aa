#!/usr/bin/env bash
#! The test command: installs what the suites need (idempotently), then runs every suite.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*" >&2; }

step "toolchain (rust wasm32 target, chromium + chromedriver, trunk, wasm-bindgen, wasm-opt)"
bash scripts/setup.sh

step "real Spark for the conformance suite (project-local .venv with pinned pyspark)"
bash scripts/setup-spark.sh

step "format"
cargo fmt --all -- --check

step "lint (native, and the browser crates for wasm32)"
cargo clippy --locked --workspace --all-targets -- -D warnings
cargo clippy --locked --target wasm32-unknown-unknown -p batchscope-web -p batchscope-wasm --all-targets -- -D warnings

step "dashboard release build (dist/, used by the end-to-end test)"
bash scripts/page.sh

step "native tests: engine, checkers, CLI, view, acceptance (a plain \`cargo test\`, which needs only Rust)"
cargo test --locked

step "browser end-to-end (headless Chromium on dist/) and real-Spark conformance (suites/)"
cargo build --locked -p batchscope-cli
cargo test --locked -p batchscope-suites

step "wasm32: trace hashes equal the native ones, JS API (node), dashboard components (headless Chromium)"
bash scripts/test-wasm.sh
# The runner's limit covers a whole test binary in one page (default 20 s): a loaded CI machine
# runs a suite of component tests in a debug build for longer than that. The limit is a hang
# guard, not a speed check, so it is set far above any healthy run.
WASM_BINDGEN_TEST_TIMEOUT=600 \
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner CHROMEDRIVER=/usr/bin/chromedriver \
  cargo test --locked --target wasm32-unknown-unknown -p batchscope-web
cargo build --locked -p batchscope-check --target wasm32-unknown-unknown --no-default-features

step "all suites passed"
