"""Summary statistics and significance tests over repetitions.

Follows the SpotOn paper (and Arcuri & Briand's advice for randomised algorithms): report
the distribution (median, mean with a 95% t interval), test with the two-sided
Mann-Whitney U test, give the Vargha-Delaney A12 effect size, and aggregate across
benchmarks with the geometric mean of ratios.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

CONFIDENCE = 0.95


@dataclass(slots=True, frozen=True)
class Summary:
    n: int
    mean: float
    median: float
    sd: float
    ci_low: float | None  # 95% t interval of the mean; None below two values
    ci_high: float | None
    minimum: float
    maximum: float

    def to_json(self) -> dict[str, float | int | None]:
        return {
            "n": self.n,
            "mean": _round(self.mean),
            "median": _round(self.median),
            "sd": _round(self.sd),
            "ci95": [_round(self.ci_low), _round(self.ci_high)]
            if self.ci_low is not None
            else None,
            "min": _round(self.minimum),
            "max": _round(self.maximum),
        }


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(float(value), digits)


def summarize(values: Sequence[float], confidence: float = CONFIDENCE) -> Summary:
    """Median, mean, sample sd and the t confidence interval of the mean."""
    if not values:
        raise ValueError("summarize() needs at least one value")
    from scipy import stats

    xs = sorted(float(v) for v in values)
    n = len(xs)
    mean = sum(xs) / n
    mid = n // 2
    median = xs[mid] if n % 2 else (xs[mid - 1] + xs[mid]) / 2
    if n < 2:
        return Summary(n, mean, median, 0.0, None, None, xs[0], xs[-1])
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    half = float(stats.t.ppf((1 + confidence) / 2, n - 1)) * sd / math.sqrt(n)
    return Summary(n, mean, median, sd, mean - half, mean + half, xs[0], xs[-1])


def mann_whitney(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Two-sided Mann-Whitney U p-value; 1.0 when both samples are one and the same constant
    (scipy would return nan there), None when a sample is empty."""
    if not a or not b:
        return None
    if len(set(a) | set(b)) == 1:
        return 1.0
    from scipy import stats

    return float(stats.mannwhitneyu(list(a), list(b), alternative="two-sided").pvalue)


def a12(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Vargha-Delaney A12: the probability that a run of A beats a run of B (ties half)."""
    if not a or not b:
        return None
    wins = sum(1.0 if x > y else 0.5 if x == y else 0.0 for x in a for y in b)
    return wins / (len(a) * len(b))


def geometric_mean(values: Sequence[float]) -> float:
    if not values or any(v <= 0 for v in values):
        raise ValueError("the geometric mean needs positive values")
    return math.exp(sum(math.log(v) for v in values) / len(values))


@dataclass(slots=True, frozen=True)
class Improvement:
    """Geometric mean over lambdas of mean(strategy) / mean(baseline)."""

    strategy: str
    ratio: float  # 1.0 = same as the baseline
    lambdas: tuple[str, ...]  # the lambdas that entered the mean
    ratios: dict[str, float]

    @property
    def percent(self) -> float:
        return 100.0 * (self.ratio - 1.0)


def geometric_improvement(
    means: Mapping[str, Mapping[str, float]], strategy: str, baseline: str
) -> Improvement | None:
    """`means[lambda][strategy]` -> the improvement of `strategy` over `baseline`.

    A lambda enters only when both strategies ran on it and both means are positive."""
    ratios = {}
    for name, by_strategy in sorted(means.items()):
        base, other = by_strategy.get(baseline), by_strategy.get(strategy)
        if base is None or other is None or base <= 0 or other <= 0:
            continue
        ratios[name] = other / base
    if not ratios:
        return None
    return Improvement(strategy, geometric_mean(list(ratios.values())), tuple(ratios), ratios)
