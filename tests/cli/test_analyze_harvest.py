"""`lambdafuzz analyze` shows everything a strategy's campaigns draw from the code (issue
42, item 3), from the one assembly the campaign uses (`fuzzer/harvest.py`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lambdafuzz.cli.main import cli
from lambdafuzz.config import load_config
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.harvest import Harvest

YEAR_THUMBNAILS = Path(__file__).resolve().parents[2] / "benchmarks" / "lambdas" / "year_thumbnails"


def _analyze(*args: str) -> str:
    result = CliRunner().invoke(cli, ["analyze", str(YEAR_THUMBNAILS), *args])
    assert result.exit_code == 0, result.output
    return result.output


def _section(output: str, heading: str) -> str:
    return next(line for line in output.splitlines() if line.startswith(f"{heading} ("))


def test_analyze_lists_the_default_strategy_s_whole_harvest():
    output = _analyze()
    assert "Harvest of strategy frontier" in output
    assert "2008" in _section(output, "Numbers")  # the year the default strategy draws
    assert "'year'" in _section(output, "Field names")
    assert _section(output, "Key values")
    assert "Constant strings" not in output  # one list of strings: the harvest's


def test_analyze_json_has_each_part_with_counts():
    document = json.loads(_analyze("--json"))
    harvest = document["harvest"]
    assert document["strategy"] == "frontier"
    assert 2008 in harvest["numbers"] and "year" in harvest["fields"]
    assert harvest["counts"]["numbers"] == len(harvest["numbers"])
    assert harvest["key_values"] == [] and harvest["counts"]["key_values"] == 0
    assert document["targets"]  # the analysis itself is still there


def test_a_paper_strategy_shows_its_smaller_harvest():
    rich = json.loads(_analyze("--json"))["harvest"]
    zest = json.loads(_analyze("--json", "--strategy", "zest"))["harvest"]
    spoton = json.loads(_analyze("--json", "--strategy", "spoton"))["harvest"]
    assert zest["counts"]["strings"] < spoton["counts"]["strings"] < rich["counts"]["strings"]
    for paper in (zest, spoton):
        assert paper["numbers"] == [] and paper["fields"] == []
    assert "2008" not in _section(_analyze("--strategy", "zest"), "Numbers")


@pytest.mark.parametrize("strategy", ["frontier", "spoton", "zest"])
def test_the_campaign_draws_what_analyze_shows(tmp_path: Path, strategy: str):
    shown = json.loads(_analyze("--json", "--strategy", strategy))["harvest"]
    engine = build_engine(
        load_config(YEAR_THUMBNAILS), out_dir=tmp_path / "o", strategy=strategy, max_execs=1
    )
    policy = engine.options.policy
    drawn = Harvest(policy.dictionary, policy.numbers, policy.fields, policy.key_values)
    assert drawn.to_dict() == shown
