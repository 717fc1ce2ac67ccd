"""Resumability: which run directories count as finished, and the campaign command line."""

from __future__ import annotations

import json

import pytest

from benchmarks.study.campaigns import DONE_MARKER, command, is_done
from benchmarks.study.layout import Budget, RunSpec, plan


def write_run(results, spec, *, stats, marker):
    out = spec.out_dir(results)
    out.mkdir(parents=True)
    if stats is not None:
        (out / "stats.json").write_text(json.dumps(stats))
    if marker is not None:
        (out / DONE_MARKER).write_text(json.dumps(marker))


SPEC = RunSpec("gradebook", "zest", 3, 3)
BUDGET = Budget(execs=50)
MARKER = {"budget": {"execs": 50, "seconds": None}, "seed": 3}
STATS = {"strategy": "zest", "execs": 50, "elapsed_s": 9.0}


def test_finished_run_is_done(tmp_path):
    write_run(tmp_path, SPEC, stats=STATS, marker=MARKER)
    assert is_done(SPEC, BUDGET, tmp_path)


@pytest.mark.parametrize(
    ("stats", "marker", "budget"),
    [
        (STATS, None, BUDGET),  # interrupted: no marker
        (None, MARKER, BUDGET),  # no stats
        (dict(STATS, execs=20), MARKER, BUDGET),  # stopped early
        (STATS, MARKER, Budget(execs=60)),  # another budget was asked for
        (STATS, dict(MARKER, seed=4), BUDGET),  # another seed
        (dict(STATS, strategy="spoton"), MARKER, BUDGET),
    ],
)
def test_unfinished_or_stale_runs_are_not_done(tmp_path, stats, marker, budget):
    write_run(tmp_path, SPEC, stats=stats, marker=marker)
    assert not is_done(SPEC, budget, tmp_path)


def test_time_budget_allows_the_engine_to_stop_on_its_first_check(tmp_path):
    marker = {"budget": {"execs": None, "seconds": 10.0}, "seed": 3}
    write_run(tmp_path, SPEC, stats=dict(STATS, elapsed_s=9.9), marker=marker)
    assert is_done(SPEC, Budget(seconds=10.0), tmp_path)
    assert not is_done(SPEC, Budget(seconds=20.0), tmp_path)


def test_budget_is_one_of_execs_or_seconds():
    with pytest.raises(ValueError):
        Budget()
    with pytest.raises(ValueError):
        Budget(execs=1, seconds=1.0)
    assert Budget.from_json(Budget(seconds=2.5).to_json()) == Budget(seconds=2.5)


def test_command_line_and_layout(tmp_path):
    cmd = command(SPEC, BUDGET, tmp_path)
    assert cmd[1:4] == ["-m", "lambdafuzz", "fuzz"]
    assert cmd[cmd.index("--strategy") + 1] == "zest"
    assert cmd[cmd.index("--seed") + 1] == "3"
    assert cmd[cmd.index("--execs") + 1] == "50"
    assert cmd[cmd.index("--out") + 1] == str(tmp_path / "raw" / "gradebook" / "zest" / "rep3")
    assert "--quiet" in cmd and cmd[cmd.index("--workers") + 1] == "1"


def test_plan_is_repetition_major_with_seed_from_repetition():
    specs = plan(["a", "b"], ["zest", "spoton"], 2, seed_base=10)
    assert [(s.rep, s.lambda_name, s.strategy, s.seed) for s in specs[:4]] == [
        (0, "a", "zest", 10),
        (0, "a", "spoton", 10),
        (0, "b", "zest", 10),
        (0, "b", "spoton", 10),
    ]
    assert len(specs) == 8 and specs[-1].seed == 11
