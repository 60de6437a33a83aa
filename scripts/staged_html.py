"""The staged index.html of a Trunk post_build hook (TRUNK_STAGING_DIR), read and written by the
hooks of Trunk.toml (scripts/modes.py, scripts/csp.py)."""

import os
import re
import sys


def staging_dir(hook: str) -> str:
    """The staging folder Trunk gives a post_build hook, or exits naming what is missing."""
    staging = os.environ.get("TRUNK_STAGING_DIR")
    if not staging:
        print("%s: TRUNK_STAGING_DIR is not set (run as a Trunk post_build hook)" % hook, file=sys.stderr)
        sys.exit(1)
    return staging


def read(staging: str) -> str:
    with open(os.path.join(staging, "index.html"), encoding="utf-8") as f:
        return f.read()


def insert_and_write(staging: str, html: str, pattern: str, tag, hook: str) -> int:
    """Replaces the first match of `pattern` in `html` by `tag(match)` and writes the staged
    index.html; 1 (and a message) when the pattern is not there."""
    html, n = re.subn(pattern, tag, html, count=1, flags=re.I)
    if n != 1:
        print("%s: no %s in index.html" % (hook, pattern), file=sys.stderr)
        return 1
    with open(os.path.join(staging, "index.html"), "w", encoding="utf-8") as f:
        f.write(html)
    return 0
