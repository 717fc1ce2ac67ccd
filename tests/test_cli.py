"""The command line answers --version and --help without importing heavy modules."""

from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from lambdafuzz import __version__
from lambdafuzz.cli import cli


def test_version():
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0
    assert __version__ in result.output


def test_help_lists_usage():
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    assert "coverage-guided" in result.output


def test_help_does_not_import_boto3_or_moto():
    code = "import sys; from lambdafuzz.cli import cli; print('moto' in sys.modules, 'boto3' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
