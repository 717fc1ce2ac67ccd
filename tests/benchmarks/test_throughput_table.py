"""benchmarks/throughput.py arithmetic: wall-time shares and the printed table."""

from __future__ import annotations

import pytest

from benchmarks.throughput import HEADERS, breakdown, table

STATS = {
    "elapsed_s": 10.0,
    "time_in_generation_s": 2.0,
    "time_in_reset_load_s": 1.0,
    "time_in_handler_s": 4.0,
    "execs_per_sec": 20.0,
    "wall_with_startup_s": 12.5,
}


def timing(share, direct_rate=40.0):
    return {
        "coverage": {"coverage_share_of_handler": share},
        "direct": {
            "calls": 100,
            "calls_per_sec": direct_rate,
            "errors": 3,
            "reloaded": {"calls_per_sec": 35.0},
        },
    }


def test_shares_split_handler_time_into_handler_and_coverage():
    shares = breakdown(STATS, timing(0.25))
    assert shares == pytest.approx(
        {"generation": 0.2, "reset_load": 0.1, "handler": 0.3, "coverage": 0.1, "bookkeeping": 0.3}
    )
    assert sum(shares.values()) == pytest.approx(1.0)


@pytest.mark.parametrize(("share", "coverage"), [(-0.2, 0.0), (None, 0.0), (1.5, 0.4)])
def test_noisy_coverage_shares_are_clamped(share, coverage):
    shares = breakdown(STATS, timing(share))
    assert shares["coverage"] == pytest.approx(coverage)
    assert shares["handler"] + shares["coverage"] == pytest.approx(0.4)


def test_table_row():
    record = {
        "lambda": "gradebook",
        "campaign": STATS,
        "timing": timing(-0.05),
        "shares": breakdown(STATS, timing(-0.05)),
    }
    lines = table([record]).splitlines()
    assert lines[0] == "| " + " | ".join(HEADERS) + " |"
    assert lines[2] == (
        "| gradebook | 20.0 | 20.0% | 10.0% | 40.0% | 0.0% | 30.0% | -5.0% | 2.5 | 40.0 | 0.50 | 3/100 | 35.0 |"
    )
