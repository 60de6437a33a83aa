"""The kill scenarios of the Spark conformance suite: where the driver dies and what to compare.

Each scenario is plain data:

* ``sources``: one input folder per file source ("a", "b"; keys are prefixed with the name);
  ``files``: how many input files each source gets, one file = one batch
  (``maxFilesPerTrigger=1``), ``ROWS_PER_FILE`` rows each, every key unique.
* ``sink``: ``foreach_batch`` (appends each batch's rows with its batch id to a JSONL file,
  fsynced) or ``file`` (JSON file sink with its ``_spark_metadata`` manifest).
* ``kill``: where the driver dies (SIGKILL of the driver's process group):
  ``foreach_batch_after_write`` / ``foreach_batch_before_write`` (inside the foreachBatch
  function of batch ``batch``), ``task_marker`` (a UDF in the write task meets key ``marker``),
  ``file_appears`` (the moment ``path`` appears, watched with inotify).
* ``expect_at_kill``: the folder as the kill must leave it (paths relative to the scenario's
  work folder: ``ckpt/…`` checkpoint, ``sink/…`` file sink output). A kill on a file watch can
  land late; then the attempt is retried, so the table never records a misplaced kill.
* ``second_driver``: two drivers on one checkpoint instead of a kill: driver 1 waits inside
  foreachBatch of ``kill["batch"]`` after writing, driver 2 runs the query on the same
  checkpoint to the end (it is the restart), then driver 1 goes on (see run.py,
  ``two_drivers_phase``).
* ``tamper``: files deleted after the kill, before the restart (to see Spark refuse to start,
  or, under ``input/``, an input file a re-run needs).
* ``truncate``: files cut to their first N bytes after the kill (0: left empty), with Hadoop's
  checksum file beside them removed, as a store without atomic rename or checksums can leave a
  half-written entry.
* ``restart_confs`` / ``restart_max_files``: SQL confs set and the ``maxFilesPerTrigger`` used
  by the restart only (default: as the killed run); ``restart_log_level``: the restart runs at
  this log level (``WARN``) so the suite can check the warnings inspect quotes from Spark;
  ``show``: what of the restart goes into the doc (``rows`` per batch, ``warn:<text>`` a
  warning, ``state_partitions``).
* ``batchscope``: the equivalent ``batchscope run`` (preset and crash point; a mapping
  without ``crash`` runs the preset with its own faults), or None where batchscope has no
  equivalent (the row comparison is then skipped and said so). ``trace_has``: a Spark error
  that must be in a line of ``batchscope run``'s text trace (``first_driver_error``: the
  error of a two-driver scenario's first driver; ``restart_error``: the restart's), and in
  an event of type ``event`` of ``run --json --trace``.
* ``why``: one line on what the scenario shows (goes into the doc).
"""

ROWS_PER_FILE = 2

# The batch most scenarios kill in: batches 0 and 1 are committed before it.
N = 2


def _fb(kill_at, batch=N):
    return {"at": "foreach_batch_" + kill_at, "batch": batch}


def _watch(path, batch=N):
    return {"at": "file_appears", "batch": batch, "path": path}


