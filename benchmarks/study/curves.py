"""Coverage over executions and over time, on a common grid, with 95% bands.

A run's curve is exact: coverage.json records, for every covered arm, the execution and
the second it was first covered, so branches(x) = number of arms first covered at or
before x.  Across repetitions the line is the median and the band the 95% bootstrap
confidence interval of the median (the SpotOn paper's plots: median, 95% CI).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from benchmarks.study.loading import RunData
from benchmarks.study.statistics import CONFIDENCE

GRID_POINTS = 200
BOOTSTRAP_RESAMPLES = 2000


@dataclass(slots=True, frozen=True)
class Band:
    x: np.ndarray
    median: np.ndarray
    low: np.ndarray
    high: np.ndarray
    reps: int


def step_curve(first_hits: Sequence[float], grid: np.ndarray) -> np.ndarray:
    """Number of arms whose first hit is at or before each grid point."""
    ordered = sorted(first_hits)
    return np.array([bisect_right(ordered, float(x)) for x in grid], dtype=float)


def median_band(
    matrix: np.ndarray,
    *,
    confidence: float = CONFIDENCE,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Median over rows (repetitions) per column, with a percentile-bootstrap CI of it."""
    matrix = np.asarray(matrix, dtype=float)
    median = np.median(matrix, axis=0)
    n = matrix.shape[0]
    if n < 2:
        return median, median.copy(), median.copy()
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, n, size=(resamples, n))
    medians = np.median(matrix[picks], axis=1)  # (resamples, columns)
    alpha = (1 - confidence) / 2
    low = np.quantile(medians, alpha, axis=0)
    high = np.quantile(medians, 1 - alpha, axis=0)
    return median, low, high


def exec_grid(runs: Sequence[RunData], points: int = GRID_POINTS) -> np.ndarray:
    top = min(r.execs for r in runs)
    return np.unique(np.linspace(0, top, points + 1).round())


def time_grid(runs: Sequence[RunData], points: int = GRID_POINTS) -> np.ndarray:
    """Up to the shortest run, so no run is extrapolated past its end."""
    top = min(r.elapsed_s for r in runs)
    return np.linspace(0.0, top, points + 1)


def band_over(runs: Sequence[RunData], axis: str, grid: np.ndarray | None = None) -> Band:
    """Branches over `axis` ("execs" or "seconds") for the runs of one strategy."""
    if axis == "execs":
        grid = exec_grid(runs) if grid is None else grid
        rows = [step_curve([h.first_exec for h in r.arms.values()], grid) for r in runs]
    elif axis == "seconds":
        grid = time_grid(runs) if grid is None else grid
        rows = [step_curve([h.first_s for h in r.arms.values()], grid) for r in runs]
    else:
        raise ValueError(f"axis must be 'execs' or 'seconds', not {axis!r}")
    median, low, high = median_band(np.vstack(rows))
    return Band(grid, median, low, high, len(runs))
