"""`lambdafuzz fuzz --quiet`: errors and the summary only."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from lambdafuzz.cli.main import cli

ALWAYS_FAILS = Path(__file__).parents[1] / "fuzzer" / "swallowed" / "always_fails.yaml"


def fuzz(out: Path, *args: str):
    return CliRunner().invoke(
        cli,
        ["fuzz", str(ALWAYS_FAILS), "--strategy", "zest", "--seed", "1", "--out", str(out), *args],
    )


def test_quiet_prints_the_summary_without_status_warnings_or_notices(tmp_path):
    loud = fuzz(tmp_path / "loud", "--execs", "220")
    assert loud.exit_code == 1, loud.output
    # what --quiet leaves out is there without it
    assert "lambdafuzz: fuzzing swallowed.strict.lambda_handler" in loud.output
    assert "new bug: ValueError" in loud.output
    assert "warning [low-valid]" in loud.output

    quiet = fuzz(tmp_path / "quiet", "--execs", "220", "--quiet")
    assert quiet.exit_code == 1, quiet.output  # failures found: the same exit status
    assert isinstance(quiet.exception, SystemExit)
    lines = quiet.output.splitlines()
    assert lines[0].startswith("lambdafuzz: budget exhausted after 220 executions"), lines
    assert "  valid inputs    0.0%" in lines
    assert "warning" not in quiet.output
    assert "new bug" not in quiet.output and "fuzzing" not in quiet.output

    resumed = fuzz(tmp_path / "quiet", "--execs", "10", "--quiet")
    assert resumed.exit_code == 1, resumed.output
    assert "resuming from" not in resumed.output  # news, not an error
    assert resumed.output.startswith("lambdafuzz: budget exhausted after 10 executions")


def test_quiet_still_says_a_config_error(tmp_path):
    config = tmp_path / "lambdafuzz.yaml"
    config.write_text(ALWAYS_FAILS.read_text().replace("timeout_s: 5", "timeout: 5"))
    result = CliRunner().invoke(
        cli, ["fuzz", str(config), "--quiet", "--execs", "5", "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)
    assert "unknown key timeout" in result.output and "Did you mean 'timeout_s'?" in result.output
    assert "Traceback" not in result.output


def test_quiet_silences_the_config_loaders_notes(tmp_path, caplog):
    stack = Path(__file__).parents[1] / "config" / "apps" / "overlay_stack"
    args = ["fuzz", str(stack), "--execs", "20", "--out"]
    loud = CliRunner().invoke(cli, [*args, str(tmp_path / "loud")])
    assert loud.exit_code == 0, loud.output
    assert "note [overlay]" in caplog.text
    caplog.clear()
    quiet = CliRunner().invoke(cli, [*args, str(tmp_path / "quiet"), "--quiet"])
    assert quiet.exit_code == 0, quiet.output
    assert caplog.text == ""  # not even logged: lambdafuzz's loggers are at ERROR
    assert quiet.output.startswith("lambdafuzz: budget exhausted after 20 executions")
    assert "note" not in quiet.output
