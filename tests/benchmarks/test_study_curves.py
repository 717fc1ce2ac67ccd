"""Coverage curves and their bands."""

from __future__ import annotations

import numpy as np
from study_fakes import arm, make_run

from benchmarks.study.curves import band_over, median_band, step_curve


def test_step_curve_counts_arms_first_hit_at_or_before_each_point():
    grid = np.array([0, 1, 5, 10, 20])
    assert step_curve([0, 5, 5, 12], grid).tolist() == [1, 1, 3, 3, 4]


def test_median_band_of_identical_rows_is_the_row():
    rows = np.array([[1, 2, 3], [1, 2, 3], [1, 2, 3]], dtype=float)
    median, low, high = median_band(rows)
    assert median.tolist() == low.tolist() == high.tolist() == [1, 2, 3]


def test_median_band_is_deterministic_and_contains_the_median():
    rows = np.array([[0, 1], [2, 5], [4, 9], [6, 9], [8, 12]], dtype=float)
    first = median_band(rows, seed=3)
    second = median_band(rows, seed=3)
    assert all(np.array_equal(a, b) for a, b in zip(first, second, strict=True))
    median, low, high = first
    assert median.tolist() == [4, 9]
    assert np.all(low <= median) and np.all(median <= high)
    assert np.all(low >= rows.min(axis=0)) and np.all(high <= rows.max(axis=0))


def test_band_over_executions_and_time():
    runs = [
        make_run("l", "zest", 0, {arm(1): (0, 0.0), arm(2): (10, 2.0)}, execs=100, elapsed_s=8.0),
        make_run(
            "l",
            "zest",
            1,
            {arm(1): (0, 0.0), arm(2): (30, 1.0), arm(3): (60, 4.0)},
            execs=100,
            elapsed_s=5.0,
        ),
        make_run("l", "zest", 2, {arm(1): (0, 0.0)}, execs=100, elapsed_s=9.0),
    ]
    by_exec = band_over(runs, "execs")
    assert by_exec.reps == 3
    assert by_exec.x[0] == 0 and by_exec.x[-1] == 100
    assert by_exec.median[0] == 1 and by_exec.median[-1] == 2
    by_time = band_over(runs, "seconds")
    assert by_time.x[-1] == 5.0  # the shortest run: nothing extrapolated
    assert by_time.median[-1] == 2


def test_steady_rate_leaves_out_the_first_half():
    from benchmarks.study.loading import steady_rate

    rows = [(2.0, 1), (4.0, 10), (5.0, 30), (6.0, 50), (10.0, 130)]
    assert steady_rate(rows) == 100 / 5  # from the first row at or after 5.0 s
    assert steady_rate([(1.0, 5)]) is None
    assert steady_rate([(1.0, 5), (1.5, 9)]) is None  # under a second of second half
