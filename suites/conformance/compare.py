"""What batchscope says about a scenario, next to what Spark did: the CLI called as a user calls
it (`inspect --json`, `run --json`, `run --checkpoint-out`), and the comparisons.

`compare` fills a scenario record with inspect's prediction and run's verdict; inspect must
also read the folder as it is: the offset log version, the sources' names, and the latest
state version per operator (read here from the file names), and when Spark refuses to
start, Spark's error must contain the text inspect gives for it. For a re-run batch the
input files inspect lists must be the ones whose rows foreachBatch received again, and the
ones it finds gone the ones deleted; the confs it says the restart restores must be in the
offset entry the restart wrote (and the state's partition count the restored shuffle
partitions); and every warning inspect quotes from Spark must be in the restart's log.
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

    def run(self, preset, crash=None):
        """`batchscope run --preset P [--crash NAME@N] --json`: the verdict, or an error record
        (without a crash, the preset's own faults apply)."""
        crash_args = ["--crash", crash] if crash else []
        code, parsed, stderr = self._json(["run", "--preset", preset, *crash_args, "--json"])
        if not isinstance(parsed, dict) or "verdict" not in parsed:
            return {"error": f"exit {code}: {stderr or 'no JSON on stdout'}"}
        return parsed

    def events(self, preset, crash=None):
        """`batchscope run --preset P [--crash NAME@N] --json --trace`: every event, or an
        error record."""
        crash_args = ["--crash", crash] if crash else []
        code, parsed, stderr = self._json(["run", "--preset", preset, *crash_args, "--json",
                                           "--trace"])
        if not isinstance(parsed, dict) or not isinstance(parsed.get("events"), list):
            return {"error": f"exit {code}: {stderr or 'no events in the JSON report'}"}
        return {"events": parsed["events"]}

    def trace(self, preset, crash=None):
        """`batchscope run --preset P [--crash NAME@N]`: the text trace's lines, or an error."""
        crash_args = ["--crash", crash] if crash else []
        proc = subprocess.run(
            [self.binary, "run", "--preset", preset, *crash_args],
            capture_output=True, text=True, timeout=120, check=False,
        )
        if not proc.stdout.strip():
            return {"error": f"exit {proc.returncode}: {proc.stderr.strip() or 'no trace'}"}
        return {"lines": proc.stdout.splitlines()}

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
        mismatches += compare_input(prediction, observed, scenario)
        mismatches += compare_confs(prediction, observed, scenario)
        mismatches += compare_warnings(prediction, observed, scenario)
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
        mismatches += compare_run(record, mapping, batchscope)
    record["mismatches"] = mismatches
    record["agree"] = not mismatches


def run_command(mapping):
    """The `batchscope run` arguments of a row's mapping, as the mismatches quote them."""
    crash = f" --crash {mapping['crash']}" if mapping.get("crash") else ""
    return f"batchscope run --preset {mapping['preset']}{crash}"


def compare_run(record, mapping, batchscope):
    """`batchscope run` for the row's mapping against what Spark delivered: the verdict (a
    restart Spark refused delivers nothing more, which batchscope calls `stuck`), and, with
    `trace_has`, Spark's error in batchscope's trace (see compare_trace)."""
    mismatches = []
    command = run_command(mapping)
    verdict = batchscope.run(mapping["preset"], mapping.get("crash"))
    record["run"] = verdict
    if "error" in verdict:
        return [f"{command} --json failed: {verdict['error']}"]
    if verdict.get("crashes_unreached"):
        return [f"{command} never reached crash {verdict['crashes_unreached']}, so its "
                "verdict says nothing about this kill"]
    failed = record["spark"]["action"] == "fail"
    spark_verdict = "stuck" if failed else record["rows"]["verdict"]
    if verdict["verdict"] != spark_verdict:
        what = "refused to restart" if failed else f"delivered {spark_verdict}"
        mismatches.append(f"rows: Spark {what}, {command} says {verdict['verdict']}")
    if mapping.get("trace_has"):
        mismatches += compare_trace(record, mapping, batchscope)
    return mismatches


def spark_text(record, which):
    """The Spark error a row's `trace_has` names, as batchscope must quote it (see
    report.error_message): `first_driver_error`, the first of two drivers' error, up to the
    batch id it names; `restart_error`, the restart's error, its checkpoint paths relative.
    None when Spark raised no such error."""
    checkpoint = os.path.join(record["try_dir"], "ckpt")
    if which == "first_driver_error":
        first = record["first_driver"]
        error = first.get("error_full") or first.get("error")
        return report.error_message(error, record["spark"]["batch"]) if error else None
    if which == "restart_error":
        error = record["restart"].get("error_full") or record["restart"].get("error")
        return report.error_message(error, checkpoint=checkpoint) if error else None
    raise ValueError(f"unknown trace_has {which!r}")


def compare_trace(record, mapping, batchscope):
    """Spark's error (`trace_has`) must be in a line of batchscope's text trace; when the
    mapping names an `event` type, in the line of an event of that type (`run --json
    --trace` gives the events, each line of the text trace names its event's `#seq`)."""
    command = run_command(mapping)
    text = spark_text(record, mapping["trace_has"])
    record["run_quotes"] = text
    if not text:
        who = "the first driver" if mapping["trace_has"] == "first_driver_error" else "the restart"
        return [f"Spark: {who} raised no error, so there is nothing to find in {command}'s trace"]
    trace = batchscope.trace(mapping["preset"], mapping.get("crash"))
    if "error" in trace:
        return [f"{command} (text trace) failed: {trace['error']}"]
    lines = trace["lines"]
    where = "line"
    event = mapping.get("event")
    if event:
        events = batchscope.events(mapping["preset"], mapping.get("crash"))
        if "error" in events:
            return [f"{command} --json --trace failed: {events['error']}"]
        seqs = [e.get("seq") for e in events["events"]
                if (e.get("kind") or {}).get("type") == event]
        if not seqs:
            return [f"{command} --json --trace has no `{event}` event"]
        lines = [line for line in lines
                 if any(re.search(rf"#{seq}(?![0-9])", line) for seq in seqs)]
        where = f"line of a `{event}` event"
    quoting = [line.strip() for line in lines if text in line]
    record["run_trace_lines"] = quoting[:3]
    if not quoting:
        return [f"Spark's error {text!r} is in no {where} of {command}'s text trace"]
    return []


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


def _tail(uri):
    """`<source>/<file>` of an input file URI (the suite's input is `input/<source>/fNN.json`)."""
    return "/".join(uri.rstrip("/").split("/")[-2:])


def _local(uri):
    """The local path of a `file:` URI (`file:///x`, `file:/x`)."""
    return "/" + uri[len("file:"):].lstrip("/") if uri.startswith("file:") else uri


def compare_input(prediction, observed, scenario):
    """The re-run's input files: those inspect says are read against the files whose rows
    foreachBatch received in the re-run; those it finds gone against the deleted ones."""
    mismatches = []
    files = (prediction.get("rerun_input") or {}).get("files", [])
    seen = observed.get("rerun_files")
    if seen is not None and scenario["sink"] == "foreach_batch" and not scenario.get("aggregate"):
        read = sorted(_tail(f["path"]) for f in files if not f.get("missing"))
        if read != seen:
            mismatches.append(f"re-run input: Spark's re-run delivered rows of {seen}, "
                              f"batchscope inspect listed {read} as read")
    gone = sorted(_tail(f["path"]) for f in files if f.get("missing"))
    deleted = sorted(_tail(rel) for rel in scenario.get("tamper", []) if rel.startswith("input/"))
    if gone != deleted:
        mismatches.append(f"missing input: deleted {deleted}, batchscope inspect found {gone}")
    return mismatches


def compare_confs(prediction, observed, scenario):
    """A conf the restart changed must keep the checkpoint's value, as inspect says, in the
    offset entry the restart wrote; shuffle partitions also give the state's partitions."""
    mismatches = []
    restored = {c["key"]: c["value"] for c in prediction.get("restored_confs", [])}
    written = observed.get("restored_conf") or {}
    for key in sorted(scenario.get("restart_confs", {})):
        if key not in restored:
            continue
        if written.get(key) != restored[key]:
            mismatches.append(f"conf {key}: the restart wrote {written.get(key)!r}, batchscope "
                              f"inspect said the checkpoint's {restored[key]!r} is restored")
        partitions = observed.get("state_partitions")
        if key == "spark.sql.shuffle.partitions" and partitions is not None \
                and str(partitions) != restored[key]:
            mismatches.append(f"state partitions after the restart: {partitions}, batchscope "
                              f"inspect restored {key}={restored[key]}")
    return mismatches


def compare_warnings(prediction, observed, scenario):
    """Every warning inspect quotes from Spark (a problem's `spark_says`) must be among the
    WARN lines of the restart (scenarios restarted at WARN level), naming the problem's
    file when it is a local one."""
    if not scenario.get("restart_log_level"):
        return []
    mismatches = []
    for problem in prediction.get("problems", []):
        says = problem.get("spark_says")
        if not says or problem.get("severity") != "warning":
            continue
        pattern = ".*".join(re.escape(part) for part in re.split(r"<[A-Za-z]+>", says))
        path = problem.get("path") or ""
        lines = [line for line in observed.get("warnings", []) if re.search(pattern, line)]
        if path.startswith("file:"):
            lines = [line for line in lines if _local(path) in line]
        if not lines:
            mismatches.append(f"Spark's restart log has no warning {says!r}"
                              + (f" for {path}" if path.startswith("file:") else ""))
    return mismatches
