"""Draws per second of a composite generator, fresh and replayed in both modes.

Usage: python benchmarks/choices_throughput.py [--seconds S]
"""

from __future__ import annotations

import argparse
import time

from lambdafuzz.generators.core import Choices, ReplayMode
from lambdafuzz.generators.file_attributes import file_attributes


def measure(make_choices, seconds: float) -> tuple[float, float]:
    draws = values = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(200):
            choices = make_choices(values)
            file_attributes(choices)
            draws += choices.count
            values += 1
    return draws / elapsed, values / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    recordings = []
    for seed in range(200):
        c = Choices(seed=seed)
        file_attributes(c)
        recordings.append(c.recording())
    linear = [r.values() for r in recordings]
    by_ei = [r.by_ei() for r in recordings]
    rows = [
        ("fresh (RNG)", lambda i: Choices(seed=i)),
        ("replay linear", lambda i: Choices(linear[i % 200], seed=i)),
        (
            "replay EI",
            lambda i: Choices(by_ei[i % 200], seed=i, mode=ReplayMode.EXECUTION_INDEXED),
        ),
    ]
    print(f"{'mode':<16}{'draws/s':>12}{'values/s':>12}")
    for name, make in rows:
        draws, values = measure(make, args.seconds)
        print(f"{name:<16}{draws:>12,.0f}{values:>12,.0f}")


if __name__ == "__main__":
    main()
