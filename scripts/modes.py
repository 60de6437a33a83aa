#!/usr/bin/env python3
"""Trunk post_build step: names the second module of the dashboard by its content.

Trunk builds the `batchscope-modes` bin (the Topology and Inspect dashboards, `data-type="worker"`
in index.html) as `batchscope-modes.js` and `batchscope-modes_bg.wasm` without loading it and
without a hash in the names. The page loads it when one of those dashboards is opened
(web/src/shell/lazy_mode.rs). This step renames both files with a hash of their bytes, so a
browser never pairs a cached old module with a new page, and writes their names and their
Subresource Integrity hashes into a `<meta name="batchscope-modes">` of the staged index.html:

  <meta name="batchscope-modes" content="JS JS-SRI WASM WASM-SRI" />
"""

import base64
import hashlib
import os
import sys

import staged_html

STEM = "batchscope-modes"


def sri(data: bytes) -> str:
    return "sha384-" + base64.b64encode(hashlib.sha384(data).digest()).decode("ascii")


def main() -> int:
    staging = staged_html.staging_dir("modes")
    js_path = os.path.join(staging, STEM + ".js")
    wasm_path = os.path.join(staging, STEM + "_bg.wasm")
    missing = [p for p in (js_path, wasm_path) if not os.path.isfile(p)]
    if missing:
        print("modes: Trunk did not build %s" % ", ".join(missing), file=sys.stderr)
        return 1
    with open(js_path, "rb") as f:
        js = f.read()
    with open(wasm_path, "rb") as f:
        wasm = f.read()
    digest = hashlib.sha256(js + wasm).hexdigest()[:16]
    js_name = "%s-%s.js" % (STEM, digest)
    wasm_name = "%s-%s_bg.wasm" % (STEM, digest)
    os.replace(js_path, os.path.join(staging, js_name))
    os.replace(wasm_path, os.path.join(staging, wasm_name))
    base = os.environ.get("TRUNK_PUBLIC_URL", "/") or "/"
    if not base.endswith("/"):
        base += "/"
    meta = '<meta name="%s" content="%s%s %s %s%s %s" />' % (
        STEM, base, js_name, sri(js), base, wasm_name, sri(wasm))
    return staged_html.insert_and_write(
        staging, staged_html.read(staging), r"(</head>)", lambda m: "  " + meta + "\n  " + m.group(1), "modes")


if __name__ == "__main__":
    sys.exit(main())
