"""`lambdafuzz init --template` on what real templates hold: layers, an --out elsewhere,
handlers that do not import, placeholder credentials, a key written twice where the
function does not look, and inline code answering a custom resource with cfnresponse."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from lambdafuzz.cli.init import init
from lambdafuzz.config import load_config
from lambdafuzz.config.inline_code import inline_code_dir
from lambdafuzz.config.sam import load_template, load_template_target
from lambdafuzz.errors import ConfigError
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.events import CampaignFinished, NewFailure

APP = Path(__file__).parent / "apps" / "init_app"
TEMPLATE = APP / "template.yaml"
CREDENTIALS = "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN left out"


def test_init_writes_each_function_that_loads_and_says_why_not_for_the_others(tmp_path):
    out = tmp_path / "elsewhere" / "cfg.yaml"  # far from the template's folder
    result = CliRunner().invoke(init, ["--template", str(TEMPLATE), "--out", str(out)])
    assert result.exit_code == 0, result.output
    written = sorted(p.name for p in out.parent.iterdir())
    assert written == ["cfg-PricesFunction.yaml", "cfg-SetupFunction.yaml"]
    skipped = [line for line in result.stderr.splitlines() if line.startswith("skipped ")]
    assert len(skipped) == 1  # one line, saying why
    assert skipped[0].startswith("skipped BrokenFunction: the handler does not import")
    assert "No module named 'lambdafuzz_no_such_package'" in skipped[0]


def test_init_keeps_the_layers_with_out_anywhere(tmp_path):
    out = tmp_path / "a" / "b" / "lambdafuzz.yaml"
    args = ["--template", str(TEMPLATE), "--function", "PricesFunction", "--out", str(out)]
    result = CliRunner().invoke(init, args)
    assert result.exit_code == 0, result.output
    assert "layers: [" in out.read_text()
    written = load_config(out)
    expected = load_template_target(TEMPLATE, "PricesFunction")
    assert written.layers == expected.layers == ((APP / "layers/shared/python").resolve(),)
    assert written.root == expected.root


def test_init_of_a_handler_that_does_not_import_is_a_usage_error(tmp_path):
    out = tmp_path / "lambdafuzz.yaml"
    args = ["--template", str(TEMPLATE), "--function", "BrokenFunction", "--out", str(out)]
    result = CliRunner().invoke(init, args)
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit)
    assert "the handler does not import as `fuzz` imports it" in result.stderr
    assert not out.exists()


def test_placeholder_credentials_are_left_out_with_one_notice():
    imported = load_template(TEMPLATE, "PricesFunction")
    assert dict(imported.target.env) == {"CURRENCY": "EUR"}
    assert sum(CREDENTIALS in note for note in imported.unsupported) == 1


def test_a_duplicate_key_where_the_function_does_not_look_is_a_note():
    notes = load_template(TEMPLATE, "PricesFunction").unsupported
    assert any(n.startswith("Resources.Logs.Properties.RetentionInDays (line ") for n in notes)


def test_a_duplicate_key_in_the_function_is_an_error(tmp_path):
    text = (
        (APP / "template.yaml")
        .read_text()
        .replace(
            "      Handler: prices.handler\n",
            "      Handler: prices.handler\n      Handler: prices.other\n",
        )
    )
    (tmp_path / "template.yaml").write_text(text)
    for part in ("src", "layers"):
        (tmp_path / part).symlink_to(APP / part)
    with pytest.raises(
        ConfigError, match=r"Resources\.PricesFunction\.Properties\.Handler appears twice"
    ):
        load_template(tmp_path / "template.yaml", "PricesFunction")
    assert (
        load_template(tmp_path / "template.yaml", "SetupFunction").target.handler == "index.handler"
    )


def test_inline_code_gets_a_cfnresponse_that_records_the_response():
    directory = inline_code_dir("def handler(event, context):\n    return 1\n")
    script = textwrap.dedent(
        """
        import sys, types
        sys.path.insert(0, sys.argv[1])
        import cfnresponse
        event = {"StackId": "s", "RequestId": "r", "LogicalResourceId": "L", "ResponseURL": "https://example.invalid/x"}
        cfnresponse.send(event, types.SimpleNamespace(log_stream_name="ls"), cfnresponse.FAILED, {"a": 1}, reason="no")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(directory)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    recorded = json.loads(done.stdout)
    assert recorded["cfnresponse"] == {
        "Status": "FAILED",
        "Reason": "no",
        "PhysicalResourceId": "ls",
        "StackId": "s",
        "RequestId": "r",
        "LogicalResourceId": "L",
        "NoEcho": False,
        "Data": {"a": 1},
    }


def test_inline_code_using_cfnresponse_fuzzes_without_failures(tmp_path):
    target = load_template_target(TEMPLATE, "SetupFunction")
    assert target.app_packages == ("index",)  # cfnresponse is Lambda's, not the app's
    engine = build_engine(target, out_dir=tmp_path, seed=0, max_execs=30)
    events = list(engine.run())
    assert isinstance(events[-1], CampaignFinished)
    assert [e.record.info for e in events if isinstance(e, NewFailure)] == []
