"""Campaigns over the oracle fixture apps (`apps/`), run as a user runs them: `lambdafuzz
fuzz template.yaml` through the CLI, with the JUnit and SARIF reports, so the tests read
what a user and a CI system read (exit status, summary, out dir, reports)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from lambdafuzz.cli.main import cli

APPS = Path(__file__).parent / "apps"
#: The SARIF 2.1.0 schema the CI-output tests validate against.
SARIF_SCHEMA = Path(__file__).parents[2] / "fixtures" / "sarif-schema-2.1.0.json"


@dataclass(frozen=True)
class Campaign:
    """One `lambdafuzz fuzz` of one fixture app's template (one function: `function`)."""

    result: Result
    out: Path  # the campaign's directory, OUT/<logical id>
    junit: Path
    sarif: Path

    def files(self, folder: str) -> list[Path]:
        """The saved inputs in one of the campaign's folders (`permissions/`, ...)."""
        return sorted(p for p in (self.out / folder).glob("*.json") if ".min." not in p.name)

    def records(self, folder: str) -> list[dict[str, Any]]:
        """The `failure` records of the files in `folder`."""
        return [json.loads(p.read_text(encoding="utf-8"))["failure"] for p in self.files(folder)]

    def junit_cases(self) -> list[ET.Element]:
        return ET.parse(self.junit).getroot().findall("testsuite/testcase")

    def sarif_results(self) -> list[dict[str, Any]]:
        (run,) = json.loads(self.sarif.read_text(encoding="utf-8"))["runs"]
        return run["results"]


def fuzz(app: str, tmp: Path, *, execs: int, seed: int, options: tuple[str, ...] = ()) -> Campaign:
    """`lambdafuzz fuzz apps/<app>/template.yaml` with the reports, into `tmp`."""
    out, junit, sarif = tmp / "out", tmp / "junit.xml", tmp / "results.sarif"
    args = ["fuzz", str(APPS / app / "template.yaml"), "--execs", str(execs)]
    args += ["--seed", str(seed), "--out", str(out), "--quiet"]
    args += ["--junit", str(junit), "--sarif", str(sarif), *options]
    result = CliRunner().invoke(cli, args)
    (campaign,) = [p for p in out.iterdir() if p.is_dir()]
    return Campaign(result, campaign, junit, sarif)


def line_of(source: Path, text: str) -> int:
    """The number of the first line of `source` holding `text`: tests name sites by their
    code, not by numbers an edit to the fixture would shift."""
    for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), start=1):
        if text in line:
            return number
    raise AssertionError(f"{text!r} is not in {source}")


def exit_status(result: Result) -> int:
    """The exit status of a command that ended as the CLI ends it: 0 with no exception, else
    through SystemExit (an uncaught crash also exits 1, but not through SystemExit)."""
    if result.exit_code:
        assert isinstance(result.exception, SystemExit), result.output
    else:
        assert result.exception is None, result.output
    return result.exit_code
