"""The permission oracle end to end (issue 40's acceptance), through the CLI.

`apps/invoice_import`: an S3 -> CSV -> DynamoDB import whose error path copies the upload
to rejected/, a write its `S3ReadPolicy` does not allow: one permission finding, with the
statement that would allow it, in every output (exit status, summary, permissions/,
JUnit, SARIF, the HTML report, `repro`), and gone with `--no-oracle permissions`.
`apps/invoice_import_exact`: the same code with statements that allow exactly what it does:
no finding, and the least-privilege report lists every statement used.

Seeded and bounded: 400 executions of seed 1 reach the copy in most tests (a row that is
no invoice is common) and the put_item of a file whose every row parses in a few
(3 of 400 for the exact fixture; seeds 2 and 3 reach it too)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import jsonschema
import pytest
from click.testing import CliRunner
from oracle_campaigns import APPS, SARIF_SCHEMA, Campaign, exit_status, fuzz, line_of

from lambdafuzz.cli.main import cli
from lambdafuzz.fuzzer.least_privilege import LAMBDA_ACTIONS
from lambdafuzz.report.html import render_report

pytestmark = pytest.mark.slow

EXECS = 400
SEED = 1
IMPORTER = APPS / "invoice_import" / "invoices" / "importer.py"
COPY_LINE = line_of(IMPORTER, "s3.copy_object(")
WHERE = f"invoices/importer.py:{COPY_LINE}"
#: The statement a reviewer adds (`policy_evaluation.suggest`): the action on the bucket's
#: objects, not on the one key the test happened to copy to.
ALLOWING = {"Effect": "Allow", "Action": ["s3:PutObject"], "Resource": ["arn:aws:s3:::invoice-uploads/*"]}  # fmt: skip


@pytest.fixture(scope="module")
def leaky(tmp_path_factory: pytest.TempPathFactory) -> Campaign:
    return fuzz("invoice_import", tmp_path_factory.mktemp("leaky"), execs=EXECS, seed=SEED)


@pytest.fixture(scope="module")
def exact(tmp_path_factory: pytest.TempPathFactory) -> Campaign:
    return fuzz("invoice_import_exact", tmp_path_factory.mktemp("exact"), execs=EXECS, seed=SEED)


def _statements(campaign: Campaign) -> dict[str, dict]:
    report = json.loads((campaign.out / "permissions.json").read_text(encoding="utf-8"))
    assert report["tests"] == EXECS
    return {entry["source"]: entry for entry in report["statements"]}


def _allowing(evidence: str) -> dict:
    """The statement the evidence shows as the one that would allow the call."""
    lines = evidence.splitlines()
    assert "A statement that would allow it:" in lines, evidence
    return json.loads(lines[lines.index("A statement that would allow it:") + 1])


# ---------------------------------------------------------------- the finding
def test_the_copy_to_rejected_is_one_permission_finding_with_the_statement_allowing_it(leaky):
    assert exit_status(leaky.result) == 1, leaky.result.output
    assert not leaky.files("failures")  # the exit status is the finding's alone
    (record,) = leaky.records("permissions")
    assert record["oracle"] == "permissions"
    assert record["exception_type"] == "AccessDenied"
    assert record["detail"] == "s3:PutObject"
    assert record["location"] == WHERE
    assert record["message"].startswith(
        "s3.CopyObject needs s3:PutObject on arn:aws:s3:::invoice-uploads/rejected/"
    )
    assert record["message"].endswith("no statement of the function's role allows it")
    evidence = record["evidence"]
    assert evidence.startswith("In production: AccessDenied (s3:PutObject on arn:aws:s3:::")
    assert _allowing(evidence) == ALLOWING
    assert f"line {COPY_LINE}, in handler" in record["traceback"]  # the call's stack


def test_the_summary_has_a_line_for_the_finding_and_the_least_privilege_report(leaky):
    output = leaky.result.output
    assert "permissions     1 permission finding (" in output
    assert f"at {WHERE}  [{leaky.files('permissions')[0]}]" in output
    assert "least privilege 3 of 3 Allow statements used by 400 tests" in output
    assert "permissions/, stats.json" in output  # the outputs line names the folder


def test_the_least_privilege_report_counts_what_the_tests_used(leaky):
    statements = _statements(leaky)
    read = statements["Policies[0] S3ReadPolicy (BucketName: invoice-uploads)"]
    assert read["used"]["s3:GetObject"] == EXECS  # every test reads its upload
    assert set(read["used"]) == {"s3:GetObject"}
    assert read["unused"] is False
    assert "s3:ListBucket" in read["unused_actions"]
    assert "s3:PutObject" not in read["statement"]["Action"]  # the finding's cause
    write = statements["Policies[1] DynamoDBWritePolicy (TableName: InvoicesTable)"]
    assert set(write["used"]) == {"dynamodb:PutItem"}
    assert write["unused_actions"] == ["dynamodb:UpdateItem", "dynamodb:BatchWriteItem"]
    # the basic execution role is what Lambda uses to write the logs: used, not unused
    basic = statements["managed AWSLambdaBasicExecutionRole"]
    assert basic["used"] == {}
    assert basic["unused"] is False and basic["unused_actions"] == []
    assert set(basic["used_by_lambda"]) == set(basic["statement"]["Action"])
    assert set(basic["used_by_lambda"]) <= set(LAMBDA_ACTIONS)


# ---------------------------------------------------------------- the CI outputs
def test_junit_has_the_finding_as_a_failing_testcase_of_the_permissions_class(leaky):
    cases = leaky.junit_cases()
    found = [c for c in cases if c.attrib["classname"].endswith(".permissions")]
    (case,) = found
    assert case.attrib["classname"] == "lambdafuzz.invoices.importer.handler.permissions"
    failure = case.find("failure")
    assert failure is not None
    assert failure.attrib["type"] == "permissions/AccessDenied"
    assert failure.attrib["message"].startswith("permission finding: s3.CopyObject needs")
    assert '"Resource": ["arn:aws:s3:::invoice-uploads/*"]' in failure.text
    assert case.attrib["file"].endswith("invoices/importer.py")
    assert case.attrib["line"] == str(COPY_LINE)
    root = ET.parse(leaky.junit).getroot()
    assert root.attrib["failures"] == root.find("testsuite").attrib["failures"] == "1"


def test_sarif_has_an_error_result_at_the_copy_line_under_the_permissions_rule(leaky):
    log = json.loads(leaky.sarif.read_text(encoding="utf-8"))
    jsonschema.validate(log, json.loads(SARIF_SCHEMA.read_text(encoding="utf-8")))
    (result,) = [r for r in leaky.sarif_results() if r["ruleId"].startswith("permissions/")]
    assert result["ruleId"] == "permissions/AccessDenied"
    assert result["level"] == "error"
    (location,) = result["locations"]
    physical = location["physicalLocation"]
    assert physical["artifactLocation"]["uri"].endswith("invoices/importer.py")
    assert physical["region"]["startLine"] == COPY_LINE
    assert _allowing(result["properties"]["evidence"]) == ALLOWING
    (rule,) = [r for r in log["runs"][0]["tool"]["driver"]["rules"] if r["id"] == result["ruleId"]]
    assert rule["defaultConfiguration"]["level"] == "error"


def test_the_html_report_has_a_permission_findings_section_with_the_evidence(leaky):
    html = render_report(leaky.out)
    assert "Permission findings (1)" in html
    assert "In production: AccessDenied (s3:PutObject on arn:aws:s3:::invoice-uploads/" in html


def test_repro_of_the_finding_shows_it_again_and_exits_1(leaky):
    (saved,) = leaky.files("permissions")
    result = CliRunner().invoke(cli, ["repro", str(saved)])
    assert exit_status(result) == 1, result.output
    assert "== deployment findings: 1" in result.output
    assert "permission finding: s3.CopyObject needs s3:PutObject on " in result.output
    assert f"  at: {WHERE}" in result.output
    assert "  A statement that would allow it:" in result.output
    assert "not found again" not in result.output


# ---------------------------------------------------------------- switched off, exact policy
def test_no_oracle_permissions_checks_no_call(tmp_path):
    off = fuzz(
        "invoice_import", tmp_path, execs=EXECS, seed=SEED, options=("--no-oracle", "permissions")
    )
    assert exit_status(off.result) == 0, off.result.output  # the finding was the only reason
    assert not (off.out / "permissions").exists()
    assert not (off.out / "permissions.json").exists()
    assert "permission finding" not in off.result.output
    assert "least privilege" not in off.result.output
    assert not [c for c in off.junit_cases() if c.attrib["classname"].endswith(".permissions")]


def test_exact_statements_give_no_finding_and_every_statement_used(exact):
    assert exit_status(exact.result) == 0, exact.result.output
    assert not (exact.out / "permissions").exists()
    assert "least privilege 4 of 4 Allow statements used by 400 tests" in exact.result.output
    statements = _statements(exact)
    assert set(statements["Policies[0] inline ReadUploads"]["used"]) == {"s3:GetObject"}
    assert set(statements["Policies[0] inline SetRejectedAside"]["used"]) == {"s3:PutObject"}
    assert set(statements["Policies[0] inline RecordInvoices"]["used"]) == {"dynamodb:PutItem"}
    for source, entry in statements.items():
        assert entry["unused"] is False and entry["unused_actions"] == [], source
    assert not [c for c in exact.junit_cases() if c.find("failure") is not None]


def test_the_oracle_changes_no_test_each_denied_copy_is_a_granted_one_with_exact_statements(
    leaky, exact
):
    # the emulator answers a denied call as any other: the same code and seed make the same
    # tests under either policy, so every test the finding counted made a copy the exact
    # statements grant
    (record,) = leaky.records("permissions")
    granted = _statements(exact)["Policies[0] inline SetRejectedAside"]["used"]["s3:PutObject"]
    assert record["hits"] == granted > 0
