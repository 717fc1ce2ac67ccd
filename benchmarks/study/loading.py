"""Reading one finished run: stats, covered arms with when they were first hit, failures.

Only the files a campaign writes are read (`stats.json`, `coverage.json`,
`failures/*.json`), so a study can be analysed on another machine from the raw outputs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.study.layout import RunSpec
from lambdafuzz.fuzzer.out_dir import OutDir

ArmIdT = tuple  # the engine's arm key as a tuple: (file, qualname, firstline, src, dst)


@dataclass(slots=True, frozen=True)
class ArmHit:
    """One covered branch arm of one run."""

    file: str
    from_line: int | None
    to_line: int | None
    first_exec: int
    first_s: float
    valid: bool


@dataclass(slots=True, frozen=True)
class FailureHit:
    """One unique failure of one run."""

    signature: str
    first_exec: int
    first_s: float
    hits: int


@dataclass(slots=True, frozen=True)
class RunData:
    spec: RunSpec
    execs: int
    elapsed_s: float
    execs_per_sec: float
    branches: int  # application branch arms covered
    branches_total: int
    valid_branches: int
    corpus_size: int
    time_in_handler_s: float
    time_in_generation_s: float
    time_in_reset_load_s: float
    arms: dict[ArmIdT, ArmHit] = field(default_factory=dict)
    failures: dict[str, FailureHit] = field(default_factory=dict)
    targeting: dict[str, dict[str, int]] = field(default_factory=dict)  # spoton: type -> counts
    steady_execs_per_sec: float | None = None  # over the second half of the campaign

    @property
    def arm_set(self) -> frozenset[ArmIdT]:
        return frozenset(self.arms)


def arm_id(raw: list) -> ArmIdT:
    return tuple(raw)


def steady_rate(rows: list[tuple[float, int]]) -> float | None:
    """Executions per second over the second half of a campaign's time: without the
    warm-up of its first tests (lazy imports, first emulator calls), which dominates the
    overall rate of short campaigns.  `rows` are plot_data.csv's (time_s, execs)."""
    if len(rows) < 2:
        return None
    end_t, end_e = rows[-1]
    mid_t, mid_e = next((t, e) for t, e in rows if t >= end_t / 2)
    if end_t - mid_t < 1.0:
        return None
    return (end_e - mid_e) / (end_t - mid_t)


def load_run(spec: RunSpec, out_dir: Path) -> RunData:
    """One run's outputs, read through the out dir's owner (so a `.min.json` beside a
    failure is never taken for a record of its own)."""
    out = OutDir(out_dir)
    stats = out.read_stats()
    if stats is None:
        raise FileNotFoundError(f"{out_dir}: no readable stats.json")
    coverage = out.read_coverage()
    arms = {
        arm_id(list(a.arm)): ArmHit(
            file=a.file,
            from_line=a.from_line,
            to_line=a.to_line,
            first_exec=a.first_exec,
            first_s=a.first_s,
            valid=a.valid,
        )
        for a in coverage.covered
    }
    failures = {
        entry.signature: FailureHit(
            signature=entry.signature,
            first_exec=entry.record.first_exec,
            first_s=entry.record.first_time_s,
            hits=entry.hits,
        )
        for entry in out.read().failures
    }
    return RunData(
        spec=spec,
        execs=stats.execs,
        elapsed_s=stats.elapsed_s,
        execs_per_sec=stats.execs_per_sec,
        branches=len(arms),
        branches_total=coverage.app_branches_total or stats.app_branches_total,
        valid_branches=stats.valid_branches_covered,
        corpus_size=stats.corpus_size,
        time_in_handler_s=stats.time_in_handler_s,
        time_in_generation_s=stats.time_in_generation_s,
        time_in_reset_load_s=stats.time_in_reset_load_s,
        arms=arms,
        failures=failures,
        targeting={k: dict(v) for k, v in stats.targeting.items()},
        steady_execs_per_sec=steady_rate([(r.time_s, r.execs) for r in out.read_plot_rows()]),
    )
