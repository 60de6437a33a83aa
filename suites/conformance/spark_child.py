"""One Spark driver attempt of the conformance suite: runs streaming queries and, on request, dies.

Started by run.py as a child process in its own process group (``start_new_session``); the
py4j JVM that pyspark launches is a child of this process and so is in the same group. A kill
is ``os.killpg(<this group>, SIGKILL)``: the driver JVM and this Python process die at once,
with no shutdown hook, no ``query.stop()`` and no flush, exactly like a crashed driver.

Usage: ``python spark_child.py SPEC.json`` where SPEC holds ``{"mode": "kill"|"restart",
"jobs": [...]}``; see ``run.py`` (``_job_spec``) for the job fields. In ``kill`` mode there is
exactly one job and the process is expected to die; in ``restart`` mode every job is restarted
on its checkpoint in turn and a result JSON is written per job. A ``restart`` job may carry a
``foreach_batch_block`` hook (the first of two drivers on one checkpoint): it runs from an
empty checkpoint and waits inside foreachBatch of its batch until the harness releases it.
"""

import ctypes
import json
import os
import signal
import struct
import sys
import threading
import time
import traceback

SCHEMA = "key STRING, src STRING, file INT"

# inotify(7) constants; the event structure is `int wd; uint32 mask, cookie, len; char name[]`.
IN_CREATE = 0x00000100
IN_MOVED_TO = 0x00000080
_EVENT_HEADER = struct.Struct("iIII")


def die():
    """SIGKILL the whole driver process group (this process and the Spark JVM)."""
    os.killpg(os.getpgrp(), signal.SIGKILL)


def _wait_for_dir(path):
    """Polls (1 ms) until `path` exists; the Spark query creates its log folders when it starts."""
    while not os.path.isdir(path):
        time.sleep(0.001)


def watch_and_kill(target):
    """Kills the driver the moment file `target` appears (created or renamed into place).

    Spark writes every log entry as a temporary file renamed to its final name
    (CheckpointFileManager.createAtomic), so the final name appearing is the moment the entry
    became durable. inotify wakes this thread within microseconds, well before the driver's
    next protocol step; run.py still checks the folder as left, so a late kill is caught.
    """
    folder, name = os.path.split(target)
    _wait_for_dir(folder)
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    fd = libc.inotify_init1(os.O_CLOEXEC)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "inotify_init1 failed")
    if libc.inotify_add_watch(fd, folder.encode(), IN_CREATE | IN_MOVED_TO) < 0:
        raise OSError(ctypes.get_errno(), "inotify_add_watch failed for " + folder)
    if os.path.exists(target):
        die()
    while True:
        data = os.read(fd, 65536)
        pos = 0
        while pos < len(data):
            _wd, _mask, _cookie, length = _EVENT_HEADER.unpack_from(data, pos)
            raw = data[pos + _EVENT_HEADER.size : pos + _EVENT_HEADER.size + length]
            pos += _EVENT_HEADER.size + length
            if raw.rstrip(b"\0").decode() == name:
                die()


def block_until_released(hook, batch_id):
    """Stops this driver inside foreachBatch (the rows already written) until the harness
    creates the release file: writes the `blocked` marker (atomically, by rename), then waits
    for `release`. The driver is not killed: once released, foreachBatch returns and Spark
    goes on to commit the batch. A release that never comes fails the batch with a clear
    error instead of hanging."""
    marker, release = hook["blocked"], hook["release"]
    with open(marker + ".tmp", "w", encoding="utf-8") as out:
        json.dump({"batch_id": batch_id, "pid": os.getpid()}, out)
    os.replace(marker + ".tmp", marker)
    deadline = time.monotonic() + hook["timeout_s"]
    while not os.path.exists(release):
        if time.monotonic() > deadline:
            raise RuntimeError(f"blocked in foreachBatch of batch {batch_id}: release file "
                               f"{release} did not appear within {hook['timeout_s']} s")
        time.sleep(0.01)