SCENARIOS = [
    {
        "name": "foreach-batch-after-write",
        "kill_point": f"inside foreachBatch of batch {N}, after its rows were written",
        "sources": ["a"],
        "files": 4,
        "sink": "foreach_batch",
        "kill": _fb("after_write"),
        "expect_at_kill": {"present": [f"ckpt/offsets/{N}"], "absent": [f"ckpt/commits/{N}"]},
        "batchscope": {"preset": "kafka-append", "crash": f"sink-commit@{N}"},
        "why": "foreachBatch is at-least-once: the re-run passes the same batch id and rows again",
    },
    {
        "name": "foreach-batch-before-write",
        "kill_point": f"inside foreachBatch of batch {N}, before anything was written",
        "sources": ["a"],
        "files": 4,
        "sink": "foreach_batch",
        "kill": _fb("before_write"),
        "expect_at_kill": {"present": [f"ckpt/offsets/{N}"], "absent": [f"ckpt/commits/{N}"]},
        "batchscope": {"preset": "kafka-append", "crash": f"get-batch@{N}"},
        "why": "a re-run of a batch whose sink had not written yet duplicates nothing",
    },
    {
        "name": "file-sink-manifest-before-commit-log",
        "kill_point": f"after `_spark_metadata/{N}`, before `commits/{N}`",
        "sources": ["a"],
        "files": 4,
        "sink": "file",
        "kill": _watch(f"sink/_spark_metadata/{N}"),
        "expect_at_kill": {
            "present": [f"ckpt/offsets/{N}", f"sink/_spark_metadata/{N}"],
            "absent": [f"ckpt/commits/{N}"],
        },
        "batchscope": {"preset": "kafka-idempotent", "crash": f"sink-commit@{N}"},
        "why": "the file sink skips a batch id already in its manifest, so the re-run writes nothing",
    },
    {
        "name": "file-sink-during-tasks",
        "kill_point": f"in a write task of batch {N} (UDF meets a marker row), before the sink's commit",
        "sources": ["a"],
        "files": 4,
        "sink": "file",
        "task_marker": True,
        "kill": {"at": "task_marker", "batch": N, "marker": f"a{N:02d}-0"},
        "expect_at_kill": {
            "present": [f"ckpt/offsets/{N}"],
            "absent": [f"sink/_spark_metadata/{N}", f"ckpt/commits/{N}"],
        },
        "batchscope": {"preset": "kafka-idempotent", "crash": f"task@{N}"},
        "why": "files of a killed attempt are not in the manifest, so readers never see them",
    },
    {
        "name": "file-sink-after-offset-log",
        "kill_point": f"right after `offsets/{N}` was written",
        "sources": ["a"],
        "files": 4,
        "sink": "file",
        "kill": _watch(f"ckpt/offsets/{N}"),
        "expect_at_kill": {
            "present": [f"ckpt/offsets/{N}"],
            "absent": [f"sink/_spark_metadata/{N}", f"ckpt/commits/{N}"],
        },
        "batchscope": {"preset": "kafka-idempotent", "crash": f"offset-log@{N}"},
        "why": "the offset log is the write-ahead log: the batch is re-run with the logged offsets",
    },
    {
        "name": "after-commit-log",
        "kill_point": f"right after `commits/{N}` was written",
        "sources": ["a"],
        "files": 4,
        "sink": "foreach_batch",
        "kill": _watch(f"ckpt/commits/{N}"),
        "expect_at_kill": {
            "present": [f"ckpt/commits/{N}"],
            "absent": [f"ckpt/offsets/{N + 1}", f"ckpt/sources/0/{N + 1}"],
        },
        "batchscope": {"preset": "kafka-append", "crash": f"commit-log@{N}"},
        "why": "a committed batch is never run again: the restart goes on with the next batch",
    },
    {
        "name": "source-log-before-offset-log",
        "kill_point": f"after the file source logged `sources/0/{N}`, before `offsets/{N}`",
        "sources": ["a"],
        "files": 4,
        "sink": "foreach_batch",
        "kill": _watch(f"ckpt/sources/0/{N}"),
        "expect_at_kill": {
            "present": [f"ckpt/sources/0/{N}", f"ckpt/commits/{N - 1}"],
            "absent": [f"ckpt/offsets/{N}"],
        },
        "batchscope": {"preset": "kafka-append", "crash": f"get-offset@{N}"},
        "why": "without `offsets/N` the batch is planned afresh; the file source keeps its own log",
    },
    {
        "name": "two-sources-union",
        "kill_point": f"union of two file sources; inside foreachBatch of batch {N}, after writing",
        "sources": ["a", "b"],
        "files": 4,
        "sink": "foreach_batch",
        "kill": _fb("after_write"),
        "expect_at_kill": {"present": [f"ckpt/offsets/{N}"], "absent": [f"ckpt/commits/{N}"]},
        "batchscope": {"preset": "kafka-append", "crash": f"sink-commit@{N}"},
        "why": "one offset line per source; the whole batch (both sources) is re-run",
    },
    {
        "name": "purged-logs",
        "kill_point": "minBatchesToRetain=2; inside foreachBatch of batch 4, after writing",
        "sources": ["a"],
        "files": 6,
        "sink": "foreach_batch",
        "confs": {"spark.sql.streaming.minBatchesToRetain": "2"},
        "kill": _fb("after_write", 4),
        "expect_at_kill": {
            "present": ["ckpt/offsets/4", "ckpt/commits/3"],
            "absent": ["ckpt/commits/4", "ckpt/offsets/0", "ckpt/commits/0"],
        },
        "batchscope": {"preset": "kafka-append", "crash": "sink-commit@4"},
        "why": "old offsets/commits are purged; the restart needs only the last two entries",
    },
    {
        "name": "offset-log-v2",
        "kill_point": f"offset log v2; inside foreachBatch of batch {N}, after writing",
        "sources": ["a"],
        "files": 4,
        "sink": "foreach_batch",
        "confs": {"spark.sql.streaming.offsetLog.formatVersion": "2"},
        "kill": _fb("after_write"),
        "expect_at_kill": {"present": [f"ckpt/offsets/{N}"], "absent": [f"ckpt/commits/{N}"]},
        "batchscope": {"preset": "kafka-append", "crash": f"sink-commit@{N}"},
        "why": "the v2 offset log (`0:{…}` lines, Spark 4.2+; earlier releases ignore the conf "
               "and write v1) recovers the same way as v1",
    },
    {
        "name": "first-batch",
        "kill_point": "inside foreachBatch of batch 0, after writing (no commit yet at all)",
        "sources": ["a"],
        "files": 3,
        "sink": "foreach_batch",
        "kill": _fb("after_write", 0),
        "expect_at_kill": {"present": ["ckpt/offsets/0"], "absent": ["ckpt/commits/0"]},
        "batchscope": {"preset": "kafka-append", "crash": "sink-commit@0"},
        "why": "with offsets/0 and no commit log entry, batch 0 is re-run, not started fresh",
    },
    {
        "name": "before-first-offset",
        "kill_point": "right after the query's `metadata` file was written (no offsets yet)",
        "sources": ["a"],
        "files": 3,
        "sink": "foreach_batch",
        "kill": _watch("ckpt/metadata", 0),
        "expect_at_kill": {"present": ["ckpt/metadata"], "absent": ["ckpt/offsets/0"]},
        "batchscope": {"preset": "kafka-append", "crash": "get-offset@0"},
        "why": "no offset entry: the restart starts batch 0 fresh, keeping the query id",
    },
    {
        "name": "metadata-deleted",
        "kill_point": "as foreach-batch-after-write, then `metadata` deleted",
        "sources": ["a"],
        "files": 4,
        "sink": "foreach_batch",
        "kill": _fb("after_write"),
        "expect_at_kill": {"present": [f"ckpt/offsets/{N}"], "absent": [f"ckpt/commits/{N}"]},
        "tamper": ["ckpt/metadata"],
        "batchscope": None,
        "why": "offsets and commits without `metadata`: Spark 4.2+ refuses to invent a new query "
               "id; earlier releases write a new one and re-run the batch",
    },
    {
        "name": "offset-gap",
        "kill_point": f"as foreach-batch-after-write, then `offsets/{N - 1}` deleted",
        "sources": ["a"],
        "files": 4,
        "sink": "foreach_batch",
        "kill": _fb("after_write"),
        "expect_at_kill": {"present": [f"ckpt/offsets/{N}"], "absent": [f"ckpt/commits/{N}"]},
        "tamper": [f"ckpt/offsets/{N - 1}"],
        "batchscope": None,
        "why": "the batch before the last must exist to re-run the last one",
    },
    {
        "name": "offset-log-empty",
        "kill_point": f"as foreach-batch-after-write, then `offsets/{N}` left empty "
                      "(a store without atomic rename)",
        "sources": ["a"],
        "files": 4,
        "sink": "foreach_batch",
        "kill": _fb("after_write"),
        "expect_at_kill": {"present": [f"ckpt/offsets/{N}"], "absent": [f"ckpt/commits/{N}"]},
        "truncate": {f"ckpt/offsets/{N}": 0},
        # The preset's own fault (torn-offset-log@2) leaves offsets/2 empty; every restart
        # fails reading it, with Spark's error quoted in a `query-failed` event.
        "batchscope": {"preset": "torn-offset-log", "trace_has": "restart_error",
                       "event": "query-failed"},
        "why": "an empty latest offset-log entry stops the restart: Spark reads it to re-run "
               "the batch",
    },
    {
        "name": "offset-log-truncated",
        "kill_point": f"as foreach-batch-after-write, then `offsets/{N}` cut to its first 40 "
                      "bytes (a half-written entry)",
        "sources": ["a"],
        "files": 4,
        "sink": "foreach_batch",
        "kill": _fb("after_write"),
        "expect_at_kill": {"present": [f"ckpt/offsets/{N}"], "absent": [f"ckpt/commits/{N}"]},
        "truncate": {f"ckpt/offsets/{N}": 40},
        "batchscope": None,
        "why": "a half-written latest offset-log entry stops the restart too",
    },
]

