"""Invoke each benchmark lambda on N sampled worlds and print the mix of outcomes.

Every world is fresh from the lambda's own config (no mutation, no feedback), run in a
worker with the config's timeout, so a hang would show up as HANG.

Usage: python benchmarks/outcome_mix.py [--count 200] [--lambdas gradebook,unzip]
"""

from __future__ import annotations

import argparse
import collections
import time
from pathlib import Path

from lambdafuzz.config import load_config
from lambdafuzz.generators.core import ReplayMode
from lambdafuzz.harness.process.pool import WorkerPool
from lambdafuzz.harness.process.protocol import TestRequest, WorkerSpec
from lambdafuzz.model.outcome import Status

LAMBDAS = Path(__file__).parent / "lambdas"


def outcome_mix(name: str, count: int) -> tuple[collections.Counter[str], float]:
    target = load_config(LAMBDAS / name)
    pool = WorkerPool(WorkerSpec(target=target), 1)
    mix: collections.Counter[str] = collections.Counter()
    start = time.monotonic()
    try:
        requests = (TestRequest({}, seed, ReplayMode.EXECUTION_INDEXED) for seed in range(count))
        for _, result in pool.imap(requests):
            if result.status is Status.VALID:
                mix["returned"] += 1
            elif result.status is Status.INVALID:
                mix["invalid" + (" (generator error)" if result.generator_error else "")] += 1
            elif result.status is Status.HANG:
                mix["HANG"] += 1
            else:
                mix[f"raised {result.failure.exception_type.rsplit('.', 1)[-1]}"] += 1
    finally:
        pool.close()
    return mix, time.monotonic() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument(
        "--lambdas", default=",".join(sorted(p.name for p in LAMBDAS.iterdir() if p.is_dir()))
    )
    args = parser.parse_args()
    for name in args.lambdas.split(","):
        mix, seconds = outcome_mix(name, args.count)
        parts = ", ".join(f"{k} {v}" for k, v in mix.most_common())
        print(f"{name:<16} {args.count} worlds in {seconds:5.1f} s: {parts}", flush=True)


if __name__ == "__main__":
    main()
