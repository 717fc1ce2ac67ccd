"""Settings over a template import (`config.overlay`): a lambdafuzz.yaml beside the template
that names it, and a function's `Metadata: {lambdafuzz: ...}`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from lambdafuzz.cli.main import cli
from lambdafuzz.config import load_target, resolve_config
from lambdafuzz.errors import ConfigError

STACK = Path(__file__).parent / "apps" / "overlay_stack"
TEMPLATE = STACK / "template.yaml"


@pytest.fixture
def stack(tmp_path) -> Path:
    """A copy of the fixture stack, to edit."""
    return Path(shutil.copytree(STACK, tmp_path / "stack"))


def test_a_directory_with_an_overlay_is_its_template_and_its_function():
    assert resolve_config(STACK) == TEMPLATE.resolve()
    assert resolve_config(STACK / "lambdafuzz.yaml") == TEMPLATE.resolve()
    target = load_target(STACK)  # the overlay's `function: IntakeFunction`
    assert target.handler == "intake.handler"
    assert target.outcomes.invalid_exceptions == ("ValueError",)  # functions.IntakeFunction
    assert target.memory_mb == 256  # the overlay's top level: every function
    assert target.timeout_s == 4.0  # the template's own Timeout stays


def test_a_functions_metadata_block_applies_under_the_overlay():
    target = load_target(TEMPLATE, "AuditFunction")
    assert target.handler == "audit.handler"
    assert target.timeout_s == 7.0  # Metadata.lambdafuzz
    assert target.outcomes.invalid_status_codes == (404,)
    assert target.outcomes.invalid_exceptions == ()  # IntakeFunction's, not this one's
    assert target.memory_mb == 256


def test_mappings_merge_and_lists_replace(stack):
    (stack / "lambdafuzz.yaml").write_text(
        "template: template.yaml\n"
        "functions:\n"
        "  AuditFunction:\n"
        "    outcomes: {invalid: {exceptions: [KeyError]}, failure: {status_codes: [500]}}\n"
    )
    outcomes = load_target(stack / "template.yaml", "AuditFunction").outcomes
    assert outcomes.invalid_status_codes == (404,)  # Metadata's, kept beside the overlay's
    assert outcomes.invalid_exceptions == ("KeyError",)
    assert outcomes.failure_status_codes == (500,)


def test_fuzzing_the_directory_uses_the_overlays_outcomes(stack, tmp_path, caplog):
    def fuzz(out: str):
        return CliRunner().invoke(
            cli, ["fuzz", str(stack), "--execs", "150", "--seed", "1", "--out", str(tmp_path / out)]
        )

    result = fuzz("with")
    assert result.exit_code == 0, result.output  # refusals on purpose are not failures
    assert "fuzzing intake.handler" in result.output
    assert "failures        0 bugs" in result.output
    assert (tmp_path / "with" / "stats.json").is_file()  # one function: --out as given
    assert "note [overlay]: IntakeFunction: settings over the template's from " in caplog.text
    assert "lambdafuzz.yaml functions.IntakeFunction (outcomes)" in caplog.text

    (stack / "lambdafuzz.yaml").unlink()
    without = fuzz("without")  # the template alone: each function in turn
    assert without.exit_code == 1, without.output
    assert isinstance(without.exception, SystemExit)
    assert "new bug: ValueError at intake.py" in without.output  # its refusals are failures
    assert "fuzzing audit.handler" in without.output


def bad_overlay(stack: Path, old: str, new: str) -> str:
    path = stack / "lambdafuzz.yaml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    with pytest.raises(ConfigError) as caught:
        load_target(stack)
    return str(caught.value)


def test_a_key_that_is_no_config_key_is_an_error_at_its_line_with_its_path(stack):
    message = bad_overlay(stack, "{exceptions: [ValueError]}", "{exception: [ValueError]}")
    assert message.startswith(
        f"{stack.resolve()}/lambdafuzz.yaml:7 (functions.IntakeFunction): unknown key "
        "outcomes.invalid.exception (with value ['ValueError']); expected one of: "
        "exceptions, status_codes."
    )
    assert message.endswith("Did you mean 'exceptions'?")


def test_overlay_mistakes_each_say_what_was_expected(stack):
    message = bad_overlay(stack, "memory_mb: 256", "memory_mb: lots")
    assert "lambdafuzz.yaml:4: memory_mb is 'lots'; expected an integer" in message
    (stack / "lambdafuzz.yaml").write_text((STACK / "lambdafuzz.yaml").read_text())
    message = bad_overlay(stack, "functions:", "functons:")
    assert "lambdafuzz.yaml:5: unknown key functons" in message
    assert message.endswith("Did you mean 'functions'?")
    (stack / "lambdafuzz.yaml").write_text((STACK / "lambdafuzz.yaml").read_text())
    message = bad_overlay(stack, "  IntakeFunction:", "  IntakeFunc:")
    assert "expected the logical id of a function of template.yaml" in message
    assert message.endswith("Did you mean 'IntakeFunction'?")
    (stack / "lambdafuzz.yaml").write_text((STACK / "lambdafuzz.yaml").read_text())
    message = bad_overlay(stack, "template: template.yaml", "template: templat.yaml")
    assert "lambdafuzz.yaml:2: template is 'templat.yaml'" in message
    assert message.endswith("Did you mean 'template.yaml'?")


def test_a_bad_metadata_key_is_an_error_in_the_template(stack):
    template = stack / "template.yaml"
    template.write_text(template.read_text().replace("timeout_s: 7", "timeout: 7"))
    result = CliRunner().invoke(
        cli, ["fuzz", str(template), "--function", "AuditFunction", "--execs", "5"]
    )
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)
    assert (
        "template.yaml:27 (Resources.AuditFunction.Metadata.lambdafuzz): unknown key timeout"
        in result.output
    )
    assert "Did you mean 'timeout_s'?" in result.output and "Traceback" not in result.output


def test_a_lambdafuzz_yaml_without_template_is_a_config_of_its_own(tmp_path):
    config = tmp_path / "lambdafuzz.yaml"
    config.write_text(f"handler: audit.handler\nroot: {STACK / 'src'}\ntrigger: direct\n")
    shutil.copy(TEMPLATE, tmp_path / "template.yaml")
    assert resolve_config(tmp_path) == tmp_path
    target = load_target(tmp_path)
    assert target.handler == "audit.handler" and target.memory_mb == 512  # no template
