"""Spark conformance suite: kills a real Spark driver at protocol points and holds batchscope to it.

For every scenario in scenarios.py:
1. a child driver (spark_child.py, own process group) runs the query on fresh input and is
   SIGKILLed at the scenario's kill point; the folder as left is checked against the
   scenario's expectation (a late kill is retried) and copied aside;
2. ``batchscope inspect COPY --json`` predicts what the restart will do;
3. one restart driver restarts every scenario's query on its checkpoint (Trigger.AvailableNow),
   recording which batch ran first and which rows the sink holds afterwards;
4. ``batchscope run --preset P --crash NAME@N --json`` gives batchscope's verdict for the
   equivalent crash (``--preset P`` alone for a preset with its own fault), compared with the
   rows Spark delivered.
A scenario with ``second_driver`` runs two drivers on one checkpoint instead of steps 1 and 3
(``two_drivers_phase``): the first waits inside foreachBatch, the second is the restart.
Finally the checkpoint layout Spark wrote is compared with ``batchscope run --checkpoint-out``.

Results go to ``OUT/results.json`` (everything, including racy details), the table to
``OUT/CONFORMANCE.md`` and to ``docs/CONFORMANCE.md`` (deterministic content only, so a
re-run does not churn). Exit status 0 when every comparison agrees, 1 otherwise (each
mismatch is printed naming the scenario, Spark's action and batchscope's prediction), 2 when
the suite itself could not run.

Every Spark release in SPARKS runs the scenarios it supports (``min_spark``): pyspark 4.3.0
from the venv itself and a 3.5.x release installed beside it (``.venv/pyspark-3.5``, put first
on PYTHONPATH); ``batchscope inspect`` is told the release (``--spark``).

Usage: .venv/bin/python suites/conformance/run.py --out target/conformance
       [--only NAME ...] [--spark LABEL ...] [--batchscope PATH] [--spark-only]
       [--jobs N] [--doc PATH | --no-doc]
"""

import argparse
import concurrent.futures
import json
import os
import shutil
import signal
import subprocess
import sys
import time

# No __pycache__ in the source tree (the suite runs from a checkout).
sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import report  # noqa: E402
import shape  # noqa: E402
from compare import Batchscope, compare, log_ids  # noqa: E402
from scenarios import ROWS_PER_FILE, SCENARIOS  # noqa: E402

# The Spark releases the suite runs: a label (what `batchscope inspect --spark` is told) and
# the folder put first on PYTHONPATH (None = the venv's own pyspark).
SPARKS = [
    {"label": "4.3", "pythonpath": None},
    {"label": "3.5", "pythonpath": os.path.join(ROOT, ".venv", "pyspark-3.5")},
]

KILL_TRIES = 3
KILL_TIMEOUT_S = 240
RESTART_TIMEOUT_S = 900
# Input files get modification times 10 s apart: the file source orders new files by mtime.
MTIME_BASE_S = 1_600_000_000


class SuiteError(Exception):
    """The suite itself could not run (not a conformance mismatch)."""


def log(message):
    """Progress line on stderr (stdout carries the table)."""
    print(f"[conformance] {message}", file=sys.stderr, flush=True)


def stage_input(try_dir, scenario):
    """Writes the scenario's input files; returns every key a failure-free run delivers."""
    keys = []
    restart_sources = scenario.get("restart_sources", scenario["sources"])
    if scenario.get("aggregate"):
        # A running count per source: one `<src>:<count>` row per batch.
        keys = [f"{source}:{ROWS_PER_FILE * (index + 1)}"
                for source in restart_sources for index in range(scenario["files"])]
    for source in sorted(set(scenario["sources"]) | set(restart_sources)):
        folder = os.path.join(try_dir, "input", source)
        os.makedirs(folder)
        for index in range(scenario["files"]):
            path = os.path.join(folder, f"f{index:02d}.json")
            with open(path, "w", encoding="utf-8") as out:
                for row in range(ROWS_PER_FILE):
                    key = f"{source}{index:02d}-{row}"
                    if not scenario.get("aggregate") and source in restart_sources:
                        keys.append(key)
                    out.write(json.dumps({"key": key, "src": source, "file": index}) + "\n")
            mtime = MTIME_BASE_S + 10 * index
            os.utime(path, (mtime, mtime))
    return sorted(keys)


