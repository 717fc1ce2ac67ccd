"""The partial batch response oracle end to end (issue 40's acceptance), through the CLI.

The stock reservations of `apps/reservations` (an SQS queue of order lines, each recorded
as a reservation item keyed by its line id: a redelivery writes the same item, so the
idempotency oracle has nothing to say), deployed four ways:

* `reservations_wrong_id`: a hand-written response that reports a failed line under its
  `receiptHandle`: Lambda finds no such message and retries the whole batch (UNKNOWN_ID);
* `reservations_swallowed`: a catch-all that logs the line and reports success: Lambda
  deletes the message (SWALLOWED, at the catch);
* `reservations`: Powertools' `BatchProcessor` with `ReportBatchItemFailures`: no finding;
* `reservations_setting_off`: the same Powertools handler without the setting: Lambda
  ignores what it reports: the notice (once), no finding.

Seeded and bounded: 300 executions of seed 1; most generated lines are no valid order line
(a record is reported or swallowed in most tests) and a few are recorded."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import jsonschema
import pytest
from click.testing import CliRunner
from oracle_campaigns import APPS, SARIF_SCHEMA, Campaign, exit_status, fuzz, line_of

from lambdafuzz.cli.main import cli
from lambdafuzz.report.html import render_report

pytestmark = pytest.mark.slow

EXECS = 300
SEED = 1
CODE = APPS / "reservations" / "reservations"
CATCH_LINE = line_of(CODE / "swallowed.py", "except Exception:")
CAUGHT_AT = f"reservations/swallowed.py:{CATCH_LINE}"
RULE = "batch/PartialBatchResponse"


def _campaign(app: str, tmp_path_factory: pytest.TempPathFactory) -> Campaign:
    return fuzz(app, tmp_path_factory.mktemp(app), execs=EXECS, seed=SEED)


@pytest.fixture(scope="module")
def wrong_id(tmp_path_factory: pytest.TempPathFactory) -> Campaign:
    return _campaign("reservations_wrong_id", tmp_path_factory)


@pytest.fixture(scope="module")
def swallowed(tmp_path_factory: pytest.TempPathFactory) -> Campaign:
    return _campaign("reservations_swallowed", tmp_path_factory)


@pytest.fixture(scope="module")
def powertools(tmp_path_factory: pytest.TempPathFactory) -> Campaign:
    return _campaign("reservations", tmp_path_factory)


@pytest.fixture(scope="module")
def setting_off(tmp_path_factory: pytest.TempPathFactory) -> Campaign:
    return _campaign("reservations_setting_off", tmp_path_factory)


def _shown(evidence: str, head: str) -> str:
    (line,) = [line for line in evidence.splitlines() if line.startswith(head)]
    return line[len(head) :]


def _batch_case(campaign: Campaign) -> ET.Element:
    (case,) = [c for c in campaign.junit_cases() if c.attrib["classname"].endswith(".batch")]
    return case


def _batch_result(campaign: Campaign) -> dict:
    log = json.loads(campaign.sarif.read_text(encoding="utf-8"))
    jsonschema.validate(log, json.loads(SARIF_SCHEMA.read_text(encoding="utf-8")))
    (result,) = [r for r in campaign.sarif_results() if r["ruleId"].startswith("batch/")]
    return result


# ---------------------------------------------------------------- an identifier not in the batch
def test_a_receipt_handle_reported_for_a_failed_line_is_an_unknown_id_finding(wrong_id):
    assert exit_status(wrong_id.result) == 1, wrong_id.result.output
    assert not wrong_id.files("failures")  # the exit status is the finding's alone
    (record,) = wrong_id.records("batch")
    assert record["oracle"] == "batch"
    assert record["exception_type"] == "PartialBatchResponse"
    assert record["detail"] == "unknown-id"
    assert (
        "not the messageId of a record of the batch: Lambda fails the whole batch"
        in (record["message"])
    )
    batch = _shown(record["evidence"], "The batch (").split(": ", 1)[1].split(", ")
    response = json.loads(_shown(record["evidence"], "The response: "))
    reported = [item["itemIdentifier"] for item in response["batchItemFailures"]]
    assert reported and not set(reported) & set(batch)
    assert "batch           1 batch finding (" in wrong_id.result.output


def test_junit_and_sarif_have_the_unknown_id_finding_under_the_batch_names(wrong_id):
    case = _batch_case(wrong_id)
    assert case.attrib["classname"] == "lambdafuzz.reservations.wrong_id.handler.batch"
    failure = case.find("failure")
    assert failure is not None and failure.attrib["type"] == RULE
    assert failure.attrib["message"].startswith("batch finding: batchItemFailures reports ")
    result = _batch_result(wrong_id)
    assert (result["ruleId"], result["level"]) == (RULE, "error")
    # the response is the handler's as a whole: it is placed at the handler's definition
    (location,) = result["locations"]
    physical = location["physicalLocation"]
    assert physical["artifactLocation"]["uri"].endswith("reservations/wrong_id.py")
    assert physical["region"]["startLine"] == line_of(CODE / "wrong_id.py", "def handler(")


def test_repro_of_the_unknown_id_finding_shows_the_receipt_handle_reported(wrong_id):
    (saved,) = wrong_id.files("batch")
    result = CliRunner().invoke(cli, ["repro", str(saved)])
    assert exit_status(result) == 1, result.output
    output = result.output
    assert "== deployment findings: 1" in output
    assert "batch finding: batchItemFailures reports " in output
    event = json.loads(output.split("== event\n", 1)[1].split("== log\n", 1)[0])
    response = json.loads(_shown(output, "  The response: "))
    reported = {item["itemIdentifier"] for item in response["batchItemFailures"]}
    handles = {record["receiptHandle"] for record in event["Records"]}
    assert reported and reported <= handles  # the bug: receiptHandle, not messageId


# ---------------------------------------------------------------- an error swallowed
def test_a_catch_all_that_reports_success_is_a_swallowed_finding_at_the_catch(swallowed):
    assert exit_status(swallowed.result) == 1, swallowed.result.output
    assert not swallowed.files("failures")
    (record,) = swallowed.records("batch")
    assert record["detail"] == "swallowed"
    assert record["location"] == CAUGHT_AT
    assert f"was caught at {CAUGHT_AT} while the batch was processed" in record["message"]
    assert "the response reports no failure: Lambda deletes" in record["message"]
    assert _shown(record["evidence"], "The response: ") == '{"batchItemFailures": []}'
    assert _shown(record["evidence"], f"Caught at {CAUGHT_AT}: ") == record["shape"]
    assert record["shape"]  # the type caught


def test_junit_sarif_and_html_have_the_swallowed_finding_at_the_catch_line(swallowed):
    case = _batch_case(swallowed)
    assert case.attrib["classname"] == "lambdafuzz.reservations.swallowed.handler.batch"
    assert case.find("failure").attrib["type"] == RULE
    assert case.attrib["line"] == str(CATCH_LINE)
    result = _batch_result(swallowed)
    assert (result["ruleId"], result["level"]) == (RULE, "error")
    physical = result["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"]["uri"].endswith("reservations/swallowed.py")
    assert physical["region"]["startLine"] == CATCH_LINE
    html = render_report(swallowed.out)
    assert "Batch findings (1)" in html
    assert "The response: {&quot;batchItemFailures&quot;: []}" in html


def test_repro_of_the_swallowed_finding_shows_it_again(swallowed):
    (saved,) = swallowed.files("batch")
    result = CliRunner().invoke(cli, ["repro", str(saved)])
    assert exit_status(result) == 1, result.output
    assert f"  at: {CAUGHT_AT}" in result.output
    assert "not found again" not in result.output


# ---------------------------------------------------------------- correct, and setting off
def test_a_powertools_batch_processor_gives_no_finding(powertools, setting_off):
    assert exit_status(powertools.result) == 0, powertools.result.output
    assert not (powertools.out / "batch").exists()
    assert not powertools.files("failures")
    assert "batch finding" not in powertools.result.output
    assert not [c for c in powertools.junit_cases() if c.find("failure") is not None]
    # not for want of failed lines: the same handler and seed without the setting returns
    # batchItemFailures (the notice below), and with it lines are recorded at times
    assert "[batch-ignored]" in setting_off.result.stderr
    report = json.loads((powertools.out / "permissions.json").read_text(encoding="utf-8"))
    used = {a for s in report["statements"] for a in s["used"]}
    assert "dynamodb:PutItem" in used


def test_batch_item_failures_without_the_setting_is_a_notice_said_once_not_a_finding(
    setting_off,
):
    assert exit_status(setting_off.result) == 0, setting_off.result.output
    assert not (setting_off.out / "batch").exists()
    stderr = setting_off.result.stderr
    assert stderr.count("[batch-ignored]") == 1, stderr
    assert "the function returns batchItemFailures (" in stderr
    assert "has no FunctionResponseTypes: [ReportBatchItemFailures]: Lambda ignores" in stderr
    assert not [c for c in setting_off.junit_cases() if c.find("failure") is not None]


def test_no_oracle_batch_checks_no_response(tmp_path):
    off = fuzz(
        "reservations_swallowed", tmp_path, execs=EXECS, seed=SEED, options=("--no-oracle", "batch")
    )
    assert exit_status(off.result) == 0, off.result.output
    assert not (off.out / "batch").exists()
    assert "batch finding" not in off.result.output
