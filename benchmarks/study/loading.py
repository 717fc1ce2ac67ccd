"""Reading one finished run: stats, covered arms with when they were first hit, failures.

Only the files a campaign writes are read (`stats.json`, `coverage.json`,
`failures/*.json`), so a study can be analysed on another machine from the raw outputs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.study.layout import RunSpec

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


def read_plot_rows(path: Path) -> list[tuple[float, int]]:
    try:
        lines = path.read_text().splitlines()[1:]
    except OSError:
        return []
    rows = []
    for line in lines:
        parts = line.split(",")
        if len(parts) >= 2:
            rows.append((float(parts[0]), int(parts[1])))
    return rows


def load_run(spec: RunSpec, out_dir: Path) -> RunData:
    stats = json.loads((out_dir / "stats.json").read_text())
    coverage = json.loads((out_dir / "coverage.json").read_text())
    arms = {
        arm_id(a["arm"]): ArmHit(
            file=a["file"],
            from_line=a.get("from_line"),
            to_line=a.get("to_line"),
            first_exec=int(a["first_exec"]),
            first_s=float(a["first_s"]),
            valid=bool(a.get("valid", False)),
        )
        for a in coverage["covered"]
    }
    failures = {}
    for path in sorted((out_dir / "failures").glob("*.json")):
        data = json.loads(path.read_text())
        info = data.get("failure") or {}
        signature = info.get("signature")
        if not signature:
            continue
        failures[signature] = FailureHit(
            signature=signature,
            first_exec=int(info.get("first_exec", 0)),
            first_s=float(info.get("first_time_s", 0.0)),
            hits=int(info.get("hits", 1)),
        )
    return RunData(
        spec=spec,
        execs=int(stats["execs"]),
        elapsed_s=float(stats["elapsed_s"]),
        execs_per_sec=float(stats["execs_per_sec"]),
        branches=len(arms),
        branches_total=int(coverage.get("app_branches_total", stats["app_branches_total"])),
        valid_branches=int(stats.get("valid_branches_covered", 0)),
        corpus_size=int(stats.get("corpus_size", 0)),
        time_in_handler_s=float(stats.get("time_in_handler_s", 0.0)),
        time_in_generation_s=float(stats.get("time_in_generation_s", 0.0)),
        time_in_reset_load_s=float(stats.get("time_in_reset_load_s", 0.0)),
        arms=arms,
        failures=failures,
        targeting={k: dict(v) for k, v in (stats.get("targeting") or {}).items()},
        steady_execs_per_sec=steady_rate(read_plot_rows(out_dir / "plot_data.csv")),
    )