def job_spec(scenario, try_dir, restart=False):
    """The job a child driver runs (kill or restart) for one scenario attempt."""
    kill = dict(scenario["kill"])
    if "path" in kill:
        kill["path"] = os.path.join(try_dir, kill["path"])
    sources = scenario["sources"]
    names = scenario.get("source_names")
    confs = scenario.get("confs", {})
    max_files = scenario.get("max_files", 1)
    if restart:
        sources = scenario.get("restart_sources", sources)
        names = scenario.get("restart_source_names", names)
        confs = dict(confs, **scenario.get("restart_confs", {}))
        max_files = scenario.get("restart_max_files", max_files)
    return {
        "name": scenario["name"],
        "sources": [os.path.join(try_dir, "input", s) for s in sources],
        "source_names": names,
        "aggregate": scenario.get("aggregate", False),
        "async_progress": scenario.get("async_progress", False),
        # Spark's default checkpoint interval of async progress tracking is 1000 ms.
        "async_interval_ms": scenario.get("async_interval_ms", 1000),
        "checkpoint": os.path.join(try_dir, "ckpt"),
        "sink": scenario["sink"],
        "sink_path": os.path.join(try_dir, "sink"),
        "foreach_batch_log": os.path.join(try_dir, "foreach_batch.jsonl"),
        "confs": confs,
        "max_files": max_files,
        "log_level": scenario.get("restart_log_level") if restart else None,
        "task_marker": scenario.get("task_marker", False),
        "kill": kill,
        "result": os.path.join(try_dir, "restart.json"),
    }


def spark_env(spark):
    """The environment a child driver of this Spark release runs in."""
    # SPARK_LOCAL_IP: the driver binds to loopback only (no lookup of the host's addresses).
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable,
               PYTHONDONTWRITEBYTECODE="1", SPARK_LOCAL_IP="127.0.0.1")
    env.pop("SPARK_HOME", None)
    if spark["pythonpath"]:
        env["PYTHONPATH"] = spark["pythonpath"]
    else:
        env.pop("PYTHONPATH", None)
    return env


def pyspark_version(spark):
    """The pyspark version a child of this release imports."""
    proc = subprocess.run(
        [sys.executable, "-c", "import pyspark; print(pyspark.__version__)"],
        capture_output=True, text=True, env=spark_env(spark), check=False,
    )
    if proc.returncode != 0:
        raise SuiteError(f"pyspark {spark['label']} is not importable: {proc.stderr.strip()}")
    return proc.stdout.strip()


def supports(spark, scenario):
    """Whether the release runs the scenario (named sources need 4.2+)."""
    major, minor = (int(part) for part in spark["label"].split("."))
    return (major, minor) >= scenario.get("min_spark", (0, 0))


def start_child(spec, spec_path, log_path, spark):
    """Starts spark_child.py in its own process group; returns the process (not waited for)."""
    with open(spec_path, "w", encoding="utf-8") as out:
        json.dump(spec, out, indent=1)
    with open(log_path, "w", encoding="utf-8") as log_file:
        # The child keeps its own copy of the descriptor.
        return subprocess.Popen(
            [sys.executable, os.path.join(HERE, "spark_child.py"), spec_path],
            stdout=log_file,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env=spark_env(spark),
        )


def finish_child(child, timeout_s):
    """Waits for a child started by start_child; returns its exit status (-9 = SIGKILL), or
    None when it did not end within `timeout_s`. Its process group is killed either way."""
    try:
        status = child.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        status = None
    finally:
        # The child's group holds the driver JVM; make sure nothing of it outlives the attempt.
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        child.wait()
    return status


def run_child(spec, spec_path, log_path, timeout_s, spark):
    """Runs spark_child.py in its own process group; returns its exit status (-9 = SIGKILL)."""
    status = finish_child(start_child(spec, spec_path, log_path, spark), timeout_s)
    if status is None:
        raise SuiteError(f"{spec_path}: child driver did not finish within {timeout_s} s")
    return status


