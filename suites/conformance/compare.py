"""What batchscope says about a scenario, next to what Spark did: the CLI called as a user calls
it (`inspect --json`, `run --json`, `run --checkpoint-out`), and the comparisons.

`compare` fills a scenario record with inspect's prediction and run's verdict; inspect must
also read the folder as it is: the offset log version, the sources' names, and the latest
state version per operator (read here from the file names), and when Spark refuses to
start, Spark's error must contain the text inspect gives for it.
"""

import json
import os
import re
import shutil
import subprocess

import report


def log_ids(folder):
    """Sorted batch ids of an offset/commit log folder (names that parse as integers)."""
    if not os.path.isdir(folder):
        return []
    return sorted(int(name) for name in os.listdir(folder) if name.isdigit())


class Batchscope:
    """The batchscope CLI, called as a user would call it."""

    def __init__(self, binary):
        self.binary = binary

    def _json(self, args):
        proc = subprocess.run(
            [self.binary] + args, capture_output=True, text=True, timeout=120, check=False
        )
        try:
            parsed = json.loads(proc.stdout)
        except json.JSONDecodeError:
            parsed = None
        return proc.returncode, parsed, proc.stderr.strip()

    def inspect(self, folder, args=()):
        """`batchscope inspect DIR --json ARGS`: the predicted restart, or an error record."""
        code, parsed, stderr = self._json(["inspect", folder, "--json", *args])
        if code != 0 or not isinstance(parsed, dict) or "restart" not in parsed:
            return {"error": f"exit {code}: {stderr or 'no JSON on stdout'}"}
        return parsed

    def run(self, preset, crash):
        """`batchscope run --preset P --crash NAME@N --json`: the verdict, or an error record."""
        code, parsed, stderr = self._json(["run", "--preset", preset, "--crash", crash, "--json"])
        if not isinstance(parsed, dict) or "verdict" not in parsed:
            return {"error": f"exit {code}: {stderr or 'no JSON on stdout'}"}
        return parsed

    def checkpoint_out(self, preset, batches, folder):
        """`batchscope run --preset P --batches K --checkpoint-out DIR`; returns an error or None."""
        shutil.rmtree(folder, ignore_errors=True)
        proc = subprocess.run(
            [self.binary, "run", "--preset", preset, "--batches", str(batches),
             "--checkpoint-out", folder],
            capture_output=True, text=True, timeout=120, check=False,
        )
        if not os.path.isdir(folder):
            return f"exit {proc.returncode}: {proc.stderr.strip() or 'no folder written'}"
        return None


def state_versions(folder):
    """Latest state version per operator, read from the file names (`<v>.delta`, …)."""
    versions = {}
    state = os.path.join(folder, "state")
    if not os.path.isdir(state):
        return versions
    for operator in sorted(os.listdir(state)):
        if not operator.isdigit():
            continue
        for _, _, names in os.walk(os.path.join(state, operator)):
            for name in names:
                stem, _, ext = name.partition(".")
                stem = stem.split("_")[0]
                if ext in ("delta", "snapshot", "changelog", "zip") and stem.isdigit():
                    versions[int(operator)] = max(versions.get(int(operator), 0), int(stem))
    return versions


def compare(record, scenario, batchscope, spark):
    """Fills in batchscope's prediction and verdict for one scenario, and whether they agree."""
    mismatches = []
    observed = record["spark"]
    at_kill = os.path.join(record["try_dir"], "ckpt-at-kill")
    args = ["--spark", spark["label"], *scenario.get("inspect_args", [])]
    prediction = batchscope.inspect(at_kill, args)
    record["inspect"] = prediction
    if "error" in prediction:
        mismatches.append(f"batchscope inspect failed: {prediction['error']}")
    else:
        restart = prediction["restart"]
        predicted = (restart.get("action"), restart.get("batch"))
        if predicted == ("fresh", None):
            # The contract allows `batch: null` with `fresh`; a fresh query always starts at 0.
            predicted = ("fresh", 0)
        if predicted != (observed["action"], observed["batch"]):
            mismatches.append(
                f"Spark did {report.action_text(observed['action'], observed['batch'])}, "
                "batchscope inspect predicted "
                f"{report.action_text(restart.get('action'), restart.get('batch'))} "
                f"({restart.get('reason')})"
            )
        mismatches += compare_folder(prediction, observed, scenario, at_kill)
        expected_error = restart.get("spark_error")
        if observed["action"] == "fail" and expected_error:
            # Placeholders of an error condition (`<checkpointLocation>`) match anything.
            pattern = ".*".join(re.escape(part)
                                for part in re.split(r"<[A-Za-z]+>", expected_error))
            if not re.search(pattern, record["restart"].get("error_full") or "", re.S):
                mismatches.append(f"Spark's error does not contain inspect's text "
                                  f"{expected_error!r}")
    mapping = scenario.get("batchscope")
    if mapping:
        verdict = batchscope.run(mapping["preset"], mapping["crash"])
        record["run"] = verdict
        if "error" in verdict:
            mismatches.append(f"batchscope run failed: {verdict['error']}")
        elif verdict.get("crashes_unreached"):
            mismatches.append(
                f"batchscope run --preset {mapping['preset']} never reached crash "
                f"{verdict['crashes_unreached']}, so its verdict says nothing about this kill"
            )
        elif verdict["verdict"] != record["rows"]["verdict"]:
            mismatches.append(
                f"rows: Spark delivered {record['rows']['verdict']}, batchscope run "
                f"--preset {mapping['preset']} --crash {mapping['crash']} says {verdict['verdict']}"
            )
    record["mismatches"] = mismatches
    record["agree"] = not mismatches


def offset_log_version(folder):
    """The version line of the latest offset entry Spark wrote, as a number; None without an
    entry, or when the entry was left without a readable version line (a torn write)."""
    latest = log_ids(os.path.join(folder, "offsets"))
    if not latest:
        return None
    with open(os.path.join(folder, "offsets", str(latest[-1])), encoding="utf-8",
              errors="replace") as entry:
        line = entry.readline().strip()
    return int(line[1:]) if re.fullmatch(r"v[0-9]+", line) else None


def compare_folder(prediction, observed, scenario, at_kill):
    """What inspect read from the folder against what is in it: log version, source ids,
    state versions."""
    mismatches = []
    version = offset_log_version(at_kill)
    read = prediction.get("format", {}).get("offset_log")
    if observed["latest_offset"] is not None and version is not None and read != version:
        mismatches.append(f"offset log version: Spark wrote v{version}, batchscope read {read}")
    names = scenario.get("source_names")
    if names:
        ids = sorted(str(s.get("id")) for s in prediction.get("sources", []))
        if ids != sorted(names):
            mismatches.append(f"sources: Spark named {sorted(names)}, batchscope read {ids}")
    on_disk = state_versions(at_kill)
    operators = (prediction.get("state") or {}).get("operators", [])
    read_state = {op["operator_id"]: op["latest_version"] for op in operators}
    if on_disk != read_state:
        mismatches.append(f"state versions: on disk {on_disk}, batchscope read {read_state}")
    return mismatches
