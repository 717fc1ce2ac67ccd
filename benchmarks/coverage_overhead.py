"""Overhead of branch coverage on a handler that talks to S3 under moto, side by side.

    .venv/bin/python benchmarks/coverage_overhead.py [--tests 200] [--rounds 5]

Modes, run in rotating order within each round so drift hits all of them alike:
  none              no coverage at all
  lambdafuzz        harness.coverage.BranchCollector, begin()/end() around every test
  settrace-minimal  a sys.settrace tracer recording line arcs of the app file only
  coveragepy-c      coverage.py, branch=True, CTracer (settrace in C), app file only
  coveragepy-py     coverage.py, branch=True, timid=True (PyTracer), app file only

Workloads: `s3` is a handler doing put_object + get_object of a 3-row CSV and a few
branches; `s3-csv300` is the same handler parsing a 300-row CSV (many branch events in
application code, where the collector's per-event callback shows). Reported: tests per
CPU second (median over rounds) and slowdown against `none`.
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
from collections.abc import Callable
from pathlib import Path

from moto.core.model_instances import reset_model_data

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

APP = """
import csv
import io
import json

import boto3

BUCKET = "bench-bucket"
s3 = boto3.client("s3", region_name="us-east-1")


def lambda_handler(event, context=None):
    results = []
    for record in event["Records"]:
        key = record["s3"]["object"]["key"]
        if not key.endswith(".csv"):
            results.append("skip")
            continue
        s3.put_object(Bucket=BUCKET, Key=key, Body=event["payload"].encode())
        data = s3.get_object(Bucket=BUCKET, Key=key)["Body"].read().decode()
        total = 0
        rows = 0
        for row in csv.reader(io.StringIO(data)):
            if not row:
                continue
            if len(row) < 2:
                raise ValueError("short row")
            try:
                total += int(row[1])
            except ValueError:
                total -= 1
            rows += 1
        results.append(total if rows else None)
    return {"statusCode": 200 if results else 204, "body": json.dumps(results)}
"""

TestsT = list[dict]


def make_events(n: int, rows: int) -> TestsT:
    payload = "".join(f"id{i},{i % 7 if i % 5 else 'x'}\n" for i in range(rows))
    events = []
    for i in range(n):
        key = f"in/{i % 50}.csv" if i % 10 else f"in/{i % 50}.txt"
        events.append({"Records": [{"s3": {"object": {"key": key}}}], "payload": payload})
    return events


def run_tests(handler: Callable, events: TestsT, per_test: Callable[[], None] | None) -> float:
    """CPU seconds of this process for all tests (other engineers' jobs share the box, so
    wall time drifts); per_test brackets each test like the fuzz loop would."""
    reset_model_data()  # moto's instance tracking grows with every put_object otherwise
    gc.collect()
    t0 = time.process_time()
    for event in events:
        if per_test is not None:
            per_test()
        handler(event)
        if per_test is not None:
            per_test()
    return time.process_time() - t0


class Mode:
    """A way of running the tests: set up once per round, maybe something per test."""

    name = "none"

    def __init__(self, app_file: str, app_dir: str) -> None:
        self.app_file, self.app_dir = app_file, app_dir

    def start(self) -> None: ...

    def stop(self) -> None: ...

    per_test: Callable[[], None] | None = None


class Ours(Mode):
    name = "lambdafuzz"

    def start(self) -> None:
        from lambdafuzz.harness.measure.coverage import BranchCollector

        self.col = BranchCollector([self.app_dir])
        self.col.start()
        self.arms: set = set()
        self._in_test = False

        def per_test() -> None:
            if self._in_test:
                self.arms |= self.col.end().arms
            else:
                self.col.begin()
            self._in_test = not self._in_test

        self.per_test = per_test

    def stop(self) -> None:
        self.col.stop()


class MinimalSettrace(Mode):
    name = "settrace-minimal"

    def start(self) -> None:
        arcs: set[tuple[int, int]] = set()
        app = self.app_file

        def global_trace(frame, event, arg):
            if frame.f_code.co_filename != app:
                return None
            last = [frame.f_lineno]

            def local_trace(frame, event, arg):
                if event == "line":
                    arcs.add((last[0], frame.f_lineno))
                    last[0] = frame.f_lineno
                return local_trace

            return local_trace

        self.arcs = arcs
        sys.settrace(global_trace)

    def stop(self) -> None:
        sys.settrace(None)


class CoveragePy(Mode):
    name = "coveragepy-c"
    timid = False

    def start(self) -> None:
        import coverage

        self.cov = coverage.Coverage(
            branch=True, data_file=None, include=[self.app_file], timid=self.timid
        )
        self.cov.start()

    def stop(self) -> None:
        self.cov.stop()


class CoveragePyTimid(CoveragePy):
    name = "coveragepy-py"
    timid = True


MODES = [Mode, Ours, MinimalSettrace, CoveragePy, CoveragePyTimid]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tests", type=int, default=200, help="tests per mode per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workload", choices=["s3", "s3-csv300", "all"], default="all")
    args = parser.parse_args()

    os.environ.update(
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_SESSION_TOKEN="testing",
        AWS_DEFAULT_REGION="us-east-1",
    )
    os.environ.pop("AWS_PROFILE", None)
    import boto3
    from moto import mock_aws

    workloads = {"s3": 3, "s3-csv300": 300}
    if args.workload != "all":
        workloads = {args.workload: workloads[args.workload]}

    with tempfile.TemporaryDirectory() as tmp, mock_aws():
        app_dir = Path(tmp) / "benchapp"
        app_dir.mkdir()
        (app_dir / "__init__.py").write_text("")
        (app_dir / "handler.py").write_text(APP)
        sys.path.insert(0, tmp)
        boto3.client("s3", region_name="us-east-1").create_bucket(Bucket="bench-bucket")
        app = importlib.import_module("benchapp.handler")
        app_file = os.path.realpath(app.__file__)

        print(
            f"python {sys.version.split()[0]}, {args.tests} tests x {args.rounds} rounds per mode"
        )
        for workload, rows in workloads.items():
            events = make_events(args.tests, rows)
            modes = [cls(app_file, str(app_dir)) for cls in MODES]
            for mode in modes:  # warm up moto, botocore caches and the collector's decisions
                mode.start()
                run_tests(app.lambda_handler, events[:20], mode.per_test)
                mode.stop()
            rates: dict[str, list[float]] = {m.name: [] for m in modes}
            for r in range(args.rounds):
                order = modes[r % len(modes) :] + modes[: r % len(modes)]
                for mode in order:
                    mode.start()
                    seconds = run_tests(app.lambda_handler, events, mode.per_test)
                    mode.stop()
                    rates[mode.name].append(len(events) / seconds)
            base = statistics.median(rates["none"])
            ours = next(m for m in modes if isinstance(m, Ours))
            print(
                f"\nworkload {workload}: app arms hit {len(ours.arms)} of {ours.col.total_arms()}"
            )
            print(f"{'mode':<18}{'tests/s':>10}{'slowdown':>10}   per-round tests/s")
            for name, rs in rates.items():
                med = statistics.median(rs)
                spread = " ".join(f"{x:.0f}" for x in rs)
                print(f"{name:<18}{med:>10.1f}{base / med:>9.2f}x   {spread}")


if __name__ == "__main__":
    main()