def check_left(try_dir, expect):
    """Which expectations on the folder as left by the kill do not hold (empty = all hold)."""
    problems = []
    for rel in expect.get("present", []):
        if not os.path.exists(os.path.join(try_dir, rel)):
            problems.append(f"{rel} missing")
    for rel in expect.get("absent", []):
        if os.path.exists(os.path.join(try_dir, rel)):
            problems.append(f"{rel} present")
    return problems


def remove_entry(path):
    """Deletes a log entry and Hadoop's checksum file beside it (`.<name>.crc`)."""
    os.remove(path)
    folder, name = os.path.split(path)
    crc = os.path.join(folder, f".{name}.crc")
    if os.path.exists(crc):
        os.remove(crc)


def truncate_entry(path, keep):
    """Cuts a log entry to its first `keep` bytes and deletes its checksum file, as a store
    without atomic rename (or checksums) can leave a half-written entry."""
    with open(path, "r+b") as handle:
        handle.truncate(keep)
    folder, name = os.path.split(path)
    crc = os.path.join(folder, f".{name}.crc")
    if os.path.exists(crc):
        os.remove(crc)


def kill_phase(scenario, work_dir, spark):
    """Runs kill attempts until one leaves the expected folder; returns the attempt record."""
    tries = []
    for attempt in range(1, KILL_TRIES + 1):
        try_dir = os.path.join(work_dir, scenario["name"], f"try{attempt}")
        shutil.rmtree(try_dir, ignore_errors=True)
        os.makedirs(try_dir)
        expected = stage_input(try_dir, scenario)
        spec = {"mode": "kill", "jobs": [job_spec(scenario, try_dir)]}
        started = time.monotonic()
        status = run_child(
            spec,
            os.path.join(try_dir, "kill-spec.json"),
            os.path.join(try_dir, "kill.log"),
            KILL_TIMEOUT_S,
            spark,
        )
        elapsed = round(time.monotonic() - started, 1)
        problems = []
        if status != -signal.SIGKILL:
            problems.append(f"driver exited with status {status}, not killed (see kill.log)")
        problems += check_left(try_dir, scenario["expect_at_kill"])
        tries.append({"try": attempt, "status": status, "problems": problems, "seconds": elapsed})
        log(f"{scenario['name']}: kill try {attempt}: {problems or 'folder as expected'}")
        if not problems:
            for rel in scenario.get("tamper", []):
                remove_entry(os.path.join(try_dir, rel))
            for rel, keep in sorted(scenario.get("truncate", {}).items()):
                truncate_entry(os.path.join(try_dir, rel), keep)
            # The folder exactly as the restart will find it, for batchscope inspect.
            shutil.copytree(os.path.join(try_dir, "ckpt"), os.path.join(try_dir, "ckpt-at-kill"))
            return {"try_dir": try_dir, "tries": tries, "expected": expected,
                    "rows_at_kill": len(foreach_batch_rows(try_dir))}
    return {"try_dir": None, "tries": tries, "expected": []}


def wait_for_file(path, child, timeout_s):
    """Waits until `path` exists (a marker a driver writes); returns None, or why it never
    did: the driver ended first, or `timeout_s` passed."""
    deadline = time.monotonic() + timeout_s
    while not os.path.exists(path):
        if child.poll() is not None:
            return (f"the driver exited with status {child.returncode} before "
                    f"{os.path.basename(path)} appeared")
        if time.monotonic() > deadline:
            return f"{os.path.basename(path)} did not appear within {timeout_s} s"
        time.sleep(0.01)
    return None


def read_json(path):
    """A JSON file's content, or None when it does not exist."""
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        return None


