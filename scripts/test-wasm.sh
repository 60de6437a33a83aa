#!/usr/bin/env bash
#! Runs the wasm32 tests: the engine's cross-platform determinism, the JavaScript API under
#! wasm-bindgen-test-runner (Node), and a Node script calling the generated `nodejs` package.
# Needs the toolchain of scripts/setup.sh (wasm32 target, wasm-bindgen-cli 0.2.130) and node;
# a missing tool is an error, never a skip.
set -euo pipefail

cd "$(dirname "$0")/.."

need() {
  command -v "$1" >/dev/null || { echo "test-wasm: \`$1\` not found; run scripts/setup.sh" >&2; exit 1; }
}
need wasm-bindgen-test-runner
need wasm-bindgen
need node
if [ "$(wasm-bindgen --version)" != "wasm-bindgen 0.2.130" ]; then
  echo "test-wasm: wasm-bindgen-cli must be 0.2.130 (the crate pins =0.2.130), got: $(wasm-bindgen --version)" >&2
  exit 1
fi

# Without `run_in_browser` the runner executes the tests in Node: no browser needed.
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner

echo "== engine: pinned trace hashes on wasm32"
cargo test --target wasm32-unknown-unknown -p batchscope-engine --test wasm_determinism

echo "== batchscope-wasm: API tests on wasm32"
cargo test --target wasm32-unknown-unknown -p batchscope-wasm --test api

echo "== batchscope-wasm: the nodejs package called from JavaScript"
cargo build --target wasm32-unknown-unknown -p batchscope-wasm --lib
pkg="target/wasm-pkg/nodejs"
rm -rf "$pkg"
wasm-bindgen --target nodejs --out-dir "$pkg" \
  "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/debug/batchscope_wasm.wasm"
BATCHSCOPE_WASM_PKG="$PWD/$pkg" node --test crates/wasm/tests/node/
