"""The cost per test of the sandbox's isolation, side by side with the commit before it.

    .venv/bin/python benchmarks/isolation_cost.py [--before REV] [--lambdas gradebook]
        [--execs 1500] [--rounds 5] [--strategy zest]

The commit before the sandbox hardening (a clean environment for every process started,
the user's home hidden and the code read-only in the worker's mount namespace, a cgroup
per worker swept after every test, the working directory restored, the guard's closed
bypasses) is checked out into a temporary git worktree; each round runs the same seeded
campaign with it and with this checkout, alternating, so both see the same machine load
(`compare_revisions.campaign_rate`).  The table gives the median execs/s of each, the
milliseconds per test and the added cost as a share of the earlier test (the target: under
5% of a gradebook test).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from compare_revisions import REPO, campaign_rate  # noqa: E402

#: The last commit before the sandbox hardening's first change.
BEFORE = "6a59b47"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE, help="the commit to compare with")
    parser.add_argument("--lambdas", default="gradebook")
    parser.add_argument("--execs", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--strategy", default="zest")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        before = Path(scratch) / "before"
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(before), args.before],
            check=True,
        )
        try:
            print(
                f"{'lambda':<14} {'before/s':>9} {'after/s':>9} {'before ms':>10} "
                f"{'after ms':>9} {'added':>7}   (median of {args.rounds}, {args.execs} execs)"
            )
            for name in args.lambdas.split(","):
                lambda_dir = REPO / "benchmarks" / "lambdas" / name
                rates: dict[str, list[float]] = {"before": [], "after": []}
                for round_ in range(args.rounds):
                    for which, tree in (("before", before), ("after", REPO)):
                        rate = campaign_rate(tree, lambda_dir, args.execs, args.strategy, round_)
                        rates[which].append(rate)
                then, now = (statistics.median(rates[w]) for w in ("before", "after"))
                then_ms, now_ms = 1000.0 / then, 1000.0 / now
                print(
                    f"{name:<14} {then:>9.1f} {now:>9.1f} {then_ms:>10.3f} {now_ms:>9.3f} "
                    f"{100.0 * (now_ms - then_ms) / then_ms:>+6.1f}%"
                )
                print(f"  rounds before: {rates['before']}\n  rounds after:  {rates['after']}")
        finally:
            subprocess.run(
                ["git", "-C", str(REPO), "worktree", "remove", "--force", str(before)],
                check=False,
            )


if __name__ == "__main__":
    main()
