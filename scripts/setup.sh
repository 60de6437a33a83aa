#!/usr/bin/env bash
#! Installs everything batchscope needs on a new machine; idempotent (a second run is instant).
# Versions fit together: see ARCHITECTURE.md ("Toolchain").
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
log() { printf '[setup] %s\n' "$*" >&2; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# The release page rebuilds the standard library for size (scripts/page.sh): its sources, and the
# crates it depends on fetched now, since the page's build runs offline.
if ! rustup component list --installed | grep -q '^rust-src'; then
  log "adding rust component rust-src"
  rustup component add rust-src
fi
std_lock="$(rustc --print sysroot)/lib/rustlib/src/rust/library/Cargo.toml"
RUSTC_BOOTSTRAP=1 cargo fetch --locked --quiet --manifest-path "$std_lock"

if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  log "installing chromium and chromium-driver"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium chromium-driver >/dev/null
fi

if [ "$(trunk --version 2>/dev/null)" != "trunk 0.21.14" ]; then
  log "installing trunk 0.21.14 (about 6 minutes)"
  cargo install --locked trunk --version 0.21.14
fi

if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen 0.2.130" ]; then
  log "installing wasm-bindgen-cli 0.2.130 (about 2 minutes)"
  # Not --locked: its lock file pins a webpki-roots release the registry does not serve.
  cargo install wasm-bindgen-cli --version 0.2.130
fi

if ! wasm-opt --version 2>/dev/null | grep -q 'version 132'; then
  log "installing wasm-opt (binaryen 132)"
  npm install -g binaryen@132.0.0 >/dev/null
fi

# axe-core, the accessibility engine suites/tests/e2e_a11y.rs injects into the page (pinned by its lock file).
if ! grep -qs "\"version\": \"4.14.1\"" "$root/suites/a11y/node_modules/axe-core/package.json"; then
  log "installing axe-core 4.14.1 for the accessibility check"
  npm ci --prefix "$root/suites/a11y" --no-audit --no-fund >/dev/null
fi

# Lighthouse, which suites/tests/e2e_lighthouse.rs runs on the release page (pinned by its lock file;
# 12.2.3 is the last release whose `engines` accept the Node 20 of Debian's package).
if ! grep -qs "\"version\": \"12.2.3\"" "$root/suites/lighthouse/node_modules/lighthouse/package.json"; then
  log "installing lighthouse 12.2.3 for the page's audit"
  npm ci --prefix "$root/suites/lighthouse" --no-audit --no-fund >/dev/null
fi

# Azurite, the Azure Blob Storage emulator of suites/tests/inspect_stores.rs (pinned by its lock file;
# 3.35.0 is the last release whose `engines` accepts the Node 20 of Debian's package).
if ! grep -qs "\"version\": \"3.35.0\"" "$root/suites/stores/node_modules/azurite/package.json"; then
  log "installing azurite 3.35.0 for the object-store suite"
  npm ci --prefix "$root/suites/stores" --no-audit --no-fund >/dev/null
fi

log "toolchain ready"
