"""Checkpoint-folder layout as the conformance suite compares it: files, version lines, JSON keys.

A "shape" keeps what must match between Spark's folder and batchscope's simulated one and drops
what legitimately differs (timestamps, paths, UUIDs, values): the kinds of files present
(`offsets/<n>` → `offsets/N`), each log's version line, line count, trailing newline, and the
top-level JSON keys. The per-source offset line is recorded verbatim for the table only: Spark's
file source writes `{"logOffset":n}`, batchscope's Kafka-like source `{"topic":{"0":n}}`.
"""

import json
import os

# The Spark folder compared: a query that ran batches 0..BATCHES-1 to completion.
REFERENCE_SCENARIO = "foreach-batch-after-write"
V2_SCENARIO = "offset-log-v2"
BATCHES = 4
PRESET = "kafka-append"

# Fields that must be equal; "sources" (per-source private files) and the offset lines are
# shown side by side but not compared, see the module doc.
COMPARED = [
    ("files", "files present (without `sources/`)"),
    ("metadata.keys", "`metadata` JSON keys"),
    ("metadata.trailing_newline", "`metadata` ends with a newline"),
    ("offsets.version", "`offsets/N` version line"),
    ("offsets.lines", "`offsets/N` line count"),
    ("offsets.metadata_keys", "`offsets/N` line 2 top-level keys"),
    ("offsets.trailing_newline", "`offsets/N` ends with a newline"),
    ("commits.version", "`commits/N` version line"),
    ("commits.lines", "`commits/N` line count"),
    ("commits.keys", "`commits/N` JSON keys"),
    ("commits.trailing_newline", "`commits/N` ends with a newline"),
]
SHOWN = [
    ("sources", "files under `sources/` (`.crc` files left out)"),
    ("offsets.source_lines", "`offsets/N` source lines (latest batch)"),
    ("offsets.conf_key_count", "`offsets/N` conf entries"),
]


def _text(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def _latest(folder):
    ids = sorted(int(n) for n in os.listdir(folder) if n.isdigit()) if os.path.isdir(folder) else []
    return os.path.join(folder, str(ids[-1])) if ids else None


def _kind(rel):
    parts = rel.split("/")
    return "/".join("N" if p.isdigit() else p for p in parts)


def _sort_key(rel):
    return [int(p) if p.isdigit() else p for p in rel.split("/")]


def folder_shape(root):
    """The comparable shape of a checkpoint folder (see the module doc)."""
    files, sources = set(), set()
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in names:
            if name.startswith(".") or name.endswith(".crc"):
                continue  # Hadoop checksum and temporary files
            rel = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
            if rel.startswith("sources/"):
                # Kept verbatim: how many entries a source keeps is what differs by design.
                sources.add(rel)
            else:
                files.add(_kind(rel))
    result = {"files": sorted(files), "sources": sorted(sources, key=_sort_key)}

    metadata_path = os.path.join(root, "metadata")
    if os.path.exists(metadata_path):
        text = _text(metadata_path)
        result["metadata"] = {
            "keys": sorted(json.loads(text).keys()),
            "trailing_newline": text.endswith("\n"),
        }
    offsets = _latest(os.path.join(root, "offsets"))
    if offsets:
        text = _text(offsets)
        lines = text.split("\n")
        meta = json.loads(lines[1]) if len(lines) > 1 and lines[1].strip() else {}
        result["offsets"] = {
            "version": lines[0],
            "lines": len(text.splitlines()),
            "metadata_keys": sorted(meta.keys()),
            "conf_key_count": len(meta.get("conf", {})),
            "source_lines": [line for line in lines[2:] if line],
            "trailing_newline": text.endswith("\n"),
        }
    commits = _latest(os.path.join(root, "commits"))
    if commits:
        text = _text(commits)
        lines = text.split("\n")
        result["commits"] = {
            "version": lines[0],
            "lines": len(text.splitlines()),
            "keys": sorted(json.loads(lines[1]).keys()) if len(lines) > 1 and lines[1] else [],
            "trailing_newline": text.endswith("\n"),
        }
    return result


def get(shape, dotted):
    """A field of a shape by dotted name; None when absent."""
    value = shape
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def compare_structure(records, batchscope, out):
    """Spark's reference folder vs `batchscope run --checkpoint-out`; mismatches listed."""
    by_name = {r["name"]: r for r in records if r.get("try_dir")}
    result = {"mismatches": []}
    reference = by_name.get(REFERENCE_SCENARIO)
    if reference:
        result["spark"] = folder_shape(os.path.join(reference["try_dir"], "ckpt"))
    v2 = by_name.get(V2_SCENARIO)
    if v2:
        result["spark_v2"] = folder_shape(os.path.join(v2["try_dir"], "ckpt"))
    if not reference or not batchscope:
        return result
    folder = os.path.join(out, "batchscope-checkpoint")
    error = batchscope.checkpoint_out(PRESET, BATCHES, folder)
    if error:
        result["mismatches"].append(f"batchscope run --checkpoint-out failed: {error}")
        return result
    result["batchscope"] = folder_shape(folder)
    for field, label in COMPARED:
        spark_value = get(result["spark"], field)
        ours = get(result["batchscope"], field)
        if spark_value != ours:
            result["mismatches"].append(f"{label}: Spark {spark_value!r}, batchscope {ours!r}")
    return result
