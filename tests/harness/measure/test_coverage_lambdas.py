"""Issue 5's cross-check on the real targets: for seeded inputs of every benchmark lambda,
the arms our collector reports, mapped to line arcs, equal coverage.py's executed branch
arcs. The normalisation (statement starts; except/with/assert arms, which coverage.py
models as single-exit lines, left out; arms inside one statement invisible at line
granularity) is the one explained in test_coverage.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
LAMBDAS = sorted(p.name for p in (ROOT / "benchmarks" / "lambdas").iterdir() if p.is_dir())
SCRIPT = Path(__file__).with_name("lambda_crosscheck.py")


@pytest.mark.slow
@pytest.mark.parametrize("name", LAMBDAS)
def test_collector_matches_coveragepy_on_benchmark_lambda(name):
    out = subprocess.run(
        [sys.executable, str(SCRIPT), str(ROOT / "benchmarks" / "lambdas" / name), "25"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    per_file = json.loads(out.stdout.strip().splitlines()[-1])
    assert per_file, "the lambda has application files"
    some = 0
    for key, (ours, theirs) in per_file.items():
        assert ours == theirs, (
            f"{name} {key}: ours-only {set(map(tuple, ours)) - set(map(tuple, theirs))}, coverage.py-only {set(map(tuple, theirs)) - set(map(tuple, ours))}"
        )
        some += len(ours)
    assert some > 0, "the seeded inputs took at least one branch"
