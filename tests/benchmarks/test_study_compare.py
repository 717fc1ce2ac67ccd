"""The paper's common/only tables, first-cover times, failure reliability, key arms."""

from __future__ import annotations

import pytest
from study_fakes import arm, make_run

from benchmarks.study.compare import KeyArm, arm_timings, failure_findings, pair_table


def test_pair_table_averages_over_paired_repetitions():
    a = [
        make_run("l", "spoton", 0, [arm(1), arm(2), arm(3)]),
        make_run("l", "spoton", 1, [arm(1), arm(2), arm(4), arm(5)]),
        make_run("l", "spoton", 2, [arm(1)]),  # no zest rep 2: not paired
    ]
    b = [
        make_run("l", "zest", 0, [arm(1), arm(2), arm(9)]),
        make_run("l", "zest", 1, [arm(1)]),
    ]
    row = pair_table(a, b)
    assert row is not None
    assert row.pairs == 2
    # rep0: common {1,2}, only a {3}, only b {9}; rep1: common {1}, only a {2,4,5}, only b {}
    assert (row.common, row.only_a, row.only_b) == (1.5, 2.0, 0.5)
    assert (row.strategy_a, row.strategy_b) == ("spoton", "zest")


def test_pair_table_without_pairs_is_none():
    assert pair_table([], [make_run("l", "zest", 0, [arm(1)])]) is None
    assert (
        pair_table([make_run("l", "spoton", 1, [arm(1)])], [make_run("l", "zest", 0, [arm(1)])])
        is None
    )


def test_arm_timings_median_over_covering_repetitions():
    runs = [
        make_run("l", "zest", 0, {arm(1): (10, 1.0), arm(2): (50, 5.0)}),
        make_run("l", "zest", 1, {arm(1): (30, 3.0)}),
        make_run("l", "zest", 2, {arm(1): (20, 2.0)}),
    ]
    timings = arm_timings(runs)
    assert timings[arm(1)].covered_reps == 3 and timings[arm(1)].total_reps == 3
    assert timings[arm(1)].median_exec == 20 and timings[arm(1)].median_s == 2.0
    assert timings[arm(2)].covered_reps == 1 and timings[arm(2)].median_exec == 50


def test_failure_findings_share_and_mean_first_exec():
    runs = [
        make_run("l", "zest", 0, [], failures={"KeyError at h.py:3": (4, 0.4)}),
        make_run(
            "l",
            "zest",
            1,
            [],
            failures={"KeyError at h.py:3": (8, 0.8), "OSError at h.py:9": (90, 9.0)},
        ),
        make_run("l", "zest", 2, []),
        make_run("l", "zest", 3, []),
    ]
    found = {f.signature: f for f in failure_findings(runs)}
    assert found["KeyError at h.py:3"].found_reps == 2
    assert found["KeyError at h.py:3"].share == 0.5
    assert found["KeyError at h.py:3"].mean_first_exec == 6
    assert found["OSError at h.py:9"].share == 0.25
    assert found["OSError at h.py:9"].mean_first_s == pytest.approx(9.0)


def test_key_arm_finds_its_line_and_the_arm_into_the_body(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "handler.py").write_text("x = 1\n\nif year == YEAR:\n    y = 2\nz = 3\n")
    key = KeyArm("l", "2008", "app/handler.py", r"^\s*if year == YEAR\s*:")
    line = key.line(tmp_path)
    assert line == 3
    body = ("app/handler.py", "f", 1, 10, 12)
    skip = ("app/handler.py", "f", 1, 10, 20)
    taken = make_run("l", "spoton", 0, [body], lines={body: (3, 4)})
    missed = make_run("l", "zest", 0, [skip], lines={skip: (3, 5)})
    assert key.covered_in(taken, line)
    assert not key.covered_in(missed, line)


def test_year_2008_key_arm_matches_the_bundled_handler():
    from benchmarks.study.compare import YEAR_2008
    from benchmarks.study.layout import LAMBDAS_DIR

    line = YEAR_2008.line(LAMBDAS_DIR / "year_thumbnails")
    source = (LAMBDAS_DIR / "year_thumbnails" / YEAR_2008.file).read_text().splitlines()
    assert line is not None and "year == YEAR" in source[line - 1]
    assert "thumbnail" in source[line]  # the body: the line the arm leads to
