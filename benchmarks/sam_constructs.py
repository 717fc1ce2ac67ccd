"""Every construct app of tests/e2e/constructs fuzzed over several seeds: admissible only?

    python benchmarks/sam_constructs.py [--seeds 0,1,2] [--execs 1000] [--apps a,b]

Each app is a SAM application whose handler is correct for every event its deployment
admits and fails only through its planted bugs (its `expect.yaml`).  For each app and seed
this runs `lambdafuzz fuzz` as a user would and prints whether every planted bug was found
(and at which execution first), and every saved failure that is none of them — a failure
the deployment could never deliver.  `make test` runs each app once (seed 0); this is the
sweep over seeds.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.e2e.constructs.harness import all_apps, fuzz_app  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="0,1,2", help="comma-separated campaign seeds")
    parser.add_argument("--execs", type=int, default=1000, help="executions per campaign")
    parser.add_argument("--apps", default="", help="comma-separated app names (default: all)")
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",") if s]
    wanted = {a for a in args.apps.split(",") if a}
    apps = [a for a in all_apps() if not wanted or a.name in wanted]
    bad = 0
    print(f"{'app':28} {'seed':>4} {'found':>6} {'first exec':>12} {'unexpected':>10} {'s':>6}")
    for app in apps:
        for seed in seeds:
            with tempfile.TemporaryDirectory() as tmp:
                start = time.monotonic()
                run = fuzz_app(app, Path(tmp) / "out", executions=args.execs, seed=seed)
                took = time.monotonic() - start
            found = len(app.bugs) - len(run.missed(app))
            firsts = sorted(
                f.first_exec for f in run.failures if any(b.matches(f) for b in app.bugs)
            )
            unexpected = run.unexpected(app)
            bad += bool(unexpected) or bool(run.missed(app))
            first = ",".join(map(str, firsts[: len(app.bugs)])) or "-"
            print(
                f"{app.name:28} {seed:>4} {found:>3}/{len(app.bugs):<2} {first:>12} "
                f"{len(unexpected):>10} {took:6.1f}"
            )
            for failure in unexpected:
                info = failure.info
                print(
                    f"    unexpected: {info.exception_type}: {info.message[:80]} at {info.location}"
                )
    print(f"{bad} campaign(s) with a missed bug or an inadmissible failure")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