def build_session(confs):
    """A local[1] session, small and quiet; `confs` are the scenario's SQL confs."""
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master("local[1]")
        .appName("batchscope-conformance")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        .config("spark.sql.streaming.pollingDelay", "10ms")
    )
    for key, value in sorted(confs.items()):
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def append_rows(log_path, batch_id, keys):
    """Appends one JSON line per row to the foreachBatch log, durably (flush + fsync)."""
    with open(log_path, "a", encoding="utf-8") as log:
        for key in keys:
            log.write(json.dumps({"batch_id": batch_id, "key": key}, sort_keys=True) + "\n")
        log.flush()
        os.fsync(log.fileno())


def start_query(spark, job, kill):
    """Starts the scenario's query with the kill hooks of `kill`: Trigger.AvailableNow, or a
    processing-time trigger when the job uses async progress tracking (which refuses
    AvailableNow)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType

    frames = []
    names = job.get("source_names") or [None] * len(job["sources"])
    for source_dir, name in zip(job["sources"], names):
        reader = spark.readStream.schema(SCHEMA).option(
            "maxFilesPerTrigger", job.get("max_files", 1))
        if name:
            # DataStreamReader.name (Spark 4.2+): the source's id in offsets/ and sources/.
            reader = reader.name(name)
        frames.append(reader.json(source_dir))
    df = frames[0]
    for other in frames[1:]:
        df = df.unionByName(other)
    if job.get("aggregate"):
        # A stateful aggregation (state/0/<partition>/ in the checkpoint): a running count
        # per source, emitted as `<src>:<count>` in update mode.
        df = df.groupBy("src").agg(F.count("*").alias("n")).select(
            F.concat_ws(":", "src", F.col("n").cast("string")).alias("key")
        )

    if job.get("task_marker"):
        # The marker row's key kills the driver from inside a task (a Python UDF worker),
        # i.e. while the batch's write tasks run, before the sink can commit.
        marker = kill.get("marker") if kill and kill["at"] == "task_marker" else None
        driver_group = os.getpgrp()

        def pass_through(key):
            if marker is not None and key == marker:
                os.killpg(driver_group, signal.SIGKILL)
                os.killpg(os.getpgrp(), signal.SIGKILL)
            return key

        df = df.withColumn("key", F.udf(pass_through, StringType())(F.col("key")))

    writer = df.writeStream.option("checkpointLocation", job["checkpoint"])
    if job.get("async_progress"):
        writer = (
            writer.trigger(processingTime="0 seconds")
            .option("asyncProgressTrackingEnabled", "true")
            .option("asyncProgressTrackingCheckpointIntervalMs", str(job["async_interval_ms"]))
        )
    else:
        writer = writer.trigger(availableNow=True)
    if job.get("aggregate"):
        writer = writer.outputMode("update")
    if job["sink"] == "file":
        writer = writer.format("json").option("path", job["sink_path"])
    elif job["sink"] == "noop":
        # The noop sink: accepted by async progress tracking on every release (3.5 takes no
        # ForeachWriter there) and, unlike the memory sink, restartable from a checkpoint;
        # it keeps no rows, so none are counted.
        writer = writer.format("noop")
    elif job["sink"] == "foreach":
        # A per-row ForeachWriter (async progress tracking accepts "ForeachSink", not
        # foreachBatch); rows are appended durably, the marker row kills the driver.
        log_path = job["foreach_batch_log"]
        marker = kill.get("marker") if kill and kill["at"] == "foreach_row" else None
        driver_group = os.getpgrp()

        def process_row(row):
            append_rows(log_path, None, [row["key"]])
            if marker is not None and row["key"] == marker:
                os.killpg(driver_group, signal.SIGKILL)

        writer = writer.foreach(process_row)
    else:
        log_path = job["foreach_batch_log"]
        kill_at = kill["at"] if kill else None
        kill_batch = kill["batch"] if kill else None

        def foreach_batch(batch_df, batch_id):
            keys = [row["key"] for row in batch_df.select("key").collect()]
            if kill_at == "foreach_batch_before_write" and batch_id == kill_batch:
                die()
            append_rows(log_path, batch_id, keys)
            if kill_at == "foreach_batch_after_write" and batch_id == kill_batch:
                die()
            if kill_at == "foreach_batch_block" and batch_id == kill_batch:
                block_until_released(kill, batch_id)

        writer = writer.foreachBatch(foreach_batch)
    return writer.start()


def run_kill(job):
    """Runs the query until the kill fires; returning normally means the kill point was missed."""
    kill = job["kill"]
    spark = build_session(job["confs"])
    if kill["at"] == "file_appears":
        threading.Thread(target=watch_and_kill, args=(kill["path"],), daemon=True).start()
    query = start_query(spark, job, kill)
    query.awaitTermination()
    # Reaching this line means the query finished without hitting the kill point.
    print("kill point not reached: query finished", file=sys.stderr)
    sys.exit(3)


def delivered_keys(spark, job):
    """Rows the sink holds now: the foreachBatch log, or the file sink read via its manifest."""
    if job["sink"] == "noop":
        return [], []
    if job["sink"] == "file":
        if not os.path.isdir(job["sink_path"]):
            return [], []
        rows = spark.read.schema(SCHEMA).json(job["sink_path"]).select("key").collect()
        return sorted(row["key"] for row in rows), []
    keys, batch_ids = [], []
    if os.path.exists(job["foreach_batch_log"]):
        with open(job["foreach_batch_log"], encoding="utf-8") as log:
            for line in log:
                entry = json.loads(line)
                keys.append(entry["key"])
                batch_ids.append(entry["batch_id"])
    return sorted(keys), batch_ids


def run_restart(spark, job):
    """Restarts one query on its checkpoint, lets it drain the input, and records what ran."""
    before = {key: spark.conf.get(key, None) for key in job["confs"]}
    for key, value in sorted(job["confs"].items()):
        spark.conf.set(key, value)
    if job.get("log_level"):
        # Spark's warnings (e.g. a conf restored from the offset log) go to restart.log.
        spark.sparkContext.setLogLevel(job["log_level"])
    # Markers in the shared restart log: run.py reads each job's Spark warnings between them.
    print(f"[restart-job] start {job['name']}", flush=True)
    try:
        _restart_one(spark, job)
    finally:
        print(f"[restart-job] end {job['name']}", flush=True)
        # The restart session is shared by all jobs: leave no conf behind for the next one.
        spark.sparkContext.setLogLevel("ERROR")
        for key, value in before.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)


def _restart_one(spark, job):
    """run_restart without the conf handling."""
    result = {"name": job["name"], "error": None, "batch_ids": [], "progress_rows": []}
    query = None
    try:
        # A restart job has no kill hook; the first of two drivers has a block hook.
        query = start_query(spark, job, job.get("kill"))
        if job.get("async_progress"):
            query.processAllAvailable()
            query.stop()
        else:
            query.awaitTermination()
    except Exception as error:  # noqa: BLE001 - the error IS the observation (action "fail")
        text = str(error).strip()
        result["error"] = text.splitlines()[0] if text else type(error).__name__
        result["error_full"] = text[:4000]
    if query is not None:
        # The batches that completed (a failed query keeps its progress too).
        for progress in query.recentProgress:
            result["batch_ids"].append(progress["batchId"])
            result["progress_rows"].append(progress["numInputRows"])
    keys, log_batch_ids = delivered_keys(spark, job)
    result["delivered"] = keys
    result["foreach_batch_log_batch_ids"] = log_batch_ids
    with open(job["result"], "w", encoding="utf-8") as out:
        json.dump(result, out, indent=1, sort_keys=True)


def main():
    """Entry point: reads the spec file named on the command line."""
    with open(sys.argv[1], encoding="utf-8") as spec_file:
        spec = json.load(spec_file)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    if spec["mode"] == "kill":
        run_kill(spec["jobs"][0])
        return
    spark = build_session({})
    for job in spec["jobs"]:
        try:
            run_restart(spark, job)
        except Exception:  # noqa: BLE001 - report and go on with the next job
            with open(job["result"], "w", encoding="utf-8") as out:
                json.dump({"name": job["name"], "crash": traceback.format_exc()}, out)
    spark.stop()


if __name__ == "__main__":
    main()
