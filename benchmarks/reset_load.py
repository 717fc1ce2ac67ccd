"""Reset + load per test, side by side: moto's backend objects vs boto3 vs moto-server.

    .venv/bin/python benchmarks/reset_load.py [--iterations 2000] [--slow-iterations 200]
                                              [--growth-tests 3000] [--json OUT]

The world is the issue's reference: 1 bucket x 5 objects (3 KB CSV each), 1 table x 5
items, 1 queue x 3 messages (sent and received, as Lambda's poller does).

Modes:
  direct        MotoBackend, in-process moto, MotoDirectLoader (the default backend)
  boto3         MotoBackend, in-process moto, Boto3Loader (plain boto3 calls)
  moto-server   MotoServerBackend, ThreadedMotoServer on 127.0.0.1, reset via /moto-api/reset

Reported per mode: wall ms per test (median, p90) for reset, load and both, and CPU ms
(median; process time, so the server thread's work counts). Then the reset time over
`--growth-tests` tests (first-100 vs last-100 median) with moto's model-instance tracking
cleared on reset (what MotoBackend does) and, for contrast, not cleared.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lambdafuzz.harness.emulator.backends import Backend, MotoBackend, MotoServerBackend  # noqa: E402
from lambdafuzz.harness.sandbox.safety import apply_sandbox_env  # noqa: E402
from lambdafuzz.model.world import (  # noqa: E402
    Bucket,
    KeySchema,
    Queue,
    QueueMessage,
    S3Object,
    Table,
    World,
)


def reference_world() -> World:
    rows = "\n".join(
        f"{i},student-{i},{(i * 37) % 100},2024-0{1 + i % 9}-1{i % 10}" for i in range(120)
    )
    csv = ("id,name,score,date\n" + rows).encode()[:3000]
    objects = tuple(
        S3Object(f"incoming/grades-{i}.csv", csv, "text/csv", "csv", (("uploaded-by", "bench"),))
        for i in range(5)
    )
    items = tuple(
        {
            "id": {"S": f"student-{i}"},
            "ts": {"N": str(1_700_000_000 + i)},
            "score": {"N": str(50 + i)},
            "tags": {"SS": ["a", f"t{i}"]},
            "profile": {"M": {"age": {"N": "20"}, "active": {"BOOL": True}}},
        }
        for i in range(5)
    )
    messages = tuple(
        QueueMessage(f'{{"job": {i}, "key": "incoming/grades-{i}.csv"}}') for i in range(3)
    )
    return World(
        buckets=(Bucket("bench-uploads", objects),),
        tables=(Table("bench-grades", KeySchema("id", "S", "ts", "N"), items),),
        queues=(Queue("bench-jobs", messages),),
    )


@dataclass(slots=True)
class Row:
    mode: str
    tests: int
    reset_median_ms: float
    load_median_ms: float
    total_median_ms: float
    total_p90_ms: float
    total_cpu_median_ms: float


def _ms(values: list[float], q: float = 0.5) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure(mode: str, backend: Backend, world: World, tests: int, warmup: int = 20) -> Row:
    resets, loads, totals, cpus = [], [], [], []
    gc.collect()
    for i in range(warmup + tests):
        c0 = time.process_time()
        t0 = time.perf_counter()
        backend.reset()
        t1 = time.perf_counter()
        backend.load(world)
        t2 = time.perf_counter()
        c1 = time.process_time()
        if i >= warmup:
            resets.append(t1 - t0)
            loads.append(t2 - t1)
            totals.append(t2 - t0)
            cpus.append(c1 - c0)
    return Row(
        mode,
        tests,
        _ms(resets),
        _ms(loads),
        _ms(totals),
        _ms(totals, 0.9),
        _ms(cpus),
    )


def growth(world: World, tests: int, clear_tracking: bool) -> tuple[float, float]:
    """Median reset ms of the first and last 100 of `tests` reset+load cycles."""
    backend = MotoBackend(clear_model_tracking=clear_tracking)
    backend.start()
    resets = []
    try:
        for _ in range(tests):
            t0 = time.perf_counter()
            backend.reset()
            resets.append(time.perf_counter() - t0)
            backend.load(world)
    finally:
        backend.stop()
    return _ms(resets[:100]), _ms(resets[-100:])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--iterations", type=int, default=2000, help="tests for the direct loader")
    parser.add_argument(
        "--slow-iterations", type=int, default=200, help="tests for boto3 and moto-server"
    )
    parser.add_argument("--growth-tests", type=int, default=3000)
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    args = parser.parse_args()
    world = reference_world()
    rows: list[Row] = []

    with apply_sandbox_env():
        for mode, tests in (("direct", args.iterations), ("boto3", args.slow_iterations)):
            backend = MotoBackend(loader=mode)  # type: ignore[arg-type]
            backend.start()
            try:
                rows.append(measure(mode, backend, world, tests))
            finally:
                backend.stop()
        server = MotoServerBackend()
        server.start()
        try:
            rows.append(measure("moto-server", server, world, args.slow_iterations))
        finally:
            server.stop()
        first, last = growth(world, args.growth_tests, clear_tracking=True)
        first_nc, last_nc = growth(world, args.growth_tests, clear_tracking=False)

    print(
        "reset+load per test, world: 1 bucket x 5 objects (3 KB), 1 table x 5 items, 1 queue x 3 messages"
    )
    print(
        f"{'mode':<12} {'tests':>6} {'reset ms':>9} {'load ms':>9} {'total ms':>9} {'p90 ms':>8} {'cpu ms':>8}"
    )
    for r in rows:
        print(
            f"{r.mode:<12} {r.tests:>6} {r.reset_median_ms:>9.3f} {r.load_median_ms:>9.3f} "
            f"{r.total_median_ms:>9.3f} {r.total_p90_ms:>8.3f} {r.total_cpu_median_ms:>8.3f}"
        )
    direct = rows[0]
    for r in rows[1:]:
        print(
            f"direct is {r.total_median_ms / direct.total_median_ms:.1f}x faster than {r.mode} (median)"
        )
    print(
        f"target: direct median < 1 ms: {'met' if direct.total_median_ms < 1 else 'MISSED'} "
        f"({direct.total_median_ms:.3f} ms); >= 10x boto3: "
        f"{'met' if rows[1].total_median_ms >= 10 * direct.total_median_ms else 'MISSED'}"
    )
    print(f"reset over {args.growth_tests} tests (median ms, first 100 -> last 100):")
    print(f"  model tracking cleared (MotoBackend): {first:.3f} -> {last:.3f}")
    print(f"  not cleared (for contrast):           {first_nc:.3f} -> {last_nc:.3f}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "rows": [asdict(r) for r in rows],
                    "growth": {
                        "tests": args.growth_tests,
                        "cleared": [first, last],
                        "not_cleared": [first_nc, last_nc],
                    },
                },
                indent=2,
            )
        )


if __name__ == "__main__":
    main()