SCENARIOS += [
    {
        "name": "stateful-aggregation",
        "kill_point": f"running count per source (`state/0/0/`); inside foreachBatch of batch {N}, "
                      "after writing",
        "sources": ["a"],
        "files": 4,
        "sink": "foreach_batch",
        "aggregate": True,
        "kill": _fb("after_write"),
        "expect_at_kill": {
            "present": [f"ckpt/offsets/{N}", "ckpt/state/0/0"],
            "absent": [f"ckpt/commits/{N}"],
        },
        "batchscope": {"preset": "kafka-append", "crash": f"sink-commit@{N}"},
        "why": "the killed attempt already wrote state version N+1; the re-run loads version N and "
               "recomputes the same count, which foreachBatch receives twice",
    },
    {
        "name": "async-progress-tracking",
        "kill_point": "async progress tracking (processing-time trigger, noop sink, checkpoint "
                      f"interval of an hour); in a write task of batch {N} (UDF meets a marker "
                      "row)",
        "sources": ["a"],
        "files": 4,
        "sink": "noop",
        "task_marker": True,
        "async_progress": True,
        # Longer than the run: only the first batch of a run has its offsets and commit
        # written (AsyncOffsetSeqLog.addAsync writes when no write was issued yet or the
        # interval has passed; the commit follows only a written offset entry or the run's
        # first batch), so what is on disk at the kill does not depend on timing.
        "async_interval_ms": 3_600_000,
        "kill": {"at": "task_marker", "batch": N, "marker": f"a{N:02d}-0"},
        "rows_note": "noop sink: keeps no rows",
        "expect_at_kill": {
            "present": ["ckpt/offsets/0", "ckpt/commits/0"],
            "absent": ["ckpt/offsets/1", f"ckpt/offsets/{N}", "ckpt/commits/1"],
        },
        "inspect_args": ["--async-progress-tracking"],
        "show": ["rows"],
        "batchscope": None,
        "why": "offsets and commits are written asynchronously, at most once per checkpoint "
               "interval and always for a run's first batch: with an interval longer than the "
               "run only batch 0's entries are on disk, so the restart goes on from batch 0's "
               "offsets and processes the batches after it again (the file source's own log, "
               "`sources/0/`, is written as each batch is planned: the restart's batch 1 takes "
               "the files logged for batches 1 and 2 and the next one)",
    },
    {
        "name": "source-added-between-runs",
        "kill_point": f"one source; inside foreachBatch of batch {N}, after writing; restarted "
                      "with a second source",
        "sources": ["a"],
        "restart_sources": ["a", "b"],
        "files": 4,
        "sink": "foreach_batch",
        "kill": _fb("after_write"),
        "expect_at_kill": {"present": [f"ckpt/offsets/{N}"], "absent": [f"ckpt/commits/{N}"]},
        "inspect_args": ["--sources", "2"],
        "batchscope": {"preset": "evolution-source-added", "crash": f"sink-commit@{N}",
                       "trace_has": "restart_error", "event": "query-failed"},
        "why": "offset lines are matched to sources by position: one line, two sources",
    },
    {
        "name": "named-sources",
        "min_spark": (4, 2),
        "kill_point": f"two named file sources (offset log v2, source evolution); inside "
                      f"foreachBatch of batch {N}, after writing",
        "sources": ["a", "b"],
        "source_names": ["src_a", "src_b"],
        "files": 4,
        "sink": "foreach_batch",
        "confs": {
            "spark.sql.streaming.queryEvolution.enableSourceEvolution": "true",
            "spark.sql.streaming.offsetLog.formatVersion": "2",
        },
        "kill": _fb("after_write"),
        "expect_at_kill": {
            "present": [f"ckpt/offsets/{N}", "ckpt/sources/src_a"],
            "absent": [f"ckpt/commits/{N}"],
        },
        "inspect_args": ["--sources", "src_a,src_b"],
        "batchscope": {"preset": "kafka-append", "crash": f"sink-commit@{N}"},
        "why": "offset lines and `sources/` folders carry the sources' names; the re-run is the same",
    },
    {
        "name": "named-source-added",
        "min_spark": (4, 2),
        "kill_point": "as named-sources; restarted with a third named source",
        "sources": ["a", "b"],
        "source_names": ["src_a", "src_b"],
        "restart_sources": ["a", "b", "c"],
        "restart_source_names": ["src_a", "src_b", "src_c"],
        "files": 4,
        "sink": "foreach_batch",
        "confs": {
            "spark.sql.streaming.queryEvolution.enableSourceEvolution": "true",
            "spark.sql.streaming.offsetLog.formatVersion": "2",
        },
        "kill": _fb("after_write"),
        "expect_at_kill": {"present": [f"ckpt/offsets/{N}"], "absent": [f"ckpt/commits/{N}"]},
        "inspect_args": ["--sources", "src_a,src_b,src_c"],
        "batchscope": None,
        "why": "with source evolution, sources are matched by name, so a new one can join",
    },
]

