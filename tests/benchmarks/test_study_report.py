"""results.json and report.md from synthetic runs: the answers carry the right numbers."""

from __future__ import annotations

import json

import pytest
from study_fakes import arm, make_run

from benchmarks.study.report import render, verdict
from benchmarks.study.results import build_results, time_split
from benchmarks.study.tables import fmt_p, markdown_table

META = {
    "date": "today",
    "command": "python benchmarks/run.py",
    "budget": "100 executions",
    "reps": 4,
}


def synthetic_study():
    runs = []
    for rep in range(4):
        # gradebook: spoton always covers 2 more arms than zest -> significant
        runs.append(make_run("gradebook", "zest", rep, [arm(i) for i in range(8 + rep % 2)]))
        runs.append(make_run("gradebook", "spoton", rep, [arm(i) for i in range(10 + rep % 2)]))
        # unzip: the same
        runs.append(make_run("unzip", "zest", rep, [arm(i) for i in range(5)]))
        runs.append(make_run("unzip", "spoton", rep, [arm(i) for i in range(5)]))
    return runs


def test_build_results_numbers():
    results = build_results(synthetic_study(), meta=META)
    gb = results["lambdas"]["gradebook"]
    assert gb["strategies"]["zest"]["branches"]["mean"] == 8.5
    assert gb["strategies"]["spoton"]["branches"]["mean"] == 10.5
    vs = gb["vs_baseline"]["spoton"]
    assert vs["mean_diff"] == 2.0 and vs["a12"] == 1.0  # every spoton run beats every zest run
    assert vs["p_value"] < 0.05
    pair = gb["pairs"]["spoton vs zest"]
    assert (pair["common"], pair["only_a"], pair["only_b"]) == (8.5, 2.0, 0.0)
    assert results["lambdas"]["unzip"]["vs_baseline"]["spoton"]["p_value"] == 1.0
    geo = results["geometric_mean_vs_baseline"]["spoton"]
    assert geo["ratio"] == pytest.approx((10.5 / 8.5) ** 0.5, abs=1e-4)
    json.dumps(results)  # serialisable as is


def test_report_answers_with_numbers():
    results = build_results(synthetic_study(), meta=META)
    text = render(results)
    assert "spoton is higher on 1 of 2 lambdas (gradebook)" in text
    assert "equal on 1" in text
    assert "significant (two-sided Mann-Whitney U, p < 0.05) on 1 (gradebook)" in text
    ratio = results["geometric_mean_vs_baseline"]["spoton"]["ratio"]
    assert f"= {ratio:.3f}" in text
    p = results["lambdas"]["gradebook"]["vs_baseline"]["spoton"]["p_value"]
    row = f"| gradebook | 8.50 | 10.50 | +2.00 | 8.5 | 10.5 | {p:.3f} * | 1.00 | spoton higher, significant |"
    assert row in text
    assert "| unzip | 5.00 | 5.00 | +0.00 | 5 | 5 | 1.000 | 0.50 | same mean |" in text
    assert "| gradebook | 8.50 | 2.00 | 0.00 | 4 |" in text  # Table II: common, +spoton, +zest


def test_the_default_strategy_is_answered_against_the_baseline_too():
    runs = synthetic_study()
    for rep in range(4):  # frontier: 3 more arms than zest on gradebook, 1 fewer on unzip
        runs.append(make_run("gradebook", "frontier", rep, [arm(i) for i in range(11 + rep % 2)]))
        runs.append(make_run("unzip", "frontier", rep, [arm(i) for i in range(4)]))
    text = render(build_results(runs, meta=META))
    assert "**spoton vs zest:**" in text
    assert "**frontier vs zest:** the mean application branch coverage of frontier is " in text
    assert "higher on 1 of 2 lambdas (gradebook), lower on 1 (unzip)" in text
    assert "A12 (frontier>zest)" in text


def test_key_arm_counts_in_report():
    from benchmarks.study.compare import YEAR_2008
    from benchmarks.study.layout import LAMBDAS_DIR

    line = YEAR_2008.line(LAMBDAS_DIR / "year_thumbnails")
    body = ("year_thumbnails/handler.py", "lambda_handler", 35, 500, 504)
    runs = [
        make_run("year_thumbnails", "spoton", 0, {body: (77, 3.0)}, lines={body: (line, line + 1)}),
        make_run("year_thumbnails", "spoton", 1, [arm(1)]),
        make_run("year_thumbnails", "zest", 0, [arm(1)]),
        make_run("year_thumbnails", "zest", 1, [arm(1)]),
    ]
    results = build_results(runs, meta=META)
    key = results["key_arms"][0]
    assert key["line"] == line
    assert key["by_strategy"]["spoton"]["covered_reps"] == 1
    assert key["by_strategy"]["spoton"]["covered_in"] == [0]
    assert key["by_strategy"]["spoton"]["median_first_exec"] == 77
    assert key["by_strategy"]["zest"]["covered_reps"] == 0
    assert "zest 0/2; spoton 1/2 (median first at exec 77)" in render(results)


def test_time_split_shares_add_up():
    split = time_split([make_run("l", "zest", 0, [])])
    assert split == {"generation": 0.1, "reset_load": 0.1, "handler": 0.5, "other": 0.3}


def test_verdicts():
    assert (
        verdict({"mean_diff": 2.0, "p_value": 0.01}, "spoton", "zest")
        == "spoton higher, significant"
    )
    assert (
        verdict({"mean_diff": -1.0, "p_value": 0.3}, "spoton", "zest")
        == "zest higher, not significant"
    )
    assert verdict({"mean_diff": 0.0, "p_value": 1.0}, "spoton", "zest") == "same mean"
    assert verdict(None, "spoton", "zest") == "no data"


def test_markdown_table_and_formats():
    table = markdown_table(["a", "b"], [["x|y", 1.5]])
    assert table.splitlines() == ["| a | b |", "| :-- | --: |", "| x\\|y | 1.5 |"]
    assert fmt_p(0.0004) == "<0.001 *"
    assert fmt_p(0.2) == "0.200"
    assert fmt_p(None) == "–"
