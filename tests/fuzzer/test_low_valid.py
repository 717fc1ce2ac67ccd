"""The low-valid warning: what stops the inputs (`fuzzer.rejections`), the `outcomes` line to
paste (`report.rejections`), said once per campaign, and never for crashes alone."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from lambdafuzz.cli.main import cli
from lambdafuzz.fuzzer.rejections import CONFIGURED, Cause, Rejections, Stop
from lambdafuzz.fuzzer.stats import Stats
from lambdafuzz.generators.aws.delivery import FILTERED_OUT
from lambdafuzz.harness.process.protocol import TestResult
from lambdafuzz.model.outcome import FailureInfo, Status
from lambdafuzz.model.target import OutcomeRules
from lambdafuzz.report.rejections import is_low_valid, low_valid_warning, outcomes_line

SWALLOWED = Path(__file__).parent / "swallowed"
APP = """\
def check(body):
    if not body:
        raise ValueError("empty body")
    return int(body)


def refuse(body):
    raise errors.BadRequest(
        "no",
    )
"""


def failed(exception_type: str, location: str) -> TestResult:
    info = FailureInfo(exception_type, "message", "", location)
    return TestResult(Status.FAILURE, None, {}, failure=info)


def tally(tmp_path: Path, results: list[tuple[TestResult, int]]) -> tuple[Stop, ...]:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "h.py").write_text(APP)
    rejections = Rejections([str(tmp_path / "app")])
    for result, times in results:
        for _ in range(times):
            rejections.count(result)
    return rejections.top()


def test_a_failure_at_a_raise_of_its_type_is_raised_on_purpose_others_crash(tmp_path):
    stops = tally(
        tmp_path,
        [
            (failed("ValueError", "app/h.py:3"), 5),  # raise ValueError("empty body")
            (failed("ValueError", "app/h.py:4"), 3),  # int(body): a crash
            (failed("app.errors.BadRequest", "app/h.py:9"), 2),  # inside a multi-line raise
            (failed("KeyError", "app/h.py:8"), 1),  # the raise line, but not its type
        ],
    )
    assert [(s.cause, s.label, s.name, s.hits) for s in stops] == [
        (Cause.RAISED, "ValueError at app/h.py:3", "ValueError", 5),
        (Cause.CRASH, "ValueError at app/h.py:4", "", 3),
        (Cause.RAISED, "app.errors.BadRequest at app/h.py:9", "app.errors.BadRequest", 2),
        (Cause.CRASH, "KeyError at app/h.py:8", "", 1),
    ]


def test_rejections_and_returned_statuses_are_told_apart(tmp_path):
    status_400 = TestResult(
        Status.FAILURE, None, {}, failure=FailureInfo("Status400", "m", "", "", detail="{error}")
    )
    status_500 = TestResult(Status.FAILURE, None, {}, failure=FailureInfo("Status500", "m", "", ""))
    stops = tally(
        tmp_path,
        [
            (TestResult(Status.INVALID, None, {}), 4),  # a configured outcome
            (TestResult(Status.INVALID, None, {}, invalid_reason=FILTERED_OUT), 3),
            (status_400, 2),
            (status_500, 1),
        ],
    )
    assert [(s.cause, s.label, s.name, s.hits) for s in stops] == [
        (Cause.REJECTED, CONFIGURED, "", 4),
        (Cause.REJECTED, FILTERED_OUT, "", 3),
        (Cause.STATUS, "Status400 returned by the handler", "400", 2),
        (Cause.CRASH, "Status500 returned by the handler", "500", 1),
    ]


def stats(execs: int, valid: int, stops: list[Stop]) -> Stats:
    return Stats.from_json(
        {"execs": execs, "valid_execs": valid, "rejections": [s.to_json() for s in stops]}
    )


RAISED = Stop(Cause.RAISED, "ValueError at app/h.py:3", "ValueError", 250)
CRASH = Stop(Cause.CRASH, "ZeroDivisionError at app/h.py:9", "", 150)


def test_stats_json_keeps_the_stops():
    before = stats(300, 0, [RAISED, CRASH])
    again = Stats.from_json(json.loads(json.dumps(before.to_json())))
    assert again.rejections == (RAISED, CRASH)


def test_crashes_alone_do_not_warn_unless_one_stops_nearly_everything():
    crash = Stop(Cause.CRASH, "ZeroDivisionError at app/h.py:9", "", 180)
    other = Stop(Cause.CRASH, "ValueError at app/h.py:8", "", 120)
    assert not is_low_valid(stats(300, 0, [crash, other]))  # failures to fix, not setup
    assert is_low_valid(stats(300, 0, [Stop(Cause.CRASH, "KeyError at app/h.py:2", "", 290)]))
    assert is_low_valid(stats(400, 0, [RAISED, CRASH]))  # mostly rejections
    assert not is_low_valid(stats(199, 0, [RAISED]))  # too early to tell
    assert not is_low_valid(stats(400, 20, [RAISED]))  # 5% valid


def test_the_outcomes_line_keeps_what_the_config_had():
    status = Stop(Cause.STATUS, "Status422 returned by the handler", "422", 10)
    rules = OutcomeRules(
        invalid_status_codes=(400,), failure_status_codes=(422, 500), status_from="code"
    )
    assert outcomes_line((RAISED, status, CRASH), rules) == (
        "outcomes: {invalid: {exceptions: [ValueError], status_codes: [400, 422]}, "
        "failure: {status_codes: [500]}, status_from: code}"
    )
    assert outcomes_line((CRASH,), rules) == ""  # nothing raised on purpose: nothing to add
    declared = OutcomeRules(invalid_exceptions=("ValueError",))
    assert outcomes_line((RAISED,), declared) == ""


def test_the_warning_names_the_stops_with_their_share():
    lines = low_valid_warning(stats(400, 0, [RAISED, CRASH]))
    assert lines[0] == (
        "  warning [low-valid]: only 0.0% of inputs are valid after 400 executions; what stops "
        "the others:"
    )
    assert lines[1:3] == [
        "     62.5%  ValueError at app/h.py:3 (raised by the handler)",
        "     37.5%  ZeroDivisionError at app/h.py:9",
    ]
    assert "outcomes: {invalid: {exceptions: [ValueError]}}" in lines  # unindented: pasted


def fuzz(config: Path, out: Path, *args: str):
    return CliRunner().invoke(
        cli,
        ["fuzz", str(config), "--strategy", "zest", "--seed", "1", "--out", str(out), *args],
    )


def test_the_campaign_says_it_once_and_the_pasted_line_makes_them_rejections(tmp_path):
    result = fuzz(SWALLOWED / "always_fails.yaml", tmp_path / "out", "--execs", "250")
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit)
    out = result.output
    assert out.count("warning [low-valid]") == 1, out
    assert "100.0%  ValueError at swallowed/strict.py:14 (raised by the handler)" in out
    pasted = "outcomes: {invalid: {exceptions: [ValueError]}}"
    assert f"\n{pasted}\n" in out
    assert "always_fails.yaml (rejections, not failures, then):" in out

    config = tmp_path / "lambdafuzz.yaml"
    text = (SWALLOWED / "always_fails.yaml").read_text()
    config.write_text(text.replace("root: .", f"root: {SWALLOWED}") + pasted + "\n")
    again = fuzz(config, tmp_path / "again", "--execs", "250")
    assert again.exit_code == 0, again.output  # rejections are not failures
    assert f"100.0%  {CONFIGURED}" in again.output
    assert pasted not in again.output  # nothing left to declare
