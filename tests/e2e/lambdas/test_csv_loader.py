"""Crafted worlds for the csv_loader benchmark: one test per arm of its decision points."""

from __future__ import annotations

import gzip
import logging
from collections.abc import Callable
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from csv_loader import handler

BUCKET = "csv-uploads"
TABLE = "csv-records"
KEY = "exports/prices.csv.gz"

EventT = Callable[..., dict[str, Any]]


@pytest.fixture
def world(aws: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The bucket and the (Id S, Date N) table, with TABLE_NAME pointing at it."""
    monkeypatch.setenv("TABLE_NAME", TABLE)
    aws.s3.create_bucket(Bucket=BUCKET)
    aws.create_table(TABLE, ("Id", "S"), ("Date", "N"))
    return aws


def run(world: Any, s3_event: EventT, body: bytes, key: str = KEY) -> dict[str, Any]:
    world.s3.put_object(Bucket=BUCKET, Key=key, Body=body)
    return handler.lambda_handler(s3_event(BUCKET, key), None)


def stored(world: Any) -> set[tuple[str, int]]:
    items = world.dynamodb.scan(TableName=TABLE)["Items"]
    return {(item["Id"]["S"], int(item["Date"]["N"])) for item in items}


def gz(text: str) -> bytes:
    return gzip.compress(text.encode("utf-8"), mtime=0)


def test_rows_become_items_and_status_is_true(world: Any, s3_event: EventT) -> None:
    body = gz("AAPL,2020-01-02\nMSFT,1970-01-01\n")
    report = run(world, s3_event, body)
    assert report["status"] is True
    assert report["file_size"] == len(body)
    assert report["execution_time"] >= 0
    assert stored(world) == {("AAPL", 1577923200), ("MSFT", 0)}


def test_a_date_prefix_is_enough(world: Any, s3_event: EventT) -> None:
    report = run(world, s3_event, gz("X,2020-01-02T23:59:59Z,extra\n"))
    assert report["status"] is True
    assert stored(world) == {("X", 1577923200)}


def test_key_is_url_decoded(world: Any, s3_event: EventT) -> None:
    report = run(world, s3_event, gz("A,2001-09-09\n"), key="my exports/100% done.csv.gz")
    assert report["status"] is True
    assert stored(world) == {("A", 1000000000 - 6400)}


def test_gzip_of_nothing_loads_zero_rows(world: Any, s3_event: EventT) -> None:
    report = run(world, s3_event, gz(""))
    assert report["status"] is True
    assert stored(world) == set()


def test_more_than_one_batch(world: Any, s3_event: EventT) -> None:
    rows = "".join(f"id{n},2021-03-{n % 28 + 1:02d}\n" for n in range(60))
    report = run(world, s3_event, gz(rows))
    assert report["status"] is True
    assert len(stored(world)) == 60


def test_unprocessed_items_are_resent(
    world: Any, s3_event: EventT, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DynamoDB may leave part of a batch unprocessed; moto never does, so inject it once."""
    calls: list[int] = []
    leftover = {"PutRequest": {"Item": {"Id": {"S": "B"}, "Date": {"N": "86400"}}}}

    def throttle_once(parsed: dict[str, Any], **_: Any) -> None:
        calls.append(1)
        if len(calls) == 1:
            parsed["UnprocessedItems"] = {TABLE: [leftover]}

    real_client = boto3.client

    def client(service: str, *args: Any, **kwargs: Any) -> Any:
        made = real_client(service, *args, **kwargs)
        if service == "dynamodb":
            made.meta.events.register("after-call.dynamodb.BatchWriteItem", throttle_once)
        return made

    monkeypatch.setattr(boto3, "client", client)
    report = run(world, s3_event, gz("A,1970-01-01\nB,1970-01-02\n"))
    assert report["status"] is True
    assert len(calls) == 2
    assert stored(world) == {("A", 0), ("B", 86400)}


@pytest.mark.parametrize(
    ("body", "error"),
    [
        pytest.param(b"", ValueError, id="empty-object"),
        pytest.param(b"Id,Date\nA,2020-01-01\n", gzip.BadGzipFile, id="not-gzip"),
        pytest.param(gzip.compress(b"A,2020-01-01\n")[:-6], EOFError, id="truncated-gzip"),
        pytest.param(gzip.compress(b"\xff\xfe,2020-01-01\n"), UnicodeDecodeError, id="not-utf8"),
        pytest.param(gz("A,2020-01-01\nB\n"), ValueError, id="missing-column"),
        pytest.param(gz("A,2020-01-01\n\nB,2020-01-02\n"), ValueError, id="blank-line"),
        pytest.param(gz("A,01/02/2020\n"), ValueError, id="bad-date"),
        pytest.param(gz("A,2020-13-01\n"), ValueError, id="impossible-date"),
        pytest.param(gz(",2020-01-01\n"), ClientError, id="empty-id"),
        pytest.param(
            gz("A,2020-01-01\nA,2020-01-01T10:00\n"), ClientError, id="duplicate-in-batch"
        ),
    ],
)
def test_any_error_gives_status_false(
    world: Any, s3_event: EventT, caplog: pytest.LogCaptureFixture, body: bytes, error: type
) -> None:
    with caplog.at_level(logging.ERROR, logger=handler.__name__):
        report = run(world, s3_event, body)
    assert report["status"] is False
    assert report["file_size"] == len(body)
    assert stored(world) == set()
    [record] = [r for r in caplog.records if r.exc_info]
    assert isinstance(record.exc_info[1], error)


def test_missing_object_gives_status_false(world: Any, s3_event: EventT) -> None:
    report = handler.lambda_handler(s3_event(BUCKET, "nowhere.csv.gz"), None)
    assert report == {"status": False, "file_size": 0, "execution_time": report["execution_time"]}


def test_error_in_a_later_batch_keeps_earlier_batches(world: Any, s3_event: EventT) -> None:
    """Rows are all parsed first, but batches are written one by one."""
    rows = "".join(f"id{n},2021-01-01\n" for n in range(25)) + ",2021-01-01\n"
    report = run(world, s3_event, gz(rows))
    assert report["status"] is False
    assert len(stored(world)) == 25
