"""What handlers print and log is captured per test, bounded, saved with failures and shown
by repro, the report and the pytest plugin; failures without an application frame say so.

The handlers are in tests/harness/measure/logging_app/ (an order import that logs, then fails).
"""

from __future__ import annotations

import dataclasses
import html
import json
import mmap
import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from lambdafuzz.cli.main import cli
from lambdafuzz.config import load_config
from lambdafuzz.fuzzer.corpus import SavedInput, load_input, save_input
from lambdafuzz.fuzzer.engine import Engine
from lambdafuzz.fuzzer.options import CampaignOptions
from lambdafuzz.generators.core import ChoiceSequence, ReplayMode
from lambdafuzz.harness.measure.handler_output import LOG_LIMIT, HandlerOutput, ring_text
from lambdafuzz.harness.process.protocol import TestRequest, WorkerSpec
from lambdafuzz.harness.process.worker import Worker
from lambdafuzz.model.outcome import FailureInfo, Status
from lambdafuzz.report.ci_outputs import junit_tree, sarif_log
from lambdafuzz.report.html import render_report

HERE = Path(__file__).parent / "logging_app"
SOURCE = HERE / "orders" / "handler.py"
MIDDLEWARE = HERE / "middleware" / "__init__.py"

pytest_plugins = ["pytester"]

#: One line of the Lambda runtime's log format: level, UTC time, request id, message.
LOG_LINE = r"\[{level}\]\t\d{{4}}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{{3}}Z\t[0-9a-f-]{{36}}\t{message}"


def at(marker: str, source: Path = SOURCE) -> int:
    for number, line in enumerate(source.read_text().splitlines(), 1):
        if line.rstrip().endswith(f"# LOGGING_APP:{marker}"):
            return number
    raise AssertionError(f"no line marked {marker}")


def target(function: str):
    return dataclasses.replace(load_config(HERE / "lambdafuzz.yaml"), handler_function=function)


def campaign(out: Path, function: str, execs: int = 3, config: str = "") -> Engine:
    """A short campaign; `config`: a file of its own (repro reads the handler from it)."""
    chosen = load_config(HERE / config) if config else target(function)
    options = CampaignOptions(
        target=chosen, out_dir=out, seed=1, max_execs=execs, stability_check=False
    )
    engine = Engine(options)
    events = list(engine.run())
    assert events[-1].stats.execs == execs
    return engine


def _plugin_args() -> list[str]:
    """`-p lambdafuzz.pytest_plugin` unless its entry point is installed (it is with -e .)."""
    from importlib.metadata import entry_points

    installed = any(ep.name == "lambdafuzz" for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "lambdafuzz.pytest_plugin"]


def request(seed: int, *, want_log: bool = False) -> TestRequest:
    return TestRequest({}, seed, ReplayMode.EXECUTION_INDEXED, want_log=want_log)


@pytest.fixture(scope="module")
def logged_failure(tmp_path_factory) -> tuple[Path, Path]:
    """A campaign of the order import: uploads fail after a print and two log records."""
    out = tmp_path_factory.mktemp("logged") / "out"
    engine = campaign(out, "lambda_handler")
    record = engine.failures[
        f"ValueError at orders/handler.py:{at('raise')}: unsupported upload '…'"
    ]
    return out, out / "failures" / record.file_name


def _assert_handler_lines(text: str) -> None:
    """The print, then the INFO and ERROR records of `lambda_handler`, in that order."""
    lines = text.splitlines()
    started = next(i for i, line in enumerate(lines) if line.startswith("import started for s3://"))
    info = next(
        i
        for i, line in enumerate(lines)
        if re.fullmatch(
            LOG_LINE.format(level="INFO", message=r"read \d+ bytes from incoming/.*"), line
        )
    )
    error = next(
        i
        for i, line in enumerate(lines)
        if re.fullmatch(
            LOG_LINE.format(
                level="ERROR",
                message=r"upload incoming/\S+ is not an order manifest \(starts with .*\)",
            ),
            line,
        )
    )
    assert started < info < error, text


