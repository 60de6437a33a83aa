#!/usr/bin/env bash
#! The serve command: installs the toolchain (idempotently), then serves the dashboard on 127.0.0.1:8080.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec trunk serve --offline
