"""Exceptions the application catches (handled/), failing parents and the valid-share warning,
end to end through the command line on the small consumers in `swallowed/`."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from lambdafuzz.cli.main import cli

APP = Path(__file__).parent / "swallowed"
KEY_ERROR = "KeyError at swallowed/handler.py:23"
#: its bug (`model.bug`): the function and the line's text, not its number
KEY_ERROR_BUG = "KeyError at swallowed/handler.py in lambda_handler: rank = PRIORITIES[body[0]]"


def fuzz(out: Path, *args: str, config: Path = APP / "lambdafuzz.yaml"):
    return CliRunner().invoke(
        cli,
        ["fuzz", str(config), "--strategy", "zest", "--seed", "1", "--out", str(out), *args],
    )


@pytest.fixture(scope="module")
def swallowed(tmp_path_factory):
    out = tmp_path_factory.mktemp("swallowed") / "out"
    junit, sarif = out.parent / "junit.xml", out.parent / "results.sarif"
    result = fuzz(out, "--execs", "120", "--junit", str(junit), "--sarif", str(sarif))
    return out, junit, sarif, result


def handled_files(out: Path) -> list[Path]:
    return sorted((out / "handled").glob("*.json"))


def test_a_caught_key_error_is_a_handled_finding_with_its_input(swallowed):
    out, _, _, result = swallowed
    assert result.exit_code == 0, result.output  # a warning: the exit status is unchanged
    files = handled_files(out)
    # only the app's KeyError: vendorlib's own try/except and `except json.JSONDecodeError`
    # around json.loads are not findings
    assert len(files) == 1, [f.name for f in files]
    data = json.loads(files[0].read_text())
    record = data["failure"]
    assert record["signature"] == KEY_ERROR
    assert record["bug"] == KEY_ERROR_BUG
    assert [v["record"]["signature"] for v in record["variants"]] == [KEY_ERROR]
    assert record["caught_at"] == "swallowed/handler.py:25"
    assert record["raised_in"] == "application"
    assert data["outcome"] == "VALID"  # a handled exception is not a failure
    assert data["sequence"] and data["event"]["Records"]
    assert "could not process" in data["log"]  # what the handler logged when it caught it
    assert not (out / "failures").is_dir() or not list((out / "failures").glob("*.json"))
    stats = json.loads((out / "stats.json").read_text())
    assert stats["unique_handled"] == 1 and stats["handled_hits"] >= 1
    assert stats["unique_failures"] == 0
    assert "handled         1 bug caught" in result.output and KEY_ERROR_BUG in result.output


def test_junit_and_sarif_show_it_as_a_warning(swallowed):
    _, junit, sarif, _ = swallowed
    root = ET.parse(junit).getroot()
    assert root.get("failures") == "0"
    cases = [c for c in root.iter("testcase") if c.get("name", "").startswith("handled: ")]
    assert [c.get("name") for c in cases] == [f"handled: {KEY_ERROR_BUG}"]
    assert cases[0].find("failure") is None
    err = cases[0].findtext("system-err") or ""
    assert err.startswith("warning: handled exception KeyError") and "caught at" in err
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    handled = [r for r in results if r["ruleId"].startswith("handled/")]
    assert len(handled) == 1 and handled[0]["level"] == "warning"
    assert handled[0]["ruleId"] == "handled/KeyError"
    region = handled[0]["locations"][0]["physicalLocation"]
    assert region["artifactLocation"]["uri"].endswith("swallowed/handler.py")
    assert region["region"]["startLine"] == 23


def test_the_html_report_has_a_handled_section(swallowed):
    from lambdafuzz.report.html import render_report

    page = render_report(swallowed[0])
    assert "Handled exceptions (1)" in page and "id='handled-0'" in page
    assert "Caught by the application at <code>swallowed/handler.py:25</code>" in page


def test_repro_shows_the_caught_exception(swallowed):
    out, _, _, _ = swallowed
    result = CliRunner().invoke(cli, ["repro", str(handled_files(out)[0])])
    assert result.exit_code == 0, result.output
    assert f"handled: {KEY_ERROR}" in result.output
    assert "raised at: swallowed/handler.py:23 (application code)" in result.output
    assert "caught at: swallowed/handler.py:25" in result.output
    assert "exception: KeyError: " in result.output


def test_a_handler_failing_on_nearly_every_input_still_builds_a_corpus(tmp_path):
    out = tmp_path / "out"
    result = fuzz(out, "--execs", "200", config=APP / "always_fails.yaml")
    assert result.exit_code == 1, result.output
    corpus = [json.loads(p.read_text()) for p in sorted((out / "corpus").glob("*.json"))]
    failing = [c for c in corpus if c.get("failing") is True]
    assert failing, [c["provenance"] for c in corpus]
    assert all(c["outcome"] == "FAILURE" and "+failing" in c["provenance"] for c in failing)
    assert list((out / "failures").glob("*.json"))  # failures are saved as before
    stats = json.loads((out / "stats.json").read_text())
    assert stats["failing_parents"] == len(failing)
    assert stats["valid_execs"] < 0.05 * stats["execs"]
    assert "warning [low-valid]: only 0.0% of inputs are valid" in result.output
    # a resume re-runs the failing parents in place; corpus replay expects them to fail
    again = fuzz(out, "--execs", "10", config=APP / "always_fails.yaml")
    assert again.exit_code == 1, again.output
    assert "resuming from" in again.output
    names = {p.name for p in (out / "corpus").glob("*.json")}
    assert {f"{c['name']}.json" for c in corpus} <= names
    replay = CliRunner().invoke(
        cli, ["corpus", "replay", str(out / "corpus"), "--config", str(APP / "always_fails.yaml")]
    )
    assert replay.exit_code == 0, replay.output
    assert "failure of a failing parent (expected, in failures/)" in replay.output


def test_resume_keeps_the_handled_findings_and_fail_on_handled_fails(swallowed):
    out = swallowed[0]
    before = json.loads(handled_files(out)[0].read_text())["failure"]["hits"]
    again = fuzz(out, "--execs", "20", "--fail-on-handled")
    assert again.exit_code == 1, again.output  # the failure status, with no failure
    assert "1 handled exception" in again.output  # what the resume loaded
    files = handled_files(out)
    assert len(files) == 1
    assert json.loads(files[0].read_text())["failure"]["hits"] > before
    assert "new handled exception" not in again.output  # known from the first run