# ------------------------------------------------------------------ saved, repro, report, pytest
def test_the_saved_failure_carries_what_the_handler_printed_and_logged(logged_failure):
    _, path = logged_failure
    data = json.loads(path.read_text())
    _assert_handler_lines(data["log"])
    assert load_input(path).log == data["log"]


def test_repro_shows_the_print_and_log_lines_before_the_traceback(logged_failure):
    _, path = logged_failure
    result = CliRunner().invoke(cli, ["repro", str(path)])
    assert result.exit_code == 1, result.output
    before, _, log_and_after = result.output.partition("\n== log\n")
    log, _, outcome = log_and_after.partition("== outcome: FAILURE\n")
    assert before.startswith("== world") and "== event" in before
    _assert_handler_lines(log)
    assert "Traceback (most recent call last)" in outcome
    assert "ValueError: unsupported upload" in outcome
    assert "where:" not in outcome  # the signature names the application frame already


def test_the_report_shows_the_saved_log_escaped_in_the_failure_section(logged_failure):
    out, path = logged_failure
    page = render_report(out)
    section = page[page.index("<section class='failure'") :]
    section = section[: section.index("</section>")]
    assert "Log (stdout, stderr and log records of the saved run)" in section
    assert "import started for s3://uploads/incoming/" in section
    assert re.search(r"\[ERROR\]\t\S+\t[0-9a-f-]{36}\tupload incoming/\S+ is not an order", section)
    assert "starts with &#x27;" in section  # the repr's quotes, escaped
    assert f"Where: <a href='#orders/handler.py-L{at('raise')}'>" in section


def test_the_pytest_plugin_shows_the_replayed_log(logged_failure, pytester):
    out, _ = logged_failure
    shutil.copytree(out, pytester.path / "out")
    result = pytester.runpytest(*_plugin_args(), "--lambdafuzz-corpus", "out")
    result.assert_outcomes(failed=len(list((out / "failures").glob("*.json"))), passed=1)
    (message,) = [
        block
        # Before the short summary, which repeats each message in full when CI is set.
        for block in result.stdout.str()
        .partition("short test summary info")[0]
        .split("saved failure still fails")
        if "saved:    ValueError" in block
    ]
    log = message[message.index("Log (what the handler printed and logged):") :]
    _assert_handler_lines(log[: log.index("World (the AWS state")])


