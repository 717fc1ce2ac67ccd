"""What each deployment oracle costs per test: campaigns with it on and off, side by side.

    .venv/bin/python benchmarks/oracle_cost.py [--execs 300] [--rounds 5] [--oracles ...]

For each oracle, a fixture app it checks (tests/e2e/oracles/apps/, tests/fuzzer/batch_orders/)
is fuzzed with the same seed and budget with the oracle on and with `--no-oracle KIND`,
the two modes alternated within each round (the machine is shared and noisy: only
differences inside a round are compared). Per campaign, from its stats.json: the wall time
per test (elapsed / executions: everything the campaign does) and the handler time per test
(the permission oracle's hook runs inside the handler's AWS calls). Reported: the medians
over rounds of each mode and of the paired differences, in milliseconds per test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True, slots=True)
class Fixture:
    """An app the oracle has work on: where, which config, the campaign's out subfolder."""

    folder: Path
    config: str
    function: str = ""  # a template's function, given with --function


FIXTURES = {
    "permissions": Fixture(REPO / "tests/e2e/oracles/apps/invoice_import", "template.yaml", "ImportFunction"),
    "batch": Fixture(REPO / "tests/fuzzer/batch_orders", "lambdafuzz.yaml"),
    "idempotency": Fixture(REPO / "tests/e2e/oracles/apps/orders_queue", "template.yaml", "UuidIntakeFunction"),
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Run:
    execs: int
    wall_ms: float  # per test
    handler_ms: float  # per test


def campaign(fixture: Fixture, execs: int, seed: int, off: str | None, out: Path) -> Run:
    command = [sys.executable, "-m", "lambdafuzz", "fuzz", fixture.config]
    if fixture.function:
        command += ["--function", fixture.function]
    command += ["--execs", str(execs), "--seed", str(seed), "--out", str(out), "--quiet"]
    if off:
        command += ["--no-oracle", off]
    subprocess.run(command, cwd=fixture.folder, capture_output=True, check=False)
    stats_file = out / "stats.json"  # --function: the campaign writes into OUT itself
    stats = json.loads(stats_file.read_text())
    done = max(1, int(stats["execs"]))
    return Run(
        done,
        1000.0 * float(stats["elapsed_s"]) / done,
        1000.0 * float(stats["time_in_handler_s"]) / done,
    )


def measure(kind: str, execs: int, rounds: int) -> dict[str, float]:
    fixture = FIXTURES[kind]
    on: list[Run] = []
    off: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="oracle-cost-") as scratch:
        for index in range(rounds):
            modes = [None, kind] if index % 2 == 0 else [kind, None]
            for mode in modes:
                out = Path(scratch) / f"{kind}-{index}-{'off' if mode else 'on'}"
                run = campaign(fixture, execs, index, mode, out)
                (off if mode else on).append(run)
    wall = [a.wall_ms - b.wall_ms for a, b in zip(on, off, strict=True)]
    handler = [a.handler_ms - b.handler_ms for a, b in zip(on, off, strict=True)]
    return {
        "wall_on": statistics.median(r.wall_ms for r in on),
        "wall_off": statistics.median(r.wall_ms for r in off),
        "wall_diff": statistics.median(wall),
        "handler_on": statistics.median(r.handler_ms for r in on),
        "handler_off": statistics.median(r.handler_ms for r in off),
        "handler_diff": statistics.median(handler),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--execs", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--oracles", default=",".join(FIXTURES))
    args = parser.parse_args(argv)
    print(
        f"oracle cost: {args.execs} executions per campaign, {args.rounds} rounds, on/off alternated"
    )
    print(
        "| oracle | fixture | wall ms/test on | off | diff (median of pairs) | handler ms/test on | off | diff |"
    )
    print("| :-- | :-- | --: | --: | --: | --: | --: | --: |")
    for kind in args.oracles.split(","):
        m = measure(kind, args.execs, args.rounds)
        fixture = FIXTURES[kind].folder.relative_to(REPO)
        print(
            f"| {kind} | {fixture} | {m['wall_on']:.2f} | {m['wall_off']:.2f} | "
            f"{m['wall_diff']:+.2f} | {m['handler_on']:.2f} | {m['handler_off']:.2f} | "
            f"{m['handler_diff']:+.2f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