def two_drivers_phase(scenario, work_dir, spark):
    """Two drivers on one checkpoint (a scenario with `second_driver`), in separate processes.

    Driver 1 runs the query from an empty checkpoint and, inside foreachBatch of batch N with
    its rows written, waits for a release file (it is not killed). Meanwhile the folder is
    checked and copied as `ckpt-at-kill` (what inspect reads, as for a kill), and driver 2 runs
    the same query on the same checkpoint to the end: it is the restart (`restart.json`). Then
    driver 1 is released and goes on to commit batch N; what it then does (`driver1.json`:
    its batch ids, its error) is recorded as `first_driver`. Markers and waits with timeouts
    order the steps, never sleeps."""
    try_dir = os.path.join(work_dir, scenario["name"], "try1")
    shutil.rmtree(try_dir, ignore_errors=True)
    os.makedirs(try_dir)
    expected = stage_input(try_dir, scenario)
    batch = scenario["kill"]["batch"]
    first = job_spec(scenario, try_dir)
    hook = {"at": "foreach_batch_block", "batch": batch,
            "blocked": os.path.join(try_dir, "driver1-blocked"),
            "release": os.path.join(try_dir, "driver1-release"),
            "timeout_s": KILL_TIMEOUT_S + RESTART_TIMEOUT_S}
    first.update(kill=hook, result=os.path.join(try_dir, "driver1.json"))
    second = dict(job_spec(scenario, try_dir, restart=True), kill=None)
    started = time.monotonic()
    problems, rows_at_kill, status2, commits_at_release = [], 0, None, None
    driver1 = start_child({"mode": "restart", "jobs": [first]},
                          os.path.join(try_dir, "driver1-spec.json"),
                          os.path.join(try_dir, "driver1.log"), spark)
    try:
        why = wait_for_file(hook["blocked"], driver1, KILL_TIMEOUT_S)
        if why:
            problems.append(f"driver 1 never waited in foreachBatch of batch {batch}: {why} "
                            "(see driver1.log)")
        else:
            problems += check_left(try_dir, scenario["expect_at_kill"])
            shutil.copytree(os.path.join(try_dir, "ckpt"), os.path.join(try_dir, "ckpt-at-kill"))
            rows_at_kill = len(foreach_batch_rows(try_dir))
            driver2 = start_child({"mode": "restart", "jobs": [second]},
                                  os.path.join(try_dir, "driver2-spec.json"),
                                  os.path.join(try_dir, "driver2.log"), spark)
            status2 = finish_child(driver2, RESTART_TIMEOUT_S)
            if status2 != 0:
                problems.append(f"driver 2 exited with status {status2} (see driver2.log)")
            commits_at_release = log_ids(os.path.join(try_dir, "ckpt", "commits"))
    finally:
        # Released in every case: driver 1 is never left waiting.
        with open(hook["release"], "w", encoding="utf-8"):
            pass
        status1 = finish_child(driver1, KILL_TIMEOUT_S)
    first_result = read_json(first["result"]) or {}
    if status1 != 0:
        problems.append(f"driver 1 exited with status {status1} after its release "
                        "(see driver1.log)")
    if "crash" in first_result:
        problems.append(f"driver 1 crashed: {first_result['crash']}")
    elapsed = round(time.monotonic() - started, 1)
    log(f"{scenario['name']}: two drivers: {problems or 'both ran'}")
    tries = [{"try": 1, "status": status1, "problems": problems, "seconds": elapsed}]
    if problems:
        return {"try_dir": None, "tries": tries, "expected": []}
    first_driver = {
        "batch_ids": first_result.get("batch_ids", []),
        "error": first_result.get("error"),
        "error_full": first_result.get("error_full"),
        "commits_at_release": commits_at_release,
    }
    return {"try_dir": try_dir, "tries": tries, "expected": expected,
            "rows_at_kill": rows_at_kill, "first_driver": first_driver}


