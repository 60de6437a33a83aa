#!/usr/bin/env python3
"""Explore one scenario on Spark: `batchscope explore … --shard K/N` for K = 1 … N as the tasks
of a pyspark job, merged with `batchscope explore merge` into exactly what one process prints.

    .venv/bin/python scripts/explore-on-spark.py --shards 2 -- --preset tablestore --every-event --depth 2

Everything after `--` goes to `batchscope explore` as it is; `--json` here asks the merge for
JSON. The job runs on `local[N]` unless `--master` names a cluster, where every executor needs
the same `batchscope` binary at the same path (shards of different builds refuse to merge).
Each task's time goes to stderr, with the job's, so a run says how the shards shared the work.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shards", type=int, default=2, help="N: shards, one Spark task each")
    ap.add_argument("--master", default=None, help="Spark master (default local[N])")
    ap.add_argument(
        "--batchscope",
        default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "batchscope"),
        help="the batchscope binary every task runs",
    )
    ap.add_argument("--json", action="store_true", help="print the merged result as JSON")
    ap.add_argument("explore", nargs=argparse.REMAINDER, help="-- then `batchscope explore` arguments")
    args = ap.parse_args()
    args.explore = [a for a in args.explore if a != "--"] if args.explore[:1] == ["--"] else args.explore
    if args.shards < 1:
        ap.error("--shards must be at least 1")
    if not args.explore:
        ap.error("give the exploration after --, e.g. -- --preset tablestore --every-event --depth 2")
    args.batchscope = os.path.abspath(args.batchscope)
    if not os.access(args.batchscope, os.X_OK):
        ap.error(f"{args.batchscope}: not an executable batchscope binary (cargo build --release -p batchscope-cli)")
    return args


def shard_task(binary, explore, count):
    """The function each Spark task runs: one shard, its report and its time."""

    def run(index):
        start = time.monotonic()
        out = subprocess.run(
            [binary, "explore", *explore, "--shard", f"{index}/{count}"],
            capture_output=True,
            text=True,
        )
        if out.returncode != 0:
            raise RuntimeError(f"shard {index}/{count}: {out.stderr.strip()}")
        return index, out.stdout, time.monotonic() - start

    return run


def main():
    args = parse_args()
    from pyspark.sql import SparkSession

    n = args.shards
    spark = (
        SparkSession.builder.master(args.master or f"local[{n}]")
        .appName("batchscope-explore")
        .config("spark.ui.enabled", "false")
        .config("spark.task.maxFailures", "1")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    try:
        started = time.monotonic()
        task = shard_task(args.batchscope, args.explore, n)
        results = spark.sparkContext.parallelize(range(1, n + 1), n).map(task).collect()
        elapsed = time.monotonic() - started
    finally:
        spark.stop()
    for index, _, secs in sorted(results):
        print(f"shard {index}/{n}: {secs:.2f} s", file=sys.stderr)
    print(f"job: {elapsed:.2f} s for {n} shard(s)", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="batchscope-shards-") as folder:
        paths = []
        for index, report, _ in sorted(results):
            path = os.path.join(folder, f"shard-{index}-of-{n}.json")
            with open(path, "w") as f:
                f.write(report)
            paths.append(path)
        merge = [args.batchscope, "explore", "merge", *paths] + (["--json"] if args.json else [])
        out = subprocess.run(merge, capture_output=True, text=True)
    if out.returncode != 0:
        print(out.stderr.strip(), file=sys.stderr)
        return out.returncode
    sys.stdout.write(out.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
