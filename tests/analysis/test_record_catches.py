"""Which `except` clauses swallow a record's error (lambdafuzz.analysis.record_catches): a
catch-all that runs once per record of the batch and does not hand the record on; one
case each of the rules in the module's docstring, on modules written to tmp_path."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lambdafuzz.analysis.record_catches import RecordCatches, file_facts

HANDLER = """\
import json
import logging

import boto3

from app.process import process_order

log = logging.getLogger()
sqs = boto3.client("sqs")


def config():
    try:
        return json.loads(open("/opt/config.json").read())
    except Exception:  # MARK config
        return {}


def in_loop(event, context):
    for record in event["Records"]:
        try:
            json.loads(record["body"])
        except Exception:  # MARK in-loop
            log.exception("skipped")
    return {"batchItemFailures": []}


def bare_in_loop(event, context):
    for i, record in enumerate(event.get("Records", [])):
        try:
            json.loads(record["body"])
        except:  # noqa: E722  MARK bare
            pass


def specific(event, context):
    for record in event["Records"]:
        try:
            json.loads(record["body"])
        except json.JSONDecodeError:  # MARK specific
            log.warning("poison message dropped")


def tuple_broad(event, context):
    records = event["Records"]
    for record in records:
        try:
            json.loads(record["body"])
        except (
            KeyError,
            Exception,  # MARK tuple
        ):
            pass


def nested(event, context):
    for record in event["Records"]:
        for field in json.loads(record["body"]):
            try:
                int(field)
            except Exception:  # MARK nested
                pass


def dead_letter(event, context):
    for record in event["Records"]:
        try:
            json.loads(record["body"])
        except Exception:  # MARK dlq-send
            sqs.send_message(QueueUrl="dlq", MessageBody=record["body"])
        try:
            json.loads(record["body"])
        except Exception:  # MARK dlq-helper
            send_to_dlq(record)


def one_record(event, context):
    for line in event["Records"][0]["body"].splitlines():
        try:
            int(line)
        except Exception:  # MARK one-record
            pass


def powertools_style(event, context):
    for record in SQSEvent(event).records:
        try:
            json.loads(record.body)
        except Exception:  # MARK data-class
            pass


def calls(event, context):
    for record in event["Records"]:
        process_order(record)
        handle_here(record)
    return [check(r) for r in event["Records"]]


def handle_here(record):
    try:
        json.loads(record["body"])
    except Exception:  # MARK called-here
        pass


def check(record):
    try:
        return json.loads(record["body"])
    except Exception:  # MARK comprehension
        return None


def never_called(record):
    try:
        json.loads(record["body"])
    except Exception:  # MARK uncalled
        pass
"""

PROCESS = """\
import json


def process_order(record):
    try:
        json.loads(record["body"])
    except BaseException:  # MARK other-module
        pass


def other(record):
    try:
        json.loads(record["body"])
    except Exception:  # MARK other-uncalled
        pass
"""


@pytest.fixture
def app(tmp_path: Path) -> Path:
    package = tmp_path / "app"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "handler.py").write_text(HANDLER)
    (package / "process.py").write_text(PROCESS)
    return package


def site(app: Path, module: str, mark: str) -> str:
    lines = (app / f"{module}.py").read_text().splitlines()
    line = 1 + next(i for i, text in enumerate(lines) if f"MARK {mark}" in text)
    return f"app/{module}.py:{line}"


def except_site(app: Path, module: str, mark: str) -> str:
    """The line of the `except` keyword above a mark (the mark may sit on a later line of
    the clause's header)."""
    path, line = site(app, module, mark).rsplit(":", 1)
    lines = (app / f"{module}.py").read_text().splitlines()
    start = next(n for n in range(int(line), 0, -1) if "except" in lines[n - 1])
    return f"{path}:{start}"


@pytest.mark.parametrize(
    ("module", "mark"),
    [
        ("handler", "in-loop"),
        ("handler", "bare"),  # enumerate(event.get("Records", [])); a bare except
        ("handler", "tuple"),  # `records = event["Records"]`; a tuple holding Exception
        ("handler", "data-class"),  # SQSEvent(event).records
        ("handler", "called-here"),  # at the top of a function the record loop calls
        ("handler", "comprehension"),  # ... or a comprehension over the records calls
        ("process", "other-module"),  # in another module, called by the handler's loop
    ],
)
def test_a_catch_all_run_once_per_record_is_a_record_catch(app, module, mark):
    catches = RecordCatches([str(app)], app / "handler.py")
    assert except_site(app, module, mark) in catches


@pytest.mark.parametrize(
    ("module", "mark"),
    [
        ("handler", "config"),  # not about a record
        ("handler", "specific"),  # a poison message skipped on purpose
        ("handler", "nested"),  # one field of one record
        ("handler", "dlq-send"),  # handed on to a DLQ
        ("handler", "dlq-helper"),
        ("handler", "one-record"),  # event["Records"][0]: one record's lines
        ("handler", "uncalled"),
        ("process", "other-uncalled"),
    ],
)
def test_other_catches_are_not(app, module, mark):
    catches = RecordCatches([str(app)], app / "handler.py")
    assert except_site(app, module, mark) not in catches


def test_the_clause_is_found_by_any_line_of_its_header(app):
    catches = RecordCatches([str(app)])
    first = except_site(app, "handler", "tuple")
    path, line = first.rsplit(":", 1)
    assert f"{path}:{int(line) + 2}" in catches  # `Exception,` two lines below `except (`
    assert f"{path}:{int(line) + 4}" not in catches  # `pass`: no clause starts there


def test_without_the_handler_module_another_module_s_function_is_not_known(app):
    assert except_site(app, "process", "other-module") not in RecordCatches([str(app)])


@pytest.mark.parametrize(
    "caught_at",
    ["app/missing.py:3", "app/broken.py:3", "elsewhere/handler.py:22", "no line", 22],
)
def test_what_cannot_be_read_is_no_record_catch(app, caught_at):
    (app / "broken.py").write_text("def f(:\n    pass\n")
    assert caught_at not in RecordCatches([str(app)], app / "handler.py")


def test_each_file_is_read_once(app, monkeypatch):
    import lambdafuzz.analysis.record_catches as module

    calls = []
    real = module.file_facts
    monkeypatch.setattr(module, "file_facts", lambda s: calls.append(1) or real(s))
    catches = RecordCatches([str(app)], app / "handler.py")
    assert except_site(app, "handler", "in-loop") in catches
    assert except_site(app, "handler", "config") not in catches
    assert except_site(app, "process", "other-module") in catches  # + process, handler cached
    assert except_site(app, "handler", "in-loop") in catches
    assert len(calls) == 2


def test_file_facts_reads_a_method_s_loop_calls():
    facts = file_facts(
        textwrap.dedent(
            """\
            class Consumer:
                def handle(self, event):
                    for record in event["Records"]:
                        self.process(record)
            """
        )
    )
    assert facts.loop_calls == frozenset({"process"}) and facts.catches == ()
