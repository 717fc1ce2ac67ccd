"""Statistics of the study on hand-checked numbers."""

from __future__ import annotations

import math

import pytest

from benchmarks.study.statistics import (
    a12,
    geometric_improvement,
    geometric_mean,
    mann_whitney,
    summarize,
)


def test_summary_of_known_values():
    s = summarize([4, 1, 3, 2])
    assert (s.n, s.mean, s.median, s.minimum, s.maximum) == (4, 2.5, 2.5, 1, 4)
    assert s.sd == pytest.approx(math.sqrt(5 / 3))
    # t(0.975, 3) = 3.182446; half width = t * sd / sqrt(n)
    half = 3.182446 * math.sqrt(5 / 3) / 2
    assert s.ci_low == pytest.approx(2.5 - half, abs=1e-4)
    assert s.ci_high == pytest.approx(2.5 + half, abs=1e-4)


def test_summary_of_one_value_has_no_interval():
    s = summarize([7])
    assert s.median == 7 and s.ci_low is None and s.to_json()["ci95"] is None


def test_summary_needs_values():
    with pytest.raises(ValueError):
        summarize([])


def test_mann_whitney_separated_samples_are_significant():
    p = mann_whitney([10, 11, 12, 13, 14, 15], [1, 2, 3, 4, 5, 6])
    assert p is not None and p < 0.01


def test_mann_whitney_identical_constant_samples_give_one():
    assert mann_whitney([5, 5, 5], [5, 5]) == 1.0


def test_mann_whitney_overlapping_samples_are_not_significant():
    p = mann_whitney([1, 3, 5, 7], [2, 4, 6, 8])
    assert p is not None and p > 0.5


def test_mann_whitney_empty_sample_is_none():
    assert mann_whitney([], [1, 2]) is None


def test_a12():
    assert a12([3, 4], [1, 2]) == 1.0
    assert a12([1, 2], [3, 4]) == 0.0
    assert a12([2], [2]) == 0.5
    assert a12([1, 3], [2]) == 0.5


def test_geometric_mean():
    assert geometric_mean([2.0, 8.0]) == pytest.approx(4.0)
    with pytest.raises(ValueError):
        geometric_mean([1.0, 0.0])


def test_geometric_improvement_over_baseline():
    means = {
        "a": {"zest": 10.0, "spoton": 20.0},  # x2
        "b": {"zest": 10.0, "spoton": 5.0},  # x0.5
        "c": {"zest": 8.0, "spoton": 10.0},  # x1.25
        "d": {"zest": 0.0, "spoton": 3.0},  # baseline 0: left out
        "e": {"zest": 4.0},  # strategy missing: left out
    }
    imp = geometric_improvement(means, "spoton", "zest")
    assert imp is not None
    assert imp.lambdas == ("a", "b", "c")
    assert imp.ratio == pytest.approx(1.25 ** (1 / 3))
    assert imp.percent == pytest.approx(100 * (1.25 ** (1 / 3) - 1))


def test_geometric_improvement_without_data_is_none():
    assert geometric_improvement({"a": {"zest": 1.0}}, "spoton", "zest") is None
