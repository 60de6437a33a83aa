#!/usr/bin/env bash
#! Installs what the Spark conformance suite needs: Java 17 and a project-local venv `.venv` with
#! the pinned pyspark, plus a pinned 3.5.x pyspark beside it in `.venv/pyspark-3.5` (the suite
#! puts that folder first on PYTHONPATH to run Spark 3.5). Idempotent: a second run only checks
#! versions and returns at once. The same venv holds the object-store suite's servers and clients
#! (suites/tests/inspect_stores.rs): moto's S3 server (boto3 comes with it) and azure-storage-blob,
#! which creates the suite's container in Azurite (installed by scripts/setup.sh).
set -euo pipefail

# The version the conformance table (docs/CONFORMANCE.md) was generated with; changing it
# changes the table, so regenerate the doc in the same commit.
PYSPARK_VERSION="4.3.0"
PYSPARK_35_VERSION="3.5.9"
# The S3 server and the Azure client of the object-store suite.
MOTO_VERSION="5.2.6"
AZURE_BLOB_VERSION="12.31.1"

log() { printf '[setup-spark] %s\n' "$*" >&2; }

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"

if ! command -v java >/dev/null 2>&1; then
  log "java not found: installing openjdk-17-jre-headless"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq openjdk-17-jre-headless >/dev/null
fi

if [ ! -x "$venv/bin/python" ]; then
  log "creating $venv"
  python3 -m venv "$venv"
fi

installed="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("pyspark"))' 2>/dev/null || true)"
if [ "$installed" != "$PYSPARK_VERSION" ]; then
  log "installing pyspark $PYSPARK_VERSION into $venv (about 520 MB)"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "pyspark==$PYSPARK_VERSION"
fi

spark35="$venv/pyspark-3.5"
installed35="$(PYTHONPATH="$spark35" "$venv/bin/python" -c 'import pyspark; print(pyspark.__version__)' 2>/dev/null || true)"
if [ "$installed35" != "$PYSPARK_35_VERSION" ]; then
  log "installing pyspark $PYSPARK_35_VERSION into $spark35 (about 320 MB)"
  rm -rf "$spark35"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --target "$spark35" \
    "pyspark==$PYSPARK_35_VERSION"
fi

version_of() { "$venv/bin/python" -c "import importlib.metadata as m; print(m.version('$1'))" 2>/dev/null || true; }
if [ "$(version_of moto)" != "$MOTO_VERSION" ] || [ ! -x "$venv/bin/moto_server" ] \
  || [ "$(version_of azure-storage-blob)" != "$AZURE_BLOB_VERSION" ]; then
  log "installing moto[server] $MOTO_VERSION and azure-storage-blob $AZURE_BLOB_VERSION into $venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "moto[server]==$MOTO_VERSION" "azure-storage-blob==$AZURE_BLOB_VERSION"
fi

log "spark ready: pyspark $PYSPARK_VERSION and $PYSPARK_35_VERSION, $(java -version 2>&1 | head -n 1); moto $MOTO_VERSION"
