"""Comparisons across runs: the paper's common/only-A/only-B table, when each branch arm
was first covered, how reliably each failure was found, and named key arms.

Repetitions of two strategies are paired by repetition index (same seed), as a study
runs them; the table averages the per-pair counts over the pairs present in both.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.study.loading import ArmIdT, RunData


@dataclass(slots=True, frozen=True)
class PairRow:
    """Average branch arms covered by both strategies, by A only and by B only."""

    strategy_a: str
    strategy_b: str
    pairs: int
    common: float
    only_a: float
    only_b: float

    def to_json(self) -> dict[str, object]:
        return {
            "a": self.strategy_a,
            "b": self.strategy_b,
            "pairs": self.pairs,
            "common": round(self.common, 3),
            "only_a": round(self.only_a, 3),
            "only_b": round(self.only_b, 3),
        }


def pair_table(runs_a: Sequence[RunData], runs_b: Sequence[RunData]) -> PairRow | None:
    """The paper's Table II cell for one lambda, from runs of strategies A and B."""
    if not runs_a or not runs_b:
        return None
    by_rep_b = {r.spec.rep: r for r in runs_b}
    pairs = [(a, by_rep_b[a.spec.rep]) for a in runs_a if a.spec.rep in by_rep_b]
    if not pairs:
        return None
    common = only_a = only_b = 0
    for a, b in pairs:
        sa, sb = a.arm_set, b.arm_set
        common += len(sa & sb)
        only_a += len(sa - sb)
        only_b += len(sb - sa)
    n = len(pairs)
    return PairRow(
        runs_a[0].spec.strategy, runs_b[0].spec.strategy, n, common / n, only_a / n, only_b / n
    )


@dataclass(slots=True, frozen=True)
class ArmTiming:
    """When one arm was first covered, over the repetitions of one strategy."""

    file: str
    from_line: int | None
    to_line: int | None
    covered_reps: int
    total_reps: int
    median_exec: float | None  # over the repetitions that covered it
    median_s: float | None

    def to_json(self) -> dict[str, object]:
        return {
            "file": self.file,
            "from_line": self.from_line,
            "to_line": self.to_line,
            "covered_reps": self.covered_reps,
            "total_reps": self.total_reps,
            "median_exec": self.median_exec,
            "median_s": None if self.median_s is None else round(self.median_s, 3),
        }


def arm_timings(runs: Sequence[RunData]) -> dict[ArmIdT, ArmTiming]:
    """Every arm any run covered, with the median executions/seconds until first covered."""
    found: dict[ArmIdT, list] = {}
    for run in runs:
        for arm, hit in run.arms.items():
            found.setdefault(arm, []).append(hit)
    out = {}
    for arm, hits in found.items():
        first = hits[0]
        out[arm] = ArmTiming(
            file=first.file,
            from_line=first.from_line,
            to_line=first.to_line,
            covered_reps=len(hits),
            total_reps=len(runs),
            median_exec=float(statistics.median(h.first_exec for h in hits)),
            median_s=float(statistics.median(h.first_s for h in hits)),
        )
    return out


def arm_label(arm: ArmIdT, timing: ArmTiming) -> str:
    """`file:from->to (function)`; lines are the engine's (to < 0: leaves the function)."""
    qualname = arm[1] if len(arm) > 1 else "?"
    to = "exit" if timing.to_line is not None and timing.to_line < 0 else timing.to_line
    return f"{timing.file}:{timing.from_line}->{to} ({qualname})"


@dataclass(slots=True, frozen=True)
class FailureFinding:
    """How reliably one strategy found one failure."""

    signature: str
    found_reps: int
    total_reps: int
    mean_first_exec: float
    mean_first_s: float

    @property
    def share(self) -> float:
        return self.found_reps / self.total_reps if self.total_reps else 0.0

    def to_json(self) -> dict[str, object]:
        return {
            "signature": self.signature,
            "found_reps": self.found_reps,
            "total_reps": self.total_reps,
            "share": round(self.share, 3),
            "mean_first_exec": round(self.mean_first_exec, 1),
            "mean_first_s": round(self.mean_first_s, 3),
        }


def failure_findings(runs: Sequence[RunData]) -> list[FailureFinding]:
    found: dict[str, list] = {}
    for run in runs:
        for signature, hit in run.failures.items():
            found.setdefault(signature, []).append(hit)
    return [
        FailureFinding(
            signature=sig,
            found_reps=len(hits),
            total_reps=len(runs),
            mean_first_exec=statistics.fmean(h.first_exec for h in hits),
            mean_first_s=statistics.fmean(h.first_s for h in hits),
        )
        for sig, hits in sorted(found.items())
    ]


@dataclass(slots=True, frozen=True)
class KeyArm:
    """A branch arm a report names: the arm into the body of the `if` matching `pattern`."""

    lambda_name: str
    title: str
    file: str  # as in coverage.json, relative to the lambda's root
    pattern: str  # regex for the `if` line in that file

    def line(self, lambda_dir: Path) -> int | None:
        """Line number of the matching `if` in the current source."""
        source = (lambda_dir / self.file).read_text().splitlines()
        rx = re.compile(self.pattern)
        for number, text in enumerate(source, start=1):
            if rx.search(text):
                return number
        return None

    def covered_in(self, run: RunData, line: int) -> bool:
        """The arm from the `if` line into its body (the next line)."""
        return any(
            hit.file == self.file and hit.from_line == line and hit.to_line == line + 1
            for hit in run.arms.values()
        )


#: The branch the SpotOn paper's motivating example is about.
YEAR_2008 = KeyArm(
    "year_thumbnails",
    "year == 2008 (photo taken in 2008 -> thumbnail)",
    "year_thumbnails/handler.py",
    r"^\s*if year == YEAR\s*:",
)
KEY_ARMS = (YEAR_2008,)
