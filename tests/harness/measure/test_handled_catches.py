"""Which caught exceptions are handled findings (lambdafuzz.harness.measure.handled), with the real
collector on real code: the rules in the module's docstring, one case each."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from lambdafuzz.harness.measure.coverage import BranchCollector

APP = Path(__file__).parent / "handledapp"


@pytest.fixture(scope="module")
def cases():
    sys.path.insert(0, str(APP))
    try:
        from caught import cases as module
    finally:
        sys.path.remove(str(APP))
    return module


def caught(cases, name: str, *args, tell_escaped: bool = True):
    collector = BranchCollector([APP / "caught"], handled=True)
    collector.start()
    try:
        collector.begin()
        escaped = None
        try:
            getattr(cases, name)(*args)
        except BaseException as exc:  # noqa: BLE001 - the test decides
            escaped = exc
        collector.end()
        assert collector.handled is not None
        return collector.handled.take(escaped if tell_escaped else None)
    finally:
        collector.stop()


def line_of(cases, name: str, text: str) -> int:
    import inspect

    lines, first = inspect.getsourcelines(getattr(cases, name))
    return first + next(i for i, line in enumerate(lines) if text in line)


@pytest.mark.parametrize(
    ("name", "args", "exception", "raised_text", "caught_text", "raised_in"),
    [
        ("builtin_in_app", ({},), "KeyError", 'd["missing"]', "except KeyError", "application"),
        ("in_helper", (), "ValueError", "int(text)", "except (TypeError", "application"),
        ("library_broad", (), "ValueError", "tools.convert", "except Exception", "library"),
        ("finally_only", (), "KeyError", 'TABLE["z"]', "except LookupError", "application"),
        ("unmatched_inner", (), "IndexError", "[][1]", "except IndexError", "application"),
        ("bare", (1,), "ZeroDivisionError", "d / 0", "except:", "application"),
    ],
)
def test_counted(cases, name, args, exception, raised_text, caught_text, raised_in):
    found = caught(cases, name, *args)
    assert len(found) == 1, found
    item = found[0]
    helper = "helper_raises" if name == "in_helper" else name
    assert item.info.exception_type == exception
    assert item.info.location == f"caught/cases.py:{line_of(cases, helper, raised_text)}"
    assert item.caught_at == f"caught/cases.py:{line_of(cases, name, caught_text)}"
    assert item.raised_in == raised_in
    assert item.info.signature.startswith(f"{exception} at caught/cases.py:")


@pytest.mark.parametrize(
    "name",
    [
        "own_raise",  # the application's own `raise`: validation it wrote
        "library_specific",  # a library's exception caught by name: control flow
        "library_json_specific",
        "library_catches_itself",  # caught in library code
        "suppressed",  # contextlib.suppress: a `with` exit, no except clause
        "iteration",  # StopIteration is protocol
    ],
)
def test_not_counted(cases, name):
    assert caught(cases, name) == ()


def test_an_exception_that_escapes_the_handler_is_a_failure_not_a_handled_finding(cases):
    assert len(caught(cases, "escapes", {}, tell_escaped=False)) == 1  # caught, then re-raised
    assert caught(cases, "escapes", {}) == ()


def test_own_assert_is_not_counted(cases):
    assert caught(cases, "own_assert", 0) == ()


def test_a_test_keeps_at_most_the_cap_and_one_per_signature(cases):
    from lambdafuzz.harness.measure.handled import MAX_EVENTS_PER_TEST

    collector = BranchCollector([APP / "caught"], handled=True)
    collector.start()
    try:
        collector.begin()
        for _ in range(MAX_EVENTS_PER_TEST * 3):
            cases.builtin_in_app({})
        assert collector.handled is not None
        assert len(collector.handled.events) == MAX_EVENTS_PER_TEST
        collector.end()
        assert len(collector.handled.take()) == 1
        collector.begin()  # a new test forgets the last one's catches
        assert collector.handled.take() == ()
    finally:
        collector.stop()


def test_an_aws_request_refused_as_malformed_counts_even_under_except_client_error(cases):
    import boto3
    from moto import mock_aws

    with mock_aws():
        dynamodb = boto3.resource("dynamodb", region_name="us-east-1")
        table = dynamodb.create_table(
            TableName="t",
            KeySchema=[
                {"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "sk", "KeyType": "RANGE"},
            ],
            AttributeDefinitions=[
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "S"},
            ],
            BillingMode="PAY_PER_REQUEST",
        )
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="files")
        rejected = caught(cases, "aws_rejected", table)
        missing = caught(cases, "aws_missing", s3)
    assert [item.info.exception_type for item in rejected] == ["botocore.exceptions.ClientError"]
    assert "ValidationException" in rejected[0].info.message
    assert rejected[0].raised_in == "library"
    assert rejected[0].info.location == (
        f"caught/cases.py:{line_of(cases, 'aws_rejected', 'table.put_item')}"
    )
    assert missing == ()  # a missing object under `except ClientError`: control flow
