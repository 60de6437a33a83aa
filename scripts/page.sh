#!/usr/bin/env bash
#! The dashboard's release build (`dist/`, hostable under any path), made small: std rebuilt for size, panics abort at once.
#
# The page's two modules are built with the standard library compiled from source
# (`-Zbuild-std`, its `optimize_for_size` feature: the small sort and formatting paths) and
# `-Cpanic=immediate-abort` (a panic traps without formatting a message, so no panic-message
# machinery is linked). Both are unstable options of the pinned stable toolchain, enabled for
# this build alone with RUSTC_BOOTSTRAP; the rust-src component and the standard library's own
# dependencies come from scripts/setup.sh. Its own target directory keeps these flags from
# rebuilding what every other build shares (`target/`). The CLI, the explorer and the wasm the
# JS API and the benchmark run in Node build as before, with the standard library as shipped.
# docs/PERFORMANCE.md ("The page's size") measures what each part saves.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${PAGE_TARGET_DIR:-target/page}"
export RUSTC_BOOTSTRAP=1
export CARGO_UNSTABLE_BUILD_STD="std panic_abort"
export CARGO_UNSTABLE_BUILD_STD_FEATURES="optimize_for_size"
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort"
# Every path the page names is relative (`./batchscope-web-….js`), so `dist/` works wherever it is
# hosted: at a site's root or under a sub-path (`https://someone.github.io/batchscope/`).
exec trunk build --release --offline --public-url ./ "$@"
