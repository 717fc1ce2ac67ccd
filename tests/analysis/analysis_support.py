"""Helpers shared by the analysis tests (imported by name: tests/ has no packages)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lambdafuzz.analysis import AnalysisResult, CodeTarget, analyze_sources

FIXTURES = Path(__file__).parent / "fixtures"
BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks" / "lambdas"

AnalyzeT = Callable[..., AnalysisResult]


def fixture_root(name: str) -> Path:
    return FIXTURES / name / name


def analyze_fixture(name: str, handler: str, **kw) -> AnalysisResult:
    return analyze_sources([fixture_root(name)], handler, use_cache=False, **kw)


def only(result: AnalysisResult, line: int, kind: str = "if", arm: str = "true") -> CodeTarget:
    """The single target of `kind`/`arm` at `line` of the (only) handler module."""
    found = [t for t in result.targets if t.line == line and t.kind == kind and t.arm == arm]
    assert len(found) == 1, (line, kind, arm, [t.id for t in result.targets])
    return found[0]


def types_of(target: CodeTarget) -> dict[str, int]:
    return {t.label: t.distance for t in target.types}
