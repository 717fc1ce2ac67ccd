"""What a study runs and where each run's outputs live.

A run is one campaign: one lambda, one strategy, one repetition. Its seed is derived from
the repetition index only, so strategy A's repetition 3 and strategy B's repetition 3 start
from the same seed, and a rerun anywhere reproduces the same executions.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LAMBDAS_DIR = REPO / "benchmarks" / "lambdas"
DEFAULT_RESULTS = REPO / "benchmarks" / "results" / "ports"

#: Every strategy the engine knows, in the order reports list them.
STRATEGIES = ("random", "zest", "zest-strings", "spoton", "frontier")
#: The baseline every other strategy is compared with.
BASELINE = "zest"


def all_lambdas() -> list[str]:
    """Names of the bundled benchmark lambdas (directories holding a lambdafuzz.yaml)."""
    return sorted(p.parent.name for p in LAMBDAS_DIR.glob("*/lambdafuzz.yaml"))


@dataclass(slots=True, frozen=True)
class Budget:
    """How long each campaign runs: a number of executions or of seconds (exactly one)."""

    execs: int | None = None
    seconds: float | None = None

    def __post_init__(self) -> None:
        if (self.execs is None) == (self.seconds is None):
            raise ValueError("a budget is either executions or seconds, exactly one")

    def cli_args(self) -> list[str]:
        if self.execs is not None:
            return ["--execs", str(self.execs)]
        return ["--time", f"{self.seconds:g}"]

    def describe(self) -> str:
        if self.execs is not None:
            return f"{self.execs} executions"
        return f"{self.seconds:g} seconds"

    def to_json(self) -> dict[str, int | float | None]:
        return {"execs": self.execs, "seconds": self.seconds}

    @classmethod
    def from_json(cls, data: dict[str, int | float | None]) -> Budget:
        execs, seconds = data.get("execs"), data.get("seconds")
        return cls(execs=int(execs) if execs is not None else None, seconds=seconds)


@dataclass(slots=True, frozen=True, order=True)
class RunSpec:
    """One campaign of the study."""

    lambda_name: str
    strategy: str
    rep: int
    seed: int

    def out_dir(self, results: Path) -> Path:
        return results / "raw" / self.lambda_name / self.strategy / f"rep{self.rep}"

    @property
    def lambda_dir(self) -> Path:
        return LAMBDAS_DIR / self.lambda_name

    def label(self) -> str:
        return f"{self.lambda_name}/{self.strategy}/rep{self.rep}"


def plan(
    lambdas: list[str], strategies: list[str], reps: int, *, seed_base: int = 0
) -> list[RunSpec]:
    """Every run, repetition-major: an interrupted study has all cells partly filled."""
    return [
        RunSpec(name, strategy, rep, seed_base + rep)
        for rep in range(reps)
        for name in lambdas
        for strategy in strategies
    ]