def test_a_failing_fuzz_test_shows_the_log_in_its_falsifying_example(pytester):
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.lambdafuzz({str(HERE / "lambdafuzz.yaml")!r}, execs=3, seed=1)
        def test_import_never_fails(lambdafuzz_fuzz):
            assert lambdafuzz_fuzz().stats.unique_failures == 0
        """
    )
    result = pytester.runpytest(*_plugin_args())
    result.assert_outcomes(failed=1)
    (example,) = [
        block
        for block in result.stdout.str()
        .partition("short test summary info")[0]
        .split("Falsifying example: ")
        if block.startswith("ValueError at orders/handler.py")
    ]
    log = example[example.index("Log (what the handler printed and logged):") :]
    _assert_handler_lines(log[: log.index("World (the AWS state")])


# ------------------------------------------------------------------ bounded, survivable
def test_a_handler_printing_50_mb_still_runs_and_its_saved_log_is_bounded(tmp_path):
    engine = campaign(tmp_path / "out", "floods_then_fails", execs=2)
    (record,) = engine.failures.values()
    assert record.signature == f"RuntimeError at orders/handler.py:{at('flood_raise')}: flooded"
    assert record.hits == 2 and engine.stats().worker_restarts == 0
    log = json.loads((engine.out.failures_dir / record.file_name).read_text())["log"]
    note, _, kept = log.partition("\n")
    dropped = int(re.fullmatch(r"\[lambdafuzz: (\d+) earlier bytes dropped; .*\]", note)[1])
    written = 50 * 1024 * 1024 + len("last words before the failure\n")
    assert dropped + len(kept.encode()) == written  # nothing lost but what was dropped
    assert len(kept.encode()) <= LOG_LIMIT
    assert kept.endswith("x\nlast words before the failure\n")
    assert kept.startswith("x" * 1023 + "\n")  # from a whole line on


def test_output_of_a_worker_that_exits_or_hangs_is_read_from_its_ring():
    for function, status, expected in [
        (
            "logs_then_exits",
            Status.FAILURE,
            ["about to leave without a word to the runtime", "ERROR"],
        ),
        ("logs_then_hangs", Status.HANG, ["WARNING", "waiting for a lock that never frees"]),
    ]:
        worker = Worker(WorkerSpec(target=target(function)))
        try:
            result = worker.run(request(1))
        finally:
            worker.close()
        assert result.status is status, result.failure
        for text in expected:
            assert text in result.log, (function, result.log)


def test_passing_tests_send_their_output_back_only_when_asked():
    worker = Worker(WorkerSpec(target=target("prints_and_returns")))
    try:
        quiet = worker.run(request(1))
        asked = worker.run(request(2, want_log=True))
    finally:
        worker.close()
    assert quiet.status is asked.status is Status.VALID
    assert quiet.log == ""
    first, second = asked.log.splitlines()
    assert first == "hello from a passing test"
    request_id = "00000000-0000-4000-8000-000000000002"  # request_id_for(seed 2)
    assert re.fullmatch(LOG_LINE.format(level="WARNING", message="root logger warning"), second)
    assert f"\t{request_id}\t" in second


# ------------------------------------------------------------------ no application frame
def test_a_failure_without_an_application_frame_is_labelled_everywhere(tmp_path):
    out = tmp_path / "out"
    engine = campaign(out, "validated_handler", config="validated.yaml")
    (record,) = engine.failures.values()
    line = next(
        n
        for n, text in enumerate(MIDDLEWARE.read_text().splitlines(), 1)
        if "raise EventValidationError" in text
    )
    assert record.signature == (
        "middleware.EventValidationError at no application frame; innermost frame "
        "middleware/__init__.py in wrapper: invalid event: KeyError"
    )
    where = f"no application frame; innermost frame middleware/__init__.py:{line} in wrapper"
    assert record.info.where == where
    path = out / "failures" / record.file_name

    result = CliRunner().invoke(cli, ["repro", str(path)])
    assert result.exit_code == 1, result.output
    assert f"failure: {record.signature}\nwhere: {where}\n" in result.output

    page = render_report(out)
    assert f"Where: <code>{where}</code>" in page
    assert " at ?" not in page

    (sarif_result,) = sarif_log(out, load_config(HERE / "validated.yaml"))["runs"][0]["results"]
    assert sarif_result["message"]["text"].startswith(
        f"middleware.EventValidationError at {where}: invalid event: KeyError"
    )
    # placed at the handler's definition, the application's entry to the failing call
    location = sarif_result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"].endswith("orders/handler.py")


def test_library_frames_are_keyed_by_file_and_function_not_line():
    def info(location: str) -> FailureInfo:
        return FailureInfo("KeyError", "'x'", "", location)

    one, other_line = info("botocore/x.py:10 in f"), info("botocore/x.py:99 in f")
    assert (
        one.signature
        == other_line.signature
        == ("KeyError at no application frame; innermost frame botocore/x.py in f")
    )
    assert one.where == "no application frame; innermost frame botocore/x.py:10 in f"
    assert info("botocore/x.py:10 in g").signature != one.signature
    assert not one.in_app and info("app/h.py:12").in_app
    assert info("app/h.py:12").signature == "KeyError at app/h.py:12"  # unchanged
    assert FailureInfo("Status500", "", "", "", detail="text").signature == (
        "Status500 text returned by the handler"
    )


def test_a_dump_without_application_frames_is_located_at_its_innermost_frame():
    import threading as threading_module

    from lambdafuzz.harness.process.worker_faults import parse_fault

    lib = threading_module.__file__
    dump = (
        "Fatal Python error: Segmentation fault\n\n"
        "Current thread 0x00007f00000000bb (most recent call first):\n"
        f'  File "{lib}", line 359 in wait\n'
        f'  File "{lib}", line 1012 in _bootstrap\n'
    )
    fault = parse_fault(dump, [str(HERE / "orders")])
    assert fault.location == "threading.py:359 in wait"
    info = FailureInfo("WorkerDied", "worker died", "", fault.location, detail="SIGSEGV")
    assert info.signature == (
        "WorkerDied SIGSEGV at no application frame; innermost frame threading.py in wait"
    )


# ------------------------------------------------------------------ the ring and the file
def test_the_ring_keeps_the_last_bytes_from_a_whole_line_with_a_note():
    ring = bytearray(LOG_LIMIT)
    written = b"".join(b"line %05d\n" % i for i in range(10_000))  # 100,000 bytes
    for i, byte in enumerate(written):
        ring[i % LOG_LIMIT] = byte
    text = ring_text(bytes(ring), len(written))
    note, _, kept = text.partition("\n")
    assert kept.endswith("line 09999\n") and kept.startswith("line ")
    assert len(kept) <= LOG_LIMIT
    assert note == (
        f"[lambdafuzz: {len(written) - len(kept)} earlier bytes dropped; "
        "the last 64 KB of the test's output are kept]"
    )
    raw = b"a\x1b[31mred\r\nb\x00\n"
    assert ring_text(raw.ljust(LOG_LIMIT, b"\0"), len(raw)) == (
        "a\\x1b[31mred\nb\\x00\n"  # nothing that acts on a terminal
    )


def test_the_log_field_round_trips_and_is_omitted_when_empty(tmp_path):
    sequence = ChoiceSequence.from_json([])
    base = SavedInput("x", sequence, 1, ReplayMode.LINEAR, "FAILURE", "")
    save_input(tmp_path / "a.json", dataclasses.replace(base, log="one\ntwo\n"))
    save_input(tmp_path / "b.json", base)
    assert load_input(tmp_path / "a.json").log == "one\ntwo\n"
    assert "log" not in json.loads((tmp_path / "b.json").read_text())
    assert load_input(tmp_path / "b.json").log == ""


def test_output_written_before_a_test_begins_is_not_that_tests():
    """A thread an earlier test left printing: what it wrote before the next test began is
    dropped at that test's start."""
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    output = HandlerOutput(mmap.mmap(-1, 8 + LOG_LIMIT), read_end, write_end)
    try:
        os.write(write_end, b"left over\n")
        output.begin("id")
        os.write(write_end, b"this test\n")
        output.end()
        assert output.text() == "this test\n"
    finally:
        os.close(read_end)
        os.close(write_end)


