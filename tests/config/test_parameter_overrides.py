"""`--parameter-overrides` as `sam deploy` takes it, and resources whose Condition is false
(not deployed: not in the world, not fuzzable, their references absent)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from click.testing import CliRunner

from lambdafuzz.cli.main import cli
from lambdafuzz.config.campaign import campaign_target
from lambdafuzz.config.sam import load_template, template_functions
from lambdafuzz.config.samconfig import overriding, parse_overrides
from lambdafuzz.errors import ConfigError
from lambdafuzz.fuzzer.out_dir import OutDir
from tests.fixtures.sam import template_text


@pytest.fixture
def template(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("def handler(event, context):\n    return 1\n")
    path = tmp_path / "template.yaml"
    path.write_text(template_text("parameter_overrides", "conditional_resources"))
    return path


def test_both_override_forms_parse():
    assert parse_overrides("Stage=prod Name='a b' Empty=") == {
        "Stage": "prod",
        "Name": "a b",
        "Empty": "",
    }
    assert parse_overrides(["ParameterKey=Stage,ParameterValue=x,y"]) == {"Stage": "x,y"}
    with pytest.raises(ConfigError, match="'Stage'; expected Key=Value"):
        parse_overrides("Stage")


def test_a_false_condition_leaves_its_resources_out(template):
    functions = template_functions(template)
    assert functions.fuzzable == ("OrdersFunction",)
    assert functions.skipped[0].startswith("ProdReportFunction: its Condition IsProd is false")
    imported = load_template(template, "OrdersFunction")
    assert imported.target.resources.queues == ()  # not created in the world
    assert imported.target.env["STAGE"] == "dev"
    notes = " | ".join(imported.unsupported)
    assert "AUDIT_QUEUE" in notes and "Resources.AuditQueue is not deployed" in notes
    assert "TABLE" in notes and "--parameter-overrides 'TableSuffix=...'" in notes
    # a condition on a parameter without a value: kept, and said so
    assert (
        "Resources.ArchiveBucket: its Condition HasSuffix cannot be evaluated (parameter " in notes
    )
    assert [b.name for b in imported.target.resources.buckets] == ["archivebucket"]
    with pytest.raises(ConfigError, match="Condition IsProd is false"):
        load_template(template, "ProdReportFunction")


def test_overrides_win_over_samconfig_and_defaults(template):
    (template.parent / "samconfig.toml").write_text(
        '[default.deploy.parameters]\nparameter_overrides = "Stage=staging TableSuffix=s"\n'
    )
    assert load_template(template, "OrdersFunction").target.env["STAGE"] == "staging"
    with overriding({"Stage": "prod"}):
        imported = load_template(template, "OrdersFunction")
        assert "ProdReportFunction" in template_functions(template).fuzzable
    env = imported.target.env
    assert (env["STAGE"], env["TABLE"]) == ("prod", "orders-s")
    assert env["AUDIT_QUEUE"] == "${queues.AuditQueue.url}"
    assert [q.name for q in imported.target.resources.queues] == ["AuditQueue"]


def test_the_cli_option_reaches_the_campaign_and_its_replay(template, caplog):
    out = template.parent / "out"
    args = [
        "fuzz",
        str(template),
        "--function",
        "OrdersFunction",
        "--execs",
        "2",
        "--out",
        str(out),
    ]
    overrides = ["--parameter-overrides", "Stage=prod TableSuffix=v2"]
    with caplog.at_level(logging.WARNING):
        result = CliRunner().invoke(cli, [*args, *overrides])
    assert result.exit_code == 0, result.output
    assert "TableSuffix" not in caplog.text
    recorded = json.loads((out / "campaign.json").read_text())["parameter_overrides"]
    assert recorded == [["Stage", "prod"], ["TableSuffix", "v2"]]
    replayed = campaign_target(OutDir(out).read())  # repro, minimize: the same target
    assert (replayed.env["STAGE"], replayed.env["TABLE"]) == ("prod", "orders-v2")
    bad = CliRunner().invoke(cli, [*args, "--parameter-overrides", "Stage"])
    assert bad.exit_code == 2 and "expected Key=Value" in bad.output
    analyzed = CliRunner().invoke(
        cli, ["analyze", str(template), "--function", "ProdReportFunction", *overrides]
    )
    assert analyzed.exit_code == 0, analyzed.output
