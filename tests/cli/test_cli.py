"""The command line answers --version and --help without importing heavy modules."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from lambdafuzz import __version__
from lambdafuzz.cli.exit_codes import ExitCode
from lambdafuzz.cli.main import cli

GRADEBOOK = str(Path(__file__).resolve().parents[2] / "benchmarks" / "lambdas" / "gradebook")


def test_version():
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0
    assert __version__ in result.output


def test_help_lists_usage():
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    assert "coverage-guided" in result.output


def test_help_does_not_import_boto3_or_moto():
    code = "import sys; from lambdafuzz.cli.main import cli; print('moto' in sys.modules, 'boto3' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_analyze_year_thumbnails_lists_datetime_closest_for_the_2008_branch():
    root = Path(__file__).resolve().parents[2] / "benchmarks" / "lambdas" / "year_thumbnails"
    result = CliRunner().invoke(cli, ["analyze", str(root), "--json"])
    assert result.exit_code == 0, result.output
    import json

    data = json.loads(result.output)
    year = [t for t in data["targets"] if t["condition"].replace(" ", "") == "year==YEAR"]
    assert year, "the 2008 branch is a target"
    labels = [label for label, _ in year[0]["types"]]
    assert {"datetime.datetime", "image.exif", "PIL.Image.Image"} <= set(labels)
    distances = dict(year[0]["types"])
    assert distances["datetime.datetime"] < distances["image.exif"] < distances["PIL.Image.Image"]


# ---------------------------------------------------------------- shared options and choices
def _commands(command, path=()):
    """(command path, command) for every command below `command`, groups included."""
    import click

    yield path, command
    if isinstance(command, click.Group):
        ctx = click.Context(command)
        for name in command.list_commands(ctx):
            yield from _commands(command.get_command(ctx, name), (*path, name))


def test_every_choice_option_offers_exactly_its_enums_values():
    import click

    from lambdafuzz.cli.options import EnumChoice
    from lambdafuzz.fuzzer.options import Objective, Strategy
    from lambdafuzz.generators.core import ReplayMode
    from lambdafuzz.model.emulation import AwsPath, BackendKind
    from lambdafuzz.model.oracle import OracleKind
    from lambdafuzz.model.target import TriggerKind

    owners = {
        "strategy": Strategy,
        "objective": Objective,
        "mode": ReplayMode,
        "backend": BackendKind,
        "aws_path": AwsPath,
        "trigger": TriggerKind,
        "oracles_off": OracleKind,
    }
    seen = {}
    for path, command in _commands(cli):
        for param in command.params:
            if isinstance(param.type, click.Choice):
                where = " ".join([*path, param.opts[0]])
                assert param.name in owners, f"{where}: a choice no enum owns"
                assert isinstance(param.type, EnumChoice), f"{where}: choices retyped"
                seen[where] = list(param.type.choices)
                assert seen[where] == [e.value for e in owners[param.name]], where
    assert seen["fuzz --strategy"] == [s.value for s in Strategy]
    assert seen["fuzz --replay"] == ["linear", "ei"]
    assert seen["fuzz --backend"] == [b.value for b in BackendKind]
    assert seen["fuzz --aws-path"] == ["fast", "moto"]
    assert seen["init --trigger"] == [t.value for t in TriggerKind]
    assert seen["fuzz --no-oracle"] == ["permissions", "idempotency", "batch"]
    backends = [where for where in seen if where.endswith("--backend")]
    assert len(backends) >= 2  # fuzz and the replaying commands share one definition


def test_choice_options_parse_to_enum_members_in_the_cli_spelling():
    from lambdafuzz.cli.fuzz import fuzz
    from lambdafuzz.fuzzer.options import Strategy
    from lambdafuzz.generators.core import ReplayMode
    from lambdafuzz.model.emulation import BackendKind

    given = ["--strategy", "zest-strings", "--replay", "ei", "--backend", "moto-server"]
    params = fuzz.make_context("fuzz", [GRADEBOOK, *given]).params
    assert params["strategy"] is Strategy.ZEST_STRINGS
    assert params["mode"] is ReplayMode.EXECUTION_INDEXED
    assert params["backend"] is BackendKind.MOTO_SERVER
    defaults = fuzz.make_context("fuzz", [GRADEBOOK]).params
    assert (defaults["strategy"], defaults["mode"], defaults["backend"]) == (
        Strategy.FRONTIER,
        ReplayMode.LINEAR,  # why: BENCHMARKS.md, "The havoc effect and the default replay mode"
        BackendKind.MOTO,
    )
    assert ReplayMode.EXECUTION_INDEXED.value == "ei"  # the spelling scripts use


COMMANDS_ON_A_CONFIG = {
    "fuzz": (["fuzz"], ["--execs", "1"]),
    "analyze": (["analyze"], []),
    "sample-world": (["sample", "world"], ["--out", "samples"]),
    "init": (["init"], []),
}


@pytest.mark.parametrize("name", [*COMMANDS_ON_A_CONFIG, "top"])
def test_help_of_a_command_imports_no_aws_emulator_or_pydantic(name):
    words = COMMANDS_ON_A_CONFIG[name][0] if name != "top" else []
    code = (
        "import sys; from lambdafuzz.cli.main import cli\n"
        f"try: cli({[*words, '--help']!r}, standalone_mode=False)\n"
        "except SystemExit: pass\n"
        "print('imported:', *[m for m in ('boto3', 'moto', 'pydantic') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1] == "imported:", out.stdout


# ---------------------------------------------------------------- failure paths
def _assert_usage_failure(result, message: str) -> None:
    """Exit 2 through SystemExit with one `Error:` line and no traceback."""
    assert result.exit_code == ExitCode.USAGE == 2, result.output
    assert isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and message in errors[0], result.output
    assert result.output.rstrip().endswith(errors[0])


def test_fuzz_on_a_missing_config_exits_2_with_one_line(tmp_path):
    result = CliRunner().invoke(cli, ["fuzz", str(tmp_path / "nope.yaml")])
    _assert_usage_failure(result, "does not exist")


@pytest.mark.parametrize("name", ["fuzz", "analyze", "sample-world"])
def test_a_broken_config_exits_2_with_one_line(tmp_path, monkeypatch, name):
    words, options = COMMANDS_ON_A_CONFIG[name]
    (tmp_path / "lambdafuzz.yaml").write_text(
        "handler: app.handler\ntrigger: {kind: s3x}\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)  # CONFIG defaults to the current directory
    result = CliRunner().invoke(cli, [*words, *options])
    _assert_usage_failure(result, "trigger.kind is 's3x'")
    assert not (tmp_path / "out").exists() and not (tmp_path / "samples").exists()


def test_fuzz_rejects_an_unknown_strategy_and_a_remote_endpoint(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    unknown = runner.invoke(cli, ["fuzz", GRADEBOOK, "--strategy", "zest_strings"])
    _assert_usage_failure(unknown, "'zest-strings'")
    remote = ["--backend", "moto-server", "--endpoint", "http://10.1.2.3:5000"]
    _assert_usage_failure(runner.invoke(cli, ["fuzz", GRADEBOOK, *remote]), "--endpoint")
    assert not (tmp_path / "out").exists()


def test_init_checks_table_key_types_against_the_model():
    from lambdafuzz.cli.init import init
    from lambdafuzz.model.target import KEY_TYPES

    result = CliRunner().invoke(
        init, ["--handler", "app.handler", "--trigger", "sqs", "--table", "t:id:Q"]
    )
    _assert_usage_failure(result, f"TYPE one of {', '.join(KEY_TYPES)}")


def test_init_config_text_lists_the_models_kinds_and_formats():
    from lambdafuzz.cli.init import render_config
    from lambdafuzz.generators.files import FORMATS
    from lambdafuzz.model.target import TriggerKind

    config = {
        "handler": "app.handler",
        "trigger": {"kind": "s3"},
        "resources": {"buckets": [{"name": "in"}], "tables": [{"name": "t"}]},
    }
    text = render_config(config, origin="in a test")
    assert " | ".join(TriggerKind) in text
    assert ", ".join(FORMATS) in text
    assert "DESIGN" not in text


def test_every_campaign_option_of_fuzz_is_a_campaign_options_field():
    # a new campaign option is a field plus one click option: the names must line up
    from dataclasses import fields

    from lambdafuzz.cli.options import campaign_options
    from lambdafuzz.fuzzer.options import CampaignOptions

    command = campaign_options(click.command()(lambda **kw: None))
    names = {p.name for p in command.params}
    field_names = {f.name for f in fields(CampaignOptions)}
    assert names and names <= field_names, names - field_names
    assert {"strategy", "seed", "max_execs", "backend", "mode", "memory_limit_mb"} <= names