# ------------------------------------------------------------------ missing objects
def test_without_missing_objects_no_failure_is_a_missing_object(tmp_path):
    engine = campaign(tmp_path / "out", "decoded_handler", execs=120)
    assert engine.failures  # the planted ValueError
    assert not any("NoSuchKey" in signature for signature in engine.failures)
    assert not any(r.world_inconsistency for r in engine.failures.values())


def test_a_failure_on_a_missing_object_is_labelled_a_world_inconsistency(tmp_path):
    out = tmp_path / "out"
    engine = campaign(out, "decoded_handler", execs=200, config="missing_objects.yaml")
    missing = [r for s, r in engine.failures.items() if "NoSuchKey" in s]
    assert len(missing) == 1, sorted(engine.failures)
    record = missing[0]
    assert record.world_inconsistency.startswith(
        "world inconsistency: the event names s3://uploads/"
    )
    others = [r for s, r in engine.failures.items() if "NoSuchKey" not in s]
    assert others and not any(r.world_inconsistency for r in others)  # the planted bug
    saved = json.loads((out / "failures" / record.file_name).read_text())
    assert saved["failure"]["world_inconsistency"] == record.world_inconsistency
    result = CliRunner().invoke(cli, ["repro", str(out / "failures" / record.file_name)])
    assert result.exit_code == 1, result.output
    assert record.world_inconsistency in result.output
    assert html.escape(record.world_inconsistency, quote=True) in render_report(out)
    results = sarif_log(out, load_config(HERE / "missing_objects.yaml"))["runs"][0]["results"]
    labelled = [r for r in results if "world inconsistency" in r["message"]["text"]]
    assert len(labelled) == 1 and "NoSuchKey" in labelled[0]["message"]["text"]
    texts = [f.text or "" for f in junit_tree(out).getroot().iter("failure")]
    assert sum(record.world_inconsistency in t for t in texts) == 1
