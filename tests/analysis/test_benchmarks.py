"""Acceptance on the bundled benchmark lambdas: the generators can reach the targets' types."""

from __future__ import annotations

import pytest
from analysis_support import BENCHMARKS

from lambdafuzz import labels as L
from lambdafuzz.analysis import analyze_sources, vocabulary
from lambdafuzz.analysis.unify import match_report

NAMES = sorted(
    p.parent.name for p in BENCHMARKS.glob("*/*/__init__.py") if p.parent.name == p.parents[1].name
)
#: labels for a whole event or world: matching only those says little about a branch
COARSE = {L.EVENT, L.WORLD, L.FILE} | {x for x in vocabulary() if x.startswith("event.")}


@pytest.mark.skipif(not NAMES, reason="no benchmark lambdas yet")
@pytest.mark.parametrize("name", NAMES)
def test_benchmark_match_report(name: str):
    result = analyze_sources(
        [BENCHMARKS / name / name], f"{name}.handler", trigger="s3", use_cache=False
    )
    assert result.handler is not None
    assert result.match.total > 0
    assert result.match.percent >= 80.0, result.match.unmatched
    specific = match_report(result.targets, vocabulary() - COARSE)
    assert specific.percent >= 80.0, specific.unmatched