def read_bytes(path):
    """File content, or None when the file does not exist."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def foreach_batch_rows(try_dir):
    """(batch id, key) of every row the foreachBatch sink appended, in order."""
    path = os.path.join(try_dir, "foreach_batch.jsonl")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as rows:
        return [(entry["batch_id"], entry["key"]) for entry in map(json.loads, rows)]


def rerun_files(try_dir, rows_at_kill, batch):
    """The input files (`<source>/fNN.json`) whose rows the restart's batch `batch` handed
    foreachBatch, read back from the keys (`<source><NN>-<row>`)."""
    files = set()
    for batch_id, key in foreach_batch_rows(try_dir)[rows_at_kill:]:
        if batch_id == batch and not key.count(":"):
            stem = key.split("-")[0]
            files.add(f"{stem[:-2]}/f{stem[-2:]}.json")
    return sorted(files)


def restored_conf(try_dir, latest_offset):
    """The conf map of the first offset entry the restart wrote (offsets/L+1), or None."""
    if latest_offset is None:
        return None
    text = read_bytes(os.path.join(try_dir, "ckpt", "offsets", str(latest_offset + 1)))
    if not text:
        return None
    return json.loads(text.decode().split("\n")[1]).get("conf")


def state_partitions(try_dir):
    """Partition folders of stateful operator 0 after the restart."""
    folder = os.path.join(try_dir, "ckpt", "state", "0")
    if not os.path.isdir(folder):
        return None
    return len([name for name in os.listdir(folder) if name.isdigit()])


def spark_action(try_dir, restart, rows_at_kill=0):
    """What Spark did on restart, from the folder as left and the batches the restart ran."""
    at_kill = os.path.join(try_dir, "ckpt-at-kill")
    offsets = log_ids(os.path.join(at_kill, "offsets"))
    commits = log_ids(os.path.join(at_kill, "commits"))
    latest_offset = offsets[-1] if offsets else None
    latest_commit = commits[-1] if commits else None
    observed = {
        "latest_offset": latest_offset,
        "latest_commit": latest_commit,
        "batch_ids_after_restart": restart.get("batch_ids", []),
        "error": restart.get("error"),
    }
    observed["restored_conf"] = restored_conf(try_dir, latest_offset)
    observed["state_partitions"] = state_partitions(try_dir)
    if restart.get("error"):
        observed.update(action="fail", batch=None)
        return observed
    ran = restart.get("batch_ids") or []
    first = ran[0] if ran else None
    if latest_offset is None and first == 0:
        action = "fresh"
    elif latest_offset is not None and first == latest_offset:
        action = "rerun"
        # A re-run must use the logged offsets: offsets/L is not rewritten.
        before = read_bytes(os.path.join(at_kill, "offsets", str(latest_offset)))
        after = read_bytes(os.path.join(try_dir, "ckpt", "offsets", str(latest_offset)))
        observed["offsets_unchanged"] = before == after
        observed["rerun_files"] = rerun_files(try_dir, rows_at_kill, first)
    elif latest_offset is not None and first == latest_offset + 1:
        action = "next"
    else:
        action = "unexpected"
    observed.update(action=action, batch=first)
    return observed


def spark_warnings(log_path, name, scenario):
    """Spark's WARN lines of this scenario's restart, read from the shared restart log
    between the job's markers (only scenarios restarted at WARN level)."""
    if not scenario.get("restart_log_level") or not os.path.exists(log_path):
        return []
    mine, inside = [], False
    with open(log_path, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            if "[restart-job] " in line:
                # Spark's console progress bar can share the marker's line.
                inside = line.split("[restart-job] ", 1)[1].split() == ["start", name]
            elif inside and " WARN " in line:
                mine.append(line.split(" WARN ", 1)[1].strip())
    return mine


def row_verdict(expected, delivered):
    """Counts and verdict, named as batchscope names them."""
    seen = set(delivered)
    duplicates = len(delivered) - len(seen)
    lost = len(set(expected) - seen)
    if duplicates and lost:
        verdict = "duplicates-and-loss"
    elif duplicates:
        verdict = "duplicates"
    elif lost:
        verdict = "data-loss"
    else:
        verdict = "exactly-once"
    return {
        "expected": len(expected),
        "delivered": len(delivered),
        "duplicates": duplicates,
        "lost": lost,
        "verdict": verdict,
    }


def orphan_files(try_dir):
    """Part files in the file sink that no manifest lists (left by a killed attempt)."""
    sink = os.path.join(try_dir, "sink")
    manifest_dir = os.path.join(sink, "_spark_metadata")
    if not os.path.isdir(manifest_dir):
        return None
    listed = set()
    for name in os.listdir(manifest_dir):
        if name.isdigit():
            with open(os.path.join(manifest_dir, name), encoding="utf-8") as entry:
                for line in entry.read().splitlines()[1:]:
                    listed.add(os.path.basename(json.loads(line)["path"]))
    parts = [n for n in os.listdir(sink) if n.startswith("part-")]
    return sorted(n for n in parts if n not in listed)


def render_only(args):
    """Writes the doc from a results.json (the rendering is a pure function of the results)."""
    with open(args.render, encoding="utf-8") as results_file:
        results = json.load(results_file)
    runs = [dict(run, scenarios=[s for s in SCENARIOS
                                 if s["name"] in [r["name"] for r in run["records"]]])
            for run in results["runs"]]
    compared = any("inspect" in r for run in runs for r in run["records"])
    document = report.render(runs, compared)
    with open(args.doc, "w", encoding="utf-8") as doc:
        doc.write(document)
    print(document)
    return 0


def run_spark(spark, scenarios, batchscope, out):
    """Every scenario on one Spark release: kills, one restart driver, comparisons."""
    version = pyspark_version(spark)
    work_dir = os.path.join(out, "work", spark["label"])
    shutil.rmtree(work_dir, ignore_errors=True)
    os.makedirs(work_dir)
    scenarios = [s for s in scenarios if supports(spark, s)]
    log(f"pyspark {version}: {len(scenarios)} scenarios")
    records = []
    for scenario in scenarios:
        phase = two_drivers_phase if scenario.get("second_driver") else kill_phase
        records.append({"name": scenario["name"], **phase(scenario, work_dir, spark)})

    # A second driver already was the restart of a two-driver scenario.
    ready = [r for r in records if r["try_dir"] and "first_driver" not in r]
    if ready:
        jobs = [job_spec(next(s for s in scenarios if s["name"] == r["name"]), r["try_dir"],
                         restart=True)
                for r in ready]
        for job in jobs:
            job["kill"] = None
        log(f"restarting {len(jobs)} queries in one driver")
        status = run_child(
            {"mode": "restart", "jobs": jobs},
            os.path.join(work_dir, "restart-spec.json"),
            os.path.join(work_dir, "restart.log"),
            RESTART_TIMEOUT_S,
            spark,
        )
        if status != 0:
            raise SuiteError(f"restart driver exited with {status}; see {work_dir}/restart.log")

    ok = True
    for record in records:
        scenario = next(s for s in scenarios if s["name"] == record["name"])
        if not record["try_dir"]:
            record["agree"] = False
            record["mismatches"] = [f"kill point never hit in {len(record['tries'])} tries: "
                                    f"{record['tries'][-1]['problems']}"]
            ok = False
            continue
        with open(os.path.join(record["try_dir"], "restart.json"), encoding="utf-8") as result:
            restart = json.load(result)
        if "crash" in restart:
            raise SuiteError(f"{record['name']}: restart driver crashed:\n{restart['crash']}")
        if "first_driver" in record:
            # Driver 2 read the sink before driver 1 ended: count the rows once both have.
            rows = foreach_batch_rows(record["try_dir"])
            restart["delivered"] = sorted(key for _, key in rows)
            restart["foreach_batch_log_batch_ids"] = [batch_id for batch_id, _ in rows]
            keys = [key for _, key in rows]
            record["first_driver"]["batches_delivered_twice"] = sorted(
                {batch_id for batch_id, key in rows if keys.count(key) > 1})
        record["restart"] = restart
        record["spark"] = spark_action(record["try_dir"], restart, record["rows_at_kill"])
        record["spark"]["warnings"] = spark_warnings(os.path.join(work_dir, "restart.log"),
                                                     record["name"], scenario)
        record["rows"] = row_verdict(record["expected"], restart["delivered"])
        record["orphan_files"] = orphan_files(record["try_dir"])
        if batchscope:
            compare(record, scenario, batchscope, spark)
            ok = ok and record["agree"]

    structure = shape.compare_structure(records, batchscope, os.path.join(out, spark["label"]))
    if structure.get("mismatches"):
        ok = False
    return {"label": spark["label"], "spark_version": version, "scenarios": scenarios,
            "records": records, "structure": structure, "ok": ok}


def main():
    """Runs the suite; see the module doc for arguments and exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="folder for work files and results")
    parser.add_argument("--only", action="append", help="run only this scenario (repeatable)")
    parser.add_argument("--spark", action="append",
                        help="run only this Spark release (label of SPARKS, repeatable)")
    parser.add_argument("--batchscope", default=os.environ.get("BATCHSCOPE_BIN")
                        or os.path.join(ROOT, "target", "debug", "batchscope"))
    parser.add_argument("--spark-only", action="store_true",
                        help="record Spark's behaviour without comparing (no batchscope needed)")
    parser.add_argument("--doc", default=os.path.join(ROOT, "docs", "CONFORMANCE.md"))
    parser.add_argument("--no-doc", action="store_true", help="do not write --doc")
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("CONFORMANCE_JOBS", "2")),
                        help="Spark releases run at the same time (default 2, or "
                             "CONFORMANCE_JOBS)")
    parser.add_argument("--render", metavar="RESULTS_JSON",
                        help="only re-render the doc from an earlier run's results.json")
    args = parser.parse_args()
    if args.render:
        return render_only(args)

    started = time.monotonic()
    scenarios = [s for s in SCENARIOS if not args.only or s["name"] in args.only]
    if args.only and len(scenarios) != len(args.only):
        known = ", ".join(s["name"] for s in SCENARIOS)
        raise SuiteError(f"--only names an unknown scenario; known: {known}")
    sparks = [s for s in SPARKS if not args.spark or s["label"] in args.spark]
    if args.spark and len(sparks) != len(args.spark):
        raise SuiteError("--spark names an unknown release; known: "
                         + ", ".join(s["label"] for s in SPARKS))
    batchscope = None
    if not args.spark_only:
        if not os.access(args.batchscope, os.X_OK):
            raise SuiteError(
                f"batchscope binary not found at {args.batchscope}: build it with "
                "`cargo build -p batchscope-cli` or set BATCHSCOPE_BIN"
            )
        batchscope = Batchscope(args.batchscope)

    out = os.path.abspath(args.out)
    # The releases are independent (own work folders, own drivers): with --jobs 2 they run
    # side by side; `map` keeps the results, and so the document, in SPARKS order.
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        runs = list(pool.map(lambda spark: run_spark(spark, scenarios, batchscope, out), sparks))
    ok = all(run["ok"] for run in runs)

    document = report.render(runs, bool(batchscope))
    with open(os.path.join(out, "CONFORMANCE.md"), "w", encoding="utf-8") as doc:
        doc.write(document)
    if not args.no_doc and not args.only and not args.spark:
        os.makedirs(os.path.dirname(args.doc), exist_ok=True)
        with open(args.doc, "w", encoding="utf-8") as doc:
            doc.write(document)

    seconds = round(time.monotonic() - started, 1)
    with open(os.path.join(out, "results.json"), "w", encoding="utf-8") as results:
        json.dump({"seconds": seconds,
                   "runs": [{k: v for k, v in run.items() if k != "scenarios"} for run in runs]},
                  results, indent=1, sort_keys=True)

    print(document)
    for run in runs:
        for record in run["records"]:
            for mismatch in record.get("mismatches", []):
                print(f"MISMATCH {run['spark_version']} {record['name']}: {mismatch}")
        for mismatch in run["structure"].get("mismatches", []):
            print(f"MISMATCH {run['spark_version']} checkpoint layout: {mismatch}")
    total = sum(len(run["records"]) for run in runs)
    log(f"{total} scenarios in {seconds} s; results in {out}/results.json")
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SuiteError as error:
        print(f"conformance suite could not run: {error}", file=sys.stderr)
        sys.exit(2)
