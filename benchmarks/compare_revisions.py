"""Executions per second of two checkouts of lambdafuzz, side by side in one run.

    .venv/bin/python benchmarks/compare_revisions.py BEFORE_DIR [AFTER_DIR]
        [--lambdas gradebook,csv_loader] [--execs 400] [--rounds 3] [--strategy zest]

BEFORE_DIR and AFTER_DIR are source trees (e.g. `git worktree add /tmp/before <commit>`;
AFTER_DIR defaults to this checkout).  Each round runs the same seeded campaign with each
tree, alternating, so both see the same machine load; the table gives the median rate of
each and their ratio.  The same interpreter and installed dependencies serve both trees
(the tree is put first on PYTHONPATH).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def campaign_rate(tree: Path, lambda_dir: Path, execs: int, strategy: str, seed: int) -> float:
    """Execs/s of one campaign run with the lambdafuzz of `tree`."""
    with tempfile.TemporaryDirectory() as out:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        command = [sys.executable, "-m", "lambdafuzz", "fuzz", str(lambda_dir)]
        command += ["--execs", str(execs), "--seed", str(seed), "--strategy", strategy]
        command += ["--out", out, "--quiet"]
        done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=tree)
        if done.returncode not in (0, 1):
            raise SystemExit(f"{tree}: {' '.join(command)} failed:\n{done.stderr[-2000:]}")
        return float(json.loads((Path(out) / "stats.json").read_text())["execs_per_sec"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path, nargs="?", default=REPO)
    parser.add_argument("--lambdas", default="gradebook,csv_loader,contracts")
    parser.add_argument("--execs", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--strategy", default="zest")
    args = parser.parse_args()
    print(
        f"{'lambda':<14} {'before/s':>9} {'after/s':>9} {'after/before':>13}   (median of {args.rounds})"
    )
    for name in args.lambdas.split(","):
        lambda_dir = REPO / "benchmarks" / "lambdas" / name
        rates: dict[str, list[float]] = {"before": [], "after": []}
        for round_ in range(args.rounds):
            for label, tree in (("before", args.before), ("after", args.after)):
                rates[label].append(
                    campaign_rate(tree, lambda_dir, args.execs, args.strategy, round_)
                )
        before = statistics.median(rates["before"])
        after = statistics.median(rates["after"])
        print(f"{name:<14} {before:>9.1f} {after:>9.1f} {after / before:>13.2f}", flush=True)


if __name__ == "__main__":
    main()