SCENARIOS += [
    {
        "name": "input-deleted",
        "kill_point": f"inside foreachBatch of batch {N}, before writing; then the input file "
                      f"batch {N} read deleted; restarted with "
                      "`spark.sql.files.ignoreMissingFiles=false` (the default)",
        "sources": ["a"],
        "files": 4,
        "sink": "foreach_batch",
        "kill": _fb("before_write"),
        "expect_at_kill": {"present": [f"ckpt/offsets/{N}"], "absent": [f"ckpt/commits/{N}"]},
        "tamper": [f"input/a/f{N:02d}.json"],
        "restart_confs": {"spark.sql.files.ignoreMissingFiles": "false"},
        "restart_log_level": "WARN",
        "show": ["rows", "warn:was not found"],
        "batchscope": None,
        "why": "the re-run lists the files the source logged for the batch as root paths; one "
               "that is gone is dropped with a warning, even without ignoreMissingFiles: its "
               "rows are lost",
    },
    {
        "name": "input-deleted-ignore-missing",
        "kill_point": "as input-deleted, restarted with "
                      "`spark.sql.files.ignoreMissingFiles=true`",
        "sources": ["a"],
        "files": 4,
        "sink": "foreach_batch",
        "kill": _fb("before_write"),
        "expect_at_kill": {"present": [f"ckpt/offsets/{N}"], "absent": [f"ckpt/commits/{N}"]},
        "tamper": [f"input/a/f{N:02d}.json"],
        "restart_confs": {"spark.sql.files.ignoreMissingFiles": "true"},
        "restart_log_level": "WARN",
        "show": ["rows", "warn:was not found"],
        "batchscope": None,
        "why": "the same with ignoreMissingFiles: the missing file is skipped the same way",
    },
    {
        "name": "max-files-changed",
        "kill_point": f"right after `offsets/{N}` was written; restarted with "
                      "`maxFilesPerTrigger=3`",
        "sources": ["a"],
        "files": 6,
        "sink": "foreach_batch",
        "kill": _watch(f"ckpt/offsets/{N}"),
        "expect_at_kill": {"present": [f"ckpt/offsets/{N}"], "absent": [f"ckpt/commits/{N}"]},
        "restart_max_files": 3,
        "show": ["rows"],
        "batchscope": {"preset": "kafka-append", "crash": f"offset-log@{N}"},
        "why": f"`offsets/{N}` is final: the re-run reads the file(s) logged for it, the new "
               f"limit applies from batch {N + 1}",
    },
    {
        "name": "shuffle-partitions-changed",
        "kill_point": "as stateful-aggregation (1 shuffle partition); restarted with "
                      "`spark.sql.shuffle.partitions=3`",
        "sources": ["a"],
        "files": 4,
        "sink": "foreach_batch",
        "aggregate": True,
        "kill": _fb("after_write"),
        "expect_at_kill": {
            "present": [f"ckpt/offsets/{N}", "ckpt/state/0/0"],
            "absent": [f"ckpt/commits/{N}"],
        },
        "restart_confs": {"spark.sql.shuffle.partitions": "3"},
        "inspect_args": ["--conf", "spark.sql.shuffle.partitions=3"],
        "restart_log_level": "WARN",
        "show": ["warn:Updating the value of conf", "state_partitions"],
        "batchscope": {"preset": "kafka-append", "crash": f"sink-commit@{N}"},
        "why": "the offset log's shuffle partitions win over the session's for the state, which "
               "keeps its one partition (Spark 4.1+ restores them into an internal conf for "
               "stateful operators only, SPARK-53942)",
    },
]

SCENARIOS += [
    {
        "name": "two-drivers",
        "kill_point": f"two drivers on one checkpoint: driver 1 waits inside foreachBatch of "
                      f"batch {N} after writing (not killed); driver 2 runs the same query on "
                      "the same checkpoint to the end; then driver 1 goes on",
        "sources": ["a"],
        "files": 4,
        "sink": "foreach_batch",
        "second_driver": True,
        "kill": _fb("block"),
        "expect_at_kill": {"present": [f"ckpt/offsets/{N}"], "absent": [f"ckpt/commits/{N}"]},
        "show": ["drivers"],
        # The preset's own fault (second-driver@2) starts the second driver in batch 2.
        "batchscope": {"preset": "two-drivers", "trace_has": "first_driver_error",
                       "event": "driver-lost-log-race"},
        "why": "nothing stops a second driver on a checkpoint in use: it re-runs the "
               "uncommitted batch and commits it; the first driver's commit of the same batch "
               "then finds the entry written and fails, after its sink had written the rows",
    },
]
