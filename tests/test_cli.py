"""The command line answers --version and --help without importing heavy modules."""

from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from lambdafuzz import __version__
from lambdafuzz.cli.main import cli


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
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "benchmarks" / "lambdas" / "year_thumbnails"
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
