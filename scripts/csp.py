#!/usr/bin/env python3
"""Trunk post_build hook: writes the dashboard's Content-Security-Policy into the staged index.html.

Trunk injects an inline <script type="module"> that loads the wasm (and, under `trunk serve`,
an inline live-reload script, hashed for the addresses of Trunk.toml's [serve]). The policy allows each inline script by the sha256 of its exact
text, so no other inline script runs; everything else comes from the page's own origin:

  default-src 'self'                       fetches (the .wasm, the live-reload websocket) and fonts
  script-src 'self' 'wasm-unsafe-eval' H   the bindings module, compiling the wasm, the loader(s)
  style-src 'self'; style-src-elem 'self'  the stylesheet file, no <style> element
  style-src-attr 'unsafe-inline'           Yew `style=` attributes (timeline positions, colours)
  img-src 'self' data: blob:               the data: favicon; the diagram drawn into a PNG (Export)
  object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors: a meta tag cannot set it

`style-src` also lists 'unsafe-inline' for browsers without CSP Level 3 (`style-src-attr`):
those that know `style-src-elem` still refuse inline <style> elements.
"""

import base64
import hashlib
import os
import re
import sys

import staged_html

SCRIPT = re.compile(r"<script(?P<attrs>[^>]*)>(?P<body>.*?)</script>", re.S | re.I)
MARKER = 'http-equiv="Content-Security-Policy"'


def serve_hosts() -> list:
    """The `host:port` a browser sends to `trunk serve` as Trunk.toml configures it (and localhost)."""
    try:
        import tomllib

        with open("Trunk.toml", "rb") as f:
            serve = tomllib.load(f).get("serve", {})
    except (ImportError, OSError, ValueError):
        serve = {}
    port = serve.get("port", 8080)
    addresses = list(serve.get("addresses", ["127.0.0.1"])) + ["localhost"]
    return ["%s:%s" % (a, port) for a in dict.fromkeys(addresses)]


def bodies(body: str) -> list:
    """The text a script has once served: `trunk serve` fills the live-reload script's address
    (the request's Host) and websocket base in at request time, so that script is hashed for
    each address the configuration serves on (another host or port: the page works, the
    live-reload script is refused)."""
    if "{{__TRUNK_ADDRESS__}}" not in body:
        return [body]
    base = os.environ.get("TRUNK_PUBLIC_URL", "/") or "/"
    return [
        body.replace("{{__TRUNK_ADDRESS__}}", host).replace("{{__TRUNK_WS_BASE__}}", base)
        for host in serve_hosts()
    ]


def policy(html: str) -> str:
    hashes = []
    for m in SCRIPT.finditer(html):
        if re.search(r"\bsrc\s*=", m.group("attrs"), re.I):
            continue
        for body in bodies(m.group("body")):
            digest = hashlib.sha256(body.encode("utf-8")).digest()
            hashes.append("'sha256-%s'" % base64.b64encode(digest).decode("ascii"))
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self' 'wasm-unsafe-eval' " + " ".join(sorted(set(hashes))),
            "style-src 'self' 'unsafe-inline'",
            "style-src-elem 'self'",
            "style-src-attr 'unsafe-inline'",
            "img-src 'self' data: blob:",
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'self'",
        ]
    )


def main() -> int:
    staging = staged_html.staging_dir("csp")
    html = staged_html.read(staging)
    if MARKER in html:
        print("csp: index.html already carries a Content-Security-Policy", file=sys.stderr)
        return 1
    meta = '<meta http-equiv="Content-Security-Policy" content="%s" />' % policy(html)
    # First in <head>: the policy must be known before any script or style is seen.
    return staged_html.insert_and_write(
        staging, html, r"(<head[^>]*>)", lambda m: m.group(1) + "\n    " + meta, "csp")

if __name__ == "__main__":
    sys.exit(main())
