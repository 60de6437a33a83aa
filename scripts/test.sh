#!/usr/bin/env bash
#! The test command: installs what the suites need (idempotently), then runs every suite.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*" >&2; }

step "toolchain"
bash scripts/setup.sh

step "format"
cargo fmt --all -- --check

step "lint"
cargo clippy --all-targets --locked -- -D warnings

step "native tests (engine, checkers, CLI, acceptance)"
cargo build --locked -p batchscope-cli
cargo test --locked

step "engine builds for wasm32"
cargo build --locked -p batchscope-engine --target wasm32-unknown-unknown
