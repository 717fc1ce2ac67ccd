"""What recording caught exceptions (harness.handled) costs per test, and per catch.

    .venv/bin/python benchmarks/handled_cost.py [--tests 300] [--rounds 5]

Modes, alternated within each round: `branch` (the branch collector alone, as before) and
`branch+handled` (the same collector with `handled=True`: EXCEPTION_HANDLED is a global
event, so every catch anywhere runs the callback, which keeps only application catches).
Workloads, each a handler running under moto in-process like a worker's:
  s3        put_object + get_object of a 3-row CSV (botocore and moto catch exceptions
            internally on every call: the library-catch cost), no catch in the app
  s3-catch  the same with a 300-row CSV whose every 5th row makes the app catch a
            ValueError (60 application catches per test, past the per-test cap of 32)
Reported: the median time per test of each mode and the difference in microseconds; then
the callback alone, per library catch and per application catch.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

APP = """
import csv
import io

import boto3

s3 = boto3.client("s3", region_name="us-east-1")


def lambda_handler(event, context=None):
    key = event["key"]
    s3.put_object(Bucket="bench-bucket", Key=key, Body=event["payload"].encode())
    data = s3.get_object(Bucket="bench-bucket", Key=key)["Body"].read().decode()
    total = 0
    for row in csv.reader(io.StringIO(data)):
        try:
            total += int(row[1])
        except ValueError:
            total -= 1
    return total


def catch_once():
    try:
        return {}["k"]
    except KeyError:
        return None
"""


def payload(rows: int, bad_every: int) -> str:
    return "".join(
        f"id{i},{'x' if bad_every and i % bad_every == 0 else i % 7}\n" for i in range(rows)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    import boto3
    from moto import mock_aws

    from lambdafuzz.harness.measure.coverage import BranchCollector

    app_dir = Path(tempfile.mkdtemp(prefix="handled-bench-")) / "benchapp"
    app_dir.mkdir()
    (app_dir / "__init__.py").write_text("")
    (app_dir / "handler.py").write_text(APP)
    sys.path.insert(0, str(app_dir.parent))
    os.environ.update(AWS_ACCESS_KEY_ID="x", AWS_SECRET_ACCESS_KEY="x")
    workloads = {"s3": payload(3, 0), "s3-catch": payload(300, 5)}
    with mock_aws():
        boto3.client("s3", region_name="us-east-1").create_bucket(Bucket="bench-bucket")
        handler = importlib.import_module("benchapp.handler")
        for name, body in workloads.items():
            times: dict[str, list[float]] = {"branch": [], "branch+handled": []}
            for _ in range(args.rounds):
                for mode in times:
                    collector = BranchCollector([app_dir], handled=mode != "branch")
                    collector.start()
                    gc.collect()
                    start = time.perf_counter()
                    for i in range(args.tests):
                        collector.begin()
                        handler.lambda_handler({"key": f"k{i % 20}", "payload": body})
                        collector.end()
                        if collector.handled is not None:
                            collector.handled.take()
                    times[mode].append((time.perf_counter() - start) / args.tests)
                    collector.stop()
            base = statistics.median(times["branch"])
            rec = statistics.median(times["branch+handled"])
            print(
                f"{name:9s} branch {base * 1e3:7.3f} ms/test  branch+handled "
                f"{rec * 1e3:7.3f} ms/test  difference {(rec - base) * 1e6:+7.1f} us/test "
                f"({100.0 * (rec - base) / base:+.1f}%)"
            )
    # the callback alone: a catch in library code (json) and one in application code
    import json

    def library_catch() -> None:
        try:
            json.loads("{")
        except ValueError:
            pass

    n = 200_000
    for label, fn in (("library catch", library_catch), ("app catch", handler.catch_once)):
        per = {}
        for mode in ("branch", "branch+handled"):
            collector = BranchCollector([app_dir], handled=mode != "branch")
            collector.start()
            best = float("inf")
            for _ in range(args.rounds):
                collector.begin()
                start = time.perf_counter()
                for _ in range(n):
                    fn()
                best = min(best, (time.perf_counter() - start) / n)
            collector.stop()
            per[mode] = best
        extra = (per["branch+handled"] - per["branch"]) * 1e9
        print(
            f"{label:13s} {per['branch'] * 1e9:6.0f} ns -> {per['branch+handled'] * 1e9:6.0f} ns ({extra:+.0f} ns per catch)"
        )


if __name__ == "__main__":
    main()
