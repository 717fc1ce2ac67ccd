"""Does a checkout behave as another does?  Fingerprints of seeded campaigns.

    .venv/bin/python benchmarks/same_behaviour.py [TREE] [--execs 300] [--seed 1] > prints.json
    .venv/bin/python benchmarks/same_behaviour.py --compare BEFORE.json AFTER.json

Runs one coverage-objective campaign (timings cannot steer it) per bundled lambda with the
lambdafuzz of TREE (default: this checkout) and prints, per lambda, the md5 of every saved
file: corpus, failures, handled exceptions, oracle folders, and stats.json and
campaign.json without their clock readings.  A refactoring that claims to change no
behaviour gives the same prints as the commit before it (issue 41's acceptance).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LAMBDAS = REPO / "benchmarks" / "lambdas"
#: files whose every byte is a measurement of this run (rates, curves, wall clocks)
MEASURED_FILES = {"plot_data.csv", "coverage.json", "report.html", "campaign.log"}
#: keys of the saved JSON files that hold clock readings or what the handler printed
#: (its own timestamps and timings), which no two runs share
CLOCK_WORDS = ("elapsed", "per_sec", "time", "_s", "_ms", "started", "finished", "_at", "host")
HANDLER_OUTPUT = {"log", "return_value", "stdout", "stderr", "response"}
#: keys naming this run's scratch folders, and tracebacks (they hold lambdafuzz's own
#: file paths and line numbers, which a refactoring moves)
PLACES = {"home", "traceback"}
ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def _is_clock(key: str) -> bool:
    if key in HANDLER_OUTPUT or key in PLACES or key.endswith("_dir"):
        return True
    return any(key.endswith(word) or key.startswith(word) for word in CLOCK_WORDS)


def _without_clocks(value: object) -> object:
    if isinstance(value, dict):
        return {k: _without_clocks(v) for k, v in value.items() if not _is_clock(str(k))}
    if isinstance(value, list):
        return [_without_clocks(v) for v in value]
    if isinstance(value, str):
        return ADDRESS.sub(" at 0x?", value)
    return value


def _digest(path: Path) -> str:
    if path.suffix == ".json":
        data = _without_clocks(json.loads(path.read_text(encoding="utf-8")))
        return hashlib.md5(json.dumps(data, sort_keys=True).encode()).hexdigest()
    return hashlib.md5(path.read_bytes()).hexdigest()


def fingerprint(
    tree: Path, lambda_dir: Path, execs: int, seed: int, keep: Path | None = None
) -> dict[str, str]:
    """md5 per saved file of one seeded campaign run with the lambdafuzz of `tree`."""
    with tempfile.TemporaryDirectory() as scratch:
        out = str(keep / lambda_dir.name) if keep else scratch
        env = {**os.environ, "PYTHONPATH": str(tree)}
        command = [sys.executable, "-m", "lambdafuzz", "fuzz", str(lambda_dir)]
        command += ["--execs", str(execs), "--seed", str(seed), "--objective", "coverage"]
        command += ["--out", out, "--quiet"]
        done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=tree)
        if done.returncode not in (0, 1):
            raise SystemExit(f"{tree}: {' '.join(command)} failed:\n{done.stderr[-2000:]}")
        root = Path(out)
        return {
            str(path.relative_to(root)): _digest(path)
            for path in sorted(root.rglob("*"))
            if path.is_file() and path.name not in MEASURED_FILES
        }


def compare(before: dict, after: dict) -> int:
    differ = 0
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name, {}), after.get(name, {})
        changed = sorted(f for f in set(old) | set(new) if old.get(f) != new.get(f))
        print(f"{name:<16} {len(new):>4} files  {'same' if not changed else 'DIFFERENT'}")
        for file in changed:
            print(f"    {file}: {old.get(file, '-')} -> {new.get(file, '-')}")
        differ += bool(changed)
    return 1 if differ else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path, nargs="?", default=REPO)
    parser.add_argument("--execs", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="keep each campaign's out dir here")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.compare:
        before, after = (json.loads(p.read_text(encoding="utf-8")) for p in args.compare)
        raise SystemExit(compare(before, after))
    prints = {
        lam.name: fingerprint(args.tree.resolve(), lam, args.execs, args.seed, args.keep)
        for lam in sorted(LAMBDAS.iterdir())
        if lam.is_dir()
    }
    json.dump(prints, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
